"""The compiler driven through the PyFlink-shaped API: reference §3.8/§8 worked examples."""

from __future__ import annotations

import json

import pytest

from pyflowkit.errors import JobException, UnsupportedOperationException

datastream = pytest.importorskip("pyflowkit.datastream")
StreamExecutionEnvironment = datastream.StreamExecutionEnvironment

WINDOW = (
    "Window(GlobalWindows(), CountTrigger, CountEvictor, SumAggregator, PassThroughWindowFunction)"
)


def worked_example_env():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    ds = env.from_collection([("a", 1), ("b", 2)])
    ds.map(lambda x: x).key_by(lambda x: x[0]).count_window(2, 1).sum(1).print()
    return env


# the reference's worked example is Flink 1.11's Java job (countWindow = GlobalWindows + ...)
@pytest.mark.flink_version("1.11")
def test_worked_job_graph_matches_real_flink() -> None:
    jg = worked_example_env().get_job_graph()
    assert [(v.name, v.id, v.parallelism) for v in jg.vertices_in_flink_order] == [
        (f"{WINDOW} -> Sink: Print to Std. Out", "e70bbd798b564e0a50e10e343f1ac56b", 2),
        ("Map", "0a448493b4782967b150582570326227", 2),
        ("Source: Collection Source", "bc764cd8ddf7a0cff126f51c16239658", 1),
    ]
    window = jg.vertices[-1]
    assert window.operator_names == [WINDOW, "Sink: Print to Std. Out"]
    [edge] = window.inputs
    assert (edge.ship_strategy.name, edge.distribution_pattern.name) == ("HASH", "ALL_TO_ALL")


# the reference's worked example is Flink 1.11's Java job (countWindow = GlobalWindows + ...)
@pytest.mark.flink_version("1.11")
def test_worked_execution_plan_matches_real_flink_modulo_ids() -> None:
    env = worked_example_env()
    nodes = json.loads(env.get_execution_plan())["nodes"]
    assert [(n["type"], n["pact"], n["parallelism"]) for n in nodes] == [
        ("Source: Collection Source", "Data Source", 1),
        ("Map", "Operator", 2),
        (WINDOW, "Operator", 2),
        ("Sink: Print to Std. Out", "Data Sink", 2),
    ]
    ids = [n["id"] for n in nodes]
    assert ids[2] == ids[1] + 2  # the keyBy PartitionTransformation's id is skipped
    assert [p["ship_strategy"] for n in nodes[1:] for p in n["predecessors"]] == [
        "REBALANCE",
        "HASH",
        "FORWARD",
    ]


def test_execution_graph_through_the_api() -> None:
    eg = worked_example_env().get_execution_graph()
    assert [str(ev) for ev in eg.all_execution_vertices][:3] == [
        "Source: Collection Source (1/1)",
        "Map (1/2)",
        "Map (2/2)",
    ]
    assert len(eg.failover_regions) == 1


def test_environment_chaining_off_and_explanation() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.disable_operator_chaining()
    env.from_collection([1, 2]).map(lambda x: x).filter(lambda x: x > 0).print()
    jg = env.get_job_graph()
    assert [v.name for v in jg.vertices] == [
        "Source: Collection Source",
        "Map",
        "Filter",
        "Sink: Print to Std. Out",
    ]
    assert {row.reason for row in jg.explain_chaining()} == {"chaining disabled on the environment"}


def test_forward_across_parallelism_through_the_api() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.from_collection([1, 2]).forward().map(lambda x: x).print()
    with pytest.raises(UnsupportedOperationException, match="Forward partitioning does not"):
        env.get_stream_graph()


def test_env_max_parallelism_below_operator_parallelism() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(4)
    env.set_max_parallelism(2)
    env.from_collection([1, 2]).map(lambda x: x).print()
    with pytest.raises(
        JobException, match=r"Vertex Map -> Sink: Print to Std. Out's parallelism \(4\)"
    ):
        env.get_job_graph()


def test_checkpointing_through_the_api() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.enable_checkpointing(500)
    env.from_collection([1]).print()
    jg = env.get_job_graph()
    assert jg.checkpointing_settings.checkpoint_interval == 500
    assert jg.checkpointing_settings.is_exactly_once is True
    assert jg.restart_strategy.get_restart_attempts() == 2147483647
