"""The notebook's streaming job view: shows the job's progress and its Stop button cancels it."""

from __future__ import annotations

import pytest

pytest.importorskip("anywidget")

from pyflowkit.spark.streaming_progress import StreamingProgress  # noqa: E402


class _Job:
    def __init__(self) -> None:
        self.status = "RUNNING"
        self.polls = 0
        self.print_output = True

    def poll(self, timeout: float) -> str:
        self.polls += 1
        return self.status

    def progress(self) -> StreamingProgress:
        p = StreamingProgress("clicks", "abc", self.status, batch_id=3, batch_duration_ms=500)
        p.watermarks = {"Window(TumblingEventTimeWindows(10), EventTimeTrigger, reduce)": 9}
        p.printed_lines, p.latest_lines = 2, ["1> (a,3)", "2> (b,7)"]
        return p


class _Client:
    def __init__(self) -> None:
        self.job = _Job()
        self.cancelled = 0

    def cancel(self) -> None:
        self.cancelled += 1
        self.job.status = "CANCELED"


def test_view_shows_progress_and_stop_cancels_the_job() -> None:
    from pyflowkit.notebook.streaming_view import StreamingJobView

    client = _Client()
    view = StreamingJobView(client)
    assert client.job.print_output is False  # the view shows the print sink, not the cell
    assert view.progress["status"] == "RUNNING"
    assert view.progress["latest_lines"] == ["1> (a,3)", "2> (b,7)"]
    assert list(view.progress["watermarks"].values()) == ["9"]
    assert "clicks: RUNNING · batch 3 (500 ms)" in view.progress["line"]
    view._on_message(view, {"action": "stop"}, [])
    assert client.cancelled == 1
    assert view.progress["status"] == "CANCELED"
    view._on_message(view, {"action": "other"}, [])
    assert client.cancelled == 1
    view.close()
