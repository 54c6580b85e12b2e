"""The default job name under the two profiles (``StreamGraphGenerator.deriveJobName``).

Since Flink 1.12 (FLIP-134's BATCH mode, FLINK-18545's ``pipeline.name``)
``configureStreamGraphBatch`` names a BATCH job ``DEFAULT_BATCH_JOB_NAME`` ("Flink Batch Job")
and ``configureStreamGraphStreaming`` a STREAMING one "Flink Streaming Job", unless
``pipeline.name`` is set; ``execute(job_name)`` overrides both. Flink 1.11 names every job
"Flink Streaming Job".
"""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Configuration
from pyflowkit.common.flink_version import FLINK_VERSION_KEY, JOB_NAME, rules_table
from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment


def _env(version: str, mode: str, **config: str) -> Any:
    conf = Configuration().set_string(FLINK_VERSION_KEY, version)
    for key, value in config.items():
        conf.set_string(key, value)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_runtime_mode(getattr(RuntimeExecutionMode, mode))
    env.from_collection([1, 2, 3]).map(lambda x: x * 2).print()
    return env


@pytest.mark.parametrize(
    ("version", "mode", "name"),
    [
        ("1.20", "BATCH", "Flink Batch Job"),
        ("1.20", "STREAMING", "Flink Streaming Job"),
        ("1.11", "BATCH", "Flink Streaming Job"),
        ("1.11", "STREAMING", "Flink Streaming Job"),
    ],
)
def test_default_job_name(version: str, mode: str, name: str) -> None:
    env = _env(version, mode)
    assert env.get_stream_graph().job_name == name
    assert env.get_job_graph().job_name == name


def test_a_bounded_automatic_job_is_a_batch_job_under_1_20() -> None:
    assert _env("1.20", "AUTOMATIC").get_job_graph().job_name == "Flink Batch Job"


def test_pipeline_name_then_execute_argument() -> None:
    env = _env("1.20", "BATCH", **{"pipeline.name": "nightly"})
    assert env.get_job_graph().job_name == "nightly"
    assert env.get_job_graph("adhoc").job_name == "adhoc"
    # 1.11 has no pipeline.name (FLINK-18545 came in 1.12)
    assert _env("1.11", "BATCH", **{"pipeline.name": "nightly"}).get_job_graph().job_name == (
        "Flink Streaming Job"
    )


def test_the_batch_job_runs_under_its_name() -> None:
    """On the simulated cluster: the JobExecutionResult and the JobMaster's job carry it."""
    from pyflowkit.runtime.local_executor import execute

    result = execute(_env("1.20", "BATCH"))
    assert result.job_name == "Flink Batch Job"
    assert "Flink Batch Job" in rules_table() and JOB_NAME.issue.startswith("FLIP-134")
