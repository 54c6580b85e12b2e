"""Output paths checked before any work: a one-line ``CliError`` instead of a late traceback.

Flink's counterpart in spirit: ``CliFrontend`` validates its options before running the program.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from pyflowkit.cli.errors import CliError


def _nearest_existing(path: Path) -> Path:
    for parent in path.parents:
        if parent.exists():
            return parent
    return Path(".")


def _accepts_new_files(directory: Path) -> str | None:
    """Why ``directory`` cannot hold a new file (None when it can): probed by creating one."""
    try:
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".pyflowkit-probe-"):
            return None
    except OSError as exc:
        return exc.strerror or str(exc)


def check_output_file(raw: str, flag: str = "-o") -> Path:
    """``raw`` names a file that can be written (its directory may still have to be created)."""
    if raw.endswith(("/", os.sep)):
        raise CliError(f"{flag} {raw}: ends with '/', so it names a directory; give a file name")
    path = Path(raw)
    if path.is_dir():
        raise CliError(f"{flag} {raw}: is a directory; give a file name")
    if path.exists():
        if not path.is_file():
            raise CliError(f"{flag} {raw}: exists and is not a regular file")
        try:
            with path.open("r+b"):
                return path
        except OSError as exc:
            raise CliError(f"{flag} {raw}: cannot be written ({exc.strerror or exc})") from None
    return _check_directory_for(path.parent, raw, flag)


def check_output_directory(raw: str, flag: str) -> Path:
    """``raw`` is, or can become, a directory that accepts new files."""
    path = Path(raw)
    if path.exists() and not path.is_dir():
        raise CliError(f"{flag} {raw}: exists and is not a directory")
    if path.is_dir():
        why = _accepts_new_files(path)
        if why is not None:
            raise CliError(f"{flag} {raw}: cannot create files there ({why})")
        return path
    _check_directory_for(path, raw, flag)
    return path


def _check_directory_for(directory: Path, raw: str, flag: str) -> Path:
    existing = directory if directory.exists() else _nearest_existing(directory)
    if not existing.is_dir():
        raise CliError(f"{flag} {raw}: {existing} is not a directory")
    why = _accepts_new_files(existing)
    if why is not None:
        raise CliError(f"{flag} {raw}: cannot create files in {existing} ({why})")
    return Path(raw)
