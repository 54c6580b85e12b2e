"""``StatefulSequenceSource`` (``generate_sequence``) and ``DataGeneratorSource`` keep what is left
to read as redistributable state: a savepoint restored at another parallelism emits every record
exactly once; savepoints of the older positional form still load at their parallelism."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import WatermarkStrategy
from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.connectors import DataGeneratorSource, StatefulSequenceSource
from pyflowkit.operators.source_operator import SPLITS_STATE
from pyflowkit.operators.sources import (
    SEQUENCE_STATE,
    DataGeneratorReader,
    StatefulSequenceReader,
    arithmetic_runs,
    split_number_range,
)
from pyflowkit.operators.stream_source import POSITION_STATE
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.runtime.predicates import checkpoint_completed, job_finished
from pyflowkit.runtime.two_phase_commit import TransactionalListSink, TransactionStore

N = 120
SOURCE_UID = "numbers"


def _job(kind: str, store: TransactionStore, parallelism: int) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    env.enable_checkpointing(10)
    env.set_restart_strategy(RestartStrategies.no_restart())
    if kind == "sequence":
        ds = env.generate_sequence(1, N)
    else:
        ds = env.from_source(
            DataGeneratorSource(lambda i: f"g{i + 1}", N), WatermarkStrategy.no_watermarks(), "g"
        )
    ds.uid(SOURCE_UID).add_sink(TransactionalListSink(store)).uid("sink")
    return env


def _expected(kind: str) -> list[Any]:
    return sorted(range(1, N + 1) if kind == "sequence" else [f"g{i}" for i in range(1, N + 1)])


def _stop_with_savepoint(kind: str, store: TransactionStore, parallelism: int, tmp: Path) -> str:
    first = MiniCluster(echo_print=False, seed=1, source_batch=1).submit(
        _job(kind, store, parallelism)
    )
    first.run_until(checkpoint_completed())
    location = first.savepoint_path(first.stop_with_savepoint(tmp))
    first.run_until(job_finished())
    assert 0 < len(store.committed) < N
    return str(location)


def _resume(kind: str, store: TransactionStore, parallelism: int, location: str) -> Any:
    run = MiniCluster(echo_print=False, seed=2).submit(
        _job(kind, store, parallelism), savepoint_path=location
    )
    run.run_until(job_finished())
    return run


def test_sequence_reader_state_is_every_value_left() -> None:
    source = StatefulSequenceSource(1, 10)
    reader = source.create_reader(1, 3)  # 2, 5, 8
    assert reader.state_name == SEQUENCE_STATE == "stateful-sequence-source-state"
    assert [v for v, _ in reader.poll(1)] == [2]
    assert reader.snapshot_state() == [5, 8] and reader.snapshot_position() == 1
    merged = StatefulSequenceReader(range(0))
    merged.restore_state([7, 10, 5, 8, 3])  # two old subtasks' shares, in old-subtask order
    assert merged.runs == [range(7, 11, 3), range(5, 9, 3), range(3, 4)]
    assert merged.poll_values(9) == ([7, 10, 5, 8, 3], None) and merged.is_finished()
    old = source.create_reader(0, 3)  # 1, 4, 7, 10
    old.restore_position(3)  # an older savepoint's position
    assert old.poll_values(9) == ([10], None)
    with pytest.raises(ValueError, match="position 5 of 4"):
        source.create_reader(0, 3).restore_position(5)
    with pytest.raises(ValueError, match="entries must be ints"):
        merged.restore_state([1, "2"])


def test_arithmetic_runs_keep_values_and_order() -> None:
    values = [4, 6, 8, 1, 1, 2, 9, -3]
    runs = arithmetic_runs(values)
    assert [v for r in runs for v in r] == values
    assert runs == [range(4, 10, 2), range(1, 2), range(1, 3), range(9, -15, -12)]
    assert arithmetic_runs([]) == []


def test_data_generator_reader_state_is_its_splits() -> None:
    reader = DataGeneratorSource(lambda i: i * 10, 10).create_reader(1, 2)
    assert isinstance(reader, DataGeneratorReader)
    assert reader.poll_values(2) == ([50, 60], None)
    assert reader.snapshot_splits() == [["1", 7, 9]] and reader.snapshot_position() == 2
    restored = DataGeneratorSource(lambda i: i * 10, 10).create_reader(0, 3)
    restored.restore_splits([["1", 7, 9], ["0", 3, 4]], [])
    assert restored.poll_values(9) == ([30, 40, 70, 80, 90], None)
    old = DataGeneratorSource(str, 10).create_reader(0, 2)
    old.restore_splits([3], [])  # an older savepoint's positional state
    assert old.poll_values(9) == (["3", "4"], None)
    assert DataGeneratorSource(str, 0).create_reader(0, 2).is_finished()


@pytest.mark.parametrize("kind", ["sequence", "datagen"])
@pytest.mark.parametrize(("before", "after"), [(2, 3), (3, 1), (2, 2)])
def test_savepoint_restored_at_another_parallelism_emits_each_record_once(
    tmp_path: Path, kind: str, before: int, after: int
) -> None:
    store = TransactionStore()
    location = _stop_with_savepoint(kind, store, before, tmp_path)
    second = _resume(kind, store, after, location)
    assert second.job_status is JobStatus.FINISHED, second.failure_traceback
    store.commit_final_transactions()
    assert sorted(store.committed) == _expected(kind)
    assert len(store.committed) == N


def _to_positional_form(kind: str, location: str, parallelism: int) -> None:
    """Rewrite the source's state in a savepoint as older pyflowkit wrote it: one reader position
    (records read of the subtask's initial range) per subtask."""
    meta_path, state_path = Path(location) / "_metadata", Path(location) / "state"
    meta = json.loads(meta_path.read_text())
    source_id = next(op["operator_id"] for op in meta["operators"] if op["uid"] == SOURCE_UID)
    state = json.loads(state_path.read_text())
    for index, snapshot in state[source_id].items():
        i = int(index)
        pairs = dict(snapshot["v"])["operator_state"]["v"]
        name, st = pairs[0]
        entries = dict(st["v"])["entries"]
        if kind == "sequence":
            assert name == SEQUENCE_STATE
            position = len(range(1 + i, N + 1, parallelism)) - len(entries)
            new_name = POSITION_STATE
        else:
            assert name == SPLITS_STATE
            lo, hi = split_number_range(0, N - 1, parallelism)[i]
            position = (hi - lo + 1) if not entries else entries[0][1] - lo
            new_name = SPLITS_STATE
        pairs[:] = [
            [new_name, {"@": "dict", "v": [["mode", "SPLIT_DISTRIBUTE"], ["entries", [position]]]}]
        ]
    data = json.dumps(state, separators=(",", ":")).encode()
    state_path.write_bytes(data)
    meta["state_sha256"] = hashlib.sha256(data).hexdigest()
    meta_path.write_text(json.dumps(meta, indent=1, sort_keys=True))


@pytest.mark.parametrize("kind", ["sequence", "datagen"])
def test_older_positional_savepoint_still_loads_at_its_parallelism(
    tmp_path: Path, kind: str
) -> None:
    store = TransactionStore()
    location = _stop_with_savepoint(kind, store, 2, tmp_path)
    _to_positional_form(kind, location, 2)
    second = _resume(kind, store, 2, location)
    assert second.job_status is JobStatus.FINISHED, second.failure_traceback
    store.commit_final_transactions()
    assert sorted(store.committed) == _expected(kind)


def test_older_positional_sequence_savepoint_at_another_parallelism_fails_clearly(
    tmp_path: Path,
) -> None:
    store = TransactionStore()
    location = _stop_with_savepoint("sequence", store, 2, tmp_path)
    _to_positional_form("sequence", location, 2)
    second = _resume("sequence", store, 3, location)
    assert second.job_status is JobStatus.FAILED
    assert "Source 'Source: Sequence Source' cannot restore an older savepoint" in str(
        second.failure_traceback
    )
    assert "this subtask got 0 positions" in str(second.failure_traceback)
