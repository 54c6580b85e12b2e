"""Trace events made the fast ways (from a component's template, or from keyword subjects) are the
same values as the dataclass constructor makes, stay frozen, and reject unknown fields."""

from __future__ import annotations

import dataclasses

import pytest

from pyflowkit.runtime.trace import (
    TraceEvent,
    event_from_template,
    new_trace_event,
    trace_event_template,
    trace_to_json,
)


def test_template_events_equal_constructed_ones_field_for_field() -> None:
    template = trace_event_template("Map (1/2)", job="j1", vertex="Map", subtask=0, attempt=1)
    ev = event_from_template(template, 7, 12, "Task.emit", "hello", {"checkpoint": 3})
    expected = TraceEvent(
        7, 12, "Map (1/2)", "Task.emit", "hello", job="j1", vertex="Map", subtask=0, attempt=1,
        checkpoint=3,
    )  # fmt: skip
    assert ev == expected and repr(ev) == repr(expected) and ev.to_dict() == expected.to_dict()
    assert trace_to_json([ev]) == trace_to_json([expected])
    again = event_from_template(template, 8, 12, "Task.emit", "again", {})
    assert again.checkpoint is None and template["checkpoint"] is None  # the template unchanged
    with pytest.raises(dataclasses.FrozenInstanceError):
        ev.step = 9  # type: ignore[misc]


def test_keyword_events_equal_constructed_ones() -> None:
    ev = new_trace_event(1, 2, "JobMaster", "M.m", "x", {"job": "j", "new_state": "RUNNING"})
    assert ev == TraceEvent(1, 2, "JobMaster", "M.m", "x", job="j", new_state="RUNNING")
    assert ev.is_state_change


def test_unknown_subjects_are_refused_by_name() -> None:
    with pytest.raises(TypeError, match=r"no field\(s\) \['colour'\]"):
        new_trace_event(1, 2, "JobMaster", "M.m", "x", {"colour": "red"})
    template = trace_event_template("JobMaster", job="j")
    with pytest.raises(TypeError, match=r"\['size'\]"):
        event_from_template(template, 1, 2, "M.m", "x", {"size": 3})
    with pytest.raises(TypeError):
        trace_event_template("JobMaster", shade=1)
