"""User metrics: ``RuntimeContext.get_metrics_group()`` with PyFlink's ``MetricGroup`` API."""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.metrics import Counter, Distribution, Meter, MetricGroup
from pyflowkit.metrics.metricbase import MetricRegistry, operator_metric_group
from pyflowkit.runtime import MiniCluster
from tests.api.metrics_job import VALUES, metrics_job

PREFIX = "Measure.app.measuring"
MEASURE = "Measure -> Sink: Print to Std. Out"


def _group(clock=lambda: 0):  # noqa: ANN001, ANN202
    registry = MetricRegistry()
    group = operator_metric_group(
        registry,
        clock,
        host="localhost",
        tm_id="TaskExecutor-0",
        job_name="job",
        task_name="Source -> Map",
        operator_name="Map",
        subtask_index=1,
    )
    return registry, group


def test_counter_gauge_distribution_groups_and_identifiers() -> None:
    registry, group = _group()
    assert isinstance(group, MetricGroup)
    sub = group.add_group("my")
    c = sub.counter("n")
    assert isinstance(c, Counter) and sub.counter("n") is c  # the same metric again
    c.inc()
    c.inc(5)
    c.dec(2)
    assert c.get_count() == 4
    state = {"v": 7}
    sub.gauge("level", lambda: state["v"])
    state["v"] = 9
    d = sub.distribution("d")
    assert isinstance(d, Distribution)
    for v in (3, 1, 8):
        d.update(v)
    assert (d.get_count(), d.get_sum(), d.get_min(), d.get_max(), d.get_mean()) == (3, 12, 1, 8, 4)
    assert registry.values() == {
        "Map.my.n": 4,
        "Map.my.level": 9,
        "Map.my.d": {"count": 3, "sum": 12, "min": 1, "max": 8, "mean": 4.0},
    }
    assert sub.get_metric_identifier("n") == "localhost.taskmanager.TaskExecutor-0.job.Map.1.my.n"
    value = group.add_group("key", "value")
    assert value.get_scope_components()[-2:] == ["key", "value"]
    assert value.get_all_variables()["<key>"] == "value"
    assert value.get_all_variables()["<subtask_index>"] == "1"
    assert "<key>" not in group.add_group("key").get_all_variables()


def test_meter_rate_over_its_time_span_of_processing_time() -> None:
    now = [0]
    _, group = _group(lambda: now[0])
    m = group.meter("m", time_span_in_seconds=10)
    assert isinstance(m, Meter)
    for t in (0, 1000, 2000, 9000):
        now[0] = t
        m.mark_event()
    m.mark_event(4)
    assert (m.get_count(), m.get_rate()) == (8, 0.8)
    now[0] = 10_500  # the events at 0 s fell out of the 10 s span
    assert m.get_rate() == 0.7
    now[0] = 30_000
    assert (m.get_count(), m.get_rate()) == (8, 0.0)


def test_bad_names_and_kind_collisions_are_refused() -> None:
    _, group = _group()
    group.counter("x")
    with pytest.raises(ValueError, match="Name collision: the metric 'Map.x' is already a Counter"):
        group.meter("x")
    with pytest.raises(ValueError, match="metric name must be a non-empty str"):
        group.counter("")
    with pytest.raises(ValueError, match="metric group name must be a non-empty str"):
        group.add_group(" ")
    with pytest.raises(TypeError, match="callable"):
        group.gauge("g", 5)
    with pytest.raises(ValueError, match="time_span_in_seconds must be positive"):
        group.meter("m", time_span_in_seconds=0)


def _expected_totals(per_task: dict[str, dict[str, Any]]) -> tuple[int, int, int, int]:
    records = sum(m[f"{PREFIX}.records"] for m in per_task.values())
    evens = sum(m[f"{PREFIX}.evens"] for m in per_task.values())
    total = sum(m[f"{PREFIX}.sizes"]["sum"] for m in per_task.values())
    largest = max(m[f"{PREFIX}.largest"] for m in per_task.values())
    return records, evens, total, largest


def _without_rates(per_task: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        task: {k: (v["count"] if k.endswith(".events") else v) for k, v in m.items()}
        for task, m in per_task.items()
    }


def _minicluster_run():  # noqa: ANN202
    env = StreamExecutionEnvironment.get_execution_environment()
    metrics_job(env)
    return MiniCluster(seed=0).submit(env, "metrics").run()


def test_metrics_in_the_simulated_clusters_task_table() -> None:
    run = _minicluster_run()
    frame = run.tasks_frame()
    measure = frame[frame.vertex.str.startswith("Measure")]
    assert len(measure) == 2
    per_task = dict(zip(measure.name, measure.metrics, strict=True))
    assert _expected_totals(per_task) == (20, 10, sum(VALUES), 20)
    for m in per_task.values():
        assert list(m) == [
            f"{PREFIX}.records",
            f"{PREFIX}.evens",
            f"{PREFIX}.largest",
            f"{PREFIX}.events",
            f"{PREFIX}.sizes",
        ]
        assert m[f"{PREFIX}.events"]["count"] == m[f"{PREFIX}.records"] > 0
        assert m[f"{PREFIX}.sizes"]["count"] == m[f"{PREFIX}.records"]
    sources = frame[~frame.vertex.str.startswith("Measure")]
    assert all(m == {} for m in sources.metrics)


def test_metrics_reported_from_spark_equal_the_simulated_clusters(spark: Any, capsys) -> None:
    expected = _without_rates(_minicluster_run().tasks_frame().set_index("name").metrics.to_dict())
    expected = {task: m for task, m in expected.items() if m}
    env = StreamExecutionEnvironment.get_execution_environment()
    metrics_job(env)
    result = env.execute("metrics on spark", spark=spark)
    capsys.readouterr()
    assert sorted(result.metrics) == [f"{MEASURE} (1/2)", f"{MEASURE} (2/2)"]
    assert _without_rates(result.metrics) == expected
    assert _expected_totals(result.metrics) == (20, 10, sum(VALUES), 20)
