"""Graphs reach the render layer only through the display hook it registers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.errors import IllegalStateException
from pyflowkit.graph import renderable
from pyflowkit.render.display_hook import RenderDisplayHook


@pytest.fixture
def restore_hook() -> Iterator[None]:
    saved = renderable._display_hook
    yield
    renderable.register_display_hook(saved)  # type: ignore[arg-type]


def _graph() -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.from_collection([1, 2]).map(lambda x: x + 1).print()
    return env.get_stream_graph()


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def to_dot(self, graph: Any, states: Any) -> str:
        self.calls.append(("to_dot", states))
        return "digraph recorded {}"

    def to_svg(self, graph: Any, states: Any) -> str:
        self.calls.append(("to_svg", states))
        return "<svg/>"

    def save(self, graph: Any, path: Any, format: Any, states: Any) -> Any:
        self.calls.append(("save", (path, format)))
        return path

    def repr_mimebundle(self, graph: Any, include: Any, exclude: Any) -> dict[str, str]:
        self.calls.append(("repr_mimebundle", include))
        return {"text/plain": "recorded"}


def test_import_pyflowkit_registers_the_render_layers_hook() -> None:
    assert isinstance(renderable.display_hook(), RenderDisplayHook)
    dot = _graph().to_dot()
    assert dot.startswith("digraph") and "sn_" in dot


def test_every_graph_method_goes_through_the_registered_hook(restore_hook: None) -> None:
    hook = Recorder()
    renderable.register_display_hook(hook)
    graph = _graph()
    assert graph.to_dot({"1": "RUNNING"}) == "digraph recorded {}"
    assert graph.to_svg() == "<svg/>"
    assert graph.save("g.svg", "svg") == "g.svg"
    assert graph._repr_mimebundle_(include=["text/plain"]) == {"text/plain": "recorded"}
    assert [name for name, _ in hook.calls] == ["to_dot", "to_svg", "save", "repr_mimebundle"]
    assert hook.calls[0][1] == {"1": "RUNNING"}


def test_without_a_hook_a_graph_says_how_to_get_one(restore_hook: None) -> None:
    renderable._display_hook = None
    with pytest.raises(IllegalStateException, match="No display hook is registered for graphs"):
        _graph().to_dot()
