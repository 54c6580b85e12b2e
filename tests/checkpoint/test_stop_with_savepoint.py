"""Stop-with-savepoint with and without drain, as Flink 1.11 does it.

``flink stop`` (``drain=False``): the sources stop without MAX_WATERMARK, pending event-time windows
stay in the savepoint and fire in the job restored from it. ``flink stop --drain``
(``advanceToEndOfEventTime``): the sources emit MAX_WATERMARK ahead of the savepoint barrier, so
every window fires before the savepoint and the savepoint holds no pending window or timer.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import WatermarkStrategy
from pyflowkit.common.time import Time
from pyflowkit.common.watermark_strategy import (
    TimestampAssigner,
    WatermarkGenerator,
    WatermarkOutput,
)
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.connectors import NumberSequenceSource
from pyflowkit.datastream.functions import KeyedProcessFunction
from pyflowkit.datastream.window import TumblingEventTimeWindows
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.runtime.checkpoint.properties import CheckpointProperties
from pyflowkit.runtime.execution_state import ExecutionState
from pyflowkit.runtime.job_status import JobStatus
from pyflowkit.runtime.mini_cluster import MiniCluster
from pyflowkit.runtime.predicates import checkpoint_completed, job_finished
from tests.checkpoint.pipelines import EventTime

WINDOW = 20  # ms, tumbling
EVENTS = [(f"k{i % 3}", i * 3, 1) for i in range(60)]  # (key, event time, value)
WINDOW_VERTEX = (
    "Window(TumblingEventTimeWindows(20), EventTimeTrigger, ReduceFunction, "
    "PassThroughWindowFunction) -> Sink: Print to Std. Out"
)


class PunctuatedWatermarks(WatermarkGenerator):
    """A watermark after every event (so the assigner's final periodic emit on close adds none)."""

    def __init__(self) -> None:
        self.max_ts: int | None = None

    def on_event(self, event: Any, event_timestamp: int, output: WatermarkOutput) -> None:
        if self.max_ts is None or event_timestamp > self.max_ts:
            self.max_ts = event_timestamp
            output.emit_watermark(event_timestamp - 1)

    def on_periodic_emit(self, output: WatermarkOutput) -> None:
        pass


class NumberTime(TimestampAssigner):
    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        return int(value) * 3


class Punctuated(WatermarkStrategy):
    def __init__(self, assigner: Any = None) -> None:
        super().__init__("punctuated", None, assigner or EventTime())

    def create_watermark_generator(self, clock: Any = None) -> WatermarkGenerator:
        return PunctuatedWatermarks()


def window_job(
    interval: int | None = 10, strategy: WatermarkStrategy | None = None
) -> StreamExecutionEnvironment:
    """Collection source → timestamps → keyed event-time tumbling window sum → print."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    if interval is not None:
        env.enable_checkpointing(interval)
    (
        env.from_collection(EVENTS)
        .uid("events")
        .assign_timestamps_and_watermarks(strategy or Punctuated())
        .uid("timestamps")
        .key_by(lambda t: t[0])
        .window(TumblingEventTimeWindows.of(Time.milliseconds(WINDOW)))
        .reduce(lambda a, b: (a[0], min(a[1], b[1]), a[2] + b[2]))
        .uid("window")
        .print()
        .uid("print")
    )
    return env


def outputs(run: Any) -> Counter[str]:
    """Printed window results without the ``n> `` subtask prefix."""
    return Counter(line.split("> ", 1)[-1] for line in run.printed())


def uninterrupted() -> Counter[str]:
    run = MiniCluster(echo_print=False, seed=1).submit(window_job())
    run.run()
    assert run.job_status is JobStatus.FINISHED
    return outputs(run)


def window_state(run: Any, savepoint_id: int, vertex: str = WINDOW_VERTEX) -> tuple[int, int]:
    """(event-time timers, window-namespaced keyed entries) of the window operator's snapshot."""
    coord = run.checkpoint_coordinator
    jv = run._vertex(vertex)
    window_op_ids = {p.generated_operator_id for p in jv.operator_ids} | {
        p.user_defined_operator_id for p in jv.operator_ids
    }
    timers = entries = 0
    for op_id, op_state in coord.completed_by_id[savepoint_id].operator_states.items():
        if op_id not in window_op_ids:
            continue
        for snap in op_state.subtask_states.values():
            timers += sum(1 for ts in snap.timers.values() for t in ts if t[1] == "event")
            for states in snap.keyed_state.values():
                for st in states.values():
                    entries += sum(1 for _, ns, _ in st["entries"] if ns is not None)
    return timers, entries


def stop(tmp_path: Path, drain: bool) -> tuple[Any, int, str, int]:
    """Run until checkpoint 1, stop with a savepoint; (run, id, path, outputs at completion)."""
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(window_job())
    run.run_until(checkpoint_completed(1))
    sp = run.stop_with_savepoint(tmp_path, drain=drain)
    run.run_until(checkpoint_completed(sp))
    at_savepoint = sum(outputs(run).values())
    path = run.savepoint_path(sp)
    run.run_until(job_finished())
    return run, sp, path, at_savepoint


def methods(run: Any) -> list[str]:
    return [e.method for e in run.trace]


def first(run: Any, method: str, text: str = "") -> int:
    return next(i for i, e in enumerate(run.trace) if e.method == method and text in e.message)


def assert_all_finished(run: Any) -> None:
    assert run.job_status is JobStatus.FINISHED, run.failure_cause
    states = {e.state for e in run.executions()}
    assert states == {ExecutionState.FINISHED}


def test_stop_without_drain_keeps_open_windows_for_the_restored_job(tmp_path: Path) -> None:
    run, sp, path, at_savepoint = stop(tmp_path, drain=False)
    assert_all_finished(run)
    stopped = outputs(run)
    # no MAX_WATERMARK: nothing fires after the savepoint, the open windows wait in the savepoint
    assert sum(stopped.values()) == at_savepoint
    assert "SourceStreamTask.advanceToEndOfEventTime" not in methods(run)
    timers, entries = window_state(run, sp)
    assert timers > 0 and entries > 0
    assert timers == entries  # one pending window (one timer, one accumulator) per key and window
    expected = uninterrupted()
    assert sum(stopped.values()) < sum(expected.values())

    resumed = MiniCluster(echo_print=False, seed=2).submit(window_job(), savepoint_path=path)
    resumed.run()
    assert_all_finished(resumed)
    assert stopped + outputs(resumed) == expected  # every window exactly once over both jobs


def test_stop_with_drain_fires_every_window_before_the_savepoint(tmp_path: Path) -> None:
    run, sp, _, at_savepoint = stop(tmp_path, drain=True)
    assert_all_finished(run)
    drained = outputs(run)
    assert sum(drained.values()) == at_savepoint  # all output came before the savepoint completed
    assert window_state(run, sp) == (0, 0)  # no pending window, no timer in the savepoint
    # the windows of the records read so far all fired: (key, start) pairs of those records
    read = {(k, ts // WINDOW) for k, ts, _ in EVENTS[: max_read(drained)]}
    assert len(read) == sum(drained.values())


def max_read(printed: Counter[str]) -> int:
    """How many events the drained job read: the windows' sums add up to it (every value is 1)."""
    return sum(int(line.rstrip(")").rsplit(",", 1)[1]) * n for line, n in printed.items())


def test_trace_without_drain_names_the_flink_methods_in_order(tmp_path: Path) -> None:
    run, sp, _, _ = stop(tmp_path, drain=False)
    order = [
        first(run, "JobMaster.stopWithSavepoint", "Suspending job"),
        first(run, "SchedulerBase.stopWithSavepoint"),
        first(run, "CheckpointCoordinator.triggerSynchronousSavepoint", "=false"),
        first(run, "CheckpointCoordinator.createPendingCheckpoint", "type=SYNC_SAVEPOINT"),
        first(run, "Execution.triggerSynchronousSavepoint"),
        first(run, "StreamTask.performCheckpoint", "Source"),
        first(run, "StreamTask.runSynchronousSavepointMailboxLoop", "Window"),
        first(run, "CheckpointCoordinator.completePendingCheckpoint", f"checkpoint {sp} "),
        first(run, "SourceStreamTask.finishTask"),
        first(run, "StreamTask.afterInvoke", "Source"),
        first(run, "StreamTask.afterInvoke", "Window"),
        first(run, "ExecutionGraph.transitionState", "RUNNING to FINISHED"),
    ]
    assert order == sorted(order)
    ended = [e.message for e in run.trace if "all input ended" in e.message]
    assert len(ended) == 2 and all("1.11.1 still calls endInput" in m for m in ended)
    # every task leaves the synchronous savepoint loop once notified
    notified = [e for e in run.trace if e.method == "StreamTask.notifyCheckpointComplete"]
    assert len(notified) == 2 and all(e.checkpoint == sp for e in notified)


def test_trace_with_drain_emits_max_watermark_before_the_barrier(tmp_path: Path) -> None:
    run, sp, _, _ = stop(tmp_path, drain=True)
    drain = first(run, "SourceStreamTask.advanceToEndOfEventTime")
    assert run.trace[drain].checkpoint == sp
    assert first(run, "JobMaster.stopWithSavepoint", "Draining job") < drain
    assert drain < first(
        run, "SubtaskCheckpointCoordinatorImpl.checkpointState", f"checkpoint {sp}"
    )
    assert (
        "advanceToEndOfEventTime=true"
        in run.trace[first(run, "CheckpointCoordinator.triggerSynchronousSavepoint")].message
    )
    # 1.11 has one type for both: SYNC_SAVEPOINT (1.13 split it into SUSPEND/TERMINATE)
    assert first(run, "CheckpointCoordinator.createPendingCheckpoint", "type=SYNC_SAVEPOINT")
    assert first(run, "SourceStreamTask.finishTask") > first(
        run, "CheckpointCoordinator.completePendingCheckpoint", f"checkpoint {sp} "
    )


def test_drain_must_be_a_bool(tmp_path: Path) -> None:
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(window_job())
    run.run_until(checkpoint_completed(1))
    with pytest.raises(IllegalArgumentException, match="drain must be True or False"):
        run.stop_with_savepoint(tmp_path, drain="yes")  # type: ignore[arg-type]
    assert run.job_status is JobStatus.RUNNING
    assert "JobMaster.stopWithSavepoint" not in methods(run)


def test_only_synchronous_savepoints_advance_to_end_of_time(tmp_path: Path) -> None:
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(window_job())
    run.run_until(checkpoint_completed(1))
    coord = run.checkpoint_coordinator
    with pytest.raises(IllegalArgumentException, match="Only synchronous savepoints"):
        coord.trigger_checkpoint(
            props=CheckpointProperties.for_savepoint(), advance_to_end_of_time=True
        )
    assert sorted(coord.pending) == []


def test_a_flip27_source_ignores_drain_in_1_11(tmp_path: Path) -> None:
    """1.11's SourceOperatorStreamTask has no advanceToEndOfEventTime: no MAX_WATERMARK."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.enable_checkpointing(10)
    (
        env.from_source(NumberSequenceSource(0, 59), Punctuated(NumberTime()), "numbers")
        .map(lambda n: (f"k{n % 3}", n * 3, 1))
        .key_by(lambda t: t[0])
        .window(TumblingEventTimeWindows.of(Time.milliseconds(WINDOW)))
        .reduce(lambda a, b: (a[0], min(a[1], b[1]), a[2] + b[2]))
        .print()
    )
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(env)
    run.run_until(checkpoint_completed(1))
    sp = run.stop_with_savepoint(tmp_path, drain=True)
    run.savepoint_path(sp)
    run.run_until(job_finished())
    assert_all_finished(run)
    ignored = [e for e in run.trace if e.method == "StreamTask.advanceToEndOfEventTime"]
    assert len(ignored) == 2 and all("ignores --drain" in e.message for e in ignored)
    assert "SourceStreamTask.advanceToEndOfEventTime" not in methods(run)
    window = next(v.name for v in run.job_graph.vertices if v.name.startswith("Window"))
    timers, entries = window_state(run, sp, window)
    assert timers > 0 and timers == entries  # windows still pending in the savepoint


class LateProcessingTimer(KeyedProcessFunction):
    """Per element an event-time timer at the element's window end and a processing-time timer
    far in the future; each timer emits (domain, key, timestamp)."""

    def process_element(self, value: Any, ctx: Any) -> Any:
        ctx.timer_service().register_event_time_timer(value[1] // WINDOW * WINDOW + WINDOW - 1)
        ctx.timer_service().register_processing_time_timer(1_000_000)
        return iter(())

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        domain = "processing" if timestamp == 1_000_000 else "event"
        yield (domain, ctx.get_current_key(), timestamp)


def timers_job() -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.enable_checkpointing(10)
    (
        env.from_collection(EVENTS)
        .assign_timestamps_and_watermarks(Punctuated())
        .key_by(lambda t: t[0])
        .process(LateProcessingTimer())
        .print()
    )
    return env


def snapshot_timers(run: Any, savepoint_id: int) -> Counter[str]:
    """How many timers of each domain the savepoint holds (all operators)."""
    coord = run.checkpoint_coordinator
    out: Counter[str] = Counter()
    for op_state in coord.completed_by_id[savepoint_id].operator_states.values():
        for snap in op_state.subtask_states.values():
            out.update(t[1] for ts in snap.timers.values() for t in ts)
    return out


@pytest.mark.parametrize("drain", [False, True])
def test_processing_time_timers_never_fire_and_stay_in_the_savepoint(
    tmp_path: Path, drain: bool
) -> None:
    """Neither mode fires processing-time timers (afterInvoke quiesces the timer service);
    drain fires the event-time ones only, without drain they wait in the savepoint too."""
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(timers_job())
    run.run_until(checkpoint_completed(1))
    sp = run.stop_with_savepoint(tmp_path, drain=drain)
    run.savepoint_path(sp)
    run.run_until(job_finished())
    assert_all_finished(run)
    fired = Counter(line.split("> ", 1)[-1].split("'")[1] for line in run.printed())
    held = snapshot_timers(run, sp)
    assert fired["processing"] == 0
    assert held["processing"] == 3  # one per key (same timestamp: deduplicated per key)
    if drain:
        assert fired["event"] > 0 and held["event"] == 0
    else:
        assert held["event"] > 0


def test_a_rewind_replays_stop_with_savepoint_with_its_drain_flag(tmp_path: Path) -> None:
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(window_job())
    run.run_until(checkpoint_completed(1))
    at = run.steps_taken
    run.stop_with_savepoint(tmp_path, drain=True)
    run.run_until(job_finished())
    first_trace = [(e.method, e.message) for e in run.trace]
    run.rewind(at - 1)
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED
    replayed = [(e.method, e.message) for e in run.trace]
    assert [m for m, _ in replayed] == [m for m, _ in first_trace]
    assert "SourceStreamTask.advanceToEndOfEventTime" in {m for m, _ in replayed}


def test_the_assigners_last_periodic_watermark_fires_windows_after_the_savepoint(
    tmp_path: Path,
) -> None:
    """1.11's TimestampsAndWatermarksOperator.close() calls onPeriodicEmit once more: with
    periodic (here: monotonous) watermarks, a stopped job still fires the windows up to the last
    record read — after the savepoint, so the restored job fires them again. A print sink shows
    them twice (at-least-once); a two-phase-commit sink would not commit the stopped job's part."""
    monotonous = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(EventTime())
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(
        window_job(strategy=monotonous)
    )
    run.run_until(checkpoint_completed(1))
    sp = run.stop_with_savepoint(tmp_path)
    run.run_until(checkpoint_completed(sp))
    at_savepoint = outputs(run)
    path = run.savepoint_path(sp)
    run.run_until(job_finished())
    assert_all_finished(run)
    after = outputs(run) - at_savepoint
    assert sum(after.values()) > 0
    assert "SourceStreamTask.advanceToEndOfEventTime" not in methods(run)
    resumed = MiniCluster(echo_print=False, seed=2).submit(
        window_job(strategy=monotonous), savepoint_path=path
    )
    resumed.run()
    assert_all_finished(resumed)
    expected = MiniCluster(echo_print=False, seed=1).submit(window_job(strategy=monotonous))
    expected.run()
    assert outputs(run) + outputs(resumed) == outputs(expected) + after  # exactly `after` twice
