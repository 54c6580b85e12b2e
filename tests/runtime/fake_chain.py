"""A test-only operator chain: runs plain Python functions per node so the control plane and the
network can be tested independently of ``pyflowkit.operators``."""

from __future__ import annotations

from typing import Any

from pyflowkit.graph.transformations import (
    ChainingStrategy,
    LegacySourceTransformation,
    OneInputTransformation,
    OperatorFactory,
    PartitionTransformation,
    SinkTransformation,
)


class FakeChain:
    """Host protocol of ``OperatorChain``: open/close, emit_next, process_batch, watermarks."""

    log: list[tuple[str, str, int]] = []

    def __init__(self, vertex: Any, env: Any, outputs: dict[Any, Any], settings: Any) -> None:
        self.vertex = vertex
        self.env = env
        self.outputs = outputs
        self.nodes = list(vertex.stream_nodes)
        self.pos = 0
        self.state: dict[Any, Any] = {}
        self.watermarks: list[int] = []
        p = self.nodes[0].operator_factory.params
        if "elements" in p:
            n, i = env.parallelism, env.subtask_index
            self.elements = [e for k, e in enumerate(p["elements"]) if k % n == i]

    def initialize_state(self, restored: Any) -> None:
        assert restored is None

    def open(self) -> None:
        FakeChain.log.append(("open", self.vertex.name, self.env.subtask_index))

    def close(self) -> None:
        FakeChain.log.append(("close", self.vertex.name, self.env.subtask_index))

    def dispose(self) -> None:
        pass

    def emit_next(self, max_records: int) -> str:
        batch = self.elements[self.pos : self.pos + max_records]
        self.pos += len(batch)
        for v in batch:
            self._push(0, v)
        if self.pos >= len(self.elements):
            self._emit_watermark(0, 2**63 - 1)
            return "END_OF_INPUT"
        return "MORE_AVAILABLE"

    def process_batch(self, values: list[Any], timestamps: Any, input_index: int = 0) -> None:
        for v in values:
            self._apply(0, v)

    def process_watermark(self, wm: int, input_index: int = 0) -> None:
        self.watermarks.append(wm)
        self._emit_watermark(0, wm)

    def end_input(self, input_index: int = 0) -> None:
        pass

    def keyed_state(self) -> dict[str, Any]:
        return {self.nodes[-1].operator_name: {"reduce": dict(self.state)}}

    def _apply(self, i: int, value: Any) -> None:
        node = self.nodes[i]
        p = node.operator_factory.params
        kind = node.operator_factory.operator_class
        if kind == "StreamMap":
            value = p["function"](value)
        elif kind == "StreamGroupedReduce":
            key = node.state_key_selector(value)
            if key in self.state:
                value = p["function"](self.state[key], value)
            self.state[key] = value
        elif kind == "StreamSink":
            if p.get("fail_on") is not None and p["fail_on"](value):
                raise ValueError(f"bad record {value!r}")
            self.env.collect(node.id, value)
            return
        self._push(i, value)

    def _push(self, i: int, value: Any) -> None:
        node = self.nodes[i]
        for e in node.out_edges:
            if e.target in self.nodes:
                self._apply(self.nodes.index(e.target), value)
            else:
                self.outputs[e].collect(value, None)

    def _emit_watermark(self, i: int, wm: int) -> None:
        for e in self.nodes[-1].out_edges:
            if e in self.outputs:
                self.outputs[e].emit_watermark(wm)


def fake_chain_factory(vertex: Any, env: Any, outputs: Any, settings: Any) -> FakeChain:
    return FakeChain(vertex, env, outputs, settings)


def source(elements: list[Any], parallelism: int = 1, name: str = "Custom Source") -> Any:
    return LegacySourceTransformation(
        name,
        OperatorFactory("StreamSource", ChainingStrategy.HEAD, {"elements": list(elements)}),
        parallelism=parallelism,
        parallel=parallelism > 1,
    )


def map_(inp: Any, fn: Any, parallelism: int) -> Any:
    return OneInputTransformation(
        inp,
        "Map",
        OperatorFactory("StreamMap", ChainingStrategy.ALWAYS, {"function": fn}),
        parallelism=parallelism,
    )


def key_by(inp: Any, selector: Any) -> Any:
    from pyflowkit.graph.partitioner import KeyGroupStreamPartitioner

    return PartitionTransformation(inp, KeyGroupStreamPartitioner(selector))


def reduce_(keyed: Any, fn: Any, selector: Any, parallelism: int) -> Any:
    t = OneInputTransformation(
        keyed,
        "Keyed Reduce",
        OperatorFactory("StreamGroupedReduce", ChainingStrategy.HEAD, {"function": fn}),
        parallelism=parallelism,
    )
    t.state_key_selector = selector
    return t


def collect_sink(inp: Any, parallelism: int, fail_on: Any = None) -> Any:
    return SinkTransformation(
        inp,
        "Collect",
        OperatorFactory(
            "StreamSink", ChainingStrategy.ALWAYS, {"collect": True, "fail_on": fail_on}
        ),
        parallelism=parallelism,
    )


def job_graph(
    sinks: list[Any], parallelism: int = 2, name: str = "demo job", restart_strategy: Any = None
) -> Any:
    from pyflowkit.graph.settings import EnvironmentSettings
    from pyflowkit.graph.stream_graph_generator import StreamGraphGenerator
    from pyflowkit.graph.streaming_job_graph_generator import create_job_graph

    ts = []
    for s in sinks:
        ts.extend(reversed(s.transitive_predecessors()))
    settings = EnvironmentSettings(parallelism=parallelism, restart_strategy=restart_strategy)
    sg = StreamGraphGenerator([t for t in ts if t.inputs], settings, name).generate()
    return create_job_graph(sg, job_id="a" * 32)


def demo_job(n: int = 20, restart_strategy: Any = None, fail_on: Any = None) -> Any:
    """Source (p=1) → Map (p=2) → keyBy → Keyed Reduce -> Sink (p=2): three vertices (§10 shape)."""
    src = source(range(n))
    m = map_(src, lambda x: (x % 3, x), 2)
    sel = lambda t: t[0]  # noqa: E731
    r = reduce_(key_by(m, sel), lambda a, b: (a[0], a[1] + b[1]), sel, 2)
    return job_graph([collect_sink(r, 2, fail_on)], restart_strategy=restart_strategy)
