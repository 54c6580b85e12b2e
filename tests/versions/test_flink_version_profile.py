"""The Flink version profile (``pyflowkit.flink-version``): its rules and the 1.20 API semantics.

Each rule is checked on both sides: 1.11 keeps today's behaviour byte for byte, 1.20 is Flink
1.20's (time defaults FLINK-19317, ``Row.toString`` FLINK-18090, continuous triggers
FLINK-20443, the retained-checkpoints key FLIP-406).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pyflowkit.common import Configuration, Row, Types
from pyflowkit.common.flink_version import (
    ALL_RULES,
    DEFAULT_VERSION,
    FLINK_VERSION_KEY,
    profile_for,
    rules_table,
    version_of,
)
from pyflowkit.common.time import Time
from pyflowkit.common.types import RowKind
from pyflowkit.common.watermark_strategy import WatermarkStrategy
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import SourceFunction
from pyflowkit.datastream.time_characteristic import TimeCharacteristic
from pyflowkit.datastream.window.assigners import TumblingEventTimeWindows
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.operators.print_format import print_batch_formatter, value_formatter
from pyflowkit.runtime import MiniCluster


def _env(version: str | None) -> StreamExecutionEnvironment:
    c = Configuration()
    if version is not None:
        c.set_string(FLINK_VERSION_KEY, version)
    return StreamExecutionEnvironment.get_execution_environment(c)


# --- the profile ----------------------------------------------------------------------------


def test_every_rule_names_its_issue_and_both_sides() -> None:
    assert {r.issue for r in ALL_RULES} == {
        "FLINK-19317 (FLIP-134)",
        "FLINK-18090; PyFlink DataStream._align_output_type",
        "FLINK-20443",
        "FLIP-406",
        "FLIP-130 (PyFlink DataStream key_by: AddKey + KeyByKeySelector)",
        "FLINK-26444 (PyFlink's count window assigners)",
        "FLIP-147 (FLINK-2491)",
        "FLIP-138",
        "FLIP-119",
        "FLIP-187 (FLINK-30682, FLINK-30683)",
        "FLIP-147 (FLINK-21088, FLINK-21089, FLINK-23708)",
        "FLIP-147 (FLINK-21080)",
        "FLIP-147 (EndOfData, StopMode)",
        "FLINK-23402 (FLIP-134)",
        "FLINK-20491",
        "FLINK-19326 (FLIP-134)",
        "FLIP-134 (FLINK-18545: pipeline.name)",
    }
    table = rules_table().splitlines()
    assert table[0] == "| Rule | FLIP/JIRA | Since | Flink 1.11 | Flink 1.20 |"
    assert len(table) == 2 + len(ALL_RULES)
    assert all(r.behaviour_1_11 != r.behaviour_1_20 for r in ALL_RULES)


def test_profiles_hand_out_resolved_rules() -> None:
    old, new = profile_for("1.11"), profile_for("1.20")
    assert (old.time_defaults.time_characteristic, old.time_defaults.auto_watermark_interval) == (
        "ProcessingTime",
        0,
    )
    assert (new.time_defaults.time_characteristic, new.time_defaults.auto_watermark_interval) == (
        "EventTime",
        200,
    )
    assert old.row_print.text("+I", ["a", "1"]) == "a,1"
    assert new.row_print.text("+I", ["a", "1"]) == "+I[a,1]"
    # FLINK-20443: ContinuousEventTimeTrigger.registerNextFireTimestamp caps at the window end
    assert old.continuous_trigger.next_fire(1_000, 999) == 1_000
    assert new.continuous_trigger.next_fire(1_000, 999) == 999
    assert new.continuous_trigger.next_fire(500, 999) == 500
    assert old.checkpoint_keys.num_retained == ("state.checkpoints.num-retained",)
    assert new.checkpoint_keys.num_retained == (
        "execution.checkpointing.num-retained",
        "state.checkpoints.num-retained",
    )
    assert profile_for("1.20") is new


def test_an_unknown_version_is_refused_naming_the_option() -> None:
    with pytest.raises(IllegalArgumentException) as err:
        profile_for("1.14")
    assert str(err.value) == (
        "Configuration 'pyflowkit.flink-version' must be one of ['1.11', '1.20'], got '1.14'."
    )
    with pytest.raises(IllegalArgumentException) as err:
        profile_for(["1.20"])  # unhashable: the same error, no TypeError
    assert str(err.value).endswith("got ['1.20'].")
    assert err.value.__context__ is None  # not raised while handling the lookup's KeyError
    with pytest.raises(IllegalArgumentException):
        _env("2.0")
    assert version_of({}) == DEFAULT_VERSION
    assert version_of({FLINK_VERSION_KEY: "1.20"}) == "1.20"


# --- time defaults (FLINK-19317) ------------------------------------------------------------


def test_time_defaults_follow_the_profile() -> None:
    old, new = _env("1.11"), _env("1.20")
    assert old.get_stream_time_characteristic() == TimeCharacteristic.ProcessingTime
    assert old.get_config().get_auto_watermark_interval() == 0
    assert new.get_stream_time_characteristic() == TimeCharacteristic.EventTime
    assert new.get_config().get_auto_watermark_interval() == 200
    assert new.get_flink_version_profile().version == "1.20"
    assert new._settings().flink_version == "1.20"
    assert old._settings().flink_version == "1.11"


def test_configure_switches_the_profile_but_keeps_a_chosen_characteristic() -> None:
    env = _env("1.11")
    env.configure(Configuration().set_string(FLINK_VERSION_KEY, "1.20"))
    assert env.get_stream_time_characteristic() == TimeCharacteristic.EventTime
    assert env.get_config().get_auto_watermark_interval() == 200
    chosen = _env("1.20")
    chosen.set_stream_time_characteristic(TimeCharacteristic.ProcessingTime)
    chosen.configure(Configuration().set_string(FLINK_VERSION_KEY, "1.11"))
    chosen.configure(Configuration().set_string(FLINK_VERSION_KEY, "1.20"))
    assert chosen.get_stream_time_characteristic() == TimeCharacteristic.ProcessingTime
    assert chosen.get_config().get_auto_watermark_interval() == 0
    # an explicit interval in the same configuration wins over the profile's default
    c = Configuration().set_string(FLINK_VERSION_KEY, "1.20")
    c.set_string("pipeline.auto-watermark-interval", "50 ms")
    assert _env_from(c).get_config().get_auto_watermark_interval() == 50


def _env_from(c: Configuration) -> StreamExecutionEnvironment:
    return StreamExecutionEnvironment.get_execution_environment(c)


class _Endless(SourceFunction):
    """An endless generator: value i at event time i * 10 ms, 10 ms of processing time apart."""

    def run(self, ctx: Any) -> Iterator[None]:
        i = 0
        while True:
            ctx.collect_with_timestamp(("k", i), i * 10)
            ctx.sleep(10)
            i += 1
            yield None

    def cancel(self) -> None:
        pass


def _endless_window_job(version: str) -> StreamExecutionEnvironment:
    env = _env(version)
    env.set_parallelism(1)
    env.add_source(_Endless()).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
            lambda event, _ts: event[1] * 10
        )
    ).key_by(lambda e: e[0]).window(TumblingEventTimeWindows.of(Time.milliseconds(100))).reduce(
        lambda a, b: (a[0], a[1] + b[1])
    ).print()
    return env


def test_event_time_window_on_an_endless_source_fires_while_running_under_1_20() -> None:
    run = MiniCluster(echo_print=False, seed=1).submit(_endless_window_job("1.20"), "endless")
    run.run_until(lambda r: r.printed_count >= 3, max_steps=200_000)
    # windows [0, 100), [100, 200), [200, 300): values 0..9, 10..19, 20..29, summed
    assert run.printed()[:3] == ["('k', 45)", "('k', 145)", "('k', 245)"]
    assert run.job_status.name == "RUNNING"
    run.cancel()


def test_the_same_program_never_fires_under_1_11() -> None:
    run = MiniCluster(echo_print=False, seed=1).submit(_endless_window_job("1.11"), "endless")
    run.step(20_000)
    assert run.job_status.name == "RUNNING"
    assert run.printed() == []  # ProcessingTime, interval 0: no periodic watermark ever
    run.cancel()


# --- Row.toString (FLINK-18090) -------------------------------------------------------------

ROW = Types.ROW([Types.STRING(), Types.INT()])


def test_typed_rows_print_as_the_profile_says() -> None:
    old, new = profile_for("1.11").row_print, profile_for("1.20").row_print
    rows = [Row("a", 1), Row.of_kind(RowKind.UPDATE_AFTER, "b", None)]
    assert print_batch_formatter(ROW, "1> ", old)(rows) == ["1> a,1", "1> b,null"]
    # PyFlink 1.20's _align_output_type: '{kind}[' + ','.join(str(field)) + ']' (str(None))
    assert print_batch_formatter(ROW, "1> ", new)(rows) == ["1> +I[a,1]", "1> +U[b,None]"]
    nested = Types.ROW([Types.STRING(), Types.ROW([Types.STRING(), Types.LIST(Types.INT())])])
    value = Row("x", Row("y", [1, 2]))
    assert value_formatter(nested, new)(value) == "+I[x,<Row('y', [1, 2])>]"  # str(pyflink Row)
    assert value_formatter(nested, old)(value) == "x,y,[1, 2]"
    assert value_formatter(nested)(value) == "x,y,[1, 2]"  # no rule: 1.11's, byte for byte
    # untyped (pickled) streams print Python's str() under both versions
    assert print_batch_formatter(None, "", new)([("a", 1)]) == ["('a', 1)"]


@pytest.mark.parametrize(("version", "expected"), [("1.11", ["a,1"]), ("1.20", ["+I[a,1]"])])
def test_the_print_sink_reads_the_jobs_profile(version: str, expected: list[str]) -> None:
    env = _env(version)
    env.set_parallelism(1)
    env.from_collection([Row("a", 1)], type_info=ROW).print()
    run = MiniCluster(echo_print=False, seed=1).submit(env, "rows")
    run.run()
    assert run.printed() == expected


# --- retained checkpoints key (FLIP-406) ----------------------------------------------------


def test_retained_checkpoints_key_follows_the_profile() -> None:
    c = Configuration().set_string("execution.checkpointing.num-retained", "3")
    c.set_string("state.checkpoints.num-retained", "2")
    old = _env_from(Configuration(c).set_string(FLINK_VERSION_KEY, "1.11"))
    new = _env_from(Configuration(c).set_string(FLINK_VERSION_KEY, "1.20"))
    assert old._settings().checkpoint.num_retained == 2
    assert new._settings().checkpoint.num_retained == 3
    legacy_only = Configuration().set_string("state.checkpoints.num-retained", "4")
    legacy_only.set_string(FLINK_VERSION_KEY, "1.20")
    assert _env_from(legacy_only)._settings().checkpoint.num_retained == 4


# --- continuous triggers (FLINK-20443) ------------------------------------------------------


class _Ctx:
    """A trigger context recording event-time timers, with or without the profile's rule."""

    def __init__(self, version: str | None) -> None:
        self.timers: list[int] = []
        if version is not None:
            self.continuous_trigger_fire = profile_for(version).continuous_trigger

    def register_event_time_timer(self, time: int) -> None:
        self.timers.append(time)


class _State:
    def __init__(self) -> None:
        self.values: list[int] = []

    def add(self, value: int) -> None:
        self.values.append(value)


@pytest.mark.parametrize(("version", "expected"), [(None, 1_200), ("1.11", 1_200), ("1.20", 999)])
def test_continuous_trigger_next_fire_is_capped_at_the_window_end_from_1_15(
    version: str | None, expected: int
) -> None:
    from pyflowkit.datastream.window.triggers import ContinuousEventTimeTrigger
    from pyflowkit.datastream.window.windows import TimeWindow

    trigger = ContinuousEventTimeTrigger.of(Time.milliseconds(300))
    ctx, state = _Ctx(version), _State()
    trigger.register_next_fire_timestamp(900, TimeWindow(0, 1_000), ctx, state)
    assert state.values == [expected]
    assert ctx.timers == [expected]


def test_under_1_20_event_time_firing_stops_at_the_window_end_in_the_operator() -> None:
    import dataclasses

    from pyflowkit.datastream.window.triggers import ContinuousEventTimeTrigger
    from tests.windows.harness import WindowHarness

    def run(version: str) -> WindowHarness:
        h = WindowHarness(
            window_assigner=TumblingEventTimeWindows.of(Time.milliseconds(100)),
            trigger=ContinuousEventTimeTrigger.of(Time.milliseconds(30)),
            function=lambda a, b: (a[0], a[1] + b[1]),
            window_function_kind="reduce",
            allowed_lateness=200,
        )
        h.operator.config = dataclasses.replace(h.operator.config, flink_version=version)
        h.element(("a", 1), 5)
        h.watermark(99)
        assert [ts for _, ts in h.records] == [99, 99, 99, 99]  # 30, 60, 90 and the end
        h.watermark(250)
        return h

    assert len(run("1.11").records) == 9  # 1.11: 120, 150, 180, 210, 240 fire in the lateness
    new = run("1.20")
    assert len(new.records) == 4  # 1.20: the next fire was capped at 99, nothing more
    new.element(("a", 2), 50)  # a late element within the lateness still fires at once
    assert new.values[-1] == ("a", 3)


# --- count_window(size, slide) (FLINK-26444) ------------------------------------------------


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("1.11", ["cw> (k,3)", "cw> (k,14)", "cw> (k,56)"]),  # CountTrigger(2) + CountEvictor(3)
        ("1.20", ["cw> (k,7)", "cw> (k,28)", "cw> (k,112)"]),  # PyFlink 1.20.3's (the golden)
    ],
)
def test_count_window_follows_the_profile(version: str, expected: list[str]) -> None:
    env = _env(version)
    env.set_parallelism(1)
    tuples = Types.TUPLE([Types.STRING(), Types.INT()])
    data = [("k", v) for v in (1, 2, 4, 8, 16, 32, 64)]
    env.from_collection(data, type_info=tuples).key_by(
        lambda t: t[0], key_type=Types.STRING()
    ).count_window(3, 2).reduce(lambda x, y: (x[0], x[1] + y[1])).print("cw")
    run = MiniCluster(echo_print=False, seed=1).submit(env, "cw")
    run.run()
    assert run.printed() == expected
