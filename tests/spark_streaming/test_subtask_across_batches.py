"""A Flink subtask carried across micro-batches (``StreamingSubtask``), without Spark: snapshot →
bytes → restore between batches gives exactly the output of one uninterrupted run."""

from __future__ import annotations

from collections import defaultdict

import pytest

from pyflowkit.spark import records
from pyflowkit.spark.plan import stage_specs
from pyflowkit.spark.streaming_task import StreamingSubtask, SubtaskSnapshot
from tests.pipelines.catalog import BY_NAME, build_env
from tests.pipelines.spec import STREAMING

NOW = 1_000


def _specs(name: str):
    graph = build_env(BY_NAME[name], STREAMING).get_job_graph()
    specs = stage_specs(graph, graph.stream_graph.execution_config, "STREAMING")
    for spec in specs:
        spec.typed = {}
    return graph, specs


def _source_rows(spec, batch_records: int) -> list[list[tuple]]:
    """Per micro-batch, the source vertex's rows (edge, target, producer, payload)."""
    tasks = [StreamingSubtask(spec, i, None, NOW) for i in range(spec.parallelism)]
    batches = []
    while not all(t.finished for t in tasks):
        rows = []
        for task in tasks:
            if task.finished:
                continue
            task.emit_source(task.position() + batch_records, None)
            cols = task.drain(len(batches) + 1)
            rows += list(
                zip(cols["edge"], cols["target"], cols["producer"], cols["payload"], strict=True)
            )
        batches.append(rows)
    return batches


def _run_job(graph, specs, batches: list[list[tuple]], restore_each_batch: bool) -> list[list[str]]:
    """Every non-source vertex, batch by batch in topological order (as the query runs them);
    per vertex and subtask, per micro-batch, the print lines sorted.

    Sorted within a batch: Flink orders timers by timestamp only (``InternalTimer``'s
    ``TIMER_COMPARATOR``); timers of one timestamp come out of the ``HeapPriorityQueueSet`` heaps
    of a ``KeyGroupPartitionedPriorityQueue`` in whatever order the heaps hold them, and a restore
    re-adds them key group by key group, so even in Flink two windows firing at the same watermark
    may come out in another order after a restore than in an uninterrupted run."""
    edge_index = {id(e): i for i, e in enumerate(graph.edges)}
    lines: dict[tuple[int, int, int], list[str]] = defaultdict(list)
    live: dict[tuple[int, int], StreamingSubtask] = {}
    snapshots: dict[tuple[int, int], bytes] = {}
    for n, source_rows in enumerate(batches, start=1):
        rows = list(source_rows)
        for v, (vertex, spec) in enumerate(zip(graph.vertices, specs, strict=True)):
            if not vertex.inputs:
                continue
            consumed = {edge_index[id(e)] for e in vertex.inputs}
            for subtask in range(spec.parallelism):
                mine = [(e, p, b) for e, t, p, b in rows if e in consumed and t == subtask]
                if restore_each_batch:
                    snap = snapshots.get((v, subtask))
                    restored = None if snap is None else SubtaskSnapshot.from_bytes(snap)
                    task = StreamingSubtask(spec, subtask, restored, NOW)
                else:
                    task = live.get((v, subtask)) or StreamingSubtask(spec, subtask, None, NOW)
                    live[(v, subtask)] = task
                task.process(mine)
                cols = task.drain(n)
                for edge, target, payload in zip(
                    cols["edge"], cols["target"], cols["payload"], strict=True
                ):
                    if edge == records.PRINT_OUT:
                        lines[(v, subtask, n)] += records.loads(payload)
                    elif edge >= 0:
                        rows.append((edge, target, subtask, payload))
                if restore_each_batch:
                    snapshots[(v, subtask)] = task.snapshot(n).to_bytes()
    return [sorted(lines[k]) for k in sorted(lines)]


@pytest.mark.parametrize(
    "name",
    [
        "keyed_process_value_list_map_state_event_timers_p2",
        "tumbling_event_time_reduce_out_of_order_p2",
        "session_windows_process_window_function_p2",
        "count_window_3_2_sliding_evictor",
    ],
)
def test_restored_each_batch_equals_one_live_subtask(name: str) -> None:
    graph, specs = _specs(name)
    batches = _source_rows(specs[0], batch_records=3)
    assert len(batches) >= 3
    continuous = _run_job(graph, specs, batches, restore_each_batch=False)
    restored = _run_job(graph, specs, batches, restore_each_batch=True)
    assert continuous and restored == continuous


def test_snapshot_split_keeps_keyed_state_per_key_group() -> None:
    graph, specs = _specs("keyed_reduce_p2")
    assert graph.vertices[1].inputs[0].ship_strategy.value == "HASH"
    batches = _source_rows(specs[0], batch_records=100)
    rows = [(e, p, b) for batch in batches for e, t, p, b in batch if t == 0]
    task = StreamingSubtask(specs[1], 0, None, NOW)
    task.process(rows[:-1])  # not the end of partition: the subtask stays running
    snap = task.snapshot(7)
    task_part, key_groups = snap.split()
    keyed = {kg for s in snap.operators.values() for kg in s.keyed_state}
    assert keyed and set(key_groups) == keyed
    back = SubtaskSnapshot.join(task_part, key_groups.items())
    assert back.checkpoint == 7 and not back.finished
    assert {k: v.keyed_state for k, v in back.operators.items()} == {
        k: v.keyed_state for k, v in snap.operators.items()
    }


def test_file_sink_commits_each_batch_once_even_when_a_batch_is_replayed(tmp_path) -> None:
    """FileSink (writer -> committer) hosted batch by batch: each batch's prepareSnapshotPreBarrier
    hands the part files to the committer, which publishes them when the next batch starts from
    that snapshot (the batch committed: notifyCheckpointComplete). A batch that fails and is run
    again from the previous snapshot publishes nothing twice."""
    from pyflowkit.common import Encoder, Types
    from pyflowkit.datastream import StreamExecutionEnvironment
    from pyflowkit.datastream.connectors.file_system import FileSink, RollingPolicy
    from tests.connectors.helpers import part_files

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    sink = (
        FileSink.for_row_format(str(tmp_path), Encoder.simple_string_encoder())
        .with_rolling_policy(RollingPolicy.on_checkpoint_rolling_policy())
        .build()
    )
    words = [f"w{i}" for i in range(10)]
    (
        env.from_collection(words, type_info=Types.STRING())
        .key_by(lambda w: w, key_type=Types.STRING())  # the sink runs in the keyed vertex
        .map(str.upper, Types.STRING())
        .sink_to(sink)
    )
    graph = env.get_job_graph()
    specs = stage_specs(graph, graph.stream_graph.execution_config, "STREAMING")
    for spec in specs:
        spec.typed = {}
    batches = _source_rows(specs[0], batch_records=3)
    sink_vertex = len(graph.vertices) - 1
    assert sink_vertex >= 1

    def committed() -> list[str]:
        return sorted(line for f in part_files(tmp_path) for line in f.read_text().splitlines())

    # vertices after the source run in one subtask each; replay batch 2 after a "failure"
    snapshots: dict[int, bytes] = {}
    n = 0
    for index, rows in enumerate(batches):
        attempts = 2 if index == 1 else 1
        for _attempt in range(attempts):
            n += 1
            flowing = list(rows)
            new: dict[int, bytes] = {}
            for v in range(1, len(graph.vertices)):
                snap = snapshots.get(v)
                restored = None if snap is None else SubtaskSnapshot.from_bytes(snap)
                task = StreamingSubtask(specs[v], 0, restored, NOW)
                edges = {i for i, e in enumerate(graph.edges) if e.target is graph.vertices[v]}
                task.process([(e, p, b) for e, t, p, b in flowing if e in edges])
                cols = task.drain((restored.checkpoint if restored else 0) + 1)
                flowing += [
                    (e, t, 0, b)
                    for e, t, b in zip(cols["edge"], cols["target"], cols["payload"], strict=True)
                    if e >= 0
                ]
                new[v] = task.snapshot((restored.checkpoint if restored else 0) + 1).to_bytes()
            if _attempt + 1 == attempts:
                snapshots = new  # the batch committed; a failed attempt's snapshots are dropped
    # the last batch is committed once the sink's subtask starts again (one more empty batch)
    for v in range(1, len(graph.vertices)):
        restored = SubtaskSnapshot.from_bytes(snapshots[v])
        if not restored.finished:
            StreamingSubtask(specs[v], 0, restored, NOW)
    assert committed() == sorted(w.upper() for w in words)
