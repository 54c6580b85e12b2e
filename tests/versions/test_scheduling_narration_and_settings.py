"""Under 1.20 the words a learner reads follow 1.20: the scheduler's narration names the strategy
it really uses (no "eagerly" for region or vertex-wise scheduling), and EnvironmentSettings made
directly take the version's time defaults (FLINK-19317: EventTime, 200 ms under 1.20)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from pyflowkit.common import Configuration
from pyflowkit.common.flink_version import FLINK_VERSION_KEY
from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from pyflowkit.graph.settings import EnvironmentSettings
from pyflowkit.notebook.stepper_narration import narrate
from pyflowkit.runtime import MiniCluster


def _start_scheduling_why(version: str, mode: RuntimeExecutionMode) -> str:
    """The narration's "why" of the step whose event is the scheduler's startScheduling line."""
    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string(FLINK_VERSION_KEY, version)
    )
    env.set_runtime_mode(mode)
    env.from_collection([1, 2, 3]).map(lambda x: x + 1).print()
    run: Any = MiniCluster(echo_print=False).submit(env, "n")
    run.run()
    event = next(e for e in run.trace if e.method == "DefaultScheduler.startScheduling")
    step = SimpleNamespace(trace=[event], steps_taken=event.step, job_graph=run.job_graph)
    narration = narrate(step, None)
    assert narration["method"] == "DefaultScheduler.startScheduling"
    return narration["why"]


@pytest.mark.parametrize(
    ("version", "mode", "expected"),
    [
        ("1.11", RuntimeExecutionMode.STREAMING, "streaming jobs are scheduled eagerly"),
        ("1.20", RuntimeExecutionMode.STREAMING, "FLIP-119): region by region"),
        ("1.20", RuntimeExecutionMode.BATCH, "only once its blocking inputs finished, not eagerly"),
    ],
)
def test_start_scheduling_narration_follows_the_strategy(
    version: str, mode: RuntimeExecutionMode, expected: str
) -> None:
    assert expected in _start_scheduling_why(version, mode)


def test_environment_settings_made_directly_take_the_versions_time_defaults() -> None:
    new = EnvironmentSettings(parallelism=1, flink_version="1.20")
    old = EnvironmentSettings(parallelism=1, flink_version="1.11")
    assert (new.time_characteristic, new.auto_watermark_interval) == ("EventTime", 200)
    assert (old.time_characteristic, old.auto_watermark_interval) == ("ProcessingTime", 0)
    chosen = EnvironmentSettings(
        parallelism=1,
        flink_version="1.20",
        time_characteristic="ProcessingTime",
        auto_watermark_interval=0,
    )
    assert (chosen.time_characteristic, chosen.auto_watermark_interval) == ("ProcessingTime", 0)
    # the environment's own settings agree with a directly made one
    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string(FLINK_VERSION_KEY, "1.20")
    )
    env.from_collection([1]).print()
    made = env.get_stream_graph().execution_config
    assert (made.time_characteristic, made.auto_watermark_interval) == ("EventTime", 200)
