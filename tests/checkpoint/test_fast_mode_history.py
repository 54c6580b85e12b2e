"""Fast mode keeps a bounded checkpoint history (Flink's web UI: ``web.checkpoints.history``):
the trace, the statistics and the completed-checkpoint records of an endless job stay flat, while
the counts, the summary and everything else in the trace stay exact."""

from __future__ import annotations

from typing import Any

from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.runtime.checkpoint.coordinator import (
    FAST_MODE_CHECKPOINT_HISTORY,
    INSPECTABLE_DISCARDED_CHECKPOINTS,
)

N_WORDS = 40_000


def _add(a: tuple[str, int], b: tuple[str, int]) -> tuple[str, int]:
    return a[0], a[1] + b[1]


def _submit(history: int | None = None, n_words: int = N_WORDS) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.enable_checkpointing(10)
    words = [f"w{i % 50}" for i in range(n_words)]
    (
        env.from_collection(words)
        .map(lambda w: (w, 1))
        .key_by(lambda t: t[0])
        .reduce(_add)
        .add_sink(lambda value: None)
    )
    run = MiniCluster(echo_print=False, seed=3).submit(env.get_job_graph("history"))
    run.run_until(lambda r: r.checkpoint_coordinator is not None)  # the JobMaster made it
    if history is not None:
        run.checkpoint_coordinator.fast_mode_history = history
    return run


def test_the_default_history_is_a_hundred_checkpoints() -> None:
    assert FAST_MODE_CHECKPOINT_HISTORY == 100
    assert _submit().checkpoint_coordinator.fast_mode_history == 100


def test_a_bounded_history_keeps_counts_summary_and_other_events_exact() -> None:
    full = _submit(history=10**9).run()
    bounded = _submit(history=3).run()
    assert full.job_status is bounded.job_status is JobStatus.FINISHED
    overview, expected = bounded.checkpoints_overview(), full.checkpoints_overview()
    assert expected["counts"]["completed"] >= 9  # enough checkpoints to bound three times
    assert overview["counts"] == expected["counts"]
    assert overview["summary"] == expected["summary"]
    assert overview["latest"] == expected["latest"]
    assert overview["history"] == expected["history"][: len(overview["history"])]
    # the statistics of at least the newest 3 checkpoints, at most 6
    ids = list(bounded.checkpoints_frame()["id"])
    newest = int(full.checkpoints_frame()["id"].max())
    assert 3 <= len(ids) <= 6 and ids == list(range(newest - len(ids) + 1, newest + 1))
    # the trace: every event of the full run but the older checkpoints' protocol events
    oldest_kept = min(e.checkpoint for e in bounded.trace if e.checkpoint is not None)
    assert newest - 6 < oldest_kept <= newest - 2
    kept = [
        (e.step, e.method, e.checkpoint, e.new_state)
        for e in full.trace
        if e.checkpoint is None or e.checkpoint >= oldest_kept
    ]
    assert [(e.step, e.method, e.checkpoint, e.new_state) for e in bounded.trace] == kept
    # completed checkpoints: the history's and those whose state is still inspectable
    records = bounded.checkpoint_coordinator.completed_by_id
    assert len(records) <= 6 + INSPECTABLE_DISCARDED_CHECKPOINTS + 1


def test_an_endless_job_keeps_flat_trace_statistics_and_records() -> None:
    run = _submit(history=2, n_words=200_000)  # ends after the test stops it
    sizes = []
    for _ in range(8):  # a slice of the run at a time, as an endless job runs
        run.run(max_steps=300)
        coord = run.checkpoint_coordinator
        sizes.append((len(run.trace), len(coord.stats.by_id), len(coord.completed_by_id)))
    completed = run.checkpoints_overview()["counts"]["completed"]
    assert run.job_status is JobStatus.RUNNING, "the job ended: give it more records"
    run.cancel()
    assert completed >= 12, sizes
    trace_sizes = [s[0] for s in sizes[2:]]
    assert max(trace_sizes) < 2 * min(trace_sizes)  # not growing with the checkpoints
    limit = 2 * 2 + INSPECTABLE_DISCARDED_CHECKPOINTS + 1
    assert all(by_id <= 5 and records <= limit for _, by_id, records in sizes)


def test_a_bounded_history_keeps_the_jobs_restores() -> None:
    """A restore is the job's history, not a checkpoint's protocol: it outlives the bounding."""
    run = _submit(history=2)
    run.run_until(lambda r: r.checkpoints_overview()["counts"]["completed"] >= 2)
    vertex = run.job_graph.vertices[-1].name
    run.fail_task(vertex, 0, cause="test: injected failure")
    run.run()
    assert run.job_status is JobStatus.FINISHED
    restores = [e for e in run.trace if "from latest valid checkpoint" in e.message]
    assert len(restores) == 1 and restores[0].message.startswith("Restoring job ")
    restored = restores[0].checkpoint
    newest = run.checkpoints_overview()["latest"]["completed"]["id"]
    assert newest > restored + 6
    # the checkpoints taken in fast mode after the restore have had their events forgotten
    assert not [e for e in run.trace if restored + 2 <= (e.checkpoint or 0) <= newest - 4]


def test_a_trace_read_at_every_step_equals_one_read_at_the_end() -> None:
    """Fast mode keeps the checkpoint protocol's events compact until the trace is read: read
    after every step or once at the end, the same events (every field), bounded alike."""
    at_end = _submit(history=3, n_words=N_WORDS).run()
    each_step = _submit(history=3, n_words=N_WORDS)
    reads = 0
    while each_step.has_next():
        each_step.run(max_steps=1)
        reads += len(each_step.trace) > 0
    assert reads > 100
    assert at_end.checkpoints_overview()["counts"]["completed"] >= 6  # bounded twice

    def fields(run: Any) -> list[dict[str, Any]]:  # each submission has its own job id
        rows = [e.to_dict() for e in run.trace]
        return [{k: str(v).replace(run.job_id, "JOB") for k, v in row.items()} for row in rows]

    assert fields(each_step) == fields(at_end)
    assert all(type(e).__name__ == "TraceEvent" for e in at_end.trace)
