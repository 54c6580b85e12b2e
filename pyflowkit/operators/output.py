"""Where an operator's records go (Flink's ``Output``): ``collect``, side outputs, watermarks.

Records travel as ``(value, timestamp)`` pairs — the timestamp is an ``int`` or ``None`` (Flink's
``StreamRecord`` without a timestamp) — never wrapped per record.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any


class Output(ABC):
    """Flink's ``Output<StreamRecord<T>>``; hosts implement it as ``RecordWriterOutput``s."""

    @abstractmethod
    def collect(self, value: Any, timestamp: int | None) -> None:
        """Emit one record on the main output."""

    def collect_side(self, output_tag: Any, value: Any, timestamp: int | None) -> None:
        """Emit one record on the side output ``output_tag`` (dropped if nothing consumes it)."""

    @abstractmethod
    def emit_watermark(self, watermark: int) -> None:
        """Forward a watermark (milliseconds, a Java long) to every consumer."""

    def collect_batch(self, values: Sequence[Any], timestamps: Sequence[int | None] | None) -> None:
        """Emit many main-output records; ``timestamps`` None means none carries a timestamp."""
        collect = self.collect
        if timestamps is None:
            for v in values:
                collect(v, None)
        else:
            for v, ts in zip(values, timestamps, strict=False):
                collect(v, ts)

    def close(self) -> None:
        """No more records will be emitted (Flink's ``Output.close``)."""


class CollectingOutput(Output):
    """An Output that records everything in order (for tests and simple hosts).

    ``records``: ``(value, timestamp)``; ``side``: tag id → list of ``(value, timestamp)``;
    ``watermarks``: forwarded watermarks; ``events``: everything in arrival order.
    """

    def __init__(self) -> None:
        self.records: list[tuple[Any, int | None]] = []
        self.side: dict[Any, list[tuple[Any, int | None]]] = {}
        self.watermarks: list[int] = []
        self.events: list[tuple[str, Any, Any]] = []

    def collect(self, value: Any, timestamp: int | None) -> None:
        self.records.append((value, timestamp))
        self.events.append(("record", value, timestamp))

    def collect_side(self, output_tag: Any, value: Any, timestamp: int | None) -> None:
        tag_id = getattr(output_tag, "tag_id", output_tag)
        self.side.setdefault(tag_id, []).append((value, timestamp))
        self.events.append(("side:" + str(tag_id), value, timestamp))

    def emit_watermark(self, watermark: int) -> None:
        self.watermarks.append(watermark)
        self.events.append(("watermark", watermark, None))

    @property
    def values(self) -> list[Any]:
        return [v for v, _ in self.records]

    def side_values(self, output_tag: Any) -> list[Any]:
        tag_id = getattr(output_tag, "tag_id", output_tag)
        return [v for v, _ in self.side.get(tag_id, [])]

    def clear(self) -> None:
        self.records.clear()
        self.side.clear()
        self.watermarks.clear()
        self.events.clear()
