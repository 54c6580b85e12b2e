"""The broadcast state pattern: ``broadcast(MapStateDescriptor)`` → ``connect`` → ``process``.

Operator-level tests drive Flink's two inputs in a chosen order; job tests run it on both hosts;
the rescaling test restores the broadcast state at other parallelisms as Flink does (new subtask
i takes old subtask i mod old parallelism's copy).
"""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Configuration
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.broadcast_stream import BroadcastConnectedStream, BroadcastStream
from pyflowkit.datastream.state import ListStateDescriptor, MapStateDescriptor, StateTtlConfig
from pyflowkit.errors import IllegalArgumentException, UnsupportedOperationException
from pyflowkit.operators.co_broadcast import (
    CoBroadcastWithKeyedOperator,
    CoBroadcastWithNonKeyedOperator,
)
from pyflowkit.operators.context import StreamConfig, TaskEnvironment
from pyflowkit.operators.output import CollectingOutput
from pyflowkit.operators.processing_time import ManualProcessingTimeService
from pyflowkit.runtime import MiniCluster
from pyflowkit.state.key_groups import KeyGroupRange
from pyflowkit.state.snapshot import BROADCAST, assign_snapshot
from tests.api.broadcast_job import RULES, Alert, Tag, alert_job


def keyed_harness(restored: Any = None, subtask: int = 0, parallelism: int = 1) -> Any:
    op = CoBroadcastWithKeyedOperator(Alert(), [RULES])
    out = CollectingOutput()
    env = TaskEnvironment(
        processing_time_service=ManualProcessingTimeService(),
        subtask_index=subtask,
        parallelism=parallelism,
    )
    cfg = StreamConfig(operator_name="Co-Process-Broadcast-Keyed", key_selector1=lambda e: e[0])
    op.setup(env, cfg, out)
    op.initialize_state(restored)
    op.open()
    return op, out


def event(op: Any, e: tuple) -> None:
    op.set_key_context_element1(e)
    op.process_element1(e, None)


def test_broadcast_side_writes_keyed_side_reads_and_apply_to_keyed_state() -> None:
    op, out = keyed_harness()
    event(op, ("s1", "temp", 50))  # no rule yet: no alert
    op.process_element2(("temp", 40), None)
    event(op, ("s1", "temp", 50))
    event(op, ("s2", "temp", 30))
    event(op, ("s2", "temp", 45))
    assert out.values == [("alert", "s1", 50, 40), ("alert", "s2", 45, 40)]
    counts = op.keyed_state_backend.dump()["count"]
    assert counts == {"s1": 2, "s2": 2}
    op.process_element2(("reset", 0), None)  # clears every key's count
    assert op.keyed_state_backend.dump().get("count", {}) == {}


def test_process_element_sees_read_only_broadcast_state() -> None:
    class Writer(Alert):
        def process_element(self, value: tuple, ctx: Any) -> Any:
            ctx.get_broadcast_state(RULES).put("x", 1)

    op = CoBroadcastWithKeyedOperator(Writer(), [RULES])
    cfg = StreamConfig(operator_name="Co-Process-Broadcast-Keyed", key_selector1=lambda e: e[0])
    op.setup(TaskEnvironment(), cfg, CollectingOutput())
    op.initialize_state(None)
    op.open()
    with pytest.raises(
        UnsupportedOperationException,
        match=r"Co-Process-Broadcast-Keyed: broadcast state 'rules' is read-only in "
        r"process_element \(put\)",
    ):
        event(op, ("s1", "temp", 1))
    with pytest.raises(IllegalArgumentException, match="'other' was not declared"):
        op._read_only.get_broadcast_state(MapStateDescriptor("other", None, None))


def test_rescaling_restores_broadcast_state_in_every_new_subtask() -> None:
    snaps = []
    for i in range(2):
        op, _ = keyed_harness()
        op.process_element2(("temp", 40), None)
        op.process_element2(("hum", 70 + i), None)  # copies may differ: i mod old parallelism
        snaps.append(op.snapshot_state(1, 0))
    assert snaps[0].operator_state["rules"]["mode"] == BROADCAST
    for new_p in (1, 3, 2):
        for i in range(new_p):
            restored = assign_snapshot(snaps, i, new_p, KeyGroupRange(0, 127))
            op, out = keyed_harness(restored)  # one key group range: any key is local
            event(op, ("s", "hum", 100))
            assert out.values == [("alert", "s", 100, 70 + i % 2)], (new_p, i)
            assert op._broadcast["rules"].get("temp") == 40


def test_non_keyed_broadcast_operator() -> None:
    op = CoBroadcastWithNonKeyedOperator(Tag(), [RULES])
    out = CollectingOutput()
    op.setup(TaskEnvironment(), StreamConfig(operator_name="Co-Process-Broadcast"), out)
    op.initialize_state(None)
    op.open()
    op.process_element1(1, 5)
    op.process_element2("#", None)
    op.process_element1(2, 6)
    assert out.records == [("None1", 5), ("#2", 6)]


def test_api_builds_flinks_operators_and_refuses_bad_descriptors() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    rules = env.from_collection([("temp", 1)])
    bs = rules.broadcast(RULES)
    assert isinstance(bs, BroadcastStream) and bs.broadcast_state_descriptors == [RULES]
    connected = env.from_collection([("s", "temp", 1)]).key_by(lambda e: e[0]).connect(bs)
    assert isinstance(connected, BroadcastConnectedStream)
    ds = connected.process(Alert())
    assert ds.get_transformation().name == "Co-Process-Broadcast-Keyed"
    plain = env.from_collection([1]).connect(bs).process(Tag())
    assert plain.get_transformation().name == "Co-Process-Broadcast"
    before = list(env.get_transformations())
    with pytest.raises(IllegalArgumentException, match=r"broadcast\(\): .*MapStateDescriptors"):
        rules.broadcast(ListStateDescriptor("l", None))
    with_ttl = MapStateDescriptor("ttl", None, None)
    with_ttl.enable_time_to_live(StateTtlConfig.new_builder(1000).build())
    with pytest.raises(UnsupportedOperationException, match="time-to-live"):
        rules.broadcast(with_ttl)
    with pytest.raises(UnsupportedOperationException, match="KeyedBroadcastProcessFunction"):
        env.from_collection([1]).key_by(lambda x: x).connect(bs).process(Tag())
    with pytest.raises(UnsupportedOperationException, match="needs a keyed"):
        env.from_collection([1]).connect(bs).process(Alert())
    assert env.get_transformations() == before


EVENTS = [(f"s{i % 4}", "temp", 10 * (i % 7)) for i in range(40)]
RULE_LIST = [("temp", 35)]


def _check_alerts(alerts: list[tuple]) -> None:
    """Each alert is right for the threshold; once the rule arrives every reading over it alerts."""
    over = [e for e in EVENTS if e[2] > 35]
    assert all(a[0] == "alert" and a[2] > a[3] == 35 for a in alerts)
    assert len(alerts) <= len(over)


def test_job_on_the_simulated_cluster_with_a_checkpoint() -> None:
    conf = Configuration()
    conf.set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(3)
    env.enable_checkpointing(10)
    alert_job(env, EVENTS, RULE_LIST).print("alert")
    run = MiniCluster(seed=5, echo_print=False).submit(env, "broadcast")
    printed = run.run().printed()
    alerts = [eval(line.split("> ", 1)[1]) for line in printed if line.startswith("alert")]
    _check_alerts(alerts)


@pytest.mark.spark
def test_job_on_spark(spark: Any) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    alerts = list(alert_job(env, EVENTS, RULE_LIST).execute_and_collect(spark=spark))
    _check_alerts(alerts)
