"""What Flink's web UI shows, from the simulated run: numRecordsIn/Out counted by the task,
watermarks per valve channel, buffer usage and back pressure (Flink 1.11's OK/LOW/HIGH)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from pyflowkit.common import WatermarkStrategy
from pyflowkit.common.watermark_strategy import TimestampAssigner
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.notebook.magics import record_costs
from pyflowkit.notebook.subtask_metrics import NO_WATERMARK, subtask_metrics
from pyflowkit.render.colour_vision import VISIONS, difference, lightness
from pyflowkit.render.palette import BACK_PRESSURE_COLOURS
from pyflowkit.runtime import MiniCluster
from pyflowkit.runtime.back_pressure import BackPressureTimer, back_pressure_level


def by_name(metrics: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["name"]: m for m in metrics["subtasks"].values()}


def test_levels_follow_flink_1_11_thresholds():
    assert [back_pressure_level(r) for r in (0.0, 0.10, 0.11, 0.5, 0.51, 1.0)] == [
        "OK", "OK", "LOW", "LOW", "HIGH", "HIGH"
    ]  # fmt: skip


def test_back_pressure_ratio_is_the_share_of_the_last_window():
    timer = BackPressureTimer()
    timer.started(0)
    timer.update(10, True)
    timer.update(40, False)  # 30 ms blocked
    assert timer.ratio(50, window=100) == pytest.approx(30 / 50)  # only 50 ms running so far
    timer.update(150, True)
    assert timer.ratio(200, window=100) == pytest.approx(50 / 100)  # 150..200 blocked
    assert timer.total_ms == 30


def test_back_pressure_palette_differs_for_colour_blind_viewers_and_in_greyscale():
    for a, b in itertools.combinations(BACK_PRESSURE_COLOURS.values(), 2):
        assert abs(lightness(a) - lightness(b)) >= 20
        for vision in VISIONS:
            assert difference(a, b, vision) >= 10, (a, b, vision)


def test_record_cost_option_parses_operator_equals_ms():
    assert record_costs(["Sink: slow sink=3", "Map=0.5"]) == {"Sink: slow sink": 3.0, "Map": 0.5}
    with pytest.raises(ValueError, match="OPERATOR=MS"):
        record_costs(["Sink: slow sink"])


def test_records_in_and_out_are_the_records_each_subtask_processed():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.disable_operator_chaining()
    seen: list[int] = []
    sunk: list[int] = []
    env.from_collection(list(range(80))).map(lambda x: seen.append(x) or x).add_sink(sunk.append)
    run = MiniCluster(echo_print=False).submit(env.get_job_graph("records"))
    run.run_until(lambda r: len(sunk) >= 30)
    named = by_name(subtask_metrics(run))
    source = named["Source: Collection Source (1/1)"]
    mapper = named["Map (1/1)"]
    sink = next(m for n, m in named.items() if n.startswith("Sink"))
    assert source["numRecordsIn"] == 0 and source["watermark"] == NO_WATERMARK
    assert mapper["numRecordsIn"] == len(seen) == mapper["numRecordsOut"]
    assert sink["numRecordsIn"] == len(sunk) and sink["numRecordsOut"] == 0
    assert len(sunk) <= len(seen) <= source["numRecordsOut"] <= 80


class Stamp(TimestampAssigner):
    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        return value * 10


def test_each_channel_shows_the_watermark_its_valve_holds():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.get_config().set_auto_watermark_interval(5)  # periodic watermarks every 5 simulated ms
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(Stamp())
    (
        env.from_collection(list(range(400)))
        .rebalance()
        .map(lambda x: x)  # two subtasks assign timestamps: two channels into each reducer
        .assign_timestamps_and_watermarks(strategy)
        .key_by(lambda x: x % 3)
        .reduce(lambda a, b: max(a, b))
        .add_sink(lambda v: None)
    )
    run = MiniCluster(echo_print=False, seed=1).submit(env.get_job_graph("wm"))
    before = subtask_metrics(run)
    assert before == {"subtasks": {}, "channels": {}, "window_ms": 100}
    run.run_until(lambda r: len(_channel_watermarks(r)) == 4)
    metrics = subtask_metrics(run)
    reducers = {i: m for i, m in metrics["subtasks"].items() if m["name"].startswith("Keyed")}
    assert len(reducers) == 2
    for ev_id, m in reducers.items():
        consumer = ev_id[3:]
        channels = [c for e, c in metrics["channels"].items() if e.startswith(f"ee_{consumer}_")]
        assert len(channels) == 2  # one per Map subtask
        numbers = [int(c["watermark"]) for c in channels if c["watermark"] != NO_WATERMARK]
        expected = str(min(numbers)) if len(numbers) == 2 else NO_WATERMARK
        assert m["watermark"] == expected  # the valve's output: the minimum over its channels
        for c in channels:
            assert 0 <= c["queued"] <= c["capacity"] == 2 and c["fill"] == c["queued"] / 2


def _channel_watermarks(run: Any) -> list[str]:
    return [
        c["watermark"]
        for c in subtask_metrics(run)["channels"].values()
        if c["watermark"] != NO_WATERMARK
    ]


def _pipeline(slow: bool) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.enable_checkpointing(60_000)
    env.from_collection(list(range(600))).rebalance().map(lambda x: x).add_sink(
        lambda v: None
    ).name("slow sink")
    costs = {"Sink: slow sink": 3} if slow else {}
    return MiniCluster(echo_print=False, seed=2, record_cost_ms=costs).submit(
        env.get_job_graph("bp")
    )


def _source_records(run: Any) -> int:
    named = by_name(subtask_metrics(run))
    return sum(m["numRecordsOut"] for n, m in named.items() if n.startswith("Source"))


@pytest.mark.parametrize(("slow", "level"), [(True, "HIGH"), (False, "OK")])
def test_a_slow_sink_back_pressures_upstream(slow: bool, level: str):
    run = _pipeline(slow)
    run.run_until(lambda r: _source_records(r) >= 200)
    named = by_name(subtask_metrics(run))
    sources = [m for n, m in named.items() if n.startswith("Source")]
    assert {m["backPressureLevel"] for m in sources} == {level}, sources
    if slow:
        assert all(m["outPoolUsage"] == 1.0 and m["backPressureRatio"] > 0.5 for m in sources)
        channels = subtask_metrics(run)["channels"].values()
        assert any(c["full"] for c in channels)
    else:
        assert all(m["backPressureRatio"] <= 0.10 for m in sources)


def test_stepper_sends_the_metrics_and_lays_out_room_for_the_strip_when_shown():
    from pyflowkit.notebook.stepper import Stepper

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.from_collection(list(range(300))).rebalance().map(lambda x: x).add_sink(
        lambda v: None
    ).name("slow sink")
    stepper = Stepper(env, record_cost_ms={"Sink: slow sink": 3}, seed=2)
    plain_svg = stepper.svg
    roomy = ("with-metrics", "with&#45;metrics")  # Graphviz escapes the hyphen
    assert not any(r in plain_svg for r in roomy)
    stepper.show_metrics = True
    assert any(r in stepper.svg for r in roomy) and stepper.svg != plain_svg
    stepper.step_until(lambda s: "HIGH" in set(s.subtask_metrics().backPressureLevel), "HIGH")
    strips = [m for m in stepper.metrics["subtasks"].values() if m["backPressureLevel"] == "HIGH"]
    m = strips[0]
    assert m["strip"][0] == f"in {m['numRecordsIn']} · out {m['numRecordsOut']}"
    assert m["chip"][0] == "HIGH" and m["chip"][1].startswith("0.")
    assert m["colour"] == BACK_PRESSURE_COLOURS["HIGH"]
    assert "blocked on output buffers" in m["title"]
    assert stepper.channel_metrics().full.any()
    stepper.show_metrics = False
    assert stepper.svg == plain_svg  # both layouts kept: no second Graphviz run


def test_stepper_computes_the_metrics_only_while_the_strips_are_shown():
    from pyflowkit.notebook.stepper import Stepper

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.from_collection(list(range(300))).rebalance().map(lambda x: x).add_sink(
        lambda v: None
    ).name("slow sink")
    stepper = Stepper(env, record_cost_ms={"Sink: slow sink": 3}, seed=2, submit=True)
    for _ in range(40):
        stepper.step()
    assert stepper.metrics == {}  # hidden: nothing computed, nothing sent
    hidden = stepper.subtask_metrics()  # the DataFrame still reads the current step
    current = by_name(subtask_metrics(stepper.run))
    assert list(hidden.subtask) == [m["name"] for m in current.values()]
    assert list(hidden.numRecordsIn) == [m["numRecordsIn"] for m in current.values()]
    assert sum(hidden.numRecordsIn) > 0
    assert len(stepper.channel_metrics()) == len(subtask_metrics(stepper.run)["channels"])
    stepper.show_metrics = True  # the Metrics button: this step's values at once
    assert stepper.metrics == subtask_metrics(stepper.run)
    stepper.step()
    assert stepper.metrics == subtask_metrics(stepper.run)
    shown = stepper.metrics
    stepper.show_metrics = False
    stepper.step()
    assert stepper.metrics is shown  # hidden again: no longer recomputed per step
