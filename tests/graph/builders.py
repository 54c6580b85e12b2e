"""Raw-transformation builders for graph tests (what the DataStream API records, minus the API)."""

from __future__ import annotations

from typing import Any

from pyflowkit.graph.partitioner import KeyGroupStreamPartitioner, StreamPartitioner
from pyflowkit.graph.settings import CheckpointSettings, EnvironmentSettings
from pyflowkit.graph.stream_graph import StreamGraph
from pyflowkit.graph.stream_graph_generator import StreamGraphGenerator
from pyflowkit.graph.transformations import (
    ChainingStrategy,
    LegacySourceTransformation,
    OneInputTransformation,
    OperatorFactory,
    PartitionTransformation,
    SideOutputTransformation,
    SinkTransformation,
    Transformation,
    TwoInputTransformation,
    UnionTransformation,
)

ALWAYS, HEAD, NEVER = ChainingStrategy.ALWAYS, ChainingStrategy.HEAD, ChainingStrategy.NEVER


def collection_source(parallelism: int = 1) -> LegacySourceTransformation:
    factory = OperatorFactory("StreamSource", HEAD, {"source": [1, 2, 3]})
    return LegacySourceTransformation(
        "Collection Source", factory, parallelism=parallelism, parallel=False
    )


def sequence_source(parallelism: int = -1) -> LegacySourceTransformation:
    factory = OperatorFactory("StreamSource", HEAD, {"source": range(10)})
    return LegacySourceTransformation("Sequence Source", factory, parallelism=parallelism)


def one_input(
    t: Transformation,
    name: str = "Map",
    operator_class: str = "StreamMap",
    strategy: ChainingStrategy = ALWAYS,
    parallelism: int = -1,
) -> OneInputTransformation:
    return OneInputTransformation(
        t, name, OperatorFactory(operator_class, strategy, {"function": str}), None, parallelism
    )


def map_(t: Transformation, parallelism: int = -1) -> OneInputTransformation:
    return one_input(t, "Map", "StreamMap", ALWAYS, parallelism)


def filter_(t: Transformation, parallelism: int = -1) -> OneInputTransformation:
    return one_input(t, "Filter", "StreamFilter", ALWAYS, parallelism)


def keyed_reduce(t: Transformation, key: Any = lambda v: v) -> OneInputTransformation:
    keyed = PartitionTransformation(t, KeyGroupStreamPartitioner(key))
    out = one_input(keyed, "Keyed Reduce", "StreamGroupedReduce", HEAD)
    out.state_key_selector = key
    return out


def partition(t: Transformation, partitioner: StreamPartitioner) -> PartitionTransformation:
    return PartitionTransformation(t, partitioner)


def union(*ts: Transformation) -> UnionTransformation:
    return UnionTransformation(list(ts))


def co_map(a: Transformation, b: Transformation) -> TwoInputTransformation:
    factory = OperatorFactory("CoStreamMap", HEAD, {"function": str})
    return TwoInputTransformation(a, b, "Co-Map", factory)


def side_output(t: Transformation, tag: Any) -> SideOutputTransformation:
    return SideOutputTransformation(t, tag)


def print_sink(t: Transformation, parallelism: int = -1) -> SinkTransformation:
    factory = OperatorFactory("StreamSink", ALWAYS, {"function": print})
    return SinkTransformation(t, "Print to Std. Out", factory, parallelism)


def settings(parallelism: int = 2, **kwargs: Any) -> EnvironmentSettings:
    return EnvironmentSettings(parallelism=parallelism, **kwargs)


def checkpointing(interval: int, **kwargs: Any) -> CheckpointSettings:
    return CheckpointSettings(interval=interval, **kwargs)


def stream_graph(
    sinks: list[Transformation], parallelism: int = 2, job_name: str | None = None, **kwargs: Any
) -> StreamGraph:
    return StreamGraphGenerator(sinks, settings(parallelism, **kwargs), job_name).generate()


class Tag:
    """A minimal OutputTag (tag_id + type_info), as the API's OutputTag."""

    def __init__(self, tag_id: str, type_info: Any = None) -> None:
        self.tag_id = tag_id
        self.type_info = type_info
