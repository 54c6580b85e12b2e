"""State TTL on the operator's processing-time clock (Flink's ``TtlStateFactory`` semantics).

The operator runs in a harness with a manual clock (the simulated cluster's clock works the same
way); values expire ``ttl`` after their last write (or read), are invisible once expired, are
cleaned up incrementally and left out of full snapshots as configured, and keep their
timestamps through snapshot and restore.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyflowkit.common import Time
from pyflowkit.datastream.functions import AggregateFunction, KeyedProcessFunction, ProcessFunction
from pyflowkit.datastream.state import (
    AggregatingStateDescriptor,
    ListStateDescriptor,
    MapStateDescriptor,
    ReducingStateDescriptor,
    StateTtlConfig,
    ValueStateDescriptor,
)
from pyflowkit.errors import IllegalArgumentException, UnsupportedOperationException
from pyflowkit.operators.context import StreamConfig, TaskEnvironment
from pyflowkit.operators.output import CollectingOutput
from pyflowkit.operators.process import KeyedProcessOperator, ProcessOperator
from pyflowkit.operators.processing_time import ManualProcessingTimeService
from pyflowkit.state.state_codec import decode, encode

TTL = 100


def ttl_config(**how: Any) -> StateTtlConfig:
    b = StateTtlConfig.new_builder(Time.milliseconds(TTL))
    if how.get("on_read"):
        b.update_ttl_on_read_and_write()
    if how.get("return_expired"):
        b.return_expired_if_not_cleaned_up()
    if how.get("full_snapshot"):
        b.cleanup_full_snapshot()
    if "incremental" in how:
        b.cleanup_incrementally(*how["incremental"])
    if how.get("no_background"):
        b.disable_cleanup_in_background()
    return b.build()


class Avg(AggregateFunction):
    def create_accumulator(self) -> list[int]:
        return [0, 0]

    def add(self, value: int, acc: list[int]) -> list[int]:
        return [acc[0] + value, acc[1] + 1]

    def get_result(self, acc: list[int]) -> float:
        return acc[0] / acc[1]

    def merge(self, a: list[int], b: list[int]) -> list[int]:
        return [a[0] + b[0], a[1] + b[1]]


class Ops(KeyedProcessFunction):
    """Applies ("op", key, arg) commands to five TTL states and emits what it read."""

    def __init__(self, config: StateTtlConfig) -> None:
        self.config = config

    def open(self, ctx: Any) -> None:
        descriptors = {
            "value": ValueStateDescriptor("v", None),
            "list": ListStateDescriptor("l", None),
            "map": MapStateDescriptor("m", None, None),
            "reducing": ReducingStateDescriptor("r", lambda a, b: a + b),
            "aggregating": AggregatingStateDescriptor("a", Avg()),
        }
        for d in descriptors.values():
            d.enable_time_to_live(self.config)
        self.value = ctx.get_state(descriptors["value"])
        self.list = ctx.get_list_state(descriptors["list"])
        self.map = ctx.get_map_state(descriptors["map"])
        self.reducing = ctx.get_reducing_state(descriptors["reducing"])
        self.aggregating = ctx.get_aggregating_state(descriptors["aggregating"])

    def process_element(self, cmd: tuple, ctx: Any) -> Any:
        op, _key, arg = cmd
        if op == "write":
            self.value.update(arg)
            self.list.add(arg)
            self.map.put("k", arg)
            self.reducing.add(arg)
            self.aggregating.add(arg)
        elif op == "read":
            yield (
                self.value.value(),
                list(self.list.get()),
                self.map.get("k"),
                self.map.contains("k"),
                self.reducing.get(),
                self.aggregating.get(),
            )
        elif op == "read_value":
            yield self.value.value()
        elif op == "touch":
            pass


NOTHING = (None, [], None, False, None, None)


def harness(config: StateTtlConfig, clock: ManualProcessingTimeService) -> tuple[Any, Any]:
    op = KeyedProcessOperator(Ops(config))
    out = CollectingOutput()
    env = TaskEnvironment(processing_time_service=clock)
    op.setup(env, StreamConfig(operator_name="Ops", key_selector=lambda c: c[1]), out)
    op.initialize_state(None)
    op.open()
    return op, out


def send(op: Any, *cmds: tuple) -> None:
    for c in cmds:
        op.set_key_context_element1(c)
        op.process_element(c, None)


def table_size(op: Any, name: str) -> int:
    return op.keyed_state_backend.tables[name].size()


def test_values_expire_ttl_after_the_last_write() -> None:
    clock = ManualProcessingTimeService(0)
    op, out = harness(ttl_config(), clock)
    send(op, ("write", "a", 4))
    clock.set_current_time(60)
    send(op, ("write", "a", 2), ("read", "a", None))
    assert out.values[-1] == (2, [4, 2], 2, True, 6, 3.0)
    clock.set_current_time(159)  # first write expired at 100, second lives until 160
    send(op, ("read", "a", None))
    assert out.values[-1] == (2, [2], 2, True, 6, 3.0)  # reduced/aggregated value rewritten at 60
    clock.set_current_time(160)
    send(op, ("read", "a", None))
    assert out.values[-1] == NOTHING
    assert all(table_size(op, n) == 0 for n in "vlmra")  # read of expired values clears them


def test_update_on_read_and_write_extends_the_life() -> None:
    clock = ManualProcessingTimeService(0)
    op, out = harness(ttl_config(on_read=True), clock)
    send(op, ("write", "a", 1))
    for t in (90, 180, 270):
        clock.set_current_time(t)
        send(op, ("read_value", "a", None))
    assert out.values == [1, 1, 1]
    clock.set_current_time(370)
    send(op, ("read_value", "a", None))
    assert out.values[-1] is None
    op2, out2 = harness(ttl_config(), ManualProcessingTimeService(0))  # on create and write
    clock2 = op2.environment.processing_time_service
    send(op2, ("write", "a", 1))
    clock2.set_current_time(90)
    send(op2, ("read_value", "a", None))
    clock2.set_current_time(100)
    send(op2, ("read_value", "a", None))
    assert out2.values == [1, None]


def test_return_expired_if_not_cleaned_up_shows_it_once_then_it_is_gone() -> None:
    clock = ManualProcessingTimeService(0)
    op, out = harness(ttl_config(return_expired=True, no_background=True), clock)
    send(op, ("write", "a", 7))
    clock.set_current_time(500)
    send(op, ("read_value", "a", None), ("read_value", "a", None))
    assert out.values == [7, None]  # returned, and cleared by that read


def test_incremental_cleanup_removes_other_keys_expired_entries() -> None:
    clock = ManualProcessingTimeService(0)
    op, _ = harness(ttl_config(incremental=(10, False)), clock)
    send(op, *[("write", k, 1) for k in "abcdef"])
    assert table_size(op, "v") == 6
    clock.set_current_time(200)
    send(op, ("touch", "z", None))  # no state access: nothing cleaned
    assert table_size(op, "v") == 6
    send(op, ("write", "z", 1))  # one access of 'v' checks 10 entries
    assert table_size(op, "v") == 1 and table_size(op, "l") == 1


def test_incremental_cleanup_for_every_record() -> None:
    clock = ManualProcessingTimeService(0)
    op, _ = harness(ttl_config(incremental=(3, True)), clock)
    send(op, *[("write", k, 1) for k in "abcdef"])
    clock.set_current_time(200)
    send(op, ("touch", "z", None))  # the record alone runs the cleanup, 3 entries per state
    assert table_size(op, "v") == 3
    send(op, ("touch", "y", None))
    assert table_size(op, "v") == 0


def test_no_background_cleanup_keeps_expired_entries_until_read() -> None:
    clock = ManualProcessingTimeService(0)
    op, _ = harness(ttl_config(no_background=True), clock)
    send(op, *[("write", k, 1) for k in "abc"])
    clock.set_current_time(200)
    send(op, ("write", "z", 1))
    assert table_size(op, "v") == 4


def test_full_snapshot_cleanup_leaves_expired_entries_out_of_the_snapshot_only() -> None:
    clock = ManualProcessingTimeService(0)
    op, _ = harness(ttl_config(full_snapshot=True, no_background=True), clock)
    send(op, ("write", "old", 1))
    clock.set_current_time(80)
    send(op, ("write", "new", 2))
    clock.set_current_time(120)
    snap = op.snapshot_state(1, 120)
    keys = {e[0] for per_kg in snap.keyed_state.values() for e in per_kg["v"]["entries"]}
    assert keys == {"new"}
    assert table_size(op, "v") == 2  # the live state still holds it (invisible) until cleaned
    plain, _ = harness(ttl_config(no_background=True), ManualProcessingTimeService(0))
    send(plain, ("write", "old", 1))
    plain.environment.processing_time_service.set_current_time(500)
    kept = plain.snapshot_state(1, 500).keyed_state
    assert sum(len(s["v"]["entries"]) for s in kept.values()) == 1  # without the strategy


def test_ttl_survives_checkpoint_and_restore_and_the_savepoint_codec() -> None:
    clock = ManualProcessingTimeService(0)
    op, _ = harness(ttl_config(), clock)
    send(op, ("write", "a", 5))
    clock.set_current_time(40)
    send(op, ("write", "b", 6))
    snap = op.snapshot_state(1, 40)
    snap.keyed_state = decode(encode(snap.keyed_state, "keyed state"))  # as a savepoint
    restored_clock = ManualProcessingTimeService(99)
    op2 = KeyedProcessOperator(Ops(ttl_config()))
    out2 = CollectingOutput()
    env = TaskEnvironment(processing_time_service=restored_clock)
    op2.setup(env, StreamConfig(operator_name="Ops", key_selector=lambda c: c[1]), out2)
    op2.initialize_state(snap)
    op2.open()
    send(op2, ("read_value", "a", None), ("read_value", "b", None))
    restored_clock.set_current_time(100)
    send(op2, ("read_value", "a", None), ("read_value", "b", None))
    assert out2.values == [5, 6, None, 6]


def test_ttl_on_non_keyed_state_is_refused_naming_the_operator() -> None:
    class NotKeyed(ProcessFunction):
        def open(self, ctx: Any) -> None:
            d = ValueStateDescriptor("seen", None)
            d.enable_time_to_live(ttl_config())
            ctx.get_state(d)

        def process_element(self, value: Any, ctx: Any) -> Any:
            yield value

    op = ProcessOperator(NotKeyed())
    op.setup(TaskEnvironment(), StreamConfig(operator_name="Process"), CollectingOutput())
    op.initialize_state(None)
    with pytest.raises(
        UnsupportedOperationException,
        match=r"Operator 'Process': State 'seen' has a time-to-live; TTL can only be used on a "
        r"'keyed stream'",
    ):
        op.open()


def test_config_builder_defaults_and_bad_values() -> None:
    c = StateTtlConfig.new_builder(Time.seconds(1)).build()
    assert c.get_update_type() is StateTtlConfig.UpdateType.OnCreateAndWrite
    assert c.get_state_visibility() is StateTtlConfig.StateVisibility.NeverReturnExpired
    assert c.get_ttl_time_characteristic() is StateTtlConfig.TtlTimeCharacteristic.ProcessingTime
    strategies = c.get_cleanup_strategies()
    assert not strategies.in_full_snapshot() and strategies.is_cleanup_in_background()
    assert strategies.get_incremental_cleanup_strategy().get_cleanup_size() == 5
    assert c.is_enabled() and c.get_ttl_millis() == 1000
    with pytest.raises(IllegalArgumentException, match="ttl must be positive"):
        StateTtlConfig.new_builder(Time.milliseconds(0))
    with pytest.raises(IllegalArgumentException, match="needs a StateTtlConfig"):
        ValueStateDescriptor("x", None).enable_time_to_live(1000)
    for d in (
        ValueStateDescriptor("v", None),
        ListStateDescriptor("l", None),
        MapStateDescriptor("m", None, None),
        ReducingStateDescriptor("r", lambda a, b: a),
        AggregatingStateDescriptor("a", Avg()),
    ):
        d.enable_time_to_live(c)
        assert d.get_ttl_config() is c


# (advance ms, key, write value or None for a read)
STEPS = st.lists(
    st.tuples(st.integers(0, 150), st.sampled_from("abc"), st.none() | st.integers(0, 9)),
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(steps=STEPS, on_read=st.booleans(), incremental=st.integers(0, 4))
def test_value_ttl_matches_a_model_of_flinks_rules(
    steps: list[tuple[int, str, int | None]], on_read: bool, incremental: int
) -> None:
    clock = ManualProcessingTimeService(0)
    config = ttl_config(on_read=on_read, incremental=(incremental, False))
    op, out = harness(config, clock)
    model: dict[str, tuple[int, int]] = {}  # key -> (value, last access)
    expected = []
    for advance, key, write in steps:
        clock.advance(advance)
        now = clock.current_time
        if write is not None:
            send(op, ("write", key, write))
            model[key] = (write, now)
            continue
        send(op, ("read_value", key, None))
        entry = model.get(key)
        if entry is None or entry[1] + TTL <= now:
            model.pop(key, None)
            expected.append(None)
        else:
            expected.append(entry[0])
            if on_read:
                model[key] = (entry[0], now)
    assert out.values == expected
    live = {k for k, (_, ts) in model.items() if ts + TTL > clock.current_time}
    table = op.keyed_state_backend.tables.get("v")
    stored = {key for _, _, key, _ in table.entries()} if table else set()
    assert live <= stored  # cleanup never removes a live value


def _printed_values(printed: list[str], prefix: str) -> list[Any]:
    return [eval(line.split("> ", 1)[1]) for line in printed if line.startswith(prefix)]


def check_last_seen(rows: list[tuple], n: int) -> None:
    """Each key's previous value is visible iff written less than the 1 ms TTL before ``now``."""
    assert len(rows) == 2 * n
    written: dict[str, tuple[int, int]] = {}
    outcomes = {"expired": 0, "visible": 0}
    for key, i, now, previous in rows:  # a key's records are printed in order by its subtask
        before = written.get(key)
        if before is None:
            assert previous is None
        elif before[1] + 1 <= now:
            assert previous is None, (key, i, now, before)
            outcomes["expired"] += 1
        else:
            assert previous == before[0]
            outcomes["visible"] += 1
        written[key] = (i, now)
    assert outcomes["expired"] > 0 and outcomes["visible"] > 0


def test_ttl_on_the_simulated_clock_in_a_mini_cluster_job() -> None:
    from pyflowkit.common import Configuration
    from pyflowkit.datastream import StreamExecutionEnvironment
    from pyflowkit.runtime import MiniCluster
    from tests.state.ttl_job import last_seen_job

    conf = Configuration()
    conf.set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    last_seen_job(env, 1500)
    printed = MiniCluster(seed=4, echo_print=False).submit(env, "ttl").run().printed()
    check_last_seen(_printed_values(printed, "seen"), 1500)


@pytest.mark.spark
@pytest.mark.parametrize("interval", [0, 3], ids=["no auto-watermark interval", "interval 3 ms"])
def test_ttl_on_spark_with_the_same_operator_code_and_its_processing_clock(
    spark: Any, capsys: pytest.CaptureFixture[str], interval: int
) -> None:
    """The stage's processing clock advances per chunk of records: by the auto-watermark
    interval, or by 1 ms without one (TTL is processing time, not watermark-driven)."""
    from pyflowkit.datastream import StreamExecutionEnvironment
    from tests.state.ttl_job import last_seen_job

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.get_config().set_auto_watermark_interval(interval)  # 0: none (1.20's default is 200)
    assert env.get_config().get_auto_watermark_interval() == interval
    last_seen_job(env, 5000)  # several chunks
    env.execute("ttl on spark", spark=spark)
    seen = _printed_values(capsys.readouterr().out.splitlines(), "seen")
    check_last_seen(seen, 5000)
    nows = {row[2] for row in seen}
    assert len(nows) > 1  # processing time moved during the run
