"""NumberSequenceSource keeps its splits as state: a savepoint restored at another parallelism
redistributes the unread parts of the splits, so every number is read exactly once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import WatermarkStrategy
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.connectors import NumberSequenceSource
from pyflowkit.operators.sources import NumberSequenceReader
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.runtime.predicates import checkpoint_completed, job_finished
from pyflowkit.runtime.two_phase_commit import TransactionalListSink, TransactionStore

N = 200


def _job(store: TransactionStore, parallelism: int) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    env.enable_checkpointing(10)
    env.from_source(NumberSequenceSource(1, N), WatermarkStrategy.no_watermarks(), "n").uid(
        "numbers"
    ).add_sink(TransactionalListSink(store)).uid("sink")
    return env


def test_reader_state_is_the_unread_part_of_its_splits() -> None:
    reader = NumberSequenceSource(1, 10).create_reader(1, 2)
    assert reader.snapshot_splits() == [["1", 6, 10]]
    assert [v for v, _ in reader.poll(3)] == [6, 7, 8]
    assert reader.snapshot_splits() == [["1", 9, 10]] and reader.snapshot_position() == 3
    merged = NumberSequenceReader([])
    merged.restore_splits([["1", 9, 10], ["0", 4, 5]], [])
    assert [v for v, _ in merged.poll(10)] == [4, 5, 9, 10] and merged.is_finished()
    old = NumberSequenceSource(1, 10).create_reader(0, 2)
    old.restore_splits([2], [])  # an older savepoint's positional state
    assert [v for v, _ in old.poll(10)] == [3, 4, 5]


@pytest.mark.parametrize(("before", "after"), [(2, 3), (3, 1), (2, 2)])
def test_savepoint_restored_at_another_parallelism_reads_each_number_once(
    tmp_path: Path, before: int, after: int
) -> None:
    store = TransactionStore()
    first = MiniCluster(echo_print=False, seed=1, source_batch=1).submit(_job(store, before))
    first.run_until(checkpoint_completed())
    sp = first.stop_with_savepoint(tmp_path)
    location = first.savepoint_path(sp)
    first.run_until(job_finished())
    read_before = len(store.committed)
    assert 0 < read_before < N
    second = MiniCluster(echo_print=False, seed=2).submit(
        _job(store, after), savepoint_path=location
    )
    second.run_until(job_finished())
    assert second.job_status is JobStatus.FINISHED
    store.commit_final_transactions()
    assert sorted(store.committed) == list(range(1, N + 1))
