"""Per-split watermark outputs combined into one (Flink's ``WatermarkOutputMultiplexer``).

Each split has its own watermark; the combined watermark is the minimum over the splits that are
not idle, emitted only when it advances. All splits idle → the output is marked idle. Immediate
outputs (``on_event``) update the combined watermark at once; deferred ones (``on_periodic_emit``)
only when ``on_periodic_emit()`` of the multiplexer runs.
"""

from __future__ import annotations

from collections.abc import Callable

from pyflowkit.common.watermark_strategy import WatermarkOutput
from pyflowkit.state.time import LONG_MIN_VALUE


class _OutputState:
    __slots__ = ("watermark", "idle")

    def __init__(self) -> None:
        self.watermark = LONG_MIN_VALUE
        self.idle = False


class _SplitOutput(WatermarkOutput):
    """Flink's ``WatermarkOutputMultiplexer.ImmediateOutput`` / ``DeferredOutput``."""

    def __init__(self, mux: WatermarkOutputMultiplexer, state: _OutputState, immediate: bool):
        self.mux = mux
        self.state = state
        self.immediate = immediate

    def emit_watermark(self, watermark: object) -> None:
        ts = watermark if isinstance(watermark, int) else int(watermark.timestamp)  # type: ignore[attr-defined]
        st = self.state
        st.idle = False
        if ts > st.watermark:
            st.watermark = ts
            if self.immediate:
                self.mux.update_combined_watermark()

    def mark_idle(self) -> None:
        self.state.idle = True
        if self.immediate:
            self.mux.update_combined_watermark()

    def mark_active(self) -> None:
        self.state.idle = False


class WatermarkOutputMultiplexer:
    """Flink's ``WatermarkOutputMultiplexer``: ``emit`` receives the combined watermark."""

    def __init__(self, emit: Callable[[int], None], mark_idle: Callable[[], None]) -> None:
        self._emit = emit
        self._mark_idle = mark_idle
        self._outputs: dict[str, _OutputState] = {}
        self.combined_watermark = LONG_MIN_VALUE

    def register_new_output(self, output_id: str) -> None:
        if output_id in self._outputs:
            raise ValueError(f"Already contains an output for ID {output_id}")
        self._outputs[output_id] = _OutputState()

    def unregister_output(self, output_id: str) -> None:
        if self._outputs.pop(output_id, None) is not None:
            self.update_combined_watermark()

    def get_immediate_output(self, output_id: str) -> WatermarkOutput:
        return _SplitOutput(self, self._outputs[output_id], True)

    def get_deferred_output(self, output_id: str) -> WatermarkOutput:
        return _SplitOutput(self, self._outputs[output_id], False)

    def on_periodic_emit(self) -> None:
        self.update_combined_watermark()

    def update_combined_watermark(self) -> None:
        if not self._outputs:
            return
        active = [s.watermark for s in self._outputs.values() if not s.idle]
        if not active:
            self._mark_idle()
            return
        low = min(active)
        if low > self.combined_watermark:
            self.combined_watermark = low
            self._emit(low)
