"""Exactly-once under failures (Hypothesis): pipelines × seeds × failure points.

Aligned and unaligned checkpoints; a task or a whole TaskManager fails at a random step (before,
during or after alignment, between snapshot and acknowledgement, during notification — wherever
the step lands); the job restores
its latest completed checkpoint and finishes. The transactional sink's committed output and the
final keyed state must equal the failure-free run's. ``make soak`` runs thousands of examples.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.runtime.two_phase_commit import TransactionStore
from tests.checkpoint.pipelines import PIPELINES, CheckpointedPipeline, build

BY_NAME = {p.name: p for p in PIPELINES}


def run_recording_final_state(
    pipeline: CheckpointedPipeline,
    seed: int,
    failures: list[tuple[int, int, str]],
    unaligned: bool = False,
) -> tuple[Any, TransactionStore, dict[str, dict[Any, Any]]]:
    """Run to the end in step mode, failing as told; record each stateful subtask's keyed state
    when its input ends (just before ``afterInvoke`` disposes its chain)."""
    store = TransactionStore()
    env = build(pipeline, store)
    if unaligned:
        env.get_checkpoint_config().enable_unaligned_checkpoints()
    run = MiniCluster(echo_print=False, seed=seed, source_batch=2).submit(env)
    jv = run.job_graph.get_vertex(pipeline.stateful_vertex)
    final: dict[int, dict[str, Any]] = {}
    pending = sorted(failures)
    tm_failed = False
    while run.has_next():
        if pending and run.steps_taken >= pending[0][0]:
            _, victim, kind = pending.pop(0)
            tm_failed = _inject(run, victim, kind, tm_failed)
        run.step()
        for i in range(jv.parallelism):
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


failure = st.tuples(
    st.integers(min_value=40, max_value=240),
    st.integers(min_value=0, max_value=99),
    st.sampled_from(["task", "task", "tm"]),
)


@given(
    name=st.sampled_from(sorted(BY_NAME)),
    seed=st.integers(min_value=0, max_value=10_000),
    failures=st.lists(failure, min_size=1, max_size=2),
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
