"""What a running streaming job reports: Spark's ``StreamingQuery.lastProgress`` in Flink's words.

pyflowkit's counterpart of Flink's web UI job overview (records in/out per second, the current
watermark per vertex, state size): one ``StreamingProgress`` per poll, with ``line()`` for the
CLI's status line and ``to_dict()`` for the notebook view.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from pyflowkit.java_semantics import LONG_MAX_VALUE, LONG_MIN_VALUE


def watermark_text(watermark: int | None) -> str:
    """A Flink watermark as the web UI shows it (``No Watermark`` before the first one)."""
    if watermark is None or watermark <= LONG_MIN_VALUE:
        return "No Watermark"
    if watermark >= LONG_MAX_VALUE:
        return "MAX_WATERMARK"
    return str(watermark)


def _positions(offset: Any) -> int | None:
    """Sum of the source subtasks' reader positions in a ``pyflowkit-flink-source`` offset;
    None for another source's offset (Spark's own file or socket source)."""
    if isinstance(offset, str):
        try:
            offset = json.loads(offset)
        except ValueError:
            return None
    if not isinstance(offset, dict) or "subtasks" not in offset:
        return None
    return sum(int(s.get("pos", 0)) for s in offset["subtasks"])


def _source_records(source: dict[str, Any]) -> int:
    """Records a source read in the batch: the reader positions' advance for a pyflowkit
    source (its rows also carry the chain's output), Spark's ``numInputRows`` for Spark's own."""
    end = _positions(source.get("endOffset"))
    if end is None:
        return int(source.get("numInputRows") or 0)
    return end - (_positions(source.get("startOffset")) or 0)


@dataclass
class StreamingProgress:
    """One look at a streaming job: status, last micro-batch, rates, watermarks, state size."""

    job_name: str
    job_id: str
    status: str
    batch_id: int | None = None
    batches: int = 0
    input_rows_per_second: float = 0.0
    processed_rows_per_second: float = 0.0
    batch_duration_ms: int = 0
    input_rows: int = 0
    source_records: int = 0  # records (and source watermarks) the sources read in the batch
    source_records_per_second: float = 0.0
    state_rows: int = 0
    state_memory_bytes: int = 0
    watermarks: dict[str, int | None] = field(default_factory=dict)  # vertex → min over subtasks
    printed_lines: int = 0
    latest_lines: list[str] = field(default_factory=list)
    restarts: int = 0
    last_failure: str = ""  # the failure it last restarted after (exception in subtask)
    checkpoint_location: str = ""
    # subtask ("Map (1/2)") → user metrics (identifier → value), as the batch result's metrics
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def of(cls, job: Any) -> StreamingProgress:
        """Read ``job``'s query progress and sink bookkeeping."""
        p = cls(job.job_name, job.job_id, job.status, batches=job.batches, restarts=job.restarts)
        p.last_failure = getattr(job, "last_failure", "")
        p.checkpoint_location = job.checkpoint_location
        progress = None
        if job.query is not None:
            try:
                progress = job.query.lastProgress
            except Exception:  # the query is gone (stopped session)
                progress = None
        if progress:
            p.batch_id = progress.get("batchId")
            p.input_rows = int(progress.get("numInputRows") or 0)
            p.input_rows_per_second = float(progress.get("inputRowsPerSecond") or 0.0)
            p.processed_rows_per_second = float(progress.get("processedRowsPerSecond") or 0.0)
            p.batch_duration_ms = int(progress.get("batchDuration") or 0)
            p.source_records = sum(_source_records(s) for s in progress.get("sources") or [])
            seconds = p.batch_duration_ms / 1000
            p.source_records_per_second = p.source_records / seconds if seconds > 0 else 0.0
            for op in progress.get("stateOperators") or []:
                p.state_rows += int(op.get("numRowsTotal") or 0)
                p.state_memory_bytes += int(op.get("memoryUsedBytes") or 0)
        p.watermarks = job.flink_watermarks()
        p.metrics = job.metric_values()
        p.printed_lines, p.latest_lines = job.printed_tail(10)
        return p

    def line(self) -> str:
        """One status line (the CLI rewrites it in place)."""
        parts = [f"{self.job_name}: {self.status}"]
        if self.batch_id is not None:
            parts.append(
                f"batch {self.batch_id} ({self.batch_duration_ms} ms), "
                f"{self.source_records_per_second:,.0f} records/s"
            )
        if self.watermarks:
            last = list(self.watermarks.items())[-1]
            parts.append(f"watermark {watermark_text(last[1])} at {last[0]}")
        parts.append(f"{self.state_rows:,} state rows")
        parts.append(f"{self.printed_lines:,} lines printed")
        if self.restarts:
            parts.append(f"{self.restarts} restart(s)")
        if self.last_failure and (self.status in ("RESTARTING", "FAILED") or self.restarts):
            parts.append(f"last failure: {self.last_failure}")
        return " · ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["watermarks"] = {k: watermark_text(v) for k, v in self.watermarks.items()}
        data["metrics"] = json.loads(json.dumps(self.metrics, default=repr))  # gauges: any value
        data["line"] = self.line()
        return data
