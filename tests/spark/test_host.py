"""The Spark host runs real JobGraphs (from the shared generators) with test operators."""

from __future__ import annotations

import pytest

from pyflowkit.graph.partitioner import (
    BroadcastPartitioner,
    GlobalPartitioner,
    KeyGroupStreamPartitioner,
    RebalancePartitioner,
)
from pyflowkit.graph.settings import EnvironmentSettings
from pyflowkit.graph.stream_graph_generator import generate_stream_graph
from pyflowkit.graph.streaming_job_graph_generator import create_job_graph
from pyflowkit.graph.transformations import (
    ChainingStrategy,
    LegacySourceTransformation,
    OneInputTransformation,
    OperatorFactory,
    PartitionTransformation,
    SinkTransformation,
    UnionTransformation,
)
from pyflowkit.state.key_groups import assign_key_to_parallel_operator
from tests.spark import _host_ops

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module", autouse=True)
def _ship_test_ops_by_value():
    from pyspark import cloudpickle

    cloudpickle.register_pickle_by_value(_host_ops)
    yield
    cloudpickle.unregister_pickle_by_value(_host_ops)


def source(elements, p=1, timestamps=False):
    t = LegacySourceTransformation(
        "Collection Source",
        OperatorFactory(
            "HostTestSource",
            ChainingStrategy.HEAD,
            {"elements": elements, "timestamps": timestamps},
        ),
        parallelism=p,
    )
    return t


def one(inp, name, cls, p, params=None, strategy=ChainingStrategy.ALWAYS):
    return OneInputTransformation(inp, name, OperatorFactory(cls, strategy, params or {}), None, p)


def collect_sink(inp, p, name="Collect"):
    return SinkTransformation(inp, name, OperatorFactory("HostTestCollectSink"), p)


def job(sinks, parallelism=2, mode="STREAMING"):
    settings = EnvironmentSettings(parallelism=parallelism, runtime_mode=mode)
    return create_job_graph(generate_stream_graph(sinks, settings, "host test"))


def run(spark, sinks, **kw):
    from pyflowkit.spark.executor import execute

    return execute(job(sinks, **kw), spark=spark, print_output=False)


def flink_subtask(key, p: int) -> int:
    """The subtask Flink routes ``key`` (no declared key type) to under the version a job made
    now follows: 1.11 hashes the key, 1.20's PyFlink key_by ``Row.of(pickled key)``."""
    from pyflowkit.common.flink_version import default_version, profile_for
    from pyflowkit.state.java_hash import key_hash_function

    keys_by_row = profile_for(default_version()).key_by.keys_by_row
    return assign_key_to_parallel_operator(key, 128, p, key_hash_function(keys_by_row, None))


def keyed(inp, p):
    part = PartitionTransformation(inp, KeyGroupStreamPartitioner(lambda v: v))
    agg = one(part, "Keyed Aggregation", "HostTestRunningCount", p, strategy=ChainingStrategy.HEAD)
    agg.state_key_selector = lambda v: v
    return agg


@pytest.mark.parametrize("p", [1, 2, 3, 4])
def test_keyed_running_count_lands_on_flinks_subtasks(spark, p: int) -> None:
    words = ["a", "b", "hello", "a", "b", "a", "x", "hello"] * 3
    src = source(words, p=1)
    sink = collect_sink(keyed(one(src, "Map", "HostTestMap", 1, {"function": str.strip}), p), p)
    result = run(spark, [sink], parallelism=p)
    records = result.results["Sink: Collect"]
    assert len(records) == len(words)
    # every key ends at its full count and lives on Flink's subtask for that key
    final = {}
    for key, n, subtask in records:
        assert subtask == flink_subtask(key, p)
        final[key] = max(final.get(key, 0), n)
    assert final == {w: words.count(w) for w in set(words)}
    # per key, updates arrive in order (Flink guarantees order per key from one producer)
    for w in set(words):
        assert [n for k, n, _ in records if k == w] == list(range(1, words.count(w) + 1))


def test_rebalance_broadcast_global_and_union(spark) -> None:
    src = source(list(range(12)), p=1)
    reb = one(
        PartitionTransformation(src, RebalancePartitioner()),
        "Map",
        "HostTestMap",
        3,
        {"function": lambda v: v * 10},
    )
    bc = one(
        PartitionTransformation(src, BroadcastPartitioner()),
        "Map",
        "HostTestMap",
        3,
        {"function": lambda v: -v},
    )
    union = UnionTransformation([reb, bc])
    glob = one(
        PartitionTransformation(union, GlobalPartitioner()),
        "Map",
        "HostTestMap",
        2,
        {"function": lambda v: v},
    )
    sink = collect_sink(glob, 2)
    result = run(spark, [sink], parallelism=3)
    got = sorted(result.results["Sink: Collect"])
    assert got == sorted([v * 10 for v in range(12)] + [-v for v in range(12)] * 3)


def test_watermarks_are_min_over_channels_then_max_at_end(spark) -> None:
    src = source(list(range(6)), p=2, timestamps=True)
    rebalanced = PartitionTransformation(src, RebalancePartitioner())
    log = one(rebalanced, "Log", "HostTestWatermarkLog", 1)
    sink = collect_sink(log, 1)
    result = run(spark, [sink], parallelism=2)
    wms = [v[1] for v in result.results["Sink: Collect"] if isinstance(v, tuple)]
    assert wms == sorted(wms) and len(set(wms)) == len(wms)  # increasing, never repeated
    assert wms[-1] == 2**63 - 1
    assert all(w <= 5 or w == 2**63 - 1 for w in wms)


def test_user_exception_becomes_job_execution_exception(spark) -> None:
    from pyflowkit.errors import JobExecutionException

    def boom(v):
        if v == 3:
            raise ValueError("no threes please")
        return v

    sink = collect_sink(one(source([1, 2, 3]), "Map", "HostTestMap", 1, {"function": boom}), 1)
    with pytest.raises(JobExecutionException) as info:
        run(spark, [sink], parallelism=1)
    message = str(info.value)
    assert message.startswith("Traceback (most recent call last):")
    assert "ValueError: no threes please" in message
    assert "in boom" in message
    assert "Py4J" not in message and "org.apache.spark" not in message
    assert "failed in Collection Source" in message or "(1/1)" in message


def test_print_lines_in_flink_format_reach_the_driver(spark, capsys) -> None:
    from pyflowkit.spark.executor import execute

    src = source(["x", "y", "z", "w"], p=2)
    sink = SinkTransformation(src, "Print to Std. Out", OperatorFactory("HostTestPrintSink"), 2)
    result = execute(job([sink], parallelism=2), spark=spark)
    out = capsys.readouterr().out.splitlines()
    assert sorted(out) == ["1> x", "1> z", "2> w", "2> y"]
    assert result.print_lines == out
    assert result.get_net_runtime() >= 0
    assert "stage 0" in str(result.spark_plan)
    # Spark's plan of the run, explained when it is first read
    physical = result.spark_plan.physical_plan
    assert "MapInArrow" in physical
    assert result.spark_plan.physical_plan is physical  # explained once


def test_explain_spark_names_stages_and_edges(spark) -> None:
    from pyflowkit.spark.executor import explain_spark

    src = source(list(range(4)))
    sink = collect_sink(keyed(src, 2), 2)
    plan = explain_spark(job([sink], parallelism=2), spark=spark)
    text = str(plan)
    assert "stage 0: Source: Collection Source" in text
    assert "HASH (ALL_TO_ALL)" in text
    assert "MapInArrow" in plan.physical_plan or "mapInArrow" in plan.physical_plan.lower()


def test_progress_reports_tasks_done_and_a_text_line(spark) -> None:
    from pyflowkit.spark.executor import execute

    seen = []
    src = source(list(range(8)))
    sink = collect_sink(keyed(src, 2), 2)
    result = execute(
        job([sink], parallelism=2), spark=spark, progress=seen.append, print_output=False
    )
    final = seen[-1]
    assert final.status == "FINISHED" and result.progress == final
    assert final.jobs_total >= 1 and final.jobs_done == final.jobs_total
    assert final.tasks_total >= 3 and final.tasks_done == final.tasks_total
    assert final.line().startswith("[Spark] FINISHED: jobs ")
    # without listeners the final snapshot is taken when first read: the same counts
    quiet = execute(job([sink], parallelism=2), spark=spark, print_output=False).progress
    assert quiet.status == "FINISHED" and quiet.jobs_done == quiet.jobs_total >= 1
    assert quiet.tasks_total == final.tasks_total and quiet.tasks_done == quiet.tasks_total


def test_to_pandas_gives_one_column_per_tuple_field(spark) -> None:
    src = source(["a", "b", "a"])
    result = run(spark, [collect_sink(keyed(src, 1), 1)], parallelism=1)
    frame = result.to_pandas("Collect")
    assert list(frame.columns) == ["f0", "f1", "f2"]
    assert sorted(map(tuple, frame.values.tolist())) == [("a", 1, 0), ("a", 2, 0), ("b", 1, 0)]
    assert result.results_by_node and list(result.results_by_node.values())[0] == list(
        result.results["Sink: Collect"]
    )
