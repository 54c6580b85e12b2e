"""Watermark alignment over input channels (Flink's ``StatusWatermarkValve``).

Each channel remembers its highest watermark; the output is the minimum over active channels,
emitted only when it increases (reference §9.2, pitfall 20). Idle channels are left out; when
all are idle the valve emits the maximum once.
"""

from __future__ import annotations

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.state.time import LONG_MIN_VALUE


class StatusWatermarkValve:
    """Flink's ``StatusWatermarkValve`` for one input gate of ``num_channels`` channels."""

    def __init__(self, num_channels: int) -> None:
        if num_channels < 1:
            raise IllegalArgumentException(
                f"StatusWatermarkValve needs at least one input channel, got {num_channels}."
            )
        self.channel_watermarks = [LONG_MIN_VALUE] * num_channels
        self.channel_active = [True] * num_channels
        self.last_output_watermark = LONG_MIN_VALUE

    def input_watermark(self, watermark: int, channel: int) -> int | None:
        """A watermark arrived on ``channel``: the new output watermark, or None if unchanged."""
        self._check(channel)
        if not self.channel_active[channel] or watermark <= self.channel_watermarks[channel]:
            return None
        self.channel_watermarks[channel] = watermark
        return self._find_and_output_new_min()

    def input_stream_status(self, idle: bool, channel: int) -> int | None:
        """A channel went IDLE (``idle=True``) or ACTIVE: the new output watermark, if any."""
        self._check(channel)
        was_active = self.channel_active[channel]
        self.channel_active[channel] = not idle
        if idle and was_active:
            if not any(self.channel_active):
                top = max(self.channel_watermarks)
                if top > self.last_output_watermark:
                    self.last_output_watermark = top
                    return top
                return None
            return self._find_and_output_new_min()
        return None

    def _find_and_output_new_min(self) -> int | None:
        active = [
            w for w, a in zip(self.channel_watermarks, self.channel_active, strict=False) if a
        ]
        if not active:
            return None
        new_min = min(active)
        if new_min > self.last_output_watermark:
            self.last_output_watermark = new_min
            return new_min
        return None

    def _check(self, channel: int) -> None:
        if not 0 <= channel < len(self.channel_watermarks):
            raise IllegalArgumentException(
                f"Channel index {channel} out of range for a valve with "
                f"{len(self.channel_watermarks)} channels."
            )
