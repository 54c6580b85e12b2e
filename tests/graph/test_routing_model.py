"""One routing model: the ExecutionGraph's wiring, the simulated cluster's record writers, the Spark
executor's partition assignment and the local driver send every record to the same subtask.

The Spark side runs through the executor's own code path (``plan.stage_specs`` →
``stage.output_selector`` → ``records.RecordWriterOutput`` rows with their ``target`` column)
without starting Spark; ``test_rescale_14_to_16_on_spark`` runs one real job.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.graph.execution_graph import ExecutionGraph
from pyflowkit.graph.routing import (
    ChannelSelector,
    consumed_subpartition_index,
    pointwise_consumers,
    pointwise_sources,
    record_writer_rng,
    subpartition_consumers,
)
from pyflowkit.operators.context import default_max_parallelism
from pyflowkit.reference.local_driver import _KEYED_RECORD, LocalDriver
from pyflowkit.runtime.network import ResultPartition
from pyflowkit.runtime.record_writer import RecordWriter
from pyflowkit.spark import records
from pyflowkit.spark.plan import stage_specs
from pyflowkit.spark.stage import output_selector

STRATEGIES = ("FORWARD", "RESCALE", "REBALANCE", "HASH", "BROADCAST", "GLOBAL", "SHUFFLE", "CUSTOM")
KEYS = ["a", "b", 1, True, 1.0, 2, ("x", 1), ("x", True), -7, "ü", 2**40, None]
Routing = dict[int, dict[int, list[Any]]]  # producer subtask → consumer subtask → values


def _key(record: tuple[Any, int]) -> Any:
    return record[0]


def _partition(stream: Any, strategy: str) -> Any:
    return {
        "FORWARD": lambda: stream.forward(),
        "RESCALE": lambda: stream.rescale(),
        "REBALANCE": lambda: stream.rebalance(),
        "HASH": lambda: stream.key_by(_key),
        "BROADCAST": lambda: stream.broadcast(),
        "GLOBAL": lambda: stream.global_(),
        "SHUFFLE": lambda: stream.shuffle(),
        "CUSTOM": lambda: stream.partition_custom(lambda k, n: len(repr(k)) * 7 % n, _key),
    }[strategy]()


def _job(s: int, t: int, strategy: str) -> Any:
    """Source → Map (parallelism s) → <strategy> → Map (parallelism t) → sink; chaining off."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.disable_operator_chaining()
    upstream = env.from_collection([("a", 0)]).map(lambda v: v).set_parallelism(s)
    _partition(upstream, strategy).map(lambda v: v).set_parallelism(t).add_sink(lambda v: None)
    graph = env.get_job_graph()
    producer = next(v for v in graph.vertices if v.parallelism == s and v.inputs)
    edge = next(e for e in producer.outputs if e.target.parallelism == t)
    return graph, producer, edge


def _records(n: int, seed: int) -> list[tuple[Any, int]]:
    rng = random.Random(seed)
    return [(rng.choice(KEYS), i) for i in range(n)]


def _execution_graph_consumers(graph: Any, producer: Any, edge: Any) -> dict[int, list[int]]:
    """Producer subtask → consumer subtask per subpartition, as the ExecutionGraph deploys them
    (``consumed_subpartition_index``: what each consumer requests)."""
    eg = ExecutionGraph.from_job_graph(graph)
    out: dict[int, list[int]] = {}
    for ev in eg.get_job_vertex(producer.id).task_vertices:
        partition = ev.produced_partitions[edge.data_set.id]
        by_sub: dict[int, int] = {}
        for exe_edge in partition.consumers[0]:
            consumer = exe_edge.target
            num = next(i for i, e in enumerate(consumer.job_vertex.job_vertex.inputs) if e is edge)
            by_sub[consumer.consumed_subpartition_index(num)] = consumer.subtask_index
        out[ev.subtask_index] = [by_sub[k] for k in range(len(by_sub))]
    return out


def simulated_routing(
    wiring: dict[int, list[int]], producer: Any, edge: Any, values: list, seed: int
) -> Routing:
    """The simulated cluster: each producer's ``RecordWriter`` (its RNG from ``ClusterHost``'s
    rule) into subpartitions, read by the consumer the deployment wires to each subpartition."""
    out: Routing = {}
    for p, consumers in wiring.items():
        part = ResultPartition(("ds", p, "a"), len(consumers), 10**6)
        sizing = type("Sizing", (), {"capacity": 10**6})()
        rng = record_writer_rng(
            seed, producer.name, p, producer.outputs.index(edge), edge.target.name
        )
        max_p = default_max_parallelism(edge.target.max_parallelism, edge.target.parallelism)
        writer = RecordWriter(part, edge.stream_edge.partitioner, max_p, rng, sizing)
        half = len(values) // 2
        for v in values[:half]:
            writer.emit(v, None)
        writer.emit_batch(values[half:], None)
        writer.flush_all()
        got: dict[int, list[Any]] = defaultdict(list)
        for k, sub in enumerate(part.subpartitions):
            for buf in sub.queue:
                got[consumers[k]].extend(buf.values)
        out[p] = dict(got)
    return out


def spark_routing(graph: Any, producer: Any, edge: Any, values: list, seed: int) -> Routing:
    """The Spark executor: the producer stage's ``output_selector`` inside a
    ``RecordWriterOutput``; the rows' ``target`` column is the Spark partition = consumer."""
    specs = stage_specs(graph, graph.stream_graph.execution_config, "STREAMING", seed)
    spec = next(sp for sp in specs if sp.vertex is producer)
    position = next(i for i, o in enumerate(spec.outputs) if o.stream_edge is edge.stream_edge)
    out: Routing = {}
    for p in range(producer.parallelism):
        sink = records.RowSink(p)
        writer = records.RecordWriterOutput(0, output_selector(spec, p, position), sink)
        half = len(values) // 2
        for v in values[:half]:
            writer.collect(v, None)
        writer.collect_batch(values[half:], None)
        writer.flush()
        got: dict[int, list[Any]] = defaultdict(list)
        rows = sink.drain()
        for target, payload in zip(rows["target"], rows["payload"], strict=True):
            got[target].extend(records.decode_chunk(payload)[0])
        out[p] = dict(got)
    return out


def local_routing(graph: Any, producer: Any, edge: Any, values: list, seed: int) -> Routing:
    """The local driver: the producer's record writer output pushes (consumer, value) events."""
    driver = LocalDriver(graph, seed=seed)
    out: Routing = {}
    for p in range(producer.parallelism):
        (writer,) = driver.writers[(producer.id, p)]
        driver.queue.clear()
        for v in values:
            writer.collect(v, None)
        got: dict[int, list[Any]] = defaultdict(list)
        for kind, (sub, _channel), value, _ts in driver.queue:
            got[sub.index].append(value[0] if kind == _KEYED_RECORD else value)  # (value, key)
        out[p] = dict(got)
    return out


def _check(s: int, t: int, strategy: str, n: int, seed: int) -> None:
    graph, producer, edge = _job(s, t, strategy)
    values = _records(n, seed)
    wiring = _execution_graph_consumers(graph, producer, edge)
    simulated = simulated_routing(wiring, producer, edge, values, seed)
    assert spark_routing(graph, producer, edge, values, seed) == simulated
    assert local_routing(graph, producer, edge, values, seed) == simulated
    for p, consumers in wiring.items():
        assert set(simulated[p]) <= set(consumers)  # only wired consumers receive
        sent = [v for vs in simulated[p].values() for v in vs]
        copies = len(consumers) if strategy == "BROADCAST" else 1
        assert sorted(sent, key=repr) == sorted(values * copies, key=repr)
        selector = ChannelSelector.for_subtask(edge.stream_edge.partitioner, p, s, t)
        assert selector.targets == consumers  # Spark's channels are the ExecutionGraph's


pairs = st.tuples(st.integers(1, 64), st.integers(1, 64))


@settings(max_examples=60, deadline=None)
@given(
    pair=pairs,
    strategy=st.sampled_from(STRATEGIES),
    n=st.integers(0, 150),
    seed=st.integers(0, 5),
)
def test_every_host_routes_every_record_alike(
    pair: tuple[int, int], strategy: str, n: int, seed: int
) -> None:
    s, t = pair
    if strategy == "FORWARD":
        t = s
    _check(s, t, strategy, n, seed)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(("s", "t"), [(14, 16), (14, 18), (16, 14), (64, 63), (3, 64), (64, 1)])
def test_irregular_pairs_route_alike(s: int, t: int, strategy: str) -> None:
    _check(s, s if strategy == "FORWARD" else t, strategy, 97, 1)


def test_pointwise_wiring_of_every_pair_up_to_64() -> None:
    """Every (s, t) ≤ 64: the ExecutionGraph reads ``pointwise_sources``; ``pointwise_consumers``
    inverts it; each producer's subpartitions go to distinct consumers, numbered by c % n."""
    for s in range(1, 65):
        for t in range(1, 65):
            readers: dict[int, list[int]] = defaultdict(list)
            for c in range(t):
                sources = pointwise_sources(s, t, c)
                assert len(sources) >= 1 and 0 <= sources[0] and sources[-1] < s
                for p in sources:
                    readers[p].append(c)
            assert sorted(readers) == list(range(s))
            for p in range(s):
                assert pointwise_consumers(s, t, p) == readers[p]
                order = subpartition_consumers(True, s, t, p)
                assert sorted(order) == readers[p]
                n = len(order)
                assert [consumed_subpartition_index(c, n) for c in order] == list(range(n))


def test_flinks_float_arithmetic_on_irregular_rescale() -> None:
    """Flink 1.11 computes ``i / (16f / 14)`` in 32-bit floats: consumer 8 reads producer 6 on
    14 → 16 (64-bit floats say 7); on 14 → 18 consumer 9 reads producer 7 (64-bit: 6)."""
    assert list(pointwise_sources(14, 16, 8)) == [6]
    assert int(8 / (16 / 14)) == 7  # what the Spark executor's float64 copy computed
    assert list(pointwise_sources(14, 18, 9)) == [7]
    assert int(9 / (18 / 14)) == 6
    assert pointwise_consumers(14, 16, 6) == [7, 8]
    # consumer 8 requests subpartition 8 % 2 = 0: the first record of a RESCALE writer goes there
    assert subpartition_consumers(True, 14, 16, 6) == [8, 7]
    graph, producer, edge = _job(14, 16, "RESCALE")
    assert _execution_graph_consumers(graph, producer, edge)[6] == [8, 7]


def _tagged_rescale_job(s: int, t: int, target: str) -> Any:
    from pyflowkit.common import Configuration
    from pyflowkit.datastream.functions import MapFunction

    class Tag(MapFunction):
        def open(self, ctx: Any) -> None:
            self.index = ctx.get_index_of_this_subtask()

        def map(self, value: Any) -> Any:
            return (*value, self.index) if isinstance(value, tuple) else (value, self.index)

    conf = Configuration()
    conf.set_string("execution.target", target)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.from_collection(list(range(400))).rebalance().map(Tag()).set_parallelism(s).rescale().map(
        Tag()
    ).set_parallelism(t).print()
    return env


@pytest.mark.spark
def test_rescale_14_to_16_on_spark(spark: Any) -> None:
    """A real Spark run of 14 → 16 RESCALE: every record reaches the consumer the simulated cluster
    sends it to (consumer 8 reads producer 6)."""
    from pyflowkit.runtime import MiniCluster
    from pyflowkit.spark.executor import execute

    spark_lines = execute(_tagged_rescale_job(14, 16, "local"), spark=spark, print_output=False)
    run = MiniCluster(task_managers=4, slots_per_task_manager=16, echo_print=False)
    local = run.submit(_tagged_rescale_job(14, 16, "local")).run()

    def triples(lines: list[str]) -> set[str]:
        return {line.split("> ", 1)[1] for line in lines}

    got = triples(spark_lines.print_lines)
    assert got == triples(local.printed()) and len(got) == 400
    assert any(line.endswith(", 6, 8)") for line in got)
    assert not any(line.endswith(", 6, 9)") or line.endswith(", 7, 8)") for line in got)
