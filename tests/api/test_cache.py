"""``DataStream.cache()`` (Flink 1.16+): a BATCH job writes the stream's records (CacheWrite), a
later job of the same environment replays them per subtask (CacheRead) without recomputing the
upstream; STREAMING jobs cache nothing; ``invalidate``/``close`` drop the cache; on both hosts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import Configuration
from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from pyflowkit.datastream.data_stream import CachedDataStream, KeyedStream
from pyflowkit.errors import IllegalStateException, UnsupportedOperationException


def Expensive(log: Path) -> Any:  # noqa: N802 - reads as the function object it builds
    """A map that notes every call in a file (visible across Spark's worker processes); a
    closure, so Spark's workers unpickle it by value."""
    path = str(log)

    def expensive(value: int) -> int:
        with open(path, "a") as f:
            f.write(f"{value}\n")
        return value * 10

    return expensive


def _calls(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def _env(mode: RuntimeExecutionMode = RuntimeExecutionMode.BATCH) -> StreamExecutionEnvironment:
    configuration = Configuration().set_string("execution.target", "local")
    # the subtasks of both jobs at the set parallelism (not the AdaptiveBatchScheduler's choice
    # for tiny inputs): each CacheRead subtask replays the partition its CacheWrite wrote
    configuration.set_string("execution.batch.adaptive.auto-parallelism.enabled", "false")
    env = StreamExecutionEnvironment.get_execution_environment(configuration)
    env.set_runtime_mode(mode)
    env.set_parallelism(2)
    return env


def _node_names(env: StreamExecutionEnvironment) -> list[str]:
    return sorted(n.operator_name for n in env.get_stream_graph().nodes.values())


def test_a_batch_job_writes_the_cache_and_the_next_job_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "calls"
    env = _env()
    cached = env.from_collection(list(range(10))).map(Expensive(log)).cache()
    assert isinstance(cached, CachedDataStream)
    cached.print()
    assert _node_names(env) == [
        "CacheWrite",
        "Map",
        "Sink: Print to Std. Out",
        "Source: Collection Source",
    ]
    first = env.execute("write").printed
    assert _calls(log) == 10
    # the second job starts at the cache: no collection source, no Expensive map
    cached.print()
    cached.map(lambda x: x + 1).print()
    assert _node_names(env) == [
        "CacheRead",
        "Map",
        "Sink: Print to Std. Out",
        "Sink: Print to Std. Out",
    ]
    second = env.execute("read").printed
    assert _calls(log) == 10
    replayed = [line for line in second if int(line.split("> ")[1]) % 10 == 0]
    plus_one = [line for line in second if int(line.split("> ")[1]) % 10 == 1]
    assert sorted(replayed) == sorted(first)  # each subtask replays its own partition
    assert sorted(int(line.split("> ")[1]) for line in plus_one) == [x * 10 + 1 for x in range(10)]


def test_invalidate_and_close_make_the_next_job_recompute(tmp_path: Path) -> None:
    log = tmp_path / "calls"
    env = _env()
    cached = env.from_collection([1, 2, 3]).map(Expensive(log)).cache()
    assert sorted(cached.execute_and_collect()) == [10, 20, 30]
    assert sorted(cached.execute_and_collect()) == [10, 20, 30] and _calls(log) == 3
    cached.invalidate()
    assert sorted(cached.execute_and_collect()) == [10, 20, 30] and _calls(log) == 6
    assert sorted(cached.execute_and_collect()) == [10, 20, 30] and _calls(log) == 6
    env.close()
    assert sorted(cached.execute_and_collect()) == [10, 20, 30] and _calls(log) == 9


def test_a_streaming_job_caches_nothing_as_in_flink(tmp_path: Path) -> None:
    log = tmp_path / "calls"
    env = _env(RuntimeExecutionMode.STREAMING)
    cached = env.from_collection([1, 2]).map(Expensive(log)).cache()
    cached.print()
    assert "CacheWrite" not in _node_names(env)
    env.execute()
    assert sorted(cached.execute_and_collect()) == [10, 20]
    assert _calls(log) == 4


def test_cache_of_a_side_output_and_automatic_mode_with_bounded_sources(tmp_path: Path) -> None:
    from pyflowkit.datastream import OutputTag
    from pyflowkit.datastream.functions import ProcessFunction

    tag = OutputTag("odd")

    class Split(ProcessFunction):
        def process_element(self, value: int, ctx: Any) -> Any:
            if value % 2:
                yield tag, value
            else:
                yield value

    env = _env(RuntimeExecutionMode.AUTOMATIC)
    odd = env.from_collection(list(range(7))).process(Split()).get_side_output(tag).cache()
    assert sorted(odd.execute_and_collect()) == [1, 3, 5]
    negated = odd.map(lambda x: -x)
    assert "CacheRead" in _node_names(env) and "Process" not in _node_names(env)
    assert sorted(negated.execute_and_collect()) == [-5, -3, -1]


def test_what_cannot_be_cached_or_set_is_refused_naming_the_rule() -> None:
    env = _env()
    source = env.from_collection([1, 2])
    keyed = source.key_by(lambda x: x)
    assert isinstance(keyed, KeyedStream)
    with pytest.raises(UnsupportedOperationException, match="Cache for KeyedStream"):
        keyed.cache()
    with pytest.raises(IllegalStateException, match="physical transformation or side output"):
        source.rebalance().cache()
    cached = source.map(lambda x: x).cache()
    with pytest.raises(UnsupportedOperationException, match="Set parallelism for CachedDataStream"):
        cached.set_parallelism(3)
    with pytest.raises(UnsupportedOperationException, match="Get name of CachedDataStream"):
        cached.get_name()
    with pytest.raises(UnsupportedOperationException, match="Setting slot sharing group"):
        cached.slot_sharing_group("g")


def test_accumulate_type_names_the_keyed_aggregation() -> None:
    env = _env()
    summed = env.from_collection([(1, 2), (1, 3)]).key_by(lambda t: t[0]).sum(1)
    aggregation = summed.get_transformation().operator_factory.params["aggregation"]
    assert aggregation["kind"] == KeyedStream.AccumulateType.SUM.kind == "sum"
    assert [m.name for m in KeyedStream.AccumulateType] == ["MIN", "MAX", "MIN_BY", "MAX_BY", "SUM"]


@pytest.mark.spark
def test_cache_on_spark_replays_without_recomputing(spark: Any, tmp_path: Path) -> None:
    log = tmp_path / "calls"
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    env.set_parallelism(2)
    cached = env.from_collection(list(range(8))).map(Expensive(log)).cache()
    assert sorted(cached.execute_and_collect(spark=spark)) == [x * 10 for x in range(8)]
    assert _calls(log) == 8
    again = sorted(cached.map(lambda x: x + 1).execute_and_collect(spark=spark))
    assert again == [x * 10 + 1 for x in range(8)]
    assert _calls(log) == 8
