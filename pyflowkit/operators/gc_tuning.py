"""CPython's GC thresholds raised while a host runs operator chains (both runtimes use it).

Not a Flink class: CPython's collector runs a young-generation pass every ``threshold0`` net
allocations of tracked objects. Records held in buffers and keyed state (open window panes,
timers, accumulators) stay alive for a whole run, so each pass finds them alive again and again.
Raising the thresholds for the length of a run (restored afterwards, also on error) leaves every
result and trace unchanged.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def raised_gc_thresholds(*thresholds: int) -> Iterator[None]:
    """Raise (never lower) CPython's thresholds for the generations given, then restore them.

    ``raised_gc_thresholds(50_000)`` raises generation 0 only; ``(100_000, 50, 100)`` all three.
    A threshold0 of 0 (collection switched off by the caller) is left as it is.
    """
    if not 1 <= len(thresholds) <= 3:
        raise ValueError(f"raised_gc_thresholds: give 1 to 3 thresholds, got {len(thresholds)}.")
    for generation, value in enumerate(thresholds):
        if value <= 0:
            raise ValueError(
                f"raised_gc_thresholds: threshold{generation} must be positive, got {value}."
            )
    old = gc.get_threshold()
    new = tuple(max(o, t) for o, t in zip(old, thresholds, strict=False)) + old[len(thresholds) :]
    raise_it = old[0] > 0 and new != old
    if raise_it:
        gc.set_threshold(*new)
    try:
        yield
    finally:
        if raise_it:
            gc.set_threshold(*old)
