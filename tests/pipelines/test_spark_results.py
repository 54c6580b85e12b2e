"""Every catalog pipeline on Spark, in STREAMING and BATCH mode, equals its ``expected()`` and
puts the same records on the same sink subtasks as the simulated cluster (one Spark session)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.pipelines.catalog import CATALOG, build_env, cases
from tests.pipelines.known_bugs import KNOWN_BUGS, params
from tests.pipelines.spec import BATCH, STREAMING, assert_results, split_lines

# The catalog's expected() is Flink 1.11's reference model (java_ref's key routing §1.5, §9's
# windows, 1.11's ProcessingTime defaults); tests/goldens runs the same pipelines under 1.20
# against what real PyFlink 1.20.3 printed.
pytestmark = [pytest.mark.spark, pytest.mark.flink_version("1.11")]


def run_spark(spark, pipeline, mode: str) -> list[str]:
    from pyflowkit.spark.executor import execute

    return execute(build_env(pipeline, mode), spark=spark, print_output=False).print_lines


def run_simulator(pipeline, mode: str) -> list[str]:
    from pyflowkit.runtime import MiniCluster

    run = MiniCluster(echo_print=False).submit(build_env(pipeline, mode)).run()
    run.raise_if_failed()
    return run.printed()


def placement(pipeline, mode: str, lines: list[str]) -> dict:
    """(sink, subtask) → the records it printed, as a multiset."""
    sinks = pipeline.expected(mode)
    return {
        (sink, k): Counter(bodies)
        for sink, subs in split_lines(lines, sinks).items()
        for k, bodies in subs.items()
    }


BOUNDED = [(p, m) for p, m in cases() if p.bounded]


@pytest.mark.parametrize(("pipeline", "mode"), params("spark", BOUNDED))
def test_spark_equals_expected(spark, pipeline, mode) -> None:
    assert_results(pipeline, mode, run_spark(spark, pipeline, mode))


def deterministic_placement(pipeline, mode: str) -> bool:
    """Every parallel sink's placement is fixed by Flink's routing (no seeded round robin)."""
    return ("runtime", pipeline.name, mode) not in KNOWN_BUGS and all(
        spec.subtasks is not None or spec.parallelism == 1
        for spec in pipeline.expected(mode).values()
    )


@pytest.mark.parametrize(
    ("pipeline", "mode"),
    params(
        "spark",
        [(p, m) for p, m in BOUNDED if m == STREAMING and deterministic_placement(p, m)],
    ),
)
def test_spark_places_records_like_the_simulator(spark, pipeline, mode) -> None:
    """Same records on the same sink subtask (so keys land on the same subtask) as the simulator."""
    spark_lines = run_spark(spark, pipeline, mode)
    assert placement(pipeline, mode, spark_lines) == placement(
        pipeline, mode, run_simulator(pipeline, mode)
    )


@pytest.mark.parametrize("pipeline", [p for p in CATALOG if not p.bounded], ids=lambda p: p.name)
def test_spark_rejects_unbounded_source_in_batch_mode_by_name(spark, pipeline) -> None:
    """Unbounded jobs run as streaming queries (tests/spark_streaming); in BATCH mode an
    unbounded source gets Flink's own error text, naming the source."""
    with pytest.raises(ValueError, match="Scripted Events") as info:
        run_spark(spark, pipeline, BATCH)
    assert "Detected an UNBOUNDED source with the 'execution.runtime-mode' set to 'BATCH'" in str(
        info.value
    )
