"""Exactly-once under failures (Hypothesis): pipelines × seeds × failure points.

Aligned and unaligned checkpoints; a task or a whole TaskManager fails at a random step, or when
the run enters a chosen phase of the checkpoint protocol (a checkpoint pending before alignment,
during alignment, between snapshot and acknowledgement, during notification, after completion);
the job restores its latest completed checkpoint and finishes. The transactional sink's committed
output and the final keyed state must equal the failure-free run's. Pipelines: word count,
keyed process, connect, event-time windows, keyed process with event-time timers; the rescaling
case stops each with a savepoint at parallelism 2 (3) and restores it at 3 (2), failing after the
restore. ``make soak`` runs thousands of examples.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from functools import cache
from typing import Any

import pytest
from hypothesis import given, reject
from hypothesis import strategies as st

from pyflowkit.errors import CheckpointException
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.runtime.execution_state import ExecutionState
from pyflowkit.runtime.predicates import (
    Predicate,
    alignment_in_progress,
    checkpoint_completed,
    job_finished,
    notification_in_flight,
    snapshot_not_acknowledged,
)
from pyflowkit.runtime.two_phase_commit import TransactionStore
from tests.checkpoint.pipelines import PIPELINES, CheckpointedPipeline, build

BY_NAME = {p.name: p for p in PIPELINES}
SINGLE_INPUT_CHANNEL = {"keyed_process", "keyed_timers"}  # parallelism-1 source → keyed tasks
MAX_STEPS = 5_000  # a run that has not ended by then is stuck
SNAPSHOT = "SubtaskCheckpointCoordinatorImpl.checkpointState"
ACK = "PendingCheckpoint.acknowledgeTask"
NOTIFY = "Execution.notifyCheckpointComplete"
NOTIFIED = "SubtaskCheckpointCoordinatorImpl.notifyCheckpointComplete"


def _checkpoint_pending() -> Predicate:
    """A checkpoint was triggered and is pending (barriers on their way, before alignment)."""
    return lambda run: bool(run.checkpoint_coordinator and run.checkpoint_coordinator.pending)


PHASES: dict[str, Any] = {
    "pending": _checkpoint_pending,
    "alignment": alignment_in_progress,
    "snapshot_not_acked": snapshot_not_acknowledged,
    "notify": notification_in_flight,
    "completed": lambda: checkpoint_completed(),
}


def _open_spans(run: Any, start: str, end: str) -> list[tuple[str, int]]:
    opened = {(e.vertex, e.subtask, e.checkpoint) for e in run.trace if e.method == start}
    closed = {(e.vertex, e.subtask, e.checkpoint) for e in run.trace if e.method == end}
    return sorted({(v, s) for v, s, _ in opened - closed if _live(run, v, s)})


def _live(run: Any, vertex: str, subtask: int) -> bool:
    task = run._task(run.job_graph.get_vertex(vertex).id, subtask)
    return task is not None and task.state is ExecutionState.RUNNING and task.process_alive


def _in_phase(run: Any, phase: str) -> list[tuple[str, int]]:
    """The (vertex, subtask) pairs the phase is about (empty for job-wide phases)."""
    if phase == "alignment":
        return sorted(
            (task.tdd.job_vertex.name, task.tdd.subtask_index)
            for te in run.task_executors
            if te.alive
            for task in te.tasks.values()
            if task.state is ExecutionState.RUNNING
            and task.checkpointing is not None
            and task.checkpointing.handler is not None
            and task.checkpointing.handler.blocked_channels()
        )
    if phase == "snapshot_not_acked":
        return _open_spans(run, SNAPSHOT, ACK)
    if phase == "notify":
        return _open_spans(run, NOTIFY, NOTIFIED)
    return []


class PhaseFailures:
    """Fail when the run enters ``phase`` for the ``nth`` time (0-based): a task in the phase,
    any live task, or a TaskManager (``kind``), one failure after the other."""

    def __init__(self, failures: list[tuple[str, int, int, str]]) -> None:
        self.todo = list(failures)
        self.injected: list[str] = []
        self._arm()

    def _arm(self) -> None:
        self.pred = PHASES[self.todo[0][0]]() if self.todo else None
        self.entries = 0
        self.was_in = False

    def after_step(self, run: Any, tm_failed: bool) -> bool:
        if self.pred is None:
            return tm_failed
        now_in = self.pred(run)
        if now_in and not self.was_in:
            phase, nth, victim, kind = self.todo[0]
            if self.entries == nth:
                self.todo.pop(0)
                subjects = _in_phase(run, phase)
                if kind == "phase_task" and subjects:
                    vertex, subtask = subjects[victim % len(subjects)]
                    run.fail_task(vertex, subtask, cause=f"injected failure ({phase})")
                else:
                    tm_failed = _inject(run, victim, "tm" if kind == "tm" else "task", tm_failed)
                self.injected.append(phase)
                self._arm()
                return tm_failed
            self.entries += 1
        self.was_in = now_in
        return tm_failed


def run_recording_final_state(
    pipeline: CheckpointedPipeline,
    seed: int,
    failures: list[tuple[int, int, str]],
    unaligned: bool = False,
    phases: PhaseFailures | None = None,
    parallelism: int = 2,
    savepoint_path: str | None = None,
    store: TransactionStore | None = None,
    task_managers: int = 2,
) -> tuple[Any, TransactionStore, dict[str, dict[Any, Any]]]:
    """Run to the end in step mode (from ``savepoint_path`` if given), failing as told; record
    each stateful subtask's keyed state when its input ends (before ``afterInvoke`` disposes it)."""
    store = TransactionStore() if store is None else store
    env = build(pipeline, store, parallelism)
    if unaligned:
        env.get_checkpoint_config().enable_unaligned_checkpoints()
    cluster = MiniCluster(task_managers, echo_print=False, seed=seed, source_batch=2)
    run = cluster.submit(env, savepoint_path=savepoint_path)
    jv = run.job_graph.get_vertex(pipeline.stateful_vertex)
    final: dict[int, dict[str, Any]] = {}
    # Subtasks that reached FINISHED keep the state they finished with: under 1.20 a later
    # restore of a partly finished vertex runs them again empty (FinishedOperatorSubtaskState)
    finished: set[int] = set()
    pending = sorted(failures)
    tm_failed = False
    while run.has_next():
        if pending and run.steps_taken >= pending[0][0]:
            _, victim, kind = pending.pop(0)
            tm_failed = _inject(run, victim, kind, tm_failed)
        run.step()
        assert run.steps_taken < MAX_STEPS, f"no end after {MAX_STEPS} steps: {run!r}"
        if phases is not None:
            tm_failed = phases.after_step(run, tm_failed)
        for i in range(jv.parallelism):
            if i in finished:
                continue
            if _execution_finished(run, jv.id, i):
                finished.add(i)
                continue
            task = run._task(jv.id, i)
            if task is not None and task.invokable.end_of_input and task.invokable.chain:
                final[i] = task.invokable.chain.keyed_state()
    merged: dict[str, dict[Any, Any]] = {}
    for i in sorted(final):
        for states in final[i].values():
            for name, per_key in states.items():
                merged.setdefault(name, {}).update(per_key)
    store.commit_final_transactions()
    return run, store, merged


def _execution_finished(run: Any, vertex_id: str, subtask: int) -> bool:
    jm = run.job_master
    ev = jm.scheduler.by_key.get((vertex_id, subtask)) if jm is not None else None
    return ev is not None and ev.current_execution.state is ExecutionState.FINISHED


def _inject(run: Any, victim: int, kind: str, tm_failed: bool) -> bool:
    """Fail a live task (``victim`` picks one) or a TaskManager (at most one of the two)."""
    if kind == "tm" and not tm_failed:
        alive = [i for i, te in enumerate(run.task_executors) if te.alive and te.tasks]
        if alive:
            run.fail_task_manager(alive[victim % len(alive)])
            return True
    live = [
        (ev.job_vertex, ev.subtask_index)
        for ev in (run.job_master.scheduler.execution_vertices if run.job_master else [])
        if (t := run._task(ev.job_vertex.id, ev.subtask_index)) is not None
        and not t.state.is_terminal()
        and t.process_alive
    ]
    if live:
        jv, subtask = live[victim % len(live)]
        run.fail_task(jv, subtask, cause="injected failure")
    return tm_failed


@cache
def failure_free(name: str) -> tuple[Counter[Any], dict[str, dict[Any, Any]]]:
    run, store, final = run_recording_final_state(BY_NAME[name], 0, [])
    assert run.job_status is JobStatus.FINISHED
    return Counter(store.committed), final


def test_failure_free_runs_commit_the_expected_output() -> None:
    for p in PIPELINES:
        committed, final = failure_free(p.name)
        assert committed == p.expected, p.name
        assert final and all(final.values()), p.name


def up_to(element: st.SearchStrategy[Any], lo: int, hi: int) -> st.SearchStrategy[list[Any]]:
    """Lists of ``lo``..``hi`` elements, one fixed-size tuple per length.

    Valid by construction: ``st.lists`` with a small ``max_size`` makes Hypothesis (6.170) count
    about 4 invalid test cases in 10 (its size draws), which ran no test at all.
    """
    return st.one_of(*(st.tuples(*[element] * n).map(list) for n in range(lo, hi + 1)))


failure = st.tuples(
    st.integers(min_value=40, max_value=240),
    st.integers(min_value=0, max_value=99),
    st.sampled_from(["task", "task", "tm"]),
)


@given(
    name=st.sampled_from(sorted(BY_NAME)),
    seed=st.integers(min_value=0, max_value=10_000),
    failures=up_to(failure, 1, 2),
    unaligned=st.booleans(),
)
def test_committed_output_and_final_state_survive_failures(
    name: str, seed: int, failures: list[tuple[int, int, str]], unaligned: bool
) -> None:
    run, store, final = run_recording_final_state(BY_NAME[name], seed, failures, unaligned)
    assert run.job_status is JobStatus.FINISHED, run.failure_cause
    expected_committed, expected_final = failure_free(name)
    assert Counter(store.committed) == expected_committed
    assert final == expected_final


phase_failure = st.tuples(
    st.sampled_from(sorted(PHASES)),
    st.integers(min_value=0, max_value=3),
    st.integers(min_value=0, max_value=99),
    st.sampled_from(["phase_task", "phase_task", "task", "tm"]),
)


@given(
    name=st.sampled_from(sorted(BY_NAME)),
    seed=st.integers(min_value=0, max_value=10_000),
    failures=up_to(phase_failure, 1, 2),
    unaligned=st.booleans(),
)
def test_failures_at_protocol_phases_keep_exactly_once(
    name: str, seed: int, failures: list[tuple[str, int, int, str]], unaligned: bool
) -> None:
    phases = PhaseFailures(failures)
    run, store, final = run_recording_final_state(BY_NAME[name], seed, [], unaligned, phases)
    assert run.job_status is JobStatus.FINISHED, run.failure_cause
    expected_committed, expected_final = failure_free(name)
    assert Counter(store.committed) == expected_committed
    assert final == expected_final


@pytest.mark.parametrize("phase", sorted(PHASES))
@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_each_phase_is_reached_and_a_failure_there_keeps_exactly_once(
    name: str, phase: str
) -> None:
    phases = PhaseFailures([(phase, 0, 0, "phase_task")])
    run, store, final = run_recording_final_state(BY_NAME[name], 1, [], False, phases)
    if phase == "alignment" and name in SINGLE_INPUT_CHANNEL:
        assert phases.injected == []  # one input channel per task: nothing to align
    else:
        assert phases.injected == [phase]
        assert any("injected failure" in e.message for e in run.trace)
    assert run.job_status is JobStatus.FINISHED, run.failure_cause
    expected_committed, expected_final = failure_free(name)
    assert Counter(store.committed) == expected_committed
    assert final == expected_final


# Found by test_failures_at_protocol_phases_keep_exactly_once under the 1.20 default: word count
# with unaligned checkpoints lost ('that', 8) and ('the', 8) (seed 29) or never ended (272) when a
# Map finished before the Keyed Reduce had read its last records (overtaken by the final barrier);
# the next checkpoint recorded the Map FINISHED and the records left unpersisted in the channel.
UNALIGNED_1_20_CASES = [
    (29, ("pending", 2, 0, "phase_task")),
    (29, ("pending", 2, 1, "tm")),
    (29, ("notify", 1, 0, "task")),
    (272, ("notify", 2, 1, "phase_task")),
]


@pytest.mark.flink_version("1.20")
@pytest.mark.parametrize(("seed", "failure"), UNALIGNED_1_20_CASES)
def test_1_20_unaligned_failures_after_the_final_checkpoint_keep_exactly_once(
    seed: int, failure: tuple[str, int, int, str]
) -> None:
    # after the fix the first two runs finish before a third pending checkpoint: nothing to inject
    phases = PhaseFailures([failure])
    run, store, final = run_recording_final_state(BY_NAME["word_count"], seed, [], True, phases)
    assert run.job_status is JobStatus.FINISHED, run.failure_cause
    expected_committed, expected_final = failure_free("word_count")
    assert Counter(store.committed) == expected_committed
    assert final == expected_final


REDUCE = "Keyed Reduce -> Sink: Unnamed"


class _FailAReduceAfterTheMapsFinished:
    """Once every Map FINISHED and a checkpoint completed after that, fail Keyed Reduce (1/2)
    while both its subtasks run: the job restores a checkpoint in which the Maps are finished."""

    def __init__(self) -> None:
        self.completed: int | None = None
        self.failed: list[int] = []

    def after_step(self, run: Any, tm_failed: bool) -> bool:
        if self.failed:
            return tm_failed
        maps = [run._task(run.job_graph.get_vertex("Map").id, i) for i in (0, 1)]
        if not all(t is not None and t.state is ExecutionState.FINISHED for t in maps):
            return tm_failed
        done = len(run.checkpoint_coordinator.completed_by_id)
        if self.completed is None:
            self.completed = done
        elif done > self.completed and all(_live(run, REDUCE, i) for i in (0, 1)):
            run.fail_task(REDUCE, 0, cause="injected failure")
            self.failed.append(0)
        return tm_failed


@pytest.mark.flink_version("1.20")
@pytest.mark.parametrize("seed", [0, 5, 12])
def test_1_20_unaligned_restore_after_the_maps_finished_keeps_exactly_once(seed: int) -> None:
    failing: Any = _FailAReduceAfterTheMapsFinished()  # after_step, as PhaseFailures
    run, store, final = run_recording_final_state(BY_NAME["word_count"], seed, [], True, failing)
    assert failing.failed == [0]
    assert run.job_status is JobStatus.FINISHED, run.failure_cause
    expected_committed, expected_final = failure_free("word_count")
    assert Counter(store.committed) == expected_committed
    assert final == expected_final


@pytest.mark.flink_version("1.20")
def test_1_20_a_task_finishes_after_its_consumers_read_its_end_of_data() -> None:
    """``StreamTask.afterInvoke``: a Map that ended its data reaches FINISHED only once every
    Keyed Reduce subtask read its EndOfData (``getAllDataProcessedFuture``), even when its final
    unaligned checkpoint completed earlier."""
    run, _, _ = run_recording_final_state(BY_NAME["word_count"], 29, [], True)
    assert run.job_status is JobStatus.FINISHED, run.failure_cause
    trace = list(run.trace)

    def first(vertex: str, subtask: int, text: str) -> int:
        return next(
            i
            for i, e in enumerate(trace)
            if e.vertex == vertex and e.subtask == subtask and text in e.message
        )

    reduce = "Keyed Reduce -> Sink: Unnamed"
    for m in (0, 1):
        finished = first("Map", m, "switched from RUNNING to FINISHED")
        for r in (0, 1):
            read = next(
                i
                for i, e in enumerate(trace)
                if e.vertex == reduce
                and e.subtask == r
                and "received EndOfData(StopMode.DRAIN) on channel" in e.message
                and f"channel {m}" in e.message
            )
            assert read < finished, (m, r)
    waited = [e.subtask for e in trace if "waits for all the records processed" in e.message]
    assert waited, "no Map waited for its consumers in this run"


def stop_with_savepoint_mid_run(
    pipeline: CheckpointedPipeline, seed: int, parallelism: int, store: TransactionStore, path: str
) -> str:
    """Run until a checkpoint completed, then ``stop_with_savepoint``; the savepoint's location."""
    run = MiniCluster(echo_print=False, seed=seed, source_batch=2).submit(
        build(pipeline, store, parallelism)
    )
    run.run_until(checkpoint_completed())
    try:
        location = run.savepoint_path(run.stop_with_savepoint(path))
    except CheckpointException:
        # 1.11 takes no savepoint once a source finished (NOT_ALL_REQUIRED_TASKS_RUNNING) or
        # declines it when an input ended: nothing to restore from in this example.
        reject()
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED, run.failure_cause
    # The output after the savepoint belongs to no checkpoint: the restored job produces it again.
    # The stopped job's final transactions are therefore not committed (1.11 aborts them on close).
    store.final.clear()
    return location


@given(
    name=st.sampled_from(sorted(BY_NAME)),
    seed=st.integers(min_value=0, max_value=10_000),
    rescale=st.sampled_from([(2, 3), (3, 2)]),
    failures=up_to(failure, 0, 2),
    phase_failures=up_to(phase_failure, 0, 1),
)
def test_rescaled_restore_from_a_savepoint_keeps_exactly_once(
    name: str,
    seed: int,
    rescale: tuple[int, int],
    failures: list[tuple[int, int, str]],
    phase_failures: list[tuple[str, int, int, str]],
) -> None:
    """Savepoint at parallelism p, restore at q (failures after the restore): the two jobs
    together commit the failure-free output once, and end with the failure-free keyed state."""
    pipeline, store = BY_NAME[name], TransactionStore()
    with tempfile.TemporaryDirectory() as tmp:
        location = stop_with_savepoint_mid_run(pipeline, seed, rescale[0], store, tmp)
        committed_before = Counter(store.committed)
        if committed_before == failure_free(name)[0]:
            # 1.20: the first checkpoint to complete was the final one (the sources had ended,
            # FLIP-147) and committed everything: the savepoint leaves the restore nothing to do
            reject()
        run, store, final = run_recording_final_state(
            pipeline,
            seed + 1,
            [(step - 30, victim, kind) for step, victim, kind in failures],
            phases=PhaseFailures(phase_failures),
            parallelism=rescale[1],
            savepoint_path=location,
            store=store,
            task_managers=3,  # parallelism 3 still finds its slots after losing a TaskManager
        )
    assert run.job_status is JobStatus.FINISHED, run.failure_cause
    assert any("from latest valid checkpoint" in e.message for e in run.trace)
    expected_committed, expected_final = failure_free(name)
    assert sum(committed_before.values()) < sum(expected_committed.values())
    assert Counter(store.committed) == expected_committed
    assert final == expected_final


def test_rescaled_restore_then_tm_failure_and_failure_during_notify() -> None:
    """Found by the soak profile (was a strict xfail): the TaskManager died while a sink
    subtask's new attempt had its ``Task.run`` queued; that zombie attempt still ran on the dead
    TaskManager to end of input and published its tail as a final transaction after the restored
    attempt had committed the same records (16 duplicates). Dead processes now run nothing, and
    the store fences stale attempts."""
    test_rescaled_restore_from_a_savepoint_keeps_exactly_once.hypothesis.inner_test(
        "keyed_process", 57, (2, 3), [(118, 0, "tm")], [("notify", 0, 0, "task")]
    )
