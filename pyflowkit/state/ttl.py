"""State time-to-live: keyed states wrapped so values expire (Flink's ``TtlStateFactory``).

A state whose descriptor has ``enable_time_to_live`` stores each user value with its last-access
timestamp, ``(value, timestamp)`` (Flink's ``TtlValue``), in the heap backend's table; the
wrappers here check expiry against the operator's processing-time clock (the simulated clock in
the MiniCluster, wall-clock time on Spark), refresh the timestamp on write (and read, if
configured), clear what they find expired, and run Flink's cleanups: incremental (a few entries
per state access or per record, ``TtlIncrementalCleanup``) and on full snapshots (expired entries
are left out of the snapshot, never removed from the live state). The backend's own code is
untouched: this module wraps its states and filters its snapshots.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pyflowkit.datastream.state import (
    AggregatingState,
    ListState,
    MapState,
    ReducingState,
    StateTtlConfig,
    ValueState,
)

MAX_LONG = 2**63 - 1
Clock = Callable[[], int]


def expired(timestamp: int, ttl: int, now: int) -> bool:
    """Flink's ``TtlUtils.expired``: last access + ttl (saturating at Long.MAX) <= now."""
    return min(timestamp + ttl, MAX_LONG) <= now


def purge(kind: str, stored: Any, ttl: int, now: int, snapshot_form: bool = False) -> Any:
    """``stored`` without its expired parts, or None when nothing is left.

    ``stored`` is a table value (``(v, ts)``; a list of those for list state; a dict of key →
    ``(v, ts)`` for map state, or ``[[k, (v, ts)], …]`` in a snapshot).
    """
    if stored is None:
        return None
    if kind == "list":
        live = [e for e in stored if not expired(e[1], ttl, now)]
        return live or None
    if kind == "map":
        pairs = stored if snapshot_form else stored.items()
        live_pairs = [(k, e) for k, e in pairs if not expired(e[1], ttl, now)]
        if not live_pairs:
            return None
        return [[k, e] for k, e in live_pairs] if snapshot_form else dict(live_pairs)
    return None if expired(stored[1], ttl, now) else stored


class IncrementalCleanup:
    """Flink's ``TtlIncrementalCleanup``: a lazy iterator over one state's entries, advanced by
    ``cleanup_size`` entries per state access (and per record when configured)."""

    def __init__(self, table: Any, kind: str, ttl: int, clock: Clock, cleanup_size: int) -> None:
        self.table = table
        self.kind = kind
        self.ttl = ttl
        self.clock = clock
        self.cleanup_size = cleanup_size
        self._pending: list[tuple[int, Any, Any]] = []
        self._pos = 0

    def state_accessed(self) -> None:
        if self.cleanup_size <= 0:
            return
        now = self.clock()
        left = self.cleanup_size
        restarted = False
        while left > 0:
            if self._pos >= len(self._pending):
                if restarted:
                    return
                self._pending = [(kg, ns, key) for kg, ns, key, _ in self.table.entries()]
                self._pos = 0
                restarted = True
                if not self._pending:
                    return
            kg, ns, key = self._pending[self._pos]
            self._pos += 1
            left -= 1
            stored = self.table.get(kg, ns, key)
            if stored is None:
                continue
            kept = purge(self.kind, stored, self.ttl, now)
            if kept is None:
                self.table.remove(kg, ns, key)
            elif self.kind in ("list", "map") and len(kept) != len(stored):
                self.table.put(kg, ns, key, kept)


class _TtlState:
    """Flink's ``AbstractTtlState``: the wrapped heap state, the TTL settings and the clock."""

    def __init__(self, inner: Any, config: StateTtlConfig, clock: Clock) -> None:
        self.inner = inner
        self.descriptor = inner.descriptor
        self.ttl = config.get_ttl_millis()
        self.update_on_read = config.get_update_type() is StateTtlConfig.UpdateType.OnReadAndWrite
        self.return_expired = (
            config.get_state_visibility()
            is StateTtlConfig.StateVisibility.ReturnExpiredIfNotCleanedUp
        )
        self.clock = clock
        self.cleanup: IncrementalCleanup | None = None

    def _accessed(self) -> int:
        if self.cleanup is not None:
            self.cleanup.state_accessed()
        return self.clock()

    def set_current_namespace(self, namespace: Any) -> None:
        self.inner.set_current_namespace(namespace)

    def clear(self) -> None:
        self.inner.clear()

    def _checked_single(self, now: int) -> tuple[Any, bool]:
        """Flink's ``getWithTtlCheckAndUpdate`` on a single stored value: (value, is_present)."""
        stored = self.inner._get()
        if stored is None:
            return None, False
        value, ts = stored
        if expired(ts, self.ttl, now):
            self.inner.clear()
            return (value, True) if self.return_expired else (None, False)
        if self.update_on_read:
            self.inner._put((value, now))
        return value, True


class TtlValueState(_TtlState, ValueState):
    """Flink's ``TtlValueState``."""

    def value(self) -> Any:
        return self._checked_single(self._accessed())[0]

    def update(self, value: Any) -> None:
        now = self._accessed()
        if value is None:
            self.inner.clear()
        else:
            self.inner._put((value, now))


class TtlListState(_TtlState, ListState):
    """Flink's ``TtlListState``: each element carries its own timestamp."""

    def get(self) -> list[Any]:
        now = self._accessed()
        stored = self.inner._get()
        if not stored:
            return []
        live = [e for e in stored if not expired(e[1], self.ttl, now)]
        shown = stored if self.return_expired else live
        result = [v for v, _ in shown]
        if self.update_on_read and live:
            live = [(v, now) for v, _ in live]
            self.inner._put(live)
        elif len(live) != len(stored):
            if live:
                self.inner._put(live)
            else:
                self.inner.clear()
        return result

    def add(self, value: Any) -> None:
        now = self._accessed()
        if value is None:
            raise ValueError(f"You cannot add null to list state '{self.descriptor.name}'.")
        stored = self.inner._get()
        if stored is None:
            self.inner._put([(value, now)])
        else:
            stored.append((value, now))

    def add_all(self, values: Iterable[Any]) -> None:
        values = self.inner._without_null(values)
        now = self._accessed()
        if values:
            stored = self.inner._get()
            wrapped = [(v, now) for v in values]
            if stored is None:
                self.inner._put(wrapped)
            else:
                stored.extend(wrapped)

    def update(self, values: Iterable[Any]) -> None:
        values = self.inner._without_null(values)
        now = self._accessed()
        if values:
            self.inner._put([(v, now) for v in values])
        else:
            self.inner.clear()


class TtlMapState(_TtlState, MapState):
    """Flink's ``TtlMapState``: each map value carries its own timestamp."""

    def _entry(self, key: Any, now: int) -> tuple[Any, bool]:
        stored = self.inner._map()
        if stored is None or key not in stored:
            return None, False
        value, ts = stored[key]
        if expired(ts, self.ttl, now):
            del stored[key]
            if not stored:
                self.inner.clear()
            return (value, True) if self.return_expired else (None, False)
        if self.update_on_read:
            stored[key] = (value, now)
        return value, True

    def get(self, key: Any) -> Any:
        return self._entry(key, self._accessed())[0]

    def contains(self, key: Any) -> bool:
        return self._entry(key, self._accessed())[1]

    def put(self, key: Any, value: Any) -> None:
        now = self._accessed()
        self.inner._map(create=True)[key] = (value, now)

    def put_all(self, dict_value: dict[Any, Any]) -> None:
        now = self._accessed()
        stored = self.inner._map(create=True)
        for k, v in dict_value.items():
            stored[k] = (v, now)

    def remove(self, key: Any) -> None:
        self._accessed()
        self.inner.remove(key)

    def items(self) -> list[tuple[Any, Any]]:
        now = self._accessed()
        stored = self.inner._map()
        if not stored:
            return []
        out = []
        for k, (v, ts) in list(stored.items()):
            if expired(ts, self.ttl, now):
                del stored[k]
                if self.return_expired:
                    out.append((k, v))
                continue
            if self.update_on_read:
                stored[k] = (v, now)
            out.append((k, v))
        if not stored:
            self.inner.clear()
        return out

    def keys(self) -> list[Any]:
        return [k for k, _ in self.items()]

    def values(self) -> list[Any]:
        return [v for _, v in self.items()]

    def is_empty(self) -> bool:
        return not self.items()


class TtlReducingState(_TtlState, ReducingState):
    """Flink's ``TtlReducingState``: an expired accumulated value starts over."""

    def get(self) -> Any:
        return self._checked_single(self._accessed())[0]

    def add(self, value: Any) -> None:
        now = self._accessed()
        stored = self.inner._get()
        current = None if stored is None or expired(stored[1], self.ttl, now) else stored[0]
        merged = value if current is None else self.descriptor.reduce(current, value)
        self.inner._put((merged, now))


class TtlAggregatingState(_TtlState, AggregatingState):
    """Flink's ``TtlAggregatingState``: an expired accumulator starts over."""

    def get(self) -> Any:
        acc, present = self._checked_single(self._accessed())
        return self.descriptor.agg_function.get_result(acc) if present else None

    def add(self, value: Any) -> None:
        now = self._accessed()
        fn = self.descriptor.agg_function
        stored = self.inner._get()
        acc = (
            fn.create_accumulator()
            if stored is None or expired(stored[1], self.ttl, now)
            else stored[0]
        )
        self.inner._put((fn.add(value, acc), now))


TTL_STATE_CLASSES: dict[str, type[_TtlState]] = {
    "value": TtlValueState,
    "list": TtlListState,
    "map": TtlMapState,
    "reducing": TtlReducingState,
    "aggregating": TtlAggregatingState,
}


class TtlStates:
    """The TTL states of one operator: wrappers by name, per-record cleanup, snapshot filter."""

    def __init__(self, backend: Any, clock: Clock) -> None:
        self.backend = backend
        self.clock = clock
        self.states: dict[str, _TtlState] = {}
        self._every_record: list[IncrementalCleanup] = []

    def wrap(self, inner: Any, config: StateTtlConfig) -> _TtlState:
        """The TTL state over ``inner`` (one per state name)."""
        name = inner.descriptor.name
        state = self.states.get(name)
        if state is not None:
            state.inner = inner
            return state
        state = TTL_STATE_CLASSES[inner.table.kind](inner, config, self.clock)
        incremental = config.get_cleanup_strategies().get_incremental_cleanup_strategy()
        if incremental is not None:
            state.cleanup = IncrementalCleanup(
                inner.table,
                inner.table.kind,
                state.ttl,
                self.clock,
                incremental.get_cleanup_size(),
            )
            if incremental.run_cleanup_for_every_record():
                self._cleanup_on_every_key(state.cleanup)
        state.full_snapshot = config.get_cleanup_strategies().in_full_snapshot()  # type: ignore[attr-defined]
        self.states[name] = state
        return state

    def _cleanup_on_every_key(self, cleanup: IncrementalCleanup) -> None:
        """Flink's key selection listener: every record's ``setCurrentKey`` runs the cleanup."""
        if not self._every_record:
            backend = self.backend
            select = backend.set_current_key
            listeners = self._every_record

            def set_current_key(key: Any) -> None:
                select(key)
                for c in listeners:
                    c.state_accessed()

            backend.set_current_key = set_current_key
        self._every_record.append(cleanup)

    def filter_snapshot(self, keyed_state: dict[int, dict[str, dict]]) -> dict[int, dict]:
        """A full snapshot without the expired entries of states with ``cleanup_full_snapshot``."""
        names = {n for n, s in self.states.items() if getattr(s, "full_snapshot", False)}
        if not names:
            return keyed_state
        now = self.clock()
        out: dict[int, dict[str, dict]] = {}
        for kg, states in keyed_state.items():
            kept_states: dict[str, dict] = {}
            for name, st in states.items():
                if name not in names:
                    kept_states[name] = st
                    continue
                ttl = self.states[name].ttl
                entries = []
                for key, ns, value in st["entries"]:
                    kept = purge(st["kind"], value, ttl, now, snapshot_form=True)
                    if kept is not None:
                        entries.append([key, ns, kept])
                if entries:
                    kept_states[name] = {**st, "entries": entries}
            if kept_states:
                out[kg] = kept_states
        return out
