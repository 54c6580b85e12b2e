"""Which producer subtasks feed which consumer subtask (Flink 1.11's ExecutionEdge wiring)."""

from __future__ import annotations

from functools import lru_cache

from pyflowkit.graph.job_graph import DistributionPattern, JobEdge


def pointwise_sources(s: int, t: int, i: int) -> list[int]:
    """``ExecutionVertex.connectPointwise``: producer partitions read by consumer ``i`` (§4.3)."""
    if s == t:
        return [i]
    if s < t:
        if t % s == 0:
            return [i // (t // s)]
        return [int(i / (t / s))]
    if s % t == 0:
        n = s // t
        return list(range(i * n, (i + 1) * n))
    start = int(i * s / t)
    end = s if i == t - 1 else int((i + 1) * s / t)
    return list(range(start, end))


@lru_cache(maxsize=4096)
def _pointwise_table(
    s: int, t: int
) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    sources = tuple(tuple(pointwise_sources(s, t, i)) for i in range(t))
    consumers: list[list[int]] = [[] for _ in range(s)]
    for i, srcs in enumerate(sources):
        for p in srcs:
            consumers[p].append(i)
    return sources, tuple(tuple(c) for c in consumers)


def producers_of(edge: JobEdge, consumer_subtask: int) -> list[int]:
    """Producer subtasks whose partition (for this edge) consumer ``consumer_subtask`` reads."""
    s, t = edge.source.parallelism, edge.target.parallelism
    if edge.distribution_pattern is DistributionPattern.ALL_TO_ALL:
        return list(range(s))
    return list(_pointwise_table(s, t)[0][consumer_subtask])


def consumers_of(edge: JobEdge, producer_subtask: int) -> list[int]:
    """Consumer subtasks of one producer partition, in subpartition order."""
    s, t = edge.source.parallelism, edge.target.parallelism
    if edge.distribution_pattern is DistributionPattern.ALL_TO_ALL:
        return list(range(t))
    return list(_pointwise_table(s, t)[1][producer_subtask])


def subpartition_index(edge: JobEdge, producer_subtask: int, consumer_subtask: int) -> int:
    return consumers_of(edge, producer_subtask).index(consumer_subtask)
