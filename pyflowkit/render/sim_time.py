"""Simulated time as a person reads it: ``850 ms``, ``1.2 s``, ``2 min 5 s``. No Flink counterpart
(Flink's web UI formats durations the same way: ms below a second, then s, then min)."""

from __future__ import annotations


def sim_time(ms: float) -> str:
    """``0`` → ``0 ms``; ``850`` → ``850 ms``; ``1200`` → ``1.2 s``; ``125000`` → ``2 min 5 s``."""
    ms = round(ms)
    if abs(ms) < 1000:
        return f"{ms} ms"
    if abs(ms) < 60_000:
        seconds = ms / 1000
        text = f"{seconds:.1f}" if abs(seconds) < 10 else f"{seconds:.0f}"
        return f"{text.removesuffix('.0')} s"
    minutes, rest = divmod(ms // 1000, 60)
    return f"{minutes} min {rest} s" if rest else f"{minutes} min"
