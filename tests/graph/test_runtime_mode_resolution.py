"""The execution-mode rule (graph.runtime_mode): names in every form, sources walked only for
AUTOMATIC (a STREAMING/BATCH compile does not build the walk)."""

from __future__ import annotations

import pytest

from pyflowkit.datastream.execution_mode import RuntimeExecutionMode
from pyflowkit.graph.runtime_mode import mode_name, resolve_runtime_mode


@pytest.mark.parametrize(
    ("mode", "name"),
    [
        ("BATCH", "BATCH"),
        ("batch", "BATCH"),
        ("RuntimeExecutionMode.AUTOMATIC", "AUTOMATIC"),
        (RuntimeExecutionMode.STREAMING, "STREAMING"),
        (None, "STREAMING"),
    ],
)
def test_mode_name_in_every_form(mode: object, name: str) -> None:
    assert mode_name(mode) == name


def test_a_function_giving_the_sources_is_called_only_for_automatic() -> None:
    calls: list[str] = []

    def sources() -> list[str]:
        calls.append("walked")
        return ["CONTINUOUS_UNBOUNDED"]

    assert resolve_runtime_mode("STREAMING", sources) == "STREAMING"
    assert resolve_runtime_mode(RuntimeExecutionMode.BATCH, sources) == "BATCH"
    assert calls == []
    assert resolve_runtime_mode("AUTOMATIC", sources) == "STREAMING"
    assert calls == ["walked"]
    assert resolve_runtime_mode("AUTOMATIC", lambda: ["BOUNDED"]) == "BATCH"
    with pytest.raises(ValueError, match="Unknown execution.runtime-mode 'FAST'"):
        resolve_runtime_mode("fast", sources)
