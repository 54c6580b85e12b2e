"""The RocksDB state of a Spark streaming checkpoint, checked before the query starts.

Stands for the checks Spark's ``RocksDBFileManager.loadCheckpointFromDfs`` and RocksDB's
``BlockBasedTable::Open`` make when the first micro-batch loads a state version (as Flink's
``RocksDBIncrementalRestoreOperation`` checks a checkpoint's files before the backend opens them):
a keyed operator's state is, per partition, ``state/<operator>/<partition>/<version>.zip``
(RocksDB's MANIFEST, CURRENT, OPTIONS and Spark's ``metadata`` listing the SST files with their
sizes) and the SST files under ``SSTs/``. Spark finds a damaged file only in the first batch, so
the query failed and restarted; here, at restore, the zip of the version the query resumes from
must be a readable zip whose members match their CRC32 and whose metadata parses, and every SST
it lists must exist with the recorded size and end with a RocksDB table magic number. A bit flip
inside an SST block is caught by the Hadoop CRC32 file beside it (retained checkpoints) or the
manifest's SHA-256 (savepoints); RocksDB's own block checksums (XXH3) are left to RocksDB.
"""

from __future__ import annotations

import json
import os
import struct
import zipfile
import zlib

from pyflowkit.errors import IllegalArgumentException

# the last 8 bytes of an SST file (little-endian): RocksDB's table magic numbers
TABLE_MAGIC = {
    0x88E241B785F4CFF7: "block-based",
    0xDB4775248B80FB57: "block-based (legacy)",
    0x8242229663BF9564: "plain",
    0x4F3418EB7A8F13B8: "plain (legacy)",
    0x926789D0C5F17873: "cuckoo",
}


def _digits(folder: str) -> list[str]:
    names = os.listdir(folder) if os.path.isdir(folder) else []
    return sorted((n for n in names if n.isdigit()), key=int)


def verify_rocksdb_state(directory: str, what: str, last_batch: int | None) -> int:
    """Check the RocksDB state every partition of every stateful operator in ``directory``
    resumes from (the version after micro-batch ``last_batch``); the partitions checked.

    Refuses (``IllegalArgumentException``) naming the file and the rule it breaks."""
    if last_batch is None:  # nothing committed: the query starts from empty state
        return 0
    version = last_batch + 1
    checked = 0
    state = os.path.join(directory, "state")
    for operator in _digits(state):
        for partition in _digits(os.path.join(state, operator)):
            folder = os.path.join(state, operator, partition)
            snapshot = os.path.join(folder, f"{version}.zip")
            if not os.path.isfile(snapshot):
                if os.path.isfile(os.path.join(folder, f"{version}.changelog")):
                    continue  # changelog checkpointing: Spark replays it over an older snapshot
                raise IllegalArgumentException(
                    f"Cannot restore {what}: RocksDB state file {snapshot} is missing: the "
                    f"state of operator {operator}, partition {partition} after micro-batch "
                    f"{last_batch} (the last in the commits log), which every committed "
                    "micro-batch leaves."
                )
            _check_snapshot(snapshot, folder, what)
            checked += 1
    return checked


def _check_snapshot(snapshot: str, folder: str, what: str) -> None:
    """One state version's zip and the SST files its metadata lists."""
    prefix = f"Cannot restore {what}: RocksDB state file {snapshot}"
    try:
        with zipfile.ZipFile(snapshot) as archive:
            bad = archive.testzip()  # every member against the CRC32 the zip holds for it
            if bad is not None:
                raise IllegalArgumentException(
                    f"{prefix} is corrupted: its member {bad!r} does not match the CRC32 the "
                    "zip holds for it."
                )
            text = archive.read("metadata").decode("utf-8")
    except IllegalArgumentException:
        raise
    except KeyError:
        raise IllegalArgumentException(
            f"{prefix} has no 'metadata' member (the SST files of the version): not a Spark "
            "RocksDB checkpoint."
        ) from None
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, zlib.error, struct.error) as exc:
        raise IllegalArgumentException(
            f"{prefix} is not a readable zip (truncated or corrupted): {exc}."
        ) from None
    lines = text.split("\n", 1)
    try:
        if lines[0] != "v1" or len(lines) < 2:
            raise ValueError("expected a 'v1' line and a JSON document")
        files = json.loads(lines[1])["sstFiles"]
        listed = [(str(f["dfsSstFileName"]), int(f["sizeBytes"])) for f in files]
    except (ValueError, KeyError, TypeError) as exc:
        raise IllegalArgumentException(
            f"{prefix}: its 'metadata' member is not Spark's RocksDB checkpoint metadata "
            f"(version line, then the SST files with their sizes): {exc}."
        ) from None
    for name, size in listed:
        _check_sst(os.path.join(folder, "SSTs", name), size, snapshot, what)


def _check_sst(path: str, size: int, snapshot: str, what: str) -> None:
    prefix = f"Cannot restore {what}: RocksDB state file {path}"
    if not os.path.isfile(path):
        raise IllegalArgumentException(
            f"{prefix} is missing (listed in {os.path.basename(snapshot)}'s metadata)."
        )
    actual = os.path.getsize(path)
    if actual != size:
        raise IllegalArgumentException(
            f"{prefix} has {actual} bytes, but {os.path.basename(snapshot)}'s metadata recorded "
            f"{size}: it was truncated or extended."
        )
    with open(path, "rb") as f:
        f.seek(max(0, actual - 8))
        tail = f.read(8)
    if len(tail) < 8 or int.from_bytes(tail, "little") not in TABLE_MAGIC:
        raise IllegalArgumentException(
            f"{prefix} does not end with a RocksDB table magic number (its footer is "
            "corrupted): not an SST file RocksDB can open."
        )


__all__ = ["TABLE_MAGIC", "verify_rocksdb_state"]
