"""Rolling keyed reduce/aggregation: Flink's ``StreamGroupedReduce`` (``Keyed Reduce``/``Keyed
Aggregation``). Emits the updated value for every input, with the input's timestamp.

``sum/min/max/min_by/max_by`` are reduce functions (``SumAggregator``/``ComparableAggregator``,
shared with the window operators in ``window_aggregators``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import is_
from typing import Any, ClassVar

from pyflowkit.datastream.functions import resolve_method
from pyflowkit.datastream.state import ValueStateDescriptor
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.java_semantics import plain_key
from pyflowkit.operators.base import AbstractUdfStreamOperator, StreamOperator
from pyflowkit.operators.chaining_strategy import ChainingStrategy
from pyflowkit.operators.registry import register_operator
from pyflowkit.state.key_groups import key_batch_selector, shared_key_groups
from pyflowkit.state.time import VOID_NAMESPACE

STATE_NAME = "_op_state"  # StreamGroupedReduce.STATE_NAME
_KEY_CACHE_LIMIT = 1 << 18  # keys the operator's own key-group caches hold


class StreamGroupedReduce(AbstractUdfStreamOperator):
    """Flink's ``StreamGroupedReduce``: state = reduce(state, value) per key; emit the new state."""

    chaining_strategy: ClassVar[ChainingStrategy] = ChainingStrategy.HEAD
    takes_carried_keys: ClassVar[bool] = True

    def __init__(self, function: Any) -> None:
        super().__init__(function)
        self._reduce = resolve_method(function, "reduce", "ReduceFunction", "Keyed Reduce")
        self._state: Any = None
        # key → key group, for str and int keys (exact types) apart: the memos the key_by's
        # partitioner fills (key_groups.shared_key_groups), or the operator's own
        self._str_kgs: dict[str, int] = {}
        self._int_kgs: dict[int, int] = {}
        self._own_kgs = True  # the two dicts above are the operator's own (bounded here)
        self._str_keys = False  # the last batch ended on a str key: use the str loop
        self._maps_version = -1  # the backend's snapshot_version the cached maps belong to
        self._kg_maps: dict[int, dict[Any, Any]] = {}  # key group → its live state map
        self._maps: list[dict[Any, Any] | None] = []  # the same, indexed by key group
        # exact str key → its key group's live state map (the str loop's one lookup per record)
        self._str_key_maps: dict[str, dict[Any, Any]] = {}

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> StreamOperator:
        aggregation = params.get("aggregation")
        if aggregation is not None:
            from pyflowkit.operators.window_aggregators import aggregator_for

            return cls(aggregator_for(aggregation, "Keyed Aggregation"))
        if params.get("function") is None:
            raise IllegalArgumentException(
                "Keyed Reduce needs a 'function' (ReduceFunction) or an 'aggregation' parameter."
            )
        return cls(params["function"])

    def open(self) -> None:
        super().open()
        backend = self._require_keyed("StreamGroupedReduce")
        self._state = backend.get_partitioned_state(ValueStateDescriptor(STATE_NAME))
        # the batch loops log each key's value before their first write after a mark: a
        # snapshot copies nothing and a checkpoint measures only the entries written
        self._state.table.log_writes(backend.key_groups_of)
        self._maps = [None] * backend.max_parallelism
        # a batch's keys at once (a declared key_type converts them a column at a time)
        self._select_keys = key_batch_selector(self._key_selector1)  # type: ignore[arg-type]
        if backend.key_check is None:  # a declared key type checks each new key: own caches
            str_kgs = shared_key_groups(backend.key_hash, backend.max_parallelism, str)
            int_kgs = shared_key_groups(backend.key_hash, backend.max_parallelism, int)
            if str_kgs is not None and int_kgs is not None:
                self._str_kgs, self._int_kgs, self._own_kgs = str_kgs, int_kgs, False

    def batch_keys_itself(self) -> bool:
        """The batch path selects keys for its own state; a function that can read keyed state
        itself needs the task to set each record's key (the per-record path)."""
        return not self.function_reaches_keyed_state

    def process_element(self, value: Any, timestamp: int | None) -> None:
        state = self._state
        current = state.value()
        if current is not None:
            value = self._reduce(current, value)
        state.update(value)
        self.output.collect(value, timestamp)  # type: ignore[union-attr]

    def process_batch(
        self,
        values: Sequence[Any],
        timestamps: Sequence[int | None] | None,
        keys: Sequence[Any] | None = None,
    ) -> None:
        """The ``process_element`` loop without per-record dispatch: state maps cached per key.
        ``keys``: the records' keys selected upstream (else selected here)."""
        out: list[Any] = []
        if self._str_keys:
            self._reduce_str_keys(values, out.append, keys)
        else:
            self._reduce_all(values, out.append, None, keys)
        table = self._state.table
        if table.undo is None and table.undo_mode:  # no undo log: check what was stored
            backend: Any = self.keyed_state_backend
            table.note_written(out if backend.periodic_snapshots else None)
        self.output.collect_batch(out, timestamps)  # type: ignore[union-attr]

    def _reduce_all(
        self,
        values: Sequence[Any],
        emit: Callable[[Any], None] | None,
        first_of_key: Callable[[Any], None] | None,
        keys: Iterable[Any] | None = None,
    ) -> None:
        """Reduce ``values`` into keyed state; ``emit`` each new value, ``first_of_key`` new keys
        (``keys``: the values' keys, else selected here).

        The current key is left at the last record's key (as the per-record path leaves it).
        """
        self._check_cached_maps()
        undo = self._state.table.undo
        log = None if undo is None else undo.setdefault
        if keys is None:  # else selected upstream (a HASH edge carried them)
            keys = self._select_keys(values)
        reduce = self._reduce
        str_kg = self._str_kgs.get
        int_kg = self._int_kgs.get
        maps = self._maps
        map_for = self._map_for_key
        held = self.keyed_state_backend.state_key  # type: ignore[union-attr]
        key = None
        for key, v in zip(keys, values, strict=True):
            tk = type(key)
            kg = str_kg(key) if tk is str else int_kg(key) if tk is int else None
            m = None if kg is None else maps[kg]
            if m is None:
                key = held(key)  # a list by its pickle; 1, True and 1.0 apart
                m = map_for(plain_key(key))
            current = m.get(key)
            if log is not None:  # the value at the last mark, on the first write after it
                log(key, current)
            if current is not None:
                v = reduce(current, v)
            elif first_of_key is not None:
                first_of_key(key)
            if v is None:  # ValueState.update(null) clears
                m.pop(key, None)
            else:
                m[key] = v
            if emit is not None:
                emit(v)
        if emit is None and log is None:  # values stored unchecked: the next mark checks all
            self._state.table.note_written(None)
        self._after_batch(values, key)

    def _reduce_str_keys(
        self,
        values: Sequence[Any],
        emit: Callable[[Any], None],
        keys: Iterable[Any] | None = None,
    ) -> None:
        """``_reduce_all`` with output and no ``first_of_key``, for a stream of ``str`` keys.

        The str cache holds ``str`` keys only, so a hit needs no type check (only a ``str``
        equals a ``str``); any other key misses and takes the checked path. A key group whose
        map is not fetched yet (or outside this subtask's range) finds None there.
        """
        self._check_cached_maps()
        undo = self._state.table.undo
        log = None if undo is None else undo.setdefault
        if keys is None:  # else selected upstream (a HASH edge carried them)
            keys = self._select_keys(values)
        reduce = self._reduce
        key_map = self._str_key_maps.get
        map_of_new = self._str_loop_map
        key = None
        for key, v in zip(keys, values, strict=True):
            try:
                m = key_map(key)
            except TypeError:  # an unhashable key (a list): keyed by its pickle below
                m = None
            if m is None:
                key, m = map_of_new(key)
            current = m.get(key)
            if log is not None:
                log(key, current)
            if current is not None:
                v = reduce(current, v)
            if v is None:  # ValueState.update(null) clears
                m.pop(key, None)
            else:
                m[key] = v
            emit(v)
        self._after_batch(values, key)

    def _str_loop_map(self, key: Any) -> tuple[Any, dict[Any, Any]]:
        """``_reduce_str_keys``' lookup of a key it has no state map for yet: (the key as the
        state stores it, its key group's map); an exact ``str`` key's map is kept for it."""
        kg = self._str_kgs.get(key) if isinstance(key, str) else None
        m = None if kg is None else self._maps[kg]
        if m is None:
            key = self.keyed_state_backend.state_key(key)  # type: ignore[union-attr]
            m = self._map_for_key(plain_key(key))  # (a list by its pickle; 1, True, 1.0 apart)
        if type(key) is str:
            cache = self._str_key_maps
            if len(cache) >= _KEY_CACHE_LIMIT:
                cache.clear()
            cache[key] = m
        return key, m

    def _after_batch(self, values: Sequence[Any], last_key: Any) -> None:
        """Leave the key context at the last key; pick the next batch's loop by its key type."""
        if values:
            self._str_keys = type(last_key) is str
            self.keyed_state_backend.set_current_key(last_key)  # type: ignore[union-attr]

    def _check_cached_maps(self) -> None:
        """After a snapshot, access the cached state maps through the state table once (it
        gives the snapshot its copies of them before they are written); keep the maps it hands
        out (usually the same ones)."""
        version = self.keyed_state_backend.snapshot_version  # type: ignore[union-attr]
        if version == self._maps_version:
            return
        self._maps_version = version
        kg_maps = self._kg_maps
        if not kg_maps:
            return
        maps = self._state.table.namespace_maps(kg_maps, VOID_NAMESPACE, logged=True)
        if all(map(is_, maps, kg_maps.values())):
            return
        self._kg_maps = kg_maps = dict(zip(kg_maps, maps, strict=True))
        self._str_key_maps.clear()  # they named the maps replaced
        by_kg = self._maps
        for kg, m in kg_maps.items():
            by_kg[kg] = m

    def _map_for_key(self, key: Any) -> dict[Any, Any]:
        """The state table's void-namespace map holding ``key`` (checks the key group first).

        ``str`` and ``int`` keys (exact types) get their key groups cached in separate dicts:
        ``True`` and ``1.0`` equal ``1`` in Python but hash to other key groups in Java, so
        they are never cached.
        """
        kg = self.keyed_state_backend.checked_key_group(key)  # type: ignore[union-attr]
        m = self._maps[kg]
        if m is None:
            m = self._state.table.logged_namespace_map(kg, VOID_NAMESPACE)
            self._maps[kg] = self._kg_maps[kg] = m
        tk = type(key)
        if tk is str:
            cache: dict[Any, int] = self._str_kgs
        elif tk is int:
            cache = self._int_kgs
        else:
            self._state.table.note_mixed_key()
            return m
        if self._own_kgs:  # (a shared memo got the key group from checked_key_group)
            if len(cache) >= _KEY_CACHE_LIMIT:
                cache.clear()
            cache[key] = kg
        return m


register_operator("StreamGroupedReduce", StreamGroupedReduce)
