"""FLIP-187 under the 1.20 profile: a BATCH job runs on the AdaptiveBatchScheduler.

Since Flink 1.17 (FLINK-30683) a BATCH job's vertices whose parallelism the program did not set
get it when their inputs are finished, from the bytes they consume
(DefaultVertexParallelismAndInputInfosDecider: ceil(bytes / avg-data-volume-per-task) within
[min-parallelism, max-parallelism]; the environment's parallelism is only the upper bound), and
VertexwiseSchedulingStrategy deploys a vertex once its blocking inputs are finished. Under 1.11
the DefaultScheduler deploys every vertex at once at its compiled parallelism.
"""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Configuration
from pyflowkit.common.flink_version import FLINK_VERSION_KEY
from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from pyflowkit.runtime import MiniCluster
from pyflowkit.runtime.adaptive_batch_scheduler import (
    AVG_DATA_VOLUME_KEY,
    BlockingResultInfo,
    DefaultVertexParallelismAndInputInfosDecider,
    format_memory_size,
    parse_memory_size,
)

WORDS = [("a", 1), ("b", 2), ("a", 3), ("c", 4), ("b", 5), ("d", 6)] * 4
DECIDED = "AdaptiveBatchScheduler.tryDecideParallelismAndInputInfos"
VERTEXWISE = "[org.apache.flink.runtime.scheduler.strategy.VertexwiseSchedulingStrategy]"


def _env(version: str, **config: str) -> Any:
    conf = Configuration().set_string(FLINK_VERSION_KEY, version)
    for key, value in config.items():
        conf.set_string(key, value)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    env.set_parallelism(2)
    return env


def _keyed_sum(env: Any, *, sink_parallelism: int | None = None) -> Any:
    summed = (
        env.from_collection(WORDS).key_by(lambda t: t[0]).reduce(lambda a, b: (a[0], a[1] + b[1]))
    )
    sink = summed.print("out")
    if sink_parallelism is not None:
        summed.map(lambda t: t).set_parallelism(sink_parallelism).print("fixed")
    return sink


def _run(env: Any) -> Any:
    run = MiniCluster(task_managers=2, slots_per_task_manager=2, seed=3, echo_print=False).submit(
        env, "sums"
    )
    run.run()
    run.raise_if_failed()
    return run


def _finals(lines: list[str]) -> dict[str, str]:
    """The last printed value per key, subtask prefix dropped."""
    last = {}
    for line in lines:
        record = line.split("> ", 1)[1]
        last[record.split(",")[0].strip("('")] = record
    return last


EXPECTED = {"a": "('a', 16)", "b": "('b', 28)", "c": "('c', 16)", "d": "('d', 24)"}


def test_1_20_decides_parallelism_1_for_tiny_inputs_and_deploys_stage_by_stage() -> None:
    env = _env("1.20")
    _keyed_sum(env)
    run = _run(env)
    trace = run.trace
    start = next(e for e in trace if e.method == "DefaultScheduler.startScheduling")
    assert VERTEXWISE in start.message
    decided = [e.message for e in trace if e.method == DECIDED]
    reduce_vertex = run.job_graph.vertices[1]
    assert decided == [
        f"Parallelism of JobVertex: Keyed Reduce -> Sink: Print to Std. Out "
        f"({reduce_vertex.id}) is decided to be 1."
    ]
    total = next(
        e.message
        for e in trace
        if e.method == "DefaultVertexParallelismAndInputInfosDecider.decideParallelism"
    )
    assert total.startswith("The total size of non-broadcast data is ")
    assert total.endswith(
        f"the initially decided parallelism of job vertex {reduce_vertex.id} is 1."
    )
    # the dynamic graph grows: the source's region first, then the consumer's (a BATCH job's
    # edges are BLOCKING since 1.14, FLINK-23402: each vertex is a pipelined region of its own)
    assert [e.message for e in trace if e.method.startswith("DefaultExecutionTopology.")] == [
        "Built 1 new pipelined regions in 0 ms, total 1 pipelined regions currently.",
        "Built 1 new pipelined regions in 0 ms, total 2 pipelined regions currently.",
    ]
    # no eager deployment: the consumer is deployed after the source FINISHED
    messages = [e.message for e in trace]
    source_finished = max(
        i for i, m in enumerate(messages) if "Source: Collection Source" in m and "to FINISHED" in m
    )
    consumer_deployed = next(
        i for i, m in enumerate(messages) if m.startswith("Deploying Keyed Reduce")
    )
    assert source_finished < consumer_deployed
    printed = run.printed()
    assert all(line.startswith("out> ") for line in printed)  # parallelism 1: no subtask prefix
    assert _finals(printed) == EXPECTED


def test_1_11_deploys_every_vertex_at_once_at_the_compiled_parallelism() -> None:
    env = _env("1.11")
    _keyed_sum(env)
    run = _run(env)
    methods = [e.method for e in run.trace]
    assert DECIDED not in methods
    assert "EagerSchedulingStrategy" in next(
        e.message for e in run.trace if e.method == "DefaultScheduler.startScheduling"
    )
    printed = run.printed()
    assert all(line.startswith("out:") for line in printed)  # parallelism 2: prefixed
    assert _finals(printed) == EXPECTED


def test_small_data_volume_per_task_gives_more_subtasks_up_to_the_max_and_keys_stay_whole() -> None:
    env = _env("1.20", **{AVG_DATA_VOLUME_KEY: "64 bytes"})
    _keyed_sum(env)
    run = _run(env)
    assert [e.message.rsplit(" ", 1)[1] for e in run.trace if e.method == DECIDED] == ["2."]
    printed = run.printed()
    assert {line.split("> ")[0] for line in printed} == {"out:1", "out:2"}
    # each key on one subtask only (its key-group range), with every record of it
    subtasks: dict[str, set[str]] = {}
    for line in printed:
        prefix, record = line.split("> ", 1)
        subtasks.setdefault(record.split(",")[0], set()).add(prefix)
    assert all(len(s) == 1 for s in subtasks.values())
    assert _finals(printed) == EXPECTED


def test_a_parallelism_the_program_set_is_kept() -> None:
    env = _env("1.20")
    _keyed_sum(env, sink_parallelism=3)
    run = _run(env)
    decided = [e.message.split(" (")[0] for e in run.trace if e.method == DECIDED]
    # the Map the program set to 3 is not decided; the print sink after it is (to 1)
    assert decided == [
        "Parallelism of JobVertex: Keyed Reduce -> Sink: Print to Std. Out",
        "Parallelism of JobVertex: Sink: Print to Std. Out",
    ]
    assert [v.parallelism for v in run.job_graph.vertices if v.name == "Map"] == [3]
    fixed = [line for line in run.printed() if line.startswith("fixed")]
    assert sorted(fixed) == sorted(f"fixed> {v}" for v in EXPECTED.values())  # BATCH: finals


def test_jobmanager_scheduler_default_keeps_the_default_scheduler_under_1_20() -> None:
    env = _env("1.20", **{"jobmanager.scheduler": "default"})
    _keyed_sum(env)
    run = _run(env)
    assert DECIDED not in [e.method for e in run.trace]
    assert "PipelinedRegionSchedulingStrategy" in next(
        e.message for e in run.trace if e.method == "DefaultScheduler.startScheduling"
    )
    assert all(line.startswith("out:") for line in run.printed())


def test_a_broadcast_input_alone_gives_the_min_parallelism() -> None:
    env = _env("1.20")
    env.set_parallelism(3)
    env.from_collection(["x", "y", "z"]).broadcast().map(lambda s: s.upper()).print("bc")
    run = _run(env)
    assert sorted(run.printed()) == ["bc> X", "bc> Y", "bc> Z"]


def test_decider_rules() -> None:
    decider = DefaultVertexParallelismAndInputInfosDecider.from_configuration(
        4, {AVG_DATA_VOLUME_KEY: "1 kb"}
    )
    info = lambda n, broadcast=False: BlockingResultInfo("ds", n, broadcast, False)  # noqa: E731
    assert decider.decide_parallelism_for_vertex([], 8) == 4  # source: default = max
    assert decider.decide_parallelism_for_vertex([info(10)], 8) == 1
    assert decider.decide_parallelism_for_vertex([info(1025)], 8) == 2
    assert decider.decide_parallelism_for_vertex([info(1 << 20)], 8) == 4  # capped at the max
    assert decider.decide_parallelism_for_vertex([info(1 << 20)], 3) == 3  # vertex max
    assert decider.decide_parallelism_for_vertex([info(1 << 20, True)], 8) == 1  # broadcast only
    assert parse_memory_size("16 mb") == 16 * 1024 * 1024
    assert parse_memory_size("64") == 64
    assert format_memory_size(16 * 1024 * 1024) == "16 mb"
    assert format_memory_size(1000) == "1000 bytes"
    with pytest.raises(ValueError, match="memory size"):
        parse_memory_size("lots")


def test_every_host_reads_the_subpartitions_the_decision_assigns() -> None:
    """The Spark batch plan decides through the same ``graph.adaptive_batch`` module: a result
    into an undecided vertex has max-parallelism subpartitions; each is read by exactly one
    consumer subtask (the key-group range on HASH), a broadcast result's one by every subtask;
    the Spark stage's channels are (producer, subpartition), as Flink's input gate's."""
    from pyflowkit.graph.adaptive_batch import (
        DynamicParallelism,
        num_subpartitions,
        readers_of_subpartitions,
    )
    from pyflowkit.spark.stage import InputSpec

    env = _env("1.20")
    _keyed_sum(env)
    job_graph = env.get_job_graph()
    dynamic = DynamicParallelism.of(job_graph)
    source, reduce_vertex = job_graph.vertices
    assert dynamic.is_decided(source) and not dynamic.is_decided(reduce_vertex)
    edge = reduce_vertex.inputs[0]
    assert edge.ship_strategy.value == "HASH" and dynamic.undecided_consumer(edge)
    assert num_subpartitions(edge) == reduce_vertex.max_parallelism == 2  # env parallelism
    assert readers_of_subpartitions(edge, 1) == [[0], [0]]
    assert readers_of_subpartitions(edge, 2) == [[0], [1]]
    spec = InputSpec(0, 0, 3, False, subpartitions=2, ranges=[range(0, 1), range(1, 2)])
    assert spec.channels(2, 1) == [1, 3, 5]  # producers 0..2, subpartition 1
