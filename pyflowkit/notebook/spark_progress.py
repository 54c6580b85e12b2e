"""``SparkProgressView``: bars per Spark jobs/stages/tasks while a pipeline runs on Spark.

No Flink counterpart: the web UI's job progress; fed by ``pyflowkit.spark.progress.SparkProgress``
snapshots from the executor's background polling thread, then the JobVertex ↔ stage table.
"""

from __future__ import annotations

from dataclasses import asdict, is_dataclass
from html import escape
from typing import Any

import anywidget
import traitlets as t

from pyflowkit.notebook.assets import THEMED_STYLES, widget_file, widget_styles


class SparkProgressView(anywidget.AnyWidget):
    """Progress bars (jobs, stages, tasks) and, once done, which JobVertex became which stage."""

    _esm = widget_file("pyflowkit.js")
    _css = widget_styles(*THEMED_STYLES)
    _kind = t.Unicode("spark_progress").tag(sync=True)

    progress = t.Dict().tag(sync=True)
    status_line = t.Unicode("[Spark] starting…").tag(sync=True)
    stage_table = t.List().tag(sync=True)

    def update(self, progress: Any) -> None:
        """A ``SparkProgress`` listener; safe to call from the executor's polling thread."""
        values = asdict(progress) if is_dataclass(progress) else dict(progress)
        with self.hold_sync():
            self.progress = values
            self.status_line = progress.line() if hasattr(progress, "line") else str(values)

    def show_plan(self, spark_plan: Any) -> None:
        """Fill the JobVertex ↔ Spark stage table from ``SparkJobExecutionResult.spark_plan``."""
        self.stage_table = [
            {
                "stage": s.index,
                "JobVertex": s.vertex_name,
                "parallelism": s.parallelism,
                "Spark operator": s.spark_operator,
            }
            for s in getattr(spark_plan, "stages", [])
        ]

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        rows = "".join(
            "<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in r.values()) + "</tr>"
            for r in self.stage_table
        )
        data["text/plain"] = self.status_line
        data["text/html"] = f"<div><b>{escape(self.status_line)}</b><table>{rows}</table></div>"
        return bundle
