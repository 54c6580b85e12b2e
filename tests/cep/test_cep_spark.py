"""Differential: the same CEP pipelines on Spark (STREAMING and BATCH) and on the simulated
cluster give the same matches, per subtask (the same ``CepOperator`` hosted by both)."""

from __future__ import annotations

from collections import Counter

import pytest

from pyflowkit.cep import CEP, AfterMatchSkipStrategy, Pattern
from pyflowkit.common import WatermarkStrategy
from pyflowkit.datastream import OutputTag, RuntimeExecutionMode
from pyflowkit.runtime import JobStatus, MiniCluster
from tests.cep.jobs import EventTime, environment, expected_pairs, keyed_pairs, readings, strip

pytestmark = pytest.mark.spark


def run_both(spark, env) -> tuple[list[str], list[str]]:  # noqa: ANN001
    from pyflowkit.spark.executor import execute

    graph = env.get_job_graph()
    spark_lines = execute(graph, spark=spark, print_output=False).print_lines
    # seed 0 as the Spark executor's: both hosts seed each record writer's RNG (REBALANCE's first
    # channel) with the run's seed, so equal seeds put every record on the same subtask
    run = MiniCluster(echo_print=False, seed=0).submit(graph)
    run.run()
    assert run.job_status is JobStatus.FINISHED
    return spark_lines, run.printed()


@pytest.mark.parametrize("mode", ["STREAMING", "BATCH"])
@pytest.mark.parametrize("p", [1, 2, 3])
def test_keyed_pairs_spark_equals_simulated_cluster(spark, p: int, mode: str) -> None:  # noqa: ANN001
    env = environment(p, local=False)
    if mode == "BATCH":
        env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    keyed_pairs(env).print()
    spark_lines, sim_lines = run_both(spark, env)
    assert Counter(spark_lines) == Counter(sim_lines)  # same subtask prefixes too
    assert Counter(eval(s) for s in strip(spark_lines)) == expected_pairs()  # noqa: S307


def test_loops_skip_strategy_and_timeouts_spark_equals_simulated_cluster(spark) -> None:  # noqa: ANN001
    """A looping pattern with a skip strategy, a timeout side output and a non-keyed stream."""
    env = environment(2, local=False)
    stream = env.from_collection(readings()).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(EventTime())
    )
    pattern = (
        Pattern.begin("rise", AfterMatchSkipStrategy.skip_past_last_event())
        .where(lambda e: e[2] > 40).times_or_more(2)
        .followed_by("drop").where(lambda e: e[2] < 40)
        .within(100)
    )  # fmt: skip
    tag = OutputTag("timed-out")
    keyed = CEP.pattern(stream.key_by(lambda e: e[0]), pattern).select(
        tag,
        lambda m, ts: ("timeout", [e[1] for e in m["rise"]], ts),
        lambda m: ([e[1] for e in m["rise"]], m["drop"][0][1]),
    )
    keyed.print("keyed")
    keyed.get_side_output(tag).print("timeout")
    CEP.pattern(stream, pattern).flat_select(lambda m: [len(m["rise"])]).print("global")
    spark_lines, sim_lines = run_both(spark, env)
    assert Counter(spark_lines) == Counter(sim_lines)
    assert any(line.startswith("keyed") for line in sim_lines)
    assert any(line.startswith("timeout") for line in sim_lines)
    assert any(line.startswith("global") for line in sim_lines)
