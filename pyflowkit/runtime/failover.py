"""Pipelined failover regions (Flink's ``RestartPipelinedRegionFailoverStrategy``)."""

from __future__ import annotations

from pyflowkit.graph.job_graph import JobGraph
from pyflowkit.runtime.wiring import producers_of

VertexKey = tuple[str, int]  # (JobVertex id, subtask index)


def compute_pipelined_regions(job_graph: JobGraph) -> list[list[VertexKey]]:
    """Subtasks connected by pipelined edges form one region (any ALL_TO_ALL edge joins all).

    Regions come out in topological order of their first member; members in topological order.
    """
    order: list[VertexKey] = [(v.id, i) for v in job_graph.vertices for i in range(v.parallelism)]
    parent: dict[VertexKey, VertexKey] = {k: k for k in order}

    def find(k: VertexKey) -> VertexKey:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for v in job_graph.vertices:
        for edge in v.inputs:
            for i in range(v.parallelism):
                for p in producers_of(edge, i):
                    a, b = find((edge.source.id, p)), find((v.id, i))
                    if a != b:
                        parent[b] = a
    regions: dict[VertexKey, list[VertexKey]] = {}
    for k in order:
        regions.setdefault(find(k), []).append(k)
    return list(regions.values())
