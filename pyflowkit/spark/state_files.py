"""The files a streaming job on Spark reads back, checked before anything is restored.

Stands for Flink's ``Checkpoints.loadAndValidateCheckpoint`` and the state serializers' snapshot
on Spark: keyed and operator state and source offsets are written with pyflowkit's schema codec
(``state_codec``, no pickle unless the job trusts state files), user objects are rebuilt only
from the restoring vertex's classes, and a savepoint carries a SHA-256 per file (its manifest);
a retained checkpoint is checked against the CRC32 files Hadoop's checksum file system wrote
beside each of its files. A mismatch refuses the restore naming the file.
"""

from __future__ import annotations

import hashlib
import os
import struct
import zlib
from typing import Any

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.state import state_codec
from pyflowkit.state.user_types import (
    StateClasses,
    StateClassNotAllowed,
    job_configuration,
    trusts_pickled,
    vertex_state_classes,
)

_CLASSES = "_pyflowkit_state_classes"


def attach_state_classes(spec: Any, job_graph: Any) -> None:
    """Give a stage spec its vertex's allow-list (computed on the driver, shipped with it)."""
    conf = job_configuration(job_graph)
    spec.__dict__[_CLASSES] = vertex_state_classes([spec.vertex], conf)


def spec_state_classes(spec: Any) -> StateClasses:
    """The allow-list of the vertex ``spec`` runs (its functions' classes), cached on it."""
    classes = spec.__dict__.get(_CLASSES)
    if classes is None:
        classes = spec.__dict__[_CLASSES] = vertex_state_classes([spec.vertex])
    return classes


def encode_state(value: Any, where: str, trust_pickled: bool = False) -> bytes:
    """``value`` as schema JSON (UTF-8): the form of every state blob a query stores."""
    return state_codec.dumps(value, where, trust_pickled).encode("utf-8")


def decode_state(data: bytes | str, classes: StateClasses, what: str) -> Any:
    """The inverse of ``encode_state``; anything else (a pickle, a truncated or edited blob, a
    class the job does not use) is refused naming ``what``."""
    try:
        return state_codec.loads(data, classes)
    except StateClassNotAllowed as exc:
        raise IllegalArgumentException(f"Cannot restore {what}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - JSON and tag errors of a damaged or foreign blob
        head = bytes(data[:1]) if isinstance(data, (bytes, bytearray)) else data[:1].encode()
        hint = (
            " (it is a pickle: state written before pyflowkit's schema codec, or crafted)"
            if head in (b"P", b"C", b"\x80")
            else ""
        )
        raise IllegalArgumentException(
            f"Cannot restore {what}: it is not pyflowkit's schema-encoded state{hint}: "
            f"{type(exc).__name__}: {exc}"
        ) from None


def sha256_file(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def state_files(directory: str, skip: tuple[str, ...] = ()) -> list[str]:
    """Every file under ``directory`` (relative, sorted, Hadoop's ``.crc`` files too), but
    ``skip``."""
    out = []
    for root, _dirs, names in os.walk(directory):
        for name in names:
            rel = os.path.relpath(os.path.join(root, name), directory)
            if rel in skip:
                continue
            out.append(rel.replace(os.sep, "/"))
    return sorted(out)


def manifest(directory: str, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """File (relative path) → SHA-256 of every file of a savepoint directory."""
    return {rel: sha256_file(os.path.join(directory, rel)) for rel in state_files(directory, skip)}


def verify_manifest(directory: str, files: Any, what: str, skip: tuple[str, ...] = ()) -> None:
    """Every file listed is there with its SHA-256 and no other file is: else a refusal
    naming the file (before anything is copied or restored)."""
    if not isinstance(files, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in files.items()
    ):
        raise IllegalArgumentException(
            f"Cannot restore {what}: its manifest (field 'files') is not a map of file → SHA-256."
        )
    present = set(state_files(directory, skip))
    for rel, digest in sorted(files.items()):
        path = os.path.join(directory, rel)
        if rel not in present:
            raise IllegalArgumentException(
                f"Cannot restore {what}: file {path} is missing (listed in its manifest)."
            )
        if sha256_file(path) != digest:
            raise IllegalArgumentException(
                f"Cannot restore {what}: file {path} does not match the SHA-256 written at save "
                "time: it was truncated or edited after the savepoint was taken."
            )
    extra = sorted(present - set(files))
    if extra:
        raise IllegalArgumentException(
            f"Cannot restore {what}: file {os.path.join(directory, extra[0])} is not in its "
            "manifest (added after the savepoint was taken)."
        )


def verify_crc_files(directory: str, what: str) -> int:
    """Check every file that has a Hadoop ``.<name>.crc`` beside it (``ChecksumFileSystem``:
    magic ``crc\\0``, bytes per checksum, then a CRC32 per chunk); the number checked."""
    checked = 0
    for root, _dirs, names in os.walk(directory):
        for name in names:
            if not (name.startswith(".") and name.endswith(".crc")):
                continue
            data_file = os.path.join(root, name[1:-4])
            if not os.path.isfile(data_file):
                continue
            with open(os.path.join(root, name), "rb") as f:
                crc = f.read()
            if len(crc) < 8 or crc[:4] != b"crc\0":
                continue  # not a checksum file this check knows
            (per,) = struct.unpack(">i", crc[4:8])
            sums = crc[8:]
            with open(data_file, "rb") as f:
                data = f.read()
            chunks = [data[i : i + per] for i in range(0, len(data), per)] if per > 0 else []
            expected = [struct.unpack(">I", sums[i : i + 4])[0] for i in range(0, len(sums), 4)]
            actual = [zlib.crc32(c) & 0xFFFFFFFF for c in chunks]
            if actual != expected:
                raise IllegalArgumentException(
                    f"Cannot restore {what}: file {data_file} does not match its checksum "
                    f"({name}): it was truncated or corrupted."
                )
            checked += 1
    return checked


__all__ = [
    "attach_state_classes",
    "decode_state",
    "encode_state",
    "manifest",
    "spec_state_classes",
    "trusts_pickled",
    "verify_crc_files",
    "verify_manifest",
]
