"""Sources of unbounded jobs on Spark: FLIP-27 ``NumberSequenceSource`` / ``DataGeneratorSource``
run in the Python stream source over many micro-batches, each subtask its own split in order; a
generator with a count beyond reach runs endless until the collect iterator has enough."""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Configuration, Types, WatermarkStrategy
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.connectors import DataGeneratorSource, NumberSequenceSource

pytestmark = pytest.mark.spark


def _env(parallelism: int, **conf: str) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    configuration = Configuration()
    for key, value in {"pyflowkit.spark.streaming-query": "always", **conf}.items():
        configuration.set_string(key, value)
    env.configure(configuration)
    return env


def _per_subtask(lines: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in lines:
        subtask, body = line.split("> ", 1)
        out.setdefault(subtask, []).append(body)
    return out


def test_number_sequence_and_data_generator_sources_stream_their_splits_in_order(spark) -> None:
    from pyflowkit.spark.executor import execute

    env = _env(
        2,
        **{
            "pyflowkit.spark.streaming.trigger": "available-now",
            "pyflowkit.spark.streaming.max-records-per-batch": "4",
        },
    )
    numbers = env.from_source(
        NumberSequenceSource(1, 40), WatermarkStrategy.no_watermarks(), "Numbers"
    ).map(lambda n: f"n{n}", output_type=Types.STRING())
    generated = env.from_source(
        DataGeneratorSource(lambda i: f"g{i * i}", 30),
        WatermarkStrategy.no_watermarks(),
        "Generator",
        Types.STRING(),
    )
    numbers.union(generated).print()
    result = execute(env, spark=spark, print_output=False)
    assert result.job_status == "FINISHED"
    by_subtask = _per_subtask(result.print_lines)
    # split i of each source is read by source subtask i and forwarded to print subtask i
    for subtask, (lo, hi), (glo, ghi) in (("1", (1, 20), (0, 14)), ("2", (21, 40), (15, 29))):
        bodies = by_subtask[subtask]
        assert [b for b in bodies if b[0] == "n"] == [f"n{n}" for n in range(lo, hi + 1)]
        assert [b for b in bodies if b[0] == "g"] == [f"g{i * i}" for i in range(glo, ghi + 1)]
    assert result.spark_plan is not None and "Python stream source" in str(result.spark_plan)


def test_data_generator_beyond_reach_runs_endless_until_the_collect_limit(spark) -> None:
    env = _env(2, **{"pyflowkit.spark.streaming.max-records-per-batch": "40"})
    env.enable_checkpointing(200)  # the micro-batch trigger
    count = 2**62
    half = count // 2  # NumberSequenceSource splits: [0, half) and [half, count)
    collected = env.from_source(
        DataGeneratorSource(lambda i: i, count), WatermarkStrategy.no_watermarks(), "Events"
    ).execute_and_collect(limit=300, spark=spark)
    assert len(collected) == 300
    first: list[Any] = [v for v in collected if v < half]
    second: list[Any] = [v for v in collected if v >= half]
    # each subtask's split from its start, in order, nothing twice
    assert first == list(range(len(first)))
    assert second == list(range(half, half + len(second)))
    assert first and second
