"""``env.execute()`` generates the StreamGraph with ``clearTransformations=true`` (Flink 1.11)."""

from __future__ import annotations

import pytest

from pyflowkit import capture_environments
from pyflowkit.common import Configuration, RestartStrategies
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.errors import (
    IllegalArgumentException,
    IllegalStateException,
    JobExecutionException,
    ProgramAbortException,
)

NO_OPERATORS = "No operators defined in streaming topology. Cannot execute."


def local_env(target: str = "local") -> StreamExecutionEnvironment:
    conf = Configuration()
    conf.set_string("execution.target", target)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(1)
    env.set_restart_strategy(RestartStrategies.no_restart())
    return env


def boom(x: int) -> int:
    if x == 2:
        raise ValueError("boom at 2")
    return x


def test_successful_execute_clears_and_a_second_execute_has_nothing_to_run() -> None:
    env = local_env()
    env.from_collection([1, 2, 3]).map(lambda x: x * 10).print()
    result = env.execute("first")
    assert result.printed == ["10", "20", "30"]
    assert env.get_transformations() == []
    with pytest.raises(IllegalStateException, match=NO_OPERATORS):
        env.execute("again")


def test_a_failing_job_still_clears_so_the_next_pipeline_runs_alone() -> None:
    env = local_env()
    env.from_collection([1, 2, 3]).map(boom).print()
    with pytest.raises(JobExecutionException) as info:
        env.execute("fails")
    assert "boom at 2" in str(info.value) + str(info.value.__cause__)
    assert env.get_transformations() == []
    env.from_collection([7]).print()
    assert env.execute("next").printed == ["7"]


def test_execute_and_collect_clears_even_when_the_job_fails() -> None:
    env = local_env()
    assert list(env.from_collection([1, 3]).map(boom).execute_and_collect()) == [1, 3]
    assert env.get_transformations() == []
    with pytest.raises(JobExecutionException):
        env.from_collection([2]).map(boom).execute_and_collect()
    assert env.get_transformations() == []


def test_unknown_target_fails_after_the_graph_was_generated_and_cleared() -> None:
    env = local_env("nowhere")
    env.from_collection([1]).print()
    with pytest.raises(IllegalArgumentException, match="Unknown execution.target 'nowhere'"):
        env.execute()
    assert env.get_transformations() == []


def test_captured_execute_keeps_the_pipeline_for_inspection() -> None:
    with capture_environments() as capture:
        env = StreamExecutionEnvironment.get_execution_environment()
        env.from_collection([1]).print()
        with pytest.raises(ProgramAbortException):
            env.execute("captured")
    assert capture.job_names == ["captured"]
    assert len(env.get_transformations()) == 1
