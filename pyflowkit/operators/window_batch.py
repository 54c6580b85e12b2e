"""The batch fast path of a keyed tumbling event-time ``WindowOperator`` with ``EventTimeTrigger``.

A batch's elements are grouped by (key, window) in first-seen order; each group's values are
folded into the window state with one state access, and the trigger's timer and the cleanup timer
are registered once per group (registering the same timer again is a no-op in Flink's
``InternalTimerServiceImpl``). ``EventTimeTrigger.onElement`` on a window whose end the watermark
has not passed only registers that timer and returns CONTINUE, so it is not asked per element.
Results equal Flink's ``WindowOperator.processElement`` called per element: the watermark cannot
move inside a batch, and nothing is emitted except late side outputs, which keep their order.
Elements the fast path cannot take (no timestamp, a null in list state, a window the trigger would
fire at once) end the fast part; from there the batch runs element by element.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pyflowkit.datastream.window import MAX_LONG_VALUE, MIN_LONG_VALUE, TimeWindow
from pyflowkit.java_semantics import (
    SELF_IDENTIFYING_KEY_TYPES,
    TypedKey,
    key_identity,
    pickled_key,
    plain_key,
)
from pyflowkit.operators.window_functions import InternalWindowFunction, PassThroughWindowFunction

if TYPE_CHECKING:
    from pyflowkit.operators.window_operator import WindowOperator

_LATE = 1  # the window is past its cleanup time: the element is not added to it
_FIRES = 2  # max_timestamp <= watermark < cleanup time: EventTimeTrigger fires on the element
_WINDOW_CACHE_LIMIT = 4096
_NO_KEY = object()


class TumblingBatchProcessor:
    """Groups a batch by (key, window) for one tumbling event-time ``WindowOperator``."""

    def __init__(self, operator: WindowOperator) -> None:
        self.op = operator
        self.size: int = operator.assigner.size  # type: ignore[attr-defined]
        self.offset: int = operator.assigner.offset  # type: ignore[attr-defined]
        descriptor = operator.window_state_descriptor
        self.kind: str = descriptor.kind
        self.reduce = getattr(descriptor, "reduce", None)
        self.agg = getattr(descriptor, "agg_function", None)
        self.windows: dict[int, TimeWindow] = {}  # start → the one shared TimeWindow
        self.lateness: int = operator.allowed_lateness
        self.pass_through = type(operator.internal_function) is PassThroughWindowFunction
        self.clears = type(operator.internal_function).clear is not InternalWindowFunction.clear
        self.fused = (
            self.pass_through and not self.clears and not self.lateness and self.kind != "list"
        )

    def window(self, start: int) -> TimeWindow:
        w = self.windows.get(start)
        if w is None:
            if len(self.windows) >= _WINDOW_CACHE_LIMIT:
                self.windows.clear()
            w = self.windows[start] = TimeWindow(start, start + self.size)
        return w

    def process_batch(self, values: Sequence[Any], timestamps: Sequence[Any]) -> None:
        op = self.op
        selector = op._key_selector1
        size, offset = self.size, self.offset
        wm = op.get_current_watermark()
        is_list = self.kind == "list"
        backend = op.keyed_state_backend
        cached_key_group = backend.key_group_lookup()
        status: dict[int, int] = {}  # window start → 0, _LATE or _FIRES (fixed for the batch)
        by_start: dict[int, dict[Any, list[Any]]] = {}  # start → cache key → group
        groups: list[list[Any]] = []  # [key, key group, window, [values]] in first-seen order
        late: list[tuple[Any, Any]] = []
        n = len(values)
        stop = n  # the first element the fast path does not take
        stop_key: Any = _NO_KEY  # its key, when it was already selected
        key: Any = _NO_KEY
        lo = hi = start = st = 0  # the window of the previous element: [lo, hi), its status
        window: Any = None
        window_groups: dict[Any, list[Any]] = {}
        try:
            for i in range(n):
                v = values[i]
                ts = timestamps[i]
                if type(ts) is not int or not lo <= ts < hi:
                    if type(ts) is not int or ts <= MIN_LONG_VALUE:
                        stop = i
                        break
                    x = ts - offset + size
                    start = ts - (x % size if x >= 0 else -(-x % size))
                    lo, hi = max(start, MIN_LONG_VALUE + 1), start + size
                    st = status.get(start)
                    if st is None:
                        st = status[start] = self._status(start, wm)
                        by_start[start] = {}
                    window_groups = by_start[start]
                    window = self.window(start)
                if is_list and v is None:
                    stop = i
                    break
                key = selector(v)  # type: ignore[misc]
                if st:
                    if st == _FIRES:
                        stop, stop_key = i, key
                        break
                    late.append((v, ts))
                    continue
                ck = key if type(key) in SELF_IDENTIFYING_KEY_TYPES else key_identity(key)
                g = window_groups.get(ck)
                if g is None:
                    # a list key: keyed by its pickle (PyFlink); a str or int key is its own ck
                    if ck is not key and type(key).__hash__ is None:
                        key = pickled_key(key)
                    kg = cached_key_group(ck)
                    if kg is None:
                        kg = backend.checked_key_group(key)
                    held = key if ck is key else backend.state_key(key)  # 1, True apart
                    g = window_groups[ck] = [held, kg, window, [v]]
                    groups.append(g)
                else:
                    g[3].append(v)
        except BaseException:
            self._flush(groups, late, _NO_KEY)
            raise
        if stop == n:
            self._flush(groups, late, key)
            return
        self._flush(groups, late, _NO_KEY)
        if stop_key is not _NO_KEY:
            backend.set_current_key(stop_key)
            op.process_element(values[stop], timestamps[stop])
            stop += 1
        _per_element(op, values[stop:], timestamps[stop:])

    def on_event_time(self, timer: Any) -> None:
        """``WindowOperator.onEventTime`` with ``EventTimeTrigger.onEventTime`` inlined.

        The trigger fires at ``max_timestamp``; at the cleanup time the pane's state is cleared.
        """
        op = self.op
        ts, key, window = timer
        op.trigger_context.window = window
        state = op.window_state
        state.namespace = window
        max_ts = window.end - 1
        if self.fused:
            if ts == max_ts:  # fire, then clearAllState, on one lookup of the pane
                self._fire_and_clear(key, window, max_ts)
            return
        if ts == max_ts:
            contents = state.get()
            if self.kind == "list":
                if contents:  # an empty pane does not fire
                    op._emit_window_contents(window, contents)
            elif contents is not None:
                if self.pass_through:
                    op.process_context._window = window
                    if _is_side_output(contents):
                        op.output.collect_side(contents[0], contents[1], max_ts)
                    else:
                        op.output.collect(contents, max_ts)
                else:
                    op._emit_window_contents(window, [contents])
        if ts == (op._cleanup_time(window) if self.lateness else max_ts):
            # WindowOperator.clearAllState
            state.clear()
            if self.lateness:  # else the trigger's only timer is the one firing now
                op.trigger_context.clear()
            op.process_context._window = window
            if self.clears:
                op.internal_function.clear(window, op.process_context)

    def fire_event_time_timers(self, time: int) -> None:
        """The due event-time timers of fused panes, fired in one loop (``fused`` only).

        ``InternalTimerService.advanceWatermark`` + ``on_event_time`` + ``_fire_and_clear`` per
        timer, inlined: the same timers fire in the same (timestamp, registration) order and their
        results go downstream in that order, as one batch (a side output flushes the batch first).
        """
        op = self.op
        op.current_watermark = time  # as StreamOperator.process_watermark, before any timer fires
        op.time_service_manager.current_watermark = time
        queue = op.timer_service.event_time_timers
        if not queue.has_due(time):
            return
        backend = op.keyed_state_backend
        cached_key_group = backend.key_group_lookup()
        table = op.window_state.table
        agg = self.agg
        output = op.output
        values: list[Any] = []
        stamps: list[int] = []
        last: tuple[Any, TimeWindow] | None = None
        try:
            for ts, key, window in queue.pop_due(time):
                last = (key, window)
                if ts != window.end - 1:
                    continue  # fused panes have no timer but the trigger's
                kg = cached_key_group(
                    key if type(key) in SELF_IDENTIFYING_KEY_TYPES else key_identity(key)
                )
                if kg is None:
                    kg = backend.checked_key_group(key)
                if type(key) not in SELF_IDENTIFYING_KEY_TYPES:
                    key = backend.state_key(key)
                acc = table.get(kg, window, key)
                if acc is not None:
                    contents = acc if agg is None else agg.get_result(acc)
                    if contents is not None:
                        if _is_side_output(contents):
                            if values:
                                output.collect_batch(values, stamps)
                                values, stamps = [], []
                            op.process_context._window = window
                            output.collect_side(contents[0], contents[1], ts)
                        else:
                            values.append(contents)
                            stamps.append(ts)
                table.remove(kg, window, key)  # WindowOperator.clearAllState, after firing
        finally:  # what fired before a failing function still went downstream
            if last is not None:  # the per-timer path leaves the last timer's key and window set
                backend.set_current_key(last[0])
                op.trigger_context.window = op.window_state.namespace = last[1]
                op.process_context._window = last[1]
            if values:
                output.collect_batch(values, stamps)

    def _fire_and_clear(self, key: Any, window: TimeWindow, max_ts: int) -> None:
        """A reduce/aggregate pane without window function and without lateness: emit the
        result, then drop the pane's entry (its trigger timer is the one firing)."""
        op = self.op
        op.process_context._window = window
        table = op.window_state.table
        kg = op.keyed_state_backend.current_key_group
        key = op.keyed_state_backend.current_state_key  # (the timer's key, as the tables hold it)
        acc = table.get(kg, window, key)
        if acc is not None:
            contents = acc if self.agg is None else self.agg.get_result(acc)
            if contents is not None:
                if _is_side_output(contents):
                    op.output.collect_side(contents[0], contents[1], max_ts)
                else:
                    op.output.collect(contents, max_ts)
        table.remove(kg, window, key)  # the pane's only state: clearAllState, after firing

    def _status(self, start: int, wm: int) -> int:
        window = self.window(start)
        if self.op._is_window_late(window):
            return _LATE
        return _FIRES if window.max_timestamp() <= wm else 0

    def _flush(self, groups: list[list[Any]], late: list[tuple[Any, Any]], last: Any) -> None:
        """Apply the grouped values (first-seen order), their timers, then late records."""
        op = self.op
        op.window_state.add_grouped(groups)  # the state layer's keyed fold over the batch
        # EventTimeTrigger.onElement's timer per group, then its cleanup timer (registering a
        # registered timer again is a no-op), in the order the per-element path registers them
        if op.allowed_lateness:
            timers = []
            for key, _, window, _ in groups:
                key = plain_key(key)
                timers.append((window.end - 1, key, window))
                cleanup = op._cleanup_time(window)
                if cleanup < MAX_LONG_VALUE:
                    timers.append((cleanup, key, window))
        else:  # the groups hold their keys as the state tables do (java_semantics.state_key);
            # plain_key inlined (a call per pane was 1.2 % of bench_windows' 100-key reduce)
            timers = [
                (window.end - 1, key.key if type(key) is TypedKey else key, window)
                for key, _, window, _ in groups
            ]
        op.timer_service.event_time_timers.add_all(timers)
        for v, ts in late:
            if op._is_element_late(ts):
                if op.late_data_output_tag is not None:
                    op.output.collect_side(op.late_data_output_tag, v, ts)
                else:
                    op.metrics["numLateRecordsDropped"] += 1
        if last is not _NO_KEY:
            op.keyed_state_backend.set_current_key(last)


def _per_element(op: WindowOperator, values: Sequence[Any], timestamps: Sequence[Any]) -> None:
    """The element-by-element path (``StreamOperator.process_batch``)."""
    set_key = op.set_key_context_element1
    process = op.process_element
    for v, ts in zip(values, timestamps, strict=False):
        set_key(v)
        process(v, ts)


def _is_side_output(item: Any) -> bool:
    """PyFlink's convention: a function yields ``(output_tag, value)`` for a side output."""
    return type(item) is tuple and len(item) == 2 and type(item[0]).__name__ == "OutputTag"
