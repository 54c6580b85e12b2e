"""``explain_spark`` of a BATCH job under 1.20 names the vertices the AdaptiveBatchScheduler
decides at run time (FLIP-187): an explain runs nothing, so it says how each is decided."""

from __future__ import annotations

from typing import Any

from pyflowkit.common import Configuration
from pyflowkit.common.flink_version import FLINK_VERSION_KEY
from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from pyflowkit.spark.plan import planned_adaptive


def _job_graph(version: str, **config: str) -> Any:
    conf = Configuration().set_string(FLINK_VERSION_KEY, version)
    for key, value in config.items():
        conf.set_string(key, value)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    env.set_parallelism(4)
    words = env.from_collection([("a", 1), ("b", 2)]).map(lambda t: t)
    words.key_by(lambda t: t[0]).reduce(lambda a, b: (a[0], a[1] + b[1])).print()
    return env.get_job_graph()


def _notes(graph: Any) -> list[str]:
    return planned_adaptive(graph, graph.stream_graph.execution_config)


def test_the_keyed_vertex_is_decided_at_run_time_under_1_20() -> None:
    graph = _job_graph("1.20")
    kept = [v.max_parallelism for v in graph.vertices]
    notes = _notes(graph)  # the source is set (from_collection: 1); the map and keyed vertex not
    assert len(notes) == 2
    keyed = graph.vertices[-1]
    assert notes[1] == (
        f"Parallelism of JobVertex: {keyed.name} ({keyed.id}) is decided at run time: once its "
        "inputs FINISHED, from the bytes they wrote (16 mb per subtask), between 1 and 4; this "
        "plan shows 4."
    )
    assert [v.max_parallelism for v in graph.vertices] == kept  # the graph is left as it was


def test_nothing_is_decided_under_1_11_or_without_auto_parallelism() -> None:
    assert _notes(_job_graph("1.11")) == []
    off = {"execution.batch.adaptive.auto-parallelism.enabled": "false"}
    assert _notes(_job_graph("1.20", **off)) == []
