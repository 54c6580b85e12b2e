"""``StreamingJobView``: a live view of an unbounded job running on Spark, with a Stop button.

No Flink counterpart beyond the web UI's running-job page (status, records/s, watermarks, Cancel);
fed with ``StreamingProgress`` snapshots by a background thread while the cell has returned, so
the Stop button reaches the kernel.
"""

from __future__ import annotations

import threading
from typing import Any

import anywidget
import traitlets as t

from pyflowkit.notebook.assets import widget_file, widget_styles


class StreamingJobView(anywidget.AnyWidget):
    """Status, rates, Flink watermarks, state rows and the print sink's latest lines of a job."""

    _esm = widget_file("streaming.js")
    _css = widget_styles("theme_colours.css", "streaming.css")

    progress = t.Dict().tag(sync=True)

    def __init__(self, client: Any, interval: float = 0.5, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.client = client
        self.interval = interval
        # the view shows the print sink's latest lines: the job no longer writes each line into
        # the cell's output (an endless job would fill the notebook); ``job.print_lines`` has them
        client.job.print_output = False
        self._stopped = threading.Event()
        self.on_msg(self._on_message)
        self.refresh()

    def refresh(self) -> None:
        """Read the job's progress now (also from the background thread)."""
        job = self.client.job
        job.poll(0)
        self.progress = job.progress().to_dict()

    def follow(self) -> threading.Thread:
        """Refresh every ``interval`` s on a daemon thread until the job ends."""
        thread = threading.Thread(target=self._follow, name="pyflowkit-streaming-view", daemon=True)
        thread.start()
        return thread

    def _follow(self) -> None:
        while not self._stopped.wait(self.interval):
            self.refresh()
            if self.progress.get("status") not in ("RUNNING", "CREATED", "CANCELLING"):
                break

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("action") == "stop":
            self.client.cancel()
            self.refresh()

    def close(self) -> None:
        self._stopped.set()
        super().close()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        data["text/plain"] = self.progress.get("line", "")
        return bundle
