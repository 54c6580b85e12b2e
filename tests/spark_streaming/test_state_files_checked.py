"""Every file a streaming job on Spark reads back is checked and none runs code (without Spark):
keyed state and task state blobs (RocksDB values), source offsets and savepoint metadata use the
schema codec, a crafted pickle in each is refused and runs nothing; a savepoint's manifest
(SHA-256 per file) and a retained checkpoint's Hadoop CRC32 files catch truncated and bit-flipped
files, naming the file, before anything is restored."""

from __future__ import annotations

import base64
import json
import os
import pickle
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import SourceFunction
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.examples import alerts_geohash as seed
from pyflowkit.spark import records
from pyflowkit.spark.streaming_savepoint import (
    METADATA,
    check_offsets,
    is_retained_checkpoint,
    restore_into,
    write_savepoint,
)
from pyflowkit.spark.streaming_source import _decode_state, _encode_state
from pyflowkit.spark.streaming_task import SubtaskSnapshot
from pyflowkit.state.snapshot import OperatorSnapshot
from pyflowkit.state.user_types import TRUST_PICKLED_STATE_FILES, job_state_classes


class Touch:
    """A pickle payload: unpickling it creates a file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> Any:
        return (Path.touch, (self.path,))


class Numbers(SourceFunction):
    def run(self, ctx: Any):  # noqa: ANN201
        for i in range(10):
            ctx.collect(i)
            yield None


def _graph() -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    ds = env.add_source(Numbers(), "Numbers", Types.INT())
    ds.key_by(lambda x: x % 2, key_type=Types.INT()).reduce(lambda a, b: a + b).print()
    return env.get_job_graph()


def _seed_graph() -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    seed.build(env, None)
    return env.get_job_graph()


def _snapshot_with_events() -> SubtaskSnapshot:
    event = seed.GeoHashEvent("u4pruyd", 160, 12)
    op = OperatorSnapshot(
        keyed_state={
            7: {"window-contents": {"kind": "list", "entries": [["u4pruyd", None, [event]]]}}
        },
        operator_state={"s": {"mode": "SPLIT_DISTRIBUTE", "entries": [event]}},
    )
    return SubtaskSnapshot(operators={"op": op}, valves={0: ([1, 2], [True, False], 3)}, clock=5)


def test_subtask_snapshot_is_schema_json_and_rebuilds_user_types_from_the_job() -> None:
    snap = _snapshot_with_events()
    task, kgs = snap.split()
    for blob in (task, *kgs.values()):
        json.loads(blob)  # plain JSON, no pickle
        assert b"pyflowkit.examples.alerts_geohash:GeoHashEvent" in blob
    back = SubtaskSnapshot.join(task, kgs.items(), job_state_classes(_seed_graph()))
    assert back.operators["op"].keyed_state == snap.operators["op"].keyed_state
    assert back.valves == {0: ([1, 2], [True, False], 3)} and back.clock == 5
    again = SubtaskSnapshot.from_bytes(snap.to_bytes(), job_state_classes(_seed_graph()))
    assert type(again.operators["op"].operator_state["s"]["entries"][0]) is seed.GeoHashEvent
    with pytest.raises(IllegalArgumentException, match="GeoHashEvent.*does not use"):
        SubtaskSnapshot.join(task, kgs.items(), job_state_classes(_graph()))


@pytest.mark.parametrize("form", ["pyflowkit records (P + pickle)", "raw pickle"])
def test_crafted_pickle_in_a_rocksdb_key_group_value_runs_nothing(
    tmp_path: Path, form: str
) -> None:
    ran = tmp_path / "ran"
    payload = {"op": [{"s": {"kind": "value", "entries": [[1, None, Touch(ran)]]}}, []]}
    blob = records.dumps(payload) if form.startswith("pyflowkit") else pickle.dumps(payload)
    task, _ = SubtaskSnapshot().split()
    with pytest.raises(IllegalArgumentException) as info:
        SubtaskSnapshot.join(task, [(3, blob)], job_state_classes(_graph()), "/chk/state/1")
    assert "key group 3 (flink_keyed_state) in /chk/state/1" in str(info.value)
    assert "not pyflowkit's schema-encoded state" in str(info.value)
    with pytest.raises(IllegalArgumentException, match="flink_task"):
        SubtaskSnapshot.join(blob, [], job_state_classes(_graph()))
    with pytest.raises(IllegalArgumentException, match="subtask snapshot"):
        SubtaskSnapshot.from_bytes(pickle.dumps((task, {3: blob})))
    # a pickle inside schema JSON: refused unless the job trusts its state files
    tagged = json.dumps(
        {
            "@": "dict",
            "v": [["op", [{"@": "pickle", "v": base64.b64encode(blob[1:]).decode()}, []]]],
        }
    ).encode()
    with pytest.raises(IllegalArgumentException, match=TRUST_PICKLED_STATE_FILES):
        SubtaskSnapshot.join(task, [(3, tagged)], job_state_classes(_graph()))
    assert not ran.exists()


def _offsets_dir(tmp_path: Path, state: str) -> Path:
    chk = tmp_path / "chk"
    (chk / "offsets").mkdir(parents=True)
    (chk / "commits").mkdir()
    (chk / "metadata").write_text('{"id":"q"}')
    offset = {"batch": 1, "subtasks": [{"state": state, "pos": 4, "ended": False}]}
    (chk / "offsets" / "0").write_text(f'v1\n{{"batchWatermarkMs":0}}\n{json.dumps(offset)}')
    return chk


def test_crafted_pickle_in_a_source_offset_runs_nothing(tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    old_form = base64.b64encode(records.dumps({"op": {"operator_state": Touch(ran)}})).decode()
    with pytest.raises(IllegalArgumentException, match="not pyflowkit's schema-encoded state"):
        _decode_state(old_form, job_state_classes(_graph()), "offset")
    chk = _offsets_dir(tmp_path, old_form)
    with pytest.raises(IllegalArgumentException) as info:
        check_offsets(str(chk), _graph(), "retained checkpoint 'x'")
    assert f"offsets file {chk / 'offsets' / '0'}" in str(info.value)
    assert not ran.exists()
    # the schema form round-trips a source's position state
    good = _encode_state(
        {"op": OperatorSnapshot(operator_state={"p": {"mode": "UNION", "entries": [4]}})}
    )
    assert _decode_state(good)["op"].operator_state == {"p": {"mode": "UNION", "entries": [4]}}


def test_savepoint_metadata_is_checked_field_by_field(tmp_path: Path) -> None:
    chk = tmp_path / "chk"
    (chk / "commits").mkdir(parents=True)
    (chk / "commits" / "0").write_text("v1")
    sp = str(tmp_path / "sp")
    write_savepoint(str(chk), sp, _graph(), "job-a")
    meta = Path(sp) / METADATA
    data = json.loads(meta.read_text())
    assert data["version"] == 2 and sorted(data["files"]) == ["commits/0"]
    cases = [
        (
            lambda d: d.update(
                vertices=base64.b64encode(pickle.dumps(Touch(tmp_path / "r"))).decode()
            ),
            "field 'vertices'",
        ),
        (lambda d: d.pop("vertices"), "field 'vertices' is missing"),
        (lambda d: d.update(operators=[]), "field 'operators': expected"),
        (lambda d: d.update(version=1), "version 1 savepoints hold pickled state"),
    ]
    for edit, expected in cases:
        doc = json.loads(json.dumps(data))
        edit(doc)
        meta.write_text(json.dumps(doc))
        with pytest.raises((IllegalArgumentException, ValueError), match=expected) as info:
            restore_into(sp, str(tmp_path / "new"), _graph())
        assert sp in str(info.value)
    meta.write_text('{"format": "pyflowkit-spark-streaming-savepoint", "vers')
    with pytest.raises(ValueError, match="not valid JSON"):
        restore_into(sp, str(tmp_path / "new"), _graph())
    assert not (tmp_path / "new").exists() and not (tmp_path / "r").exists()


@pytest.mark.parametrize("damage", ["bit flip", "truncated", "added", "removed"])
def test_savepoint_manifest_catches_a_damaged_file_before_anything_is_copied(
    tmp_path: Path, damage: str
) -> None:
    chk = tmp_path / "chk"
    (chk / "commits").mkdir(parents=True)
    (chk / "commits" / "0").write_text("v1\n{}")
    (chk / "state" / "0" / "0").mkdir(parents=True)
    (chk / "state" / "0" / "0" / "1.zip").write_bytes(bytes(range(200)))
    sp = tmp_path / "sp"
    write_savepoint(str(chk), str(sp), _graph(), "job-a")
    target = sp / "state" / "0" / "0" / "1.zip"
    if damage == "bit flip":
        data = bytearray(target.read_bytes())
        data[77] ^= 0x10
        target.write_bytes(bytes(data))
    elif damage == "truncated":
        target.write_bytes(target.read_bytes()[:50])
    elif damage == "added":
        target = sp / "offsets" / "1"
        target.parent.mkdir()
        target.write_text("v1")
    else:
        target.unlink()
    with pytest.raises(IllegalArgumentException) as info:
        restore_into(str(sp), str(tmp_path / "new"), _graph())
    assert str(target) in str(info.value)
    assert not (tmp_path / "new").exists()


def _hadoop_crc(data: bytes, per: int = 512) -> bytes:
    sums = b"".join(
        struct.pack(">I", zlib.crc32(data[i : i + per]) & 0xFFFFFFFF)
        for i in range(0, len(data), per)
    )
    return b"crc\0" + struct.pack(">i", per) + sums


@pytest.mark.parametrize("damage", ["bit flip", "truncated"])
def test_retained_checkpoint_crc_catches_a_damaged_file(tmp_path: Path, damage: str) -> None:
    good = _encode_state({})
    chk = _offsets_dir(tmp_path, good)
    state = chk / "state" / "0" / "0" / "2.zip"
    state.parent.mkdir(parents=True)
    state.write_bytes(bytes(range(256)) * 5)
    for f in (state, chk / "offsets" / "0"):
        (f.parent / f".{f.name}.crc").write_bytes(_hadoop_crc(f.read_bytes()))
    assert is_retained_checkpoint(str(chk))
    data = state.read_bytes()
    state.write_bytes(data[:700] if damage == "truncated" else data[:600] + b"\x00" + data[601:])
    with pytest.raises(IllegalArgumentException) as info:
        restore_into(str(chk), str(tmp_path / "new"), _graph())
    assert f"file {state} does not match its checksum" in str(info.value)
    assert not (tmp_path / "new").exists()
    state.write_bytes(data)
    restore_into(str(chk), str(tmp_path / "new"), _graph())  # intact: resumed
    assert (tmp_path / "new" / "offsets" / "0").exists()
    assert os.path.exists(tmp_path / "new" / "state" / "0" / "0" / "2.zip")
