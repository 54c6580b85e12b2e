"""A Spark streaming job resumed from a savepoint or a retained checkpoint whose RocksDB state is
damaged is refused before the query starts, naming the file (issue 26: Spark found it only in the
first micro-batch, and the job stayed RUNNING with 0 batches while it restarted, the cause on
stderr). Flink's behaviour: a checkpoint whose files cannot be read is refused at restore
(``Checkpoints.loadAndValidateCheckpoint``; the job does not run).

The files are real: ``data/rocksdb_checkpoint`` is the retained checkpoint Spark 4 wrote for
``rocksdb_job`` (keyed reduce, two partitions, three micro-batches; regenerate it with
``python -m tests.faults.test_spark_rocksdb_state_files <dir>``, then keep only the last version's
zips). Which check catches what:
- with the files' own checksums (a savepoint's SHA-256 manifest, Hadoop's ``.crc`` files of a
  retained checkpoint): any truncation or bit flip of a zip or an SST file;
- without them (manifest re-signed after an edit, ``.crc`` files lost in a copy): RocksDB's own
  structure: the version's zip and its members' CRC32, the SST files and sizes its metadata lists,
  the SST footer's magic number; and the offset log's format (the issue's truncated offsets
  file). A bit flip inside an SST block is then left to RocksDB's XXH3 block checksums in the
  first batch (the restart guard bounds the restarts), one inside an offset's digits is not
  caught.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import Configuration, Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.spark.rocksdb_files import verify_rocksdb_state
from pyflowkit.spark.state_files import manifest
from pyflowkit.spark.streaming_savepoint import METADATA, restore_into, write_savepoint

FIXTURE = Path(__file__).parent / "data" / "rocksdb_checkpoint"
PARTITION = Path("state") / "0" / "0"
PAIR = Types.TUPLE([Types.STRING(), Types.INT()])


def rocksdb_job(conf: dict[str, str]) -> StreamExecutionEnvironment:
    """The job that wrote the fixture (its operator ids and source state must match)."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.enable_checkpointing(100)
    configuration = Configuration()
    settings = {
        "pyflowkit.spark.streaming-query": "always",
        "pyflowkit.spark.streaming.max-records-per-batch": "4",
        **conf,
    }
    for key, value in settings.items():
        configuration.set_string(key, value)
    env.configure(configuration)
    (
        env.from_collection([(f"k{i % 3}", i) for i in range(9)], type_info=PAIR)
        .uid("words")
        .key_by(lambda w: w[0], key_type=Types.STRING())
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .uid("sums")
        .print("sum")
        .uid("print")
    )
    return env


def _graph() -> Any:
    return rocksdb_job({}).get_job_graph()


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _flip(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0x04
    path.write_bytes(bytes(data))


def _flip_in_zip_member(path: Path) -> None:
    """Flip a bit inside the compressed data of the zip's largest member (RocksDB's OPTIONS)."""
    with zipfile.ZipFile(path) as archive:
        info = max(archive.infolist(), key=lambda i: i.compress_size)
    with open(path, "rb") as f:
        f.seek(info.header_offset + 26)
        name_len, extra_len = (int.from_bytes(f.read(2), "little") for _ in range(2))
    _flip(path, info.header_offset + 30 + name_len + extra_len + info.compress_size // 2)


DAMAGE: dict[str, Callable[[Path], None]] = {
    "truncated": _truncate,
    "bit flip": lambda p: (
        _flip_in_zip_member(p) if p.suffix == ".zip" else _flip(p, p.stat().st_size // 2)
    ),
    "footer bit flip": lambda p: _flip(p, p.stat().st_size - 3),
    "removed": lambda p: p.unlink(),
}
TARGETS: dict[str, Callable[[Path], Path]] = {
    "sst": lambda d: sorted((d / PARTITION / "SSTs").glob("*.sst"))[0],
    "zip": lambda d: d / PARTITION / "3.zip",
    "offsets": lambda d: d / "offsets" / "2",
    "commits": lambda d: d / "commits" / "2",
}
BOTH = ("savepoint", "retained checkpoint")
# (file, damage, the checks left, the rule named: None = the checksum's, where it applies)
CASES = [
    # the files' own checksums catch any damage
    ("sst", "truncated", "checksums", None, BOTH),
    ("sst", "bit flip", "checksums", None, BOTH),
    ("zip", "truncated", "checksums", None, BOTH),
    ("zip", "bit flip", "checksums", None, BOTH),
    ("offsets", "truncated", "checksums", None, BOTH),
    ("offsets", "bit flip", "checksums", None, BOTH),
    # (a retained checkpoint's last commit missing is Spark's own recovery: the batch re-runs)
    ("commits", "removed", "checksums", r"is missing \(listed in its manifest\)", BOTH[:1]),
    # without them, RocksDB's structure and the offset log's format do
    ("sst", "truncated", "none", r"has \d+ bytes, but 3\.zip's metadata recorded \d+", BOTH),
    ("sst", "footer bit flip", "none", "does not end with a RocksDB table magic number", BOTH),
    ("zip", "truncated", "none", r"is not a readable zip \(truncated or corrupted\)", BOTH),
    ("zip", "bit flip", "none", "is corrupted|is not a readable zip", BOTH),
    ("zip", "removed", "none", "is missing: the state of operator 0, partition 0 after ", BOTH),
    ("offsets", "truncated", "none", r"offsets file \S+ is truncated", BOTH),
]
SEEN = {
    "savepoint": "does not match the SHA-256 written at save time",
    "retained checkpoint": "does not match its checksum",
}


def _damaged(tmp_path: Path, kind: str, file: str, damage: str, checks: str) -> tuple[Path, Path]:
    """A copy of the fixture as a savepoint or a retained checkpoint, with one file damaged:
    the directory and the file."""
    directory = tmp_path / "chk"
    shutil.copytree(FIXTURE, directory)
    if kind == "savepoint":
        directory = Path(write_savepoint(str(directory), str(tmp_path / "sp"), _graph(), "job-a"))
    target = TARGETS[file](directory)
    DAMAGE[damage](target)
    if checks == "none" and kind == "savepoint":  # the manifest re-signed after the edit
        meta = directory / METADATA
        doc = json.loads(meta.read_text())
        doc["files"] = manifest(str(directory), skip=(METADATA,))
        meta.write_text(json.dumps(doc))
    elif checks == "none":  # the Hadoop checksum files lost (a copy without hidden files)
        for crc in directory.rglob(".*.crc"):
            crc.unlink()
    return directory, target


@pytest.mark.parametrize(
    ("kind", "file", "damage", "checks", "rule"),
    [
        pytest.param(kind, *c[:4], id=f"{kind}: {c[0]} {c[1]}, {c[2]}")
        for c in CASES
        for kind in c[4]
    ],
)
def test_damaged_state_files_are_refused_before_anything_is_restored(
    tmp_path: Path, kind: str, file: str, damage: str, checks: str, rule: str | None
) -> None:
    source, target = _damaged(tmp_path, kind, file, damage, checks)
    new = tmp_path / "new"
    with pytest.raises(IllegalArgumentException) as info:
        restore_into(str(source), str(new), _graph())
    text = str(info.value)
    assert text.startswith(f"Cannot restore {kind} {str(source)!r}: ")
    assert str(target) in text  # the file named
    if rule is None:
        assert SEEN[kind] in text
    else:
        assert re.search(rule, text), text
    assert not new.exists()  # nothing copied: the query has nothing to resume from


def test_intact_rocksdb_state_restores_and_is_checked_in_milliseconds(tmp_path: Path) -> None:
    chk = tmp_path / "chk"
    shutil.copytree(FIXTURE, chk)
    sp = write_savepoint(str(chk), str(tmp_path / "sp"), _graph(), "job-a")
    started = time.perf_counter()
    assert verify_rocksdb_state(sp, "savepoint", 2) == 2  # both partitions
    assert time.perf_counter() - started < 1.0
    for source, into in ((sp, "a"), (str(chk), "b")):
        restore_into(source, str(tmp_path / into), _graph())
        assert (tmp_path / into / PARTITION / "3.zip").is_file()
    assert verify_rocksdb_state(str(chk), "x", None) == 0  # nothing committed: nothing to load


@pytest.mark.spark
def test_the_job_does_not_start_from_a_damaged_retained_checkpoint(spark, tmp_path: Path) -> None:
    """Through ``execute_async`` on Spark: refused at submission (as the simulated cluster
    refuses a savepoint it cannot restore), no query started, no batch ran, nothing restarted."""
    source, target = _damaged(tmp_path, "retained checkpoint", "sst", "truncated", "none")
    checkpoints = tmp_path / "checkpoints"
    env = rocksdb_job(
        {
            "execution.savepoint.path": str(source),
            "state.checkpoints.dir": str(checkpoints),
        }
    )
    active = {q.id for q in spark.streams.active}
    with pytest.raises(IllegalArgumentException) as info:
        env.execute_async(spark=spark)
    assert f"RocksDB state file {target} has " in str(info.value)
    assert {q.id for q in spark.streams.active} == active  # no query was started
    assert not list(checkpoints.glob("*/commits/*"))  # and no micro-batch ran


def main(checkpoints: str) -> None:
    """Write a fresh fixture: run ``rocksdb_job`` to its end with retained checkpoints."""
    from tests.conftest import build_spark_session

    env = rocksdb_job({"state.checkpoints.dir": checkpoints})
    print(env.execute(spark=build_spark_session()).print_lines)
    (location,) = [p for p in Path(checkpoints).iterdir() if p.is_dir()]
    print(f"copy {location} to {FIXTURE}, keeping only {PARTITION.parent}/*/3.zip* of the zips")


if __name__ == "__main__":
    main(sys.argv[1])
