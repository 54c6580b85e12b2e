"""The checkpoint API of JobRun: triggering, savepoints, statistics frames, predicates."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pyflowkit.common import Configuration
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.errors import CheckpointException, IllegalArgumentException
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.runtime.checkpoint.stats import HISTORY_COLUMNS
from pyflowkit.runtime.predicates import (
    all_tasks_in,
    checkpoint_completed,
    job_finished,
    task_state_is,
)
from pyflowkit.runtime.two_phase_commit import TransactionalListSink, TransactionStore
from tests.checkpoint.jobs import WORDS, final_counts, running_counts, word_count

REDUCE = "Keyed Reduce"


def start(seed: int = 1, interval: int | None = 30, **kw: object) -> tuple[object, object]:
    store = TransactionStore()
    run = MiniCluster(echo_print=False, seed=seed, source_batch=2).submit(
        word_count(store, interval=interval), **kw
    )
    return run, store


def test_periodic_checkpoints_and_the_next_completed_predicate() -> None:
    run, _ = start()
    run.run_until(checkpoint_completed())
    frame = run.checkpoints_frame()
    assert list(frame.columns) == HISTORY_COLUMNS
    first = frame.iloc[0]
    assert (first["id"], first["status"], bool(first["is_savepoint"])) == (1, "COMPLETED", False)
    subtasks = sum(v.parallelism for v in run.job_graph.vertices)
    assert subtasks == 5  # Source (1), Map (2), Keyed Reduce -> Sink (2)
    assert first["num_acknowledged_subtasks"] == first["num_subtasks"] == subtasks
    assert (
        first["end_to_end_duration"] == first["latest_ack_timestamp"] - first["trigger_timestamp"]
    )
    assert first["state_size"] > 0
    run.run_until(checkpoint_completed())
    assert run.checkpoints_frame()["status"].tolist()[:2] == ["COMPLETED", "COMPLETED"]


def test_trigger_checkpoint_by_hand_without_periodic_checkpointing() -> None:
    run, _ = start(interval=None)
    run.run_until(all_tasks_in("RUNNING"))
    assert run.checkpoint_coordinator is None
    cid = run.trigger_checkpoint()
    assert cid == 1
    assert run.checkpoints_frame()["status"].tolist() == ["IN_PROGRESS"]
    run.run_until(checkpoint_completed(1))
    details = run.checkpoint_details(1)
    subtasks = [s for t in details["tasks"].values() for s in t["subtasks"]]
    assert len(subtasks) == 5 and all(s["status"] == "completed" for s in subtasks)
    assert all(s["ack_timestamp"] >= details["trigger_timestamp"] for s in subtasks)
    assert all({"sync", "async"} <= set(s["checkpoint"]) for s in subtasks)


# 1.11's rule: a FINISHED source stops checkpointing (1.20, FLIP-147: tests/versions)
@pytest.mark.flink_version("1.11")
def test_trigger_checkpoint_errors() -> None:
    run, _ = start(interval=None)
    with pytest.raises(IllegalArgumentException, match="no JobMaster yet"):
        run.trigger_checkpoint()
    source = run.job_graph.vertices[0].name
    run.run_until(task_state_is(source, 0, "FINISHED"))
    assert run.job_status is JobStatus.RUNNING
    with pytest.raises(CheckpointException, match="Not all required tasks are currently running"):
        run.trigger_checkpoint()  # 1.11: no checkpoints once a bounded source has finished
    run.run_until(job_finished())
    with pytest.raises(CheckpointException, match="CheckpointCoordinator shutdown"):
        run.trigger_checkpoint()
    with pytest.raises(IllegalArgumentException, match="no checkpoint 99"):
        run.checkpoint_details(99)
    with pytest.raises(IllegalArgumentException, match="has not completed"):
        run.keyed_state_at(99, REDUCE)


def test_keyed_state_at_is_the_state_as_snapshotted(tmp_path: Path) -> None:
    run, _ = start()
    run.run_until(checkpoint_completed(1))
    at_1 = run.keyed_state_at(1, REDUCE)[REDUCE]
    (state,) = at_1.values()
    # later checkpoints (not the job's end: under 1.20 checkpoints go on after the source
    # finished, FLIP-147, and the inspection keeps only the newest 10 subsumed ones)
    run.run_until(checkpoint_completed(6))
    assert run.keyed_state_at(1, REDUCE)[REDUCE] == at_1  # later records leave it alone
    assert sum(c for _, c in state.values()) < len(WORDS)
    assert all(0 < c <= final_counts(WORDS)[w] for w, (_, c) in state.items())


def test_trigger_savepoint_writes_a_directory(tmp_path: Path) -> None:
    run, _ = start()
    run.run_until(all_tasks_in("RUNNING"))
    sp = run.trigger_savepoint(tmp_path)
    path = Path(run.savepoint_path(sp))
    assert path.parent == tmp_path and path.name.startswith("savepoint-")
    assert sorted(p.name for p in path.iterdir()) == ["_metadata", "state"]
    row = run.checkpoints_frame().set_index("id").loc[sp]
    assert bool(row["is_savepoint"]) and row["status"] == "COMPLETED"
    with pytest.raises(IllegalArgumentException, match="not a savepoint"):
        run.savepoint_path(999)


def test_stop_with_savepoint_finishes_and_the_next_job_continues(tmp_path: Path) -> None:
    run, store = start()
    run.run_until(checkpoint_completed(1))
    sp = run.stop_with_savepoint(tmp_path)
    path = run.savepoint_path(sp)
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED
    store.commit_final_transactions()
    seen = run.keyed_state_at(sp, REDUCE)[REDUCE]
    (counts,) = seen.values()
    stopped_at = sum(c for _, c in counts.values())
    assert 0 < stopped_at < len(WORDS)
    assert len(store.committed) == stopped_at  # nothing after the savepoint barrier
    # the same external system: the savepoint's pre-committed transactions are committed again
    # on restore, which the store ignores (commit is idempotent per transaction id)
    run2 = MiniCluster(echo_print=False, seed=4).submit(
        word_count(store, parallelism=3, interval=None), savepoint_path=path
    )
    run2.run()
    assert run2.job_status is JobStatus.FINISHED
    store.commit_final_transactions()
    assert Counter(store.committed) == running_counts(WORDS)


def test_cancel_with_savepoint_cancels_the_job(tmp_path: Path) -> None:
    run, _ = start()
    run.run_until(all_tasks_in("RUNNING"))
    sp = run.cancel_with_savepoint(tmp_path)
    run.savepoint_path(sp)
    run.run_until(job_finished())
    assert run.job_status is JobStatus.CANCELED


def test_rewind_replays_a_manual_checkpoint() -> None:
    run, _ = start(interval=None)
    run.run_until(all_tasks_in("RUNNING"))
    run.trigger_checkpoint()
    run.step(10_000)
    original = run.trace_json()
    run.rewind(3)
    run.step(10_000)
    assert run.trace_json() == original


def test_env_execute_honours_execution_savepoint_path(tmp_path: Path) -> None:
    run, store = start()
    run.run_until(checkpoint_completed(1))
    path = run.savepoint_path(run.stop_with_savepoint(tmp_path))
    run.run_until(job_finished())
    conf = Configuration()
    conf.set_string("execution.target", "local")
    conf.set_string("execution.savepoint.path", path)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(3)
    (
        env.from_collection(WORDS)
        .uid("words")
        .map(lambda w: (w, 1))
        .uid("pairs")
        .key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .uid("counts")
        .add_sink(TransactionalListSink(store))
        .uid("sink")
    )
    env.execute("resumed word count")
    store.commit_final_transactions()
    assert Counter(store.committed) == running_counts(WORDS)


def test_a_failed_cancel_with_savepoint_leaves_the_job_running(tmp_path: Path) -> None:
    """The savepoint is aborted by a task failure: no cancel, periodic checkpoints resume."""
    run, store = start()
    run.run_until(all_tasks_in("RUNNING"))
    sp = run.cancel_with_savepoint(tmp_path)
    assert not run.checkpoint_coordinator.periodic_scheduling
    run.fail_task(REDUCE, 0)
    with pytest.raises(CheckpointException, match=f"Savepoint {sp} did not complete"):
        run.savepoint_path(sp)
    run.run_until(checkpoint_completed(sp + 1))
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED
    store.commit_final_transactions()
    assert Counter(store.committed) == running_counts(WORDS)


def test_stop_with_savepoint_goes_through_the_job_masters_stop_path(tmp_path: Path) -> None:
    """Both drain modes run ``JobMaster.stopWithSavepoint`` (also when a rewind replays them)."""
    for drain in (False, True):
        run, _ = start()
        run.run_until(checkpoint_completed(1))
        at = run.steps_taken
        sp = run.stop_with_savepoint(tmp_path / str(drain), drain=drain)
        run.run_until(job_finished())
        stops = [e.message for e in run.trace if e.method == "JobMaster.stopWithSavepoint"]
        assert stops == [
            f"{'Draining' if drain else 'Suspending'} job {run.job_id} with a savepoint "
            f"(advanceToEndOfEventTime={str(drain).lower()})."
        ]
        assert run.checkpoints_frame().set_index("id").loc[sp, "status"] == "COMPLETED"
        run.rewind(at - 1)
        run.run_until(job_finished())
        assert [e.message for e in run.trace if e.method == "JobMaster.stopWithSavepoint"] == stops


def test_subsumed_checkpoints_release_their_state_past_the_inspection_history() -> None:
    from pyflowkit.runtime.checkpoint.coordinator import INSPECTABLE_DISCARDED_CHECKPOINTS as KEPT

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.enable_checkpointing(10)
    words = [f"w{i % 50}" for i in range(100_000)]
    env.from_collection(words).map(lambda w: (w, 1)).key_by(lambda t: t[0]).reduce(
        lambda a, b: (a[0], a[1] + b[1])
    ).add_sink(lambda v: None)
    run = MiniCluster(echo_print=False, seed=1).submit(env.get_job_graph("history"))
    run.run()
    coord = run.checkpoint_coordinator
    completed = sorted(coord.completed_by_id)
    assert len(completed) > KEPT + 2
    released = [i for i in completed if coord.completed_by_id[i].state_released]
    # the retained checkpoint and the newest KEPT subsumed ones keep their state
    assert released == completed[: -(KEPT + 1)]
    assert run.keyed_state_at(completed[-KEPT - 1], REDUCE)[REDUCE]
    assert run.checkpoints_frame()["status"].tolist().count("COMPLETED") == len(completed)
    with pytest.raises(IllegalArgumentException) as err:
        run.keyed_state_at(completed[0], REDUCE)
    assert str(err.value) == (
        f"keyed_state_at: checkpoint {completed[0]} was subsumed and its state discarded (the "
        f"state of the newest {KEPT} subsumed checkpoints is kept for inspection); checkpoints "
        f"with state: {completed[-KEPT - 1 :]}."
    )
    # released snapshots no longer pin versions of the reduce's state table
    reduce_vertex = run.job_graph.vertices[-1]
    for i in range(reduce_vertex.parallelism):
        backend = run._task(reduce_vertex.id, i).invokable
        tables = [
            t
            for op in backend.chain.operators
            if getattr(op, "keyed_state_backend", None) is not None
            for t in op.keyed_state_backend.tables.values()
        ]
        assert tables and all(len(t._retained) <= KEPT + 1 for t in tables)
