"""EndOfData (FLIP-147, 1.14+) under the 1.20 profile: a task whose input ended sends EndOfData
(StopMode.DRAIN) into every result partition ahead of EndOfPartitionEvent; 1.11 sends only
EndOfPartitionEvent. The records are the same under both."""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Configuration
from pyflowkit.common.flink_version import FLINK_VERSION_KEY
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.runtime import MiniCluster


def _run(version: str) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string(FLINK_VERSION_KEY, version)
    )
    env.set_parallelism(1)
    env.from_collection([1, 2, 3]).map(lambda x: x * 10).rebalance().map(lambda x: x + 1).print()
    run = MiniCluster(echo_print=False, seed=1).submit(env, "eod")
    run.step(400)
    run.run()
    run.raise_if_failed()
    return run


def test_1_20_sends_end_of_data_before_end_of_partition() -> None:
    run = _run("1.20")
    messages = [(e.method, e.message) for e in run.trace]
    end_data = [m for meth, m in messages if meth == "StreamTask.endData"]
    assert end_data[0] == (
        "Source: Collection Source -> Map (1/1) ended its data (StopMode.DRAIN): EndOfData into "
        "its 1 result partition(s), ahead of EndOfPartitionEvent."
    )
    received = [
        m for _, m in messages if m.startswith("Map -> Sink: Print to Std. Out (1/1) received")
    ]
    assert received[0].startswith(
        "Map -> Sink: Print to Std. Out (1/1) received EndOfData(StopMode.DRAIN)"
    )
    assert "EndOfPartitionEvent" in received[-1]
    assert run.printed() == ["11", "21", "31"]


def test_1_11_sends_end_of_partition_only() -> None:
    run = _run("1.11")
    assert not any(e.method == "StreamTask.endData" for e in run.trace)
    assert not any("EndOfData" in e.message for e in run.trace)
    assert run.printed() == ["11", "21", "31"]


@pytest.mark.parametrize("version", ["1.11", "1.20"])
def test_the_rule_is_in_the_profile(version: str) -> None:
    from pyflowkit.common.flink_version import profile_for

    assert profile_for(version).end_of_data.sends_end_of_data is (version == "1.20")
