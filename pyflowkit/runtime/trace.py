"""Typed trace events of the simulated cluster, and their JSON form (no pickle)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

TRACE_FORMAT_VERSION = 1


@dataclass(frozen=True)
class TraceEvent:
    """One thing that happened: which component, which Flink method, to whom, in one sentence.

    Stands for a Flink log line (``message`` uses Flink's log text where the reference gives it).
    """

    step: int
    time: int  # simulated milliseconds
    component: str  # e.g. "Dispatcher", "JobMaster", "TaskExecutor-0", "Map (1/2)"
    method: str  # the Flink method, e.g. "Dispatcher.submitJob", "Task.transitionState"
    message: str
    job: str | None = None
    vertex: str | None = None
    subtask: int | None = None
    attempt: int | None = None
    old_state: str | None = None
    new_state: str | None = None
    checkpoint: int | None = None  # the checkpoint id an event of the checkpoint protocol is about

    @property
    def is_state_change(self) -> bool:
        return self.new_state is not None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


TRACE_COLUMNS = [f.name for f in fields(TraceEvent)]


def trace_to_json(events: list[TraceEvent]) -> str:
    """Serialise a trace deterministically (same events → same bytes)."""
    doc = {"version": TRACE_FORMAT_VERSION, "events": [e.to_dict() for e in events]}
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def trace_from_json(text: str) -> list[TraceEvent]:
    doc = json.loads(text)
    if doc.get("version") != TRACE_FORMAT_VERSION:
        raise ValueError(
            f"Unsupported trace format version {doc.get('version')!r}; "
            f"expected {TRACE_FORMAT_VERSION}."
        )
    return [TraceEvent(**e) for e in doc["events"]]


def save_trace(events: list[TraceEvent], path: str | Path) -> Path:
    p = Path(path)
    p.write_text(trace_to_json(events), encoding="utf-8")
    return p


def load_trace(path: str | Path) -> list[TraceEvent]:
    """Read a trace written by ``save_trace``."""
    return trace_from_json(Path(path).read_text(encoding="utf-8"))


def trace_frame(events: list[TraceEvent]) -> Any:
    """The trace as a pandas DataFrame (pandas imported lazily)."""
    import pandas as pd

    return pd.DataFrame([e.to_dict() for e in events], columns=TRACE_COLUMNS)
