"""A Python ``SourceFunction`` that is also a ``CheckpointedFunction`` keeps its own position.

Flink snapshots its state between two of its emits (``snapshot_state`` runs under the checkpoint
lock, ``StreamingFunctionUtils.snapshotFunctionState``) and hands it back to ``initialize_state``
before ``run`` starts again (``restoreFunctionState``); ``run`` resumes from there, nothing is
replayed. Here the same goes through the task core's lifecycle (function state) on the simulated
cluster: a failure after a checkpoint, and a savepoint then a new job, keep the output exactly
once, and the restored ``run`` starts where the checkpoint left it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import Configuration
from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.datastream import SourceFunction, StreamExecutionEnvironment
from pyflowkit.datastream.functions import CheckpointedFunction
from pyflowkit.runtime import ExecutionState, JobStatus, MiniCluster
from pyflowkit.runtime.predicates import all_tasks_in, job_finished
from pyflowkit.runtime.two_phase_commit import TransactionalListSink, TransactionStore

LOG = [f"e{i}" for i in range(60)]  # an external log the source reads by offset
EVENTS: dict[str, list[tuple[str, Any]]] = {}  # per job: what its source function did


class OffsetSource(SourceFunction, CheckpointedFunction):
    """Reads ``LOG`` from its offset, kept in operator list state; records what it does in
    ``EVENTS[name]`` (the job graph holds a copy of the function; the simulated cluster runs in
    this process)."""

    positional_replay = False  # it reads an external system: the offset is all it resumes from

    def __init__(self, name: str, generator: bool) -> None:
        self.name = name
        self.generator = generator
        self.offset = 0

    def initialize_state(self, context: Any) -> None:
        self.state = context.get_operator_state_store().get_list_state("offset")
        restored = list(self.state.get()) if context.is_restored() else []
        self.offset = restored[0] if restored else 0
        EVENTS[self.name].append(("init", (context.is_restored(), self.offset)))

    def snapshot_state(self, context: Any) -> None:
        self.state.update([self.offset])
        EVENTS[self.name].append(("snapshot", self.offset))

    def run(self, ctx: Any) -> Any:
        if self.generator:
            return self._steps(ctx)
        EVENTS[self.name].append(("run", self.offset))
        while self.offset < len(LOG):
            ctx.collect(LOG[self.offset])
            self.offset += 1
            ctx.sleep(3)
        return None

    def _steps(self, ctx: Any) -> Iterator[None]:
        EVENTS[self.name].append(("run", self.offset))
        while self.offset < len(LOG):
            ctx.collect(LOG[self.offset])
            self.offset += 1
            ctx.sleep(3)
            yield None


def job(name: str, store: TransactionStore, generator: bool) -> Any:
    EVENTS[name] = []
    conf = Configuration().set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(1)
    env.enable_checkpointing(10)
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(3, 50))
    env.add_source(OffsetSource(name, generator)).map(lambda e: e.upper()).add_sink(
        TransactionalListSink(store)
    )
    return env


def snapshotted_past_zero(run: Any, events: list[tuple[str, Any]]) -> bool:
    return any(kind == "snapshot" and offset > 0 for kind, offset in events) and (
        run.job_master is not None
        and run.job_master.checkpoint_coordinator.store.get_latest_checkpoint() is not None
    )


@pytest.mark.parametrize("generator", [False, True], ids=["thread", "generator"])
def test_a_failure_restores_the_source_functions_offset_exactly_once(generator: bool) -> None:
    store = TransactionStore()
    run = MiniCluster(echo_print=False, seed=3, source_batch=2).submit(
        job(f"failure-{generator}", store, generator)
    )
    events = EVENTS[f"failure-{generator}"]
    run.run_until(lambda r: snapshotted_past_zero(r, events))
    run.run_until(all_tasks_in(ExecutionState.RUNNING))
    restored_from = run.job_master.checkpoint_coordinator.store.get_latest_checkpoint()
    assert restored_from is not None
    source = run.job_graph.vertices[0].name
    run.fail_task(source, 0, cause=RuntimeError("injected"))
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED, run.failure_cause
    store.commit_final_transactions()
    assert Counter(store.committed) == Counter(e.upper() for e in LOG)  # exactly once
    inits = [v for kind, v in events if kind == "init"]
    assert inits[0] == (False, 0)
    restored, offset = inits[-1]
    assert restored and 0 < offset < len(LOG)  # the checkpoint's offset came back
    runs = [v for kind, v in events if kind == "run"]
    assert runs[0] == 0 and runs[-1] == offset  # run resumed there, nothing replayed


def test_a_savepoint_resumes_the_source_function_in_a_new_job(tmp_path: Path) -> None:
    store = TransactionStore()
    run = MiniCluster(echo_print=False, seed=5, source_batch=2).submit(job("stop", store, True))
    events = EVENTS["stop"]
    run.run_until(lambda r: snapshotted_past_zero(r, events))
    path = run.savepoint_path(run.stop_with_savepoint(tmp_path))
    run.run_until(job_finished())
    stopped_at = len(store.committed)
    assert 0 < stopped_at < len(LOG)
    store.final.clear()  # after the savepoint: produced again by the new job
    run2 = MiniCluster(echo_print=False, seed=6).submit(
        job("resume", store, True), savepoint_path=path
    )
    events2 = EVENTS["resume"]
    run2.run()
    assert run2.job_status is JobStatus.FINISHED, run2.failure_cause
    store.commit_final_transactions()
    assert Counter(store.committed) == Counter(e.upper() for e in LOG)
    kind, (restored, offset) = events2[0]
    assert kind == "init" and restored and offset >= stopped_at  # (and what it read ahead)
    assert [v for kind, v in events2 if kind == "run"] == [offset]  # resumed, not replayed


@pytest.mark.spark
def test_spark_streaming_restores_the_source_functions_offset_exactly_once(
    spark: Any, tmp_path: Path
) -> None:
    """The same on Spark Structured Streaming: a map fails once mid-stream, the query restarts
    from its checkpoint, and the two-phase-commit sink commits every event once."""
    import os

    from pyflowkit.common import Types
    from pyflowkit.datastream.functions import MapFunction
    from pyflowkit.spark.executor import execute
    from tests.spark_streaming.test_streaming_exactly_once import (
        FileTransactionSink,
        _committed,
    )

    class Offsets(SourceFunction, CheckpointedFunction):  # local: Spark's workers get it by value
        positional_replay = False  # an external log: its offset is all it resumes from

        def __init__(self, log: list[str], runs: str) -> None:
            self.log, self.runs, self.offset = log, runs, 0

        def initialize_state(self, context: Any) -> None:
            self.state = context.get_operator_state_store().get_list_state("offset")
            restored = list(self.state.get()) if context.is_restored() else []
            self.offset = restored[0] if restored else 0

        def snapshot_state(self, context: Any) -> None:
            self.state.update([self.offset])

        def run(self, ctx: Any) -> Any:
            with open(self.runs, "a") as f:
                f.write(f"{self.offset}\n")
            while self.offset < len(self.log):
                ctx.collect(self.log[self.offset])
                self.offset += 1

    class FailOnce(MapFunction):
        def __init__(self, marker: str) -> None:
            self.marker = marker

        def map(self, value: str) -> str:
            if value == "e31" and not os.path.exists(self.marker):
                Path(self.marker).write_text("failed once")
                raise RuntimeError("injected failure")
            return value.upper()

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    configuration = Configuration()
    for key, value in {
        "pyflowkit.spark.streaming-query": "always",
        "pyflowkit.spark.streaming.trigger": "available-now",
        "pyflowkit.spark.streaming.max-records-per-batch": "8",
        "state.checkpoints.dir": str(tmp_path / "chk"),
    }.items():
        configuration.set_string(key, value)
    env.configure(configuration)
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(2, 100))
    runs = tmp_path / "runs"
    (
        env.add_source(Offsets(LOG, str(runs)), "Offsets", Types.STRING())
        .map(FailOnce(str(tmp_path / "marker")), output_type=Types.STRING())
        .add_sink(FileTransactionSink(str(tmp_path / "txn")))
    )
    result = execute(env, spark=spark, print_output=False)
    assert (tmp_path / "marker").exists() and result.job_status == "FINISHED"
    assert _committed(tmp_path / "txn") == Counter(e.upper() for e in LOG)
    starts = [int(x) for x in runs.read_text().split()]
    assert starts[0] == 0 and max(starts) > 0  # a restored run began at its checkpoint's offset
