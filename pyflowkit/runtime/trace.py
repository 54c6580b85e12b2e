"""Typed trace events of the simulated cluster, and their JSON form (no pickle)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from pyflowkit.java_semantics import LONG_MAX_VALUE
from pyflowkit.state.file_schema import FileSchema

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
_SUBJECT_DEFAULTS = {f.name: f.default for f in fields(TraceEvent)[5:]}
_SUBJECT_KEYS = _SUBJECT_DEFAULTS.keys()
_BLANK = {"step": 0, "time": 0, "component": "", "method": "", "message": "", **_SUBJECT_DEFAULTS}
_new_object = object.__new__
_set_attribute = object.__setattr__


def trace_event_template(component: str, **subjects: Any) -> dict[str, Any]:
    """Every field of the events one component emits about the same subjects (a task's job,
    vertex, subtask and attempt), for ``event_from_template``."""
    _check_subjects(subjects)
    return {**_BLANK, "component": component, **subjects}


def event_from_template(
    template: dict[str, Any], step: int, time: int, method: str, message: str, extra: dict
) -> TraceEvent:
    """``TraceEvent(step, time, component, method, message, **subjects)`` from a template: one
    dict copy instead of the frozen dataclass's ``object.__setattr__`` per field."""
    fields_ = _stamped(template, step, time, method, message)
    if extra:
        if not extra.keys() <= _SUBJECT_KEYS:
            _check_subjects(extra)
        fields_.update(extra)
    return _event_of(fields_)


def checkpoint_event_from_template(
    template: dict[str, Any], step: int, time: int, method: str, message: str, checkpoint: int
) -> TraceEvent:
    """``event_from_template(..., {"checkpoint": checkpoint})`` without the extra dict: the
    events of the checkpoint protocol name their checkpoint and nothing else (``_stamped``
    and ``_event_of`` inlined: ~58 of these per checkpoint)."""
    fields_ = template.copy()
    fields_["step"] = step
    fields_["time"] = time
    fields_["method"] = method
    fields_["message"] = message
    fields_["checkpoint"] = checkpoint
    ev = _new_object(TraceEvent)
    _set_attribute(ev, "__dict__", fields_)
    return ev


def new_trace_event(
    step: int, time: int, component: str, method: str, message: str, subjects: dict[str, Any]
) -> TraceEvent:
    """``TraceEvent(step, time, component, method, message, **subjects)``, made the fast way."""
    if not subjects.keys() <= _SUBJECT_KEYS:
        _check_subjects(subjects)
    fields_ = _stamped(_BLANK, step, time, method, message)
    fields_["component"] = component
    fields_.update(subjects)
    return _event_of(fields_)


def _stamped(base: dict[str, Any], step: int, time: int, method: str, message: str) -> dict:
    """A copy of ``base`` (every field of an event) with the event's own step, time, method
    and message."""
    fields_ = base.copy()
    fields_["step"] = step
    fields_["time"] = time
    fields_["method"] = method
    fields_["message"] = message
    return fields_


def _event_of(fields_: dict[str, Any]) -> TraceEvent:
    """The frozen ``TraceEvent`` holding ``fields_`` (every field), without ``__init__``."""
    ev = _new_object(TraceEvent)
    _set_attribute(ev, "__dict__", fields_)
    return ev


def _check_subjects(subjects: dict[str, Any]) -> None:
    if not subjects.keys() <= _SUBJECT_DEFAULTS.keys():
        unknown = sorted(subjects.keys() - _SUBJECT_DEFAULTS.keys())
        raise TypeError(f"TraceEvent has no field(s) {unknown}.")


def trace_to_json(events: list[TraceEvent]) -> str:
    """Serialise a trace deterministically (same events → same bytes)."""
    doc = {"version": TRACE_FORMAT_VERSION, "events": [e.to_dict() for e in events]}
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


_INT_FIELDS = ("step", "time", "subtask", "attempt", "checkpoint")
_REQUIRED = ("step", "time", "component", "method", "message")


def trace_from_json(text: str | bytes, source: str = "trace") -> list[TraceEvent]:
    """Parse a trace, checking every event's fields (names, types, ranges) against TraceEvent."""
    schema = FileSchema(source)
    doc = schema.obj(schema.parse(text.encode("utf-8") if isinstance(text, str) else text), "")
    version = schema.key(doc, "version", "version", str(TRACE_FORMAT_VERSION))
    if version != TRACE_FORMAT_VERSION or type(version) is not int:
        schema.fail(
            "version", f"{TRACE_FORMAT_VERSION} (the trace format this pyflowkit reads)", version
        )
    schema.only_keys(doc, "", ("events", "version"))
    events = schema.lst(schema.key(doc, "events", "events", "a list of events"), "events")
    out = []
    for i, e in enumerate(events):
        where = f"events[{i}]"
        e = schema.obj(e, where)
        schema.only_keys(e, where, tuple(TRACE_COLUMNS))
        for name in _REQUIRED:
            schema.key(e, name, f"{where}.{name}", "a value")
        for name in TRACE_COLUMNS:
            value, field = e.get(name), f"{where}.{name}"
            if name in _INT_FIELDS:
                if value is not None or name in _REQUIRED:
                    schema.int_(value, field, maximum=LONG_MAX_VALUE)
            else:
                schema.str_(value, field, empty=True, optional=name not in _REQUIRED)
        out.append(TraceEvent(**e))
    return out


def save_trace(events: list[TraceEvent], path: str | Path) -> Path:
    p = Path(path)
    p.write_text(trace_to_json(events), encoding="utf-8")
    return p


def load_trace(path: str | Path) -> list[TraceEvent]:
    """Read a trace written by ``save_trace``; a malformed file is refused naming the field."""
    schema = FileSchema(f"trace {str(path)!r}")
    return trace_from_json(schema.read_bytes(Path(path)), f"trace {str(path)!r}")


def trace_frame(events: list[TraceEvent]) -> Any:
    """The trace as a pandas DataFrame (pandas imported lazily)."""
    import pandas as pd

    return pd.DataFrame([e.to_dict() for e in events], columns=TRACE_COLUMNS)
