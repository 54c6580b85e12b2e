"""What every task of one run shares: the network, print/collect capture, seeded randomness."""

from __future__ import annotations

import random
import sys
from typing import Any

from pyflowkit.graph.job_graph import JobGraph
from pyflowkit.graph.routing import record_writer_rng
from pyflowkit.runtime.network import ShuffleEnvironment
from pyflowkit.runtime.printed_lines import PrintedLines
from pyflowkit.runtime.rpc import RpcBus
from pyflowkit.runtime.stream_task import ChainFactory


def sink_names(job_graph: JobGraph) -> dict[str, str]:
    """Vertex name → the name results are filed under (its sink operator, else the vertex)."""
    names = {}
    for v in job_graph.vertices:
        sinks = [n.operator_name for n in v.stream_nodes if not n.out_edges]
        names[v.name] = sinks[-1] if len(sinks) == 1 else v.name
    return names


class ClusterHost:
    """Flink's TaskManager services as the tasks of one simulated run see them."""

    def __init__(self, bus: RpcBus, job_graph: JobGraph, chain_factory: ChainFactory) -> None:
        self.bus = bus
        self.chain_factory = chain_factory
        self.shuffle = ShuffleEnvironment()
        self.echo = bus.config.echo_print
        self.capacity = bus.config.buffer_size
        self.printed = PrintedLines(bus.config.printed_window)
        self.print_sinks: set[str] = set()  # result names that hold printed lines
        self.results: dict[str, list[Any]] = {}
        self.results_by_node: dict[int, list[Any]] = {}
        self._sink_names = sink_names(job_graph)
        self._node_names = {
            n.id: n.operator_name for v in job_graph.vertices for n in v.stream_nodes
        }

    def print_lines(self, vertex: str, subtask: int, lines: list[str], to_err: bool) -> None:
        """A batch of print-sink lines: kept in the printed window, echoed if asked (one write)."""
        name = self._sink_names.get(vertex, vertex)
        if name not in self.print_sinks:
            self.print_sinks.add(name)
            self.results.setdefault(name, [])  # the results' order: first output of each sink
        self.printed.add(name, lines)
        if self.echo and lines:
            (sys.stderr if to_err else sys.stdout).write("\n".join(lines) + "\n")

    def sink_results(self) -> dict[str, list[Any]]:
        """Per sink (by name), what it collected or printed (the printed window), in order."""
        out = {}
        for name, values in self.results.items():
            out[name] = (
                self.printed.lines(name) + values if name in self.print_sinks else list(values)
            )
        return out

    def collect(self, sink_node_id: int, value: Any) -> None:
        name = self._node_names.get(sink_node_id, str(sink_node_id))
        self.results.setdefault(name, []).append(value)
        self.results_by_node.setdefault(sink_node_id, []).append(value)

    def partitioner_rng(
        self, vertex: str, subtask: int, output_index: int, target: str
    ) -> random.Random:
        """A seeded RNG per record writer (``routing.record_writer_rng``, as every host's)."""
        return record_writer_rng(self.bus.config.seed, vertex, subtask, output_index, target)

    def set_fast(self, fast: bool) -> None:
        """Records per network buffer: small in step mode (visible steps), large in fast mode."""
        cfg = self.bus.config
        self.capacity = cfg.fast_buffer_size if fast else cfg.buffer_size
