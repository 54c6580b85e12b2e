"""BATCH exchanges under the two profiles (FLINK-23402, 1.14): ``execution.batch-shuffle-mode``.

Since Flink 1.14 ``StreamGraphGenerator.configureStreamGraphBatch`` sets the job's
GlobalStreamExchangeMode from ``execution.batch-shuffle-mode`` (default ALL_EXCHANGES_BLOCKING):
every JobEdge of a BATCH job carries a BLOCKING result, each vertex is a pipelined region of its
own and a consumer is deployed once its producers FINISHED. Flink 1.11 had no BATCH mode for the
DataStream API: the 1.11 profile keeps a streaming job's PIPELINED_BOUNDED edges.
"""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Configuration
from pyflowkit.common.flink_version import BATCH_SHUFFLE_MODE, FLINK_VERSION_KEY, rules_table
from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.graph.json_plan import job_graph_to_plan
from pyflowkit.runtime import MiniCluster

WORDS = [("a", 1), ("b", 2), ("a", 3), ("c", 4)]
REGIONS = "DefaultExecutionTopology.notifyExecutionGraphUpdated"


def _env(version: str, mode: str = "BATCH", **config: str) -> Any:
    conf = Configuration().set_string(FLINK_VERSION_KEY, version)
    for key, value in config.items():
        conf.set_string(key, value)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_runtime_mode(getattr(RuntimeExecutionMode, mode))
    env.set_parallelism(2)
    env.from_collection(WORDS).key_by(lambda t: t[0]).reduce(
        lambda a, b: (a[0], a[1] + b[1])
    ).print("out")
    return env


def _exchanges(env: Any) -> list[str]:
    plan = job_graph_to_plan(env.get_job_graph())
    return [i["exchange"] for node in plan["nodes"] for i in node.get("inputs", [])]


def _run(env: Any) -> Any:
    run = MiniCluster(task_managers=2, slots_per_task_manager=2, seed=3, echo_print=False).submit(
        env, "sums"
    )
    run.run()
    run.raise_if_failed()
    return run


def _deployed_after_producer_finished(run: Any) -> bool:
    messages = [e.message for e in run.trace]
    source_finished = max(
        i for i, m in enumerate(messages) if "Source: Collection Source" in m and "to FINISHED" in m
    )
    consumer_deployed = min(
        i for i, m in enumerate(messages) if m.startswith("Deploying Keyed Reduce")
    )
    return source_finished < consumer_deployed


def test_1_20_batch_edges_are_blocking_and_each_vertex_is_its_own_region() -> None:
    env = _env("1.20")
    assert _exchanges(env) == ["blocking"]
    run = _run(env)
    # the AdaptiveBatchScheduler's dynamic graph: one new region per initialized vertex
    assert [e.message for e in run.trace if e.method == REGIONS] == [
        "Built 1 new pipelined regions in 0 ms, total 1 pipelined regions currently.",
        "Built 1 new pipelined regions in 0 ms, total 2 pipelined regions currently.",
    ]
    assert _deployed_after_producer_finished(run)
    assert sorted(run.printed()) == ["out> ('a', 4)", "out> ('b', 2)", "out> ('c', 4)"]


def test_1_20_default_scheduler_schedules_a_region_once_its_blocking_inputs_finished() -> None:
    run = _run(_env("1.20", **{"jobmanager.scheduler": "Default"}))
    messages = [e.message for e in run.trace]
    assert "Built 3 pipelined regions" in messages  # the source, and a region per reduce subtask
    assert any("[org.apache.flink.runtime.scheduler.strategy.PipelinedRegionSchedulingStrategy]"
               in m for m in messages)  # fmt: skip
    assert _deployed_after_producer_finished(run)
    assert sorted(line.split("> ", 1)[1] for line in run.printed()) == [
        "('a', 4)",
        "('b', 2)",
        "('c', 4)",
    ]


def test_1_11_and_streaming_keep_pipelined_bounded_edges() -> None:
    assert _exchanges(_env("1.11")) == ["pipelined_bounded"]
    assert _exchanges(_env("1.20", "STREAMING")) == ["pipelined_bounded"]
    run = _run(_env("1.11"))
    assert "Built 1 pipelined regions" in [e.message for e in run.trace]
    assert not _deployed_after_producer_finished(run)  # every vertex deployed at once


def test_batch_shuffle_mode_pipelined_and_an_unsupported_mode() -> None:
    pipelined = {"execution.batch-shuffle-mode": "ALL_EXCHANGES_PIPELINED"}
    assert _exchanges(_env("1.20", **pipelined)) == ["pipelined_bounded"]
    with pytest.raises(IllegalArgumentException) as refused:
        _env(
            "1.20", **{"execution.batch-shuffle-mode": "ALL_EXCHANGES_HYBRID_FULL"}
        ).get_job_graph()
    assert "Unsupported shuffle mode 'ALL_EXCHANGES_HYBRID_FULL' in BATCH runtime mode." in str(
        refused.value
    )


def test_the_rule_is_in_the_table() -> None:
    assert BATCH_SHUFFLE_MODE.issue == "FLINK-23402 (FLIP-134)"
    assert "| Exchanges of a BATCH job | FLINK-23402 (FLIP-134) |" in rules_table()
