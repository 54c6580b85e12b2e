"""Python dependencies of a job: files, archives, requirements, interpreter, cached files.

Flink's ``PythonOptions`` (``python.files``, ``python.archives``, ``python.requirements``,
``python.executable``) and ``PipelineOptions.CACHED_FILES`` with ``PythonDependencyUtils``'
formats. The simulated cluster runs user functions in this process, so ``LocalDependencies``
makes them real here (importable files, extracted archives, checked requirements); the Spark
executor ships them with ``addPyFile`` / ``addFile`` / ``spark.archives`` / ``spark.pyspark.python``.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass, field
from importlib import metadata

from pyflowkit.errors import IllegalArgumentException, UnsupportedOperationException

PYTHON_FILES = "python.files"
PYTHON_ARCHIVES = "python.archives"
PYTHON_REQUIREMENTS = "python.requirements"
PYTHON_EXECUTABLE = "python.executable"
CACHED_FILES = "pipeline.cached-files"
FILE_DELIMITER = ","  # PythonDependencyUtils.FILE_DELIMITER
PARAM_DELIMITER = "#"  # PythonDependencyUtils.PARAM_DELIMITER


def existing_path(path: str, method: str) -> str:
    """``path`` as an absolute path, or a clear error naming ``method`` if it does not exist."""
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise IllegalArgumentException(f"{method}: needs a path, got {path!r}.")
    full = os.path.abspath(os.fspath(path))
    if not os.path.exists(full):
        raise IllegalArgumentException(f"{method}: {path!r} does not exist.")
    return full


def split_list(value: str | None, delimiter: str = FILE_DELIMITER) -> list[str]:
    return [v for v in (value or "").split(delimiter) if v]


def cached_files(value: str | None) -> dict[str, tuple[str, bool]]:
    """``pipeline.cached-files`` (``name:n,path:p,executable:b`` entries joined by ``;``) as
    name → (path, executable)."""
    out: dict[str, tuple[str, bool]] = {}
    for entry in split_list(value, ";"):
        fields = dict(part.split(":", 1) for part in entry.split(",") if ":" in part)
        out[fields["name"]] = (fields["path"], fields.get("executable", "false") == "true")
    return out


def cached_file_entry(name: str, path: str, executable: bool) -> str:
    return f"name:{name},path:{path},executable:{str(bool(executable)).lower()}"


_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(.*?)\s*$")


def unmet_requirements(requirements_file: str) -> list[str]:
    """The lines of a requirements file this interpreter does not satisfy (name missing, or an
    ``==`` pin of another version); options, URLs and markers are not checked."""
    unmet = []
    with open(requirements_file, encoding="UTF-8") as f:
        for raw in f:
            line = raw.split("#", 1)[0].strip()
            if not line or line.startswith("-") or "://" in line or ";" in line:
                continue
            m = _REQUIREMENT.match(line)
            if m is None:
                continue
            name, spec = m.group(1), m.group(2)
            try:
                installed = metadata.version(name)
            except metadata.PackageNotFoundError:
                unmet.append(f"{line} (not installed)")
                continue
            if spec.startswith("==") and spec[2:].strip() != installed:
                unmet.append(f"{line} (installed: {installed})")
    return unmet


def same_interpreter(python_exec: str) -> bool:
    """Whether ``python_exec`` (a path or a name on PATH) is this process' interpreter."""
    found = shutil.which(python_exec) or python_exec
    try:
        return os.path.samefile(os.path.realpath(found), os.path.realpath(sys.executable))
    except OSError:
        return False


def extract_archive(archive: str, target: str) -> None:
    """Unpack a zip or tar archive into ``target`` (Flink extracts ``python.archives`` into the
    Python worker's working directory)."""
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as z:
            z.extractall(target)
    elif tarfile.is_tarfile(archive):
        with tarfile.open(archive) as t:
            t.extractall(target, filter="data")
    else:
        raise IllegalArgumentException(
            f"add_python_archive: {archive!r} is neither a zip nor a tar archive."
        )


@dataclass
class LocalDependencies:
    """What an environment made real in this process: ``sys.path`` entries and a scratch
    directory (copied ``.py`` files, extracted archives); ``close()`` undoes both."""

    sys_path: list[str] = field(default_factory=list)
    scratch: str | None = None

    def _scratch(self, *parts: str) -> str:
        if self.scratch is None:
            self.scratch = tempfile.mkdtemp(prefix="pyflowkit-python-deps-")
        path = os.path.join(self.scratch, *parts)
        os.makedirs(path, exist_ok=True)
        return path

    def _on_path(self, entry: str) -> None:
        if entry not in sys.path:
            sys.path.insert(0, entry)
            self.sys_path.append(entry)

    def add_file(self, path: str) -> None:
        """A ``.py`` file (copied into a directory on ``sys.path``), a directory or a zip/egg/whl
        (on ``sys.path`` as it is)."""
        if os.path.isfile(path) and path.endswith(".py"):
            shutil.copy(path, self._scratch("files"))
            self._on_path(self._scratch("files"))
        else:
            self._on_path(path)

    def add_archive(self, path: str, target_dir: str) -> str:
        """Extract into ``<working dir>/<target_dir>``; the working dir is on ``sys.path`` (as the
        worker's current directory is), so ``import target_dir.module`` works."""
        work = self._scratch("archives")
        target = os.path.join(work, target_dir)
        extract_archive(path, target)
        self._on_path(work)
        return target

    def check_executable(self, python_exec: str) -> None:
        if not same_interpreter(python_exec):
            raise UnsupportedOperationException(
                f"set_python_executable({python_exec!r}): the simulated cluster runs Python "
                f"functions in this interpreter ({sys.executable}); run the program with "
                f"{python_exec!r}, or execute on Spark, where it becomes spark.pyspark.python."
            )

    def close(self) -> None:
        for entry in self.sys_path:
            if entry in sys.path:
                sys.path.remove(entry)
        self.sys_path.clear()
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None
