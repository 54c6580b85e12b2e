"""Running a catalog pipeline as a Structured Streaming query fed in small micro-batches."""

from __future__ import annotations

from typing import Any

from pyflowkit.common import Configuration
from tests.pipelines.catalog import build_env
from tests.pipelines.spec import STREAMING

RECORDS_PER_BATCH = 4  # each source subtask reads at most this many records per micro-batch


def streaming_env(pipeline: Any, mode: str = STREAMING, **conf: str) -> Any:
    """The pipeline's environment, set to run as a streaming query read to its end."""
    env = build_env(pipeline, mode)
    settings = {
        "pyflowkit.spark.streaming-query": "always",
        "pyflowkit.spark.streaming.trigger": "available-now",
        "pyflowkit.spark.streaming.max-records-per-batch": str(RECORDS_PER_BATCH),
        **conf,
    }
    configuration = Configuration()
    for key, value in settings.items():
        configuration.set_string(key, value)
    env.configure(configuration)
    return env


def run_streaming(spark: Any, env: Any) -> Any:
    """Start the env's job as a streaming query, wait for its end; the ``StreamingJob``."""
    from pyflowkit.spark.executor import _configuration, _job_graph, start_streaming

    job = start_streaming(_job_graph(env, None), _configuration(env), spark, print_output=False)
    job.wait(timeout=300)
    return job
