"""User metrics of a streaming job on Spark: counters, gauges, meters and distributions go on
across micro-batches (each batch rebuilds the subtask) and reach the driver as the batch result's
``metrics`` do: while the job runs (``JobClient.get_metrics``, the progress) and in its result."""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Configuration
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.metrics.metricbase import Counter, Distribution, Meter, MetricRegistry
from tests.api.metrics_job import VALUES, metrics_job
from tests.api.test_metrics import MEASURE, PREFIX, _expected_totals, _minicluster_run


def _without_rates(metrics: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        task: {
            k: {**v, "rate": None} if isinstance(v, dict) and "rate" in v else v
            for k, v in m.items()
        }
        for task, m in metrics.items()
    }


def test_registry_snapshot_restores_into_metrics_registered_again() -> None:
    clock = [1000]
    first = MetricRegistry()
    first.register("a.n", Counter()).inc(5)  # type: ignore[attr-defined]
    meter = first.register("a.m", Meter(lambda: clock[0], 60))
    meter.mark_event(3)  # type: ignore[attr-defined]
    first.register("a.d", Distribution()).update(7)  # type: ignore[attr-defined]
    state = first.snapshot()
    assert state == {
        "a.n": ("Counter", 5),
        "a.m": ("Meter", [3, [(1000, 3)]]),
        "a.d": ("Distribution", [1, 7, 7, 7]),
    }
    second = MetricRegistry()
    second.restore(state)
    assert second.register("a.n", Counter()).get_count() == 5  # type: ignore[attr-defined]
    clock[0] = 2000
    assert second.register("a.m", Meter(lambda: clock[0], 60)).value() == {"count": 3, "rate": 0.05}
    second.register("a.d", Distribution()).update(1)  # type: ignore[attr-defined]
    assert second.values()["a.d"] == {"count": 2, "sum": 8, "min": 1, "max": 7, "mean": 4.0}
    # a restored metric not registered again in this batch is kept for the next snapshot
    third = MetricRegistry()
    third.restore(state)
    assert third.snapshot() == state
    # a kind change (another metric under the name) starts from zero
    fourth = MetricRegistry()
    fourth.restore({"a.n": ("Distribution", [1, 1, 1, 1])})
    assert fourth.register("a.n", Counter()).get_count() == 0  # type: ignore[attr-defined]


@pytest.mark.spark
def test_streaming_metrics_equal_the_simulated_clusters(spark, tmp_path, capsys) -> None:
    expected = _without_rates(_minicluster_run().tasks_frame().set_index("name").metrics.to_dict())
    expected = {task: m for task, m in expected.items() if m}
    env = StreamExecutionEnvironment.get_execution_environment()
    configuration = Configuration()
    for key, value in {
        "pyflowkit.spark.streaming-query": "always",
        "pyflowkit.spark.streaming.trigger": "available-now",
        "pyflowkit.spark.streaming.max-records-per-batch": "3",
    }.items():
        configuration.set_string(key, value)
    env.configure(configuration)
    metrics_job(env)
    client = env.execute_async(spark=spark)
    assert client.wait(timeout=300) == "FINISHED"
    assert client.job.batches >= 4  # 20 values, 3 per source subtask and batch
    result = client.get_job_execution_result().result()
    capsys.readouterr()
    assert sorted(result.metrics) == [f"{MEASURE} (1/2)", f"{MEASURE} (2/2)"]
    assert _without_rates(result.metrics) == expected
    assert _expected_totals(result.metrics) == (20, 10, sum(VALUES), 20)
    assert client.get_metrics() == result.metrics
    progress = client.job.progress()
    assert progress.metrics == result.metrics
    assert progress.to_dict()["metrics"][f"{MEASURE} (1/2)"][f"{PREFIX}.records"] > 0
