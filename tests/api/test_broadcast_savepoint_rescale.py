"""The broadcast state pattern through a real savepoint: stop-with-savepoint at one parallelism,
resume from the savepoint file at another; every new subtask holds the broadcast rules, keyed
counts continue, every event is processed exactly once (Flink's broadcast state repartitioning:
new subtask i restores old subtask i mod old parallelism's copy)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import Types, WatermarkStrategy
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.connectors import NumberSequenceSource
from pyflowkit.datastream.functions import KeyedBroadcastProcessFunction
from pyflowkit.datastream.state import MapStateDescriptor, ValueStateDescriptor
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.runtime.predicates import checkpoint_completed, job_finished
from pyflowkit.runtime.two_phase_commit import TransactionalListSink, TransactionStore
from pyflowkit.state.snapshot import BROADCAST

N = 300
RULES = MapStateDescriptor("rules", Types.STRING(), Types.INT())
COUNT = ValueStateDescriptor("count", Types.INT())
THRESHOLDS = {"temp": 35, "hum": 60}


def rule_of(n: int) -> tuple[str, int]:
    return ("temp", 35) if n == 1 else ("hum", 60)


def event_of(n: int) -> tuple[str, str, int, int]:
    return (f"s{n % 5}", "temp" if n % 2 else "hum", (n * 7) % 100, n)


class Seen(KeyedBroadcastProcessFunction):
    """Counts events per sensor; reports each with its count and the broadcast threshold."""

    def open(self, ctx: Any) -> None:
        self.count = ctx.get_state(COUNT)
        self.subtask = ctx.get_index_of_this_subtask()

    def process_element(self, value: tuple, ctx: Any) -> Any:
        n = (self.count.value() or 0) + 1
        self.count.update(n)
        threshold = ctx.get_broadcast_state(RULES).get(value[1])
        yield (value[3], ctx.get_current_key(), n, threshold, self.subtask)

    def process_broadcast_element(self, value: tuple, ctx: Any) -> Any:
        ctx.get_broadcast_state(RULES).put(value[0], value[1])
        return None


def job(store: TransactionStore, parallelism: int) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    env.enable_checkpointing(10)
    numbers = env.from_source(
        NumberSequenceSource(1, N), WatermarkStrategy.no_watermarks(), "numbers"
    ).uid("numbers")
    rules = numbers.filter(lambda n: n <= 2).uid("rule numbers").map(rule_of).uid("rules")
    events = numbers.map(event_of).uid("events").key_by(lambda e: e[0], key_type=Types.STRING())
    events.connect(rules.broadcast(RULES)).process(Seen()).uid("seen").add_sink(
        TransactionalListSink(store)
    ).uid("sink")
    return env


def _vertex(run: Any) -> Any:
    return next(v for v in run.job_graph.vertices if "Co-Process-Broadcast-Keyed" in v.name)


def _broadcast_copies(run: Any, checkpoint_id: int) -> list[dict[str, int]]:
    """The rules each subtask's copy of the broadcast state holds in a completed checkpoint."""
    completed = run.checkpoint_coordinator.completed_by_id[checkpoint_id]
    op_id = next(
        p.user_defined_operator_id or p.generated_operator_id
        for p, n in zip(_vertex(run).operator_ids, _vertex(run).stream_nodes, strict=False)
        if n.operator_name.startswith("Co-Process-Broadcast-Keyed")
    )
    subtasks = completed.operator_states[op_id].subtask_states
    copies = []
    for _i, snap in sorted(subtasks.items()):
        state = snap.operator_state["rules"]
        assert state["mode"] == BROADCAST
        copies.append(dict(state["entries"]))
    return copies


@pytest.mark.parametrize(("before", "after"), [(2, 3), (3, 2)])
def test_broadcast_job_rescaled_through_a_savepoint(
    tmp_path: Path, before: int, after: int
) -> None:
    store = TransactionStore()
    first = MiniCluster(echo_print=False, seed=before, source_batch=1).submit(job(store, before))
    while True:  # stop once a checkpoint shows both rules in every subtask
        first.run_until(checkpoint_completed())
        latest = first.checkpoint_coordinator.store.get_latest_checkpoint().checkpoint_id
        if all(c == THRESHOLDS for c in _broadcast_copies(first, latest)):
            break
    sp = first.stop_with_savepoint(tmp_path)
    location = first.savepoint_path(sp)
    first.run_until(job_finished())
    assert first.job_status is JobStatus.FINISHED
    assert Path(location).exists()
    assert _broadcast_copies(first, sp) == [THRESHOLDS] * before
    run1 = list(store.committed)  # committed when the savepoint completed
    assert 0 < len(run1) < N
    counts_at_savepoint = first.keyed_state_at(sp, _vertex(first))
    (per_operator,) = counts_at_savepoint.values()
    last_count: dict[str, int] = defaultdict(int)
    for _n, key, count, _t, _s in run1:
        last_count[key] = max(last_count[key], count)
    assert per_operator["count"] == dict(last_count)

    second = MiniCluster(echo_print=False, seed=after, source_batch=1).submit(
        job(store, after), savepoint_path=location
    )
    second.run_until(job_finished())
    assert second.job_status is JobStatus.FINISHED
    store.commit_final_transactions()
    records = list(store.committed)
    assert sorted(r[0] for r in records) == list(range(1, N + 1))  # every event exactly once
    run2 = records[len(run1) :]
    # broadcast state restored in every new subtask: each one saw the rules without replay
    assert {r[4] for r in run2} == set(range(after))
    assert all(r[3] == THRESHOLDS[event_of(r[0])[1]] for r in run2)
    # keyed counts continue across the rescale: per key 1, 2, 3, ... in processing order
    by_key: dict[str, list[int]] = defaultdict(list)
    for _n, key, count, _t, _s in records:
        by_key[key].append(count)
    for key, counts in by_key.items():
        assert sorted(counts) == list(range(1, len(counts) + 1)), key
