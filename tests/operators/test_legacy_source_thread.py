"""A plain (non-generator) ``SourceFunction.run`` runs on its own thread, as Flink's
``LegacySourceFunctionThread`` does: an endless ``while running: ctx.collect(…)`` loop is stepped
by the reader, cancelled with ``cancel()`` and unwound; its records, failures, pauses and restores
behave as a generator ``run``'s."""

from __future__ import annotations

import gc
import threading
from collections import Counter
from typing import Any, ClassVar

import pytest

from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import SourceFunction
from pyflowkit.operators.sources import SourceFunctionReader
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.runtime.predicates import checkpoint_completed
from pyflowkit.runtime.two_phase_commit import TransactionalListSink, TransactionStore


class Counting(SourceFunction):
    """Flink's canonical source: ``while running`` collect the next number; ``limit`` ends it."""

    cancels: ClassVar[list[str]] = []  # cancel() calls of every copy (tasks copy the function)

    def __init__(self, limit: int | None = None, pause_every: int = 0, fail_at: int = -1) -> None:
        self.limit = limit
        self.pause_every = pause_every
        self.fail_at = fail_at
        self.running = True

    def run(self, ctx: Any) -> None:
        i = 0
        while self.running and (self.limit is None or i < self.limit):
            if i == self.fail_at:
                raise ValueError(f"bad record {i}")
            ctx.collect(i)
            i += 1
            if self.pause_every and i % self.pause_every == 0:
                ctx.sleep(50)

    def cancel(self) -> None:
        self.running = False
        Counting.cancels.append("cancel")


class Generating(Counting):
    """The same source written as a generator ``run``."""

    def run(self, ctx: Any) -> Any:  # type: ignore[override]
        i = 0
        while self.running and (self.limit is None or i < self.limit):
            ctx.collect(i)
            i += 1
            if self.pause_every and i % self.pause_every == 0:
                ctx.sleep(50)
            yield None


def _source_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("Legacy Source Thread")]


def _env(source: SourceFunction) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.add_source(source).map(lambda x: x * 2).print()
    return env


def test_an_endless_plain_run_is_stepped_and_cancelled() -> None:
    Counting.cancels.clear()
    run = MiniCluster(echo_print=False).submit(_env(Counting(pause_every=100)))
    run.step(200)
    printed = run.printed()
    assert len(printed) >= 500
    assert printed == [str(2 * i) for i in range(len(printed))]  # in order, none lost
    assert run.bus.now >= 50 * (len(printed) // 100)  # each ctx.sleep(50) is simulated time
    assert len(_source_threads()) == 1
    run.cancel()
    run.run()
    assert run.job_status is JobStatus.CANCELED
    assert Counting.cancels == ["cancel"]  # StreamSource.cancel → SourceFunction.cancel()
    assert _source_threads() == []


def test_a_bounded_plain_run_equals_the_generator_run() -> None:
    outputs = []
    for source in (Counting(limit=1234, pause_every=7), Generating(limit=1234, pause_every=7)):
        run = MiniCluster(echo_print=False).submit(_env(source))
        run.run()
        assert run.job_status is JobStatus.FINISHED, run.failure_traceback
        outputs.append((run.printed(), run.bus.now))
    assert outputs[0] == outputs[1]
    assert outputs[0][0] == [str(2 * i) for i in range(1234)]
    assert _source_threads() == []


def test_an_exception_in_run_fails_the_job_with_the_users_traceback() -> None:
    run = MiniCluster(echo_print=False).submit(_env(Counting(fail_at=700)))
    run.run()
    assert run.job_status is JobStatus.FAILED
    assert "ValueError: bad record 700" in run.failure_traceback
    assert "in run" in run.failure_traceback  # the user's frame, raised on the source thread
    assert "Source: Custom Source" in run.failure_traceback
    assert _source_threads() == []


def test_failures_with_checkpoints_commit_every_record_exactly_once() -> None:
    store = TransactionStore()
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.enable_checkpointing(20)
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(5, 10))
    env.add_source(Counting(limit=5000, pause_every=50)).map(lambda x: x).add_sink(
        TransactionalListSink(store)
    )
    run = MiniCluster(echo_print=False, source_batch=4).submit(env)
    run.run_until(checkpoint_completed())
    run.step(30)
    run.fail_task_manager(0)  # the TaskManager is lost mid-run
    run.run_until(checkpoint_completed())
    run.step(30)
    run.fail_task(run.job_graph.vertices[0].name, 0)  # then the task fails
    run.run()
    assert run.job_status is JobStatus.FINISHED, run.failure_traceback
    assert run.number_of_restarts == 2
    store.commit_final_transactions()
    assert Counter(store.committed) == Counter(range(5000))
    del run  # the lost TaskManager's reader still waits; dropping it unwinds its thread
    gc.collect()
    assert _source_threads() == []


def test_a_restored_reader_skips_to_its_position_and_the_old_one_unwinds() -> None:
    first = SourceFunctionReader(Counting())
    assert [v for v, _ in first.poll(10)] == list(range(10))
    position = first.snapshot_position()
    del first
    gc.collect()  # a reader dropped without close() cancels its thread (weakref finalizer)
    assert _source_threads() == []
    second = SourceFunctionReader(Counting())
    second.restore_position(position - 3)
    assert [v for v, _ in second.poll(5)] == [7, 8, 9, 10, 11]
    second.close()
    assert _source_threads() == []


@pytest.mark.parametrize("catching", ["Exception", "nothing"])
def test_a_run_catching_exceptions_is_still_unwound(catching: str) -> None:
    """Cancellation unwinds ``run`` with a ``BaseException``: ``except Exception`` keeps it."""

    class Stubborn(SourceFunction):
        def run(self, ctx: Any) -> None:
            i = 0
            while True:  # ignores cancel(): only the unwinding in collect stops it
                try:
                    ctx.collect(i)
                except Exception:
                    if catching == "nothing":
                        raise
                i += 1

    reader = SourceFunctionReader(Stubborn())
    assert [v for v, _ in reader.poll(3)] == [0, 1, 2]
    reader.close()
    assert _source_threads() == []
