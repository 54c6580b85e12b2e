"""The time of a CEP pattern under the two profiles (FLINK-19326, Flink 1.12).

Flink 1.11's ``PatternStreamBuilder`` matches in processing time when the environment's time
characteristic is ProcessingTime; since 1.12 ``forStreamAndPattern`` starts from
``TimeBehaviour.EventTime`` and only ``in_processing_time()`` changes it: the deprecated
``set_stream_time_characteristic`` no longer decides. The two differ only for a program that
calls ``set_stream_time_characteristic(ProcessingTime)`` without ``in_processing_time()``.
"""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.cep import CEP, Pattern
from pyflowkit.common import Configuration, Duration, WatermarkStrategy
from pyflowkit.common.flink_version import CEP_TIME_BEHAVIOUR, FLINK_VERSION_KEY, rules_table
from pyflowkit.datastream import StreamExecutionEnvironment, TimeCharacteristic
from pyflowkit.runtime import MiniCluster

EVENTS = [("k", 3, 80), ("k", 1, 90), ("k", 2, 10), ("k", 4, 95), ("k", 5, 96)]


def _job(version: str, *, processing_time: bool = False, stamped: bool = False) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string(FLINK_VERSION_KEY, version)
    )
    env.set_parallelism(1)
    env.set_stream_time_characteristic(TimeCharacteristic.ProcessingTime)  # deprecated in 1.12
    stream = env.from_collection(EVENTS)
    if stamped:
        stream = stream.assign_timestamps_and_watermarks(
            WatermarkStrategy.for_bounded_out_of_orderness(
                Duration.of_millis(5)
            ).with_timestamp_assigner(lambda value, _: value[1])  # fmt: skip
        )
    high = (
        Pattern.begin("first").where(lambda e: e[2] > 50).next("second").where(lambda e: e[2] > 50)
    )
    patterns = CEP.pattern(stream.key_by(lambda e: e[0]), high)
    if processing_time:
        patterns = patterns.in_processing_time()
    patterns.select(lambda m: (m["first"][0][1], m["second"][0][1])).print("m")
    return env


def _is_processing_time(env: Any) -> bool:
    graph = env.get_job_graph()
    (node,) = [n for n in graph.stream_graph.nodes.values() if n.operator_name == "CepOperator"]
    return node.operator_factory.params["is_processing_time"]


def _matches(env: Any) -> list[str]:
    run = MiniCluster(echo_print=False).submit(env).run()
    run.raise_if_failed()
    return sorted(run.printed())


def test_1_11_follows_the_environment_processing_time() -> None:
    env = _job("1.11")
    assert _is_processing_time(env) is True
    assert _matches(env) == ["m> (3, 1)", "m> (4, 5)"]  # arrival order


@pytest.mark.parametrize("version", ["1.11", "1.20"])
def test_in_processing_time_is_processing_time_under_both(version: str) -> None:
    env = _job(version, processing_time=True)
    assert _is_processing_time(env) is True
    assert _matches(env) == ["m> (3, 1)", "m> (4, 5)"]


def test_1_20_matches_in_event_time_whatever_the_characteristic() -> None:
    env = _job("1.20", stamped=True)
    assert _is_processing_time(env) is False
    # event time sorts by timestamp before the NFA: 1 (90), 2 (10), 3 (80), 4 (95), 5 (96)
    assert _matches(env) == ["m> (3, 4)", "m> (4, 5)"]
    # without timestamps every element is late for an event-time CEP: no match at all
    assert _matches(_job("1.20")) == []


def test_the_rule_is_in_the_table() -> None:
    assert CEP_TIME_BEHAVIOUR.issue == "FLINK-19326 (FLIP-134)"
    assert "| Time of a CEP pattern | FLINK-19326 (FLIP-134) | 1.12 |" in rules_table()
