"""State descriptors and state interfaces, named as PyFlink's ``pyflink.datastream.state``.

A descriptor names a piece of keyed state; ``RuntimeContext.get_state(descriptor)`` returns the
state object (implemented by ``pyflowkit.state.heap``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from typing import Any, Generic, TypeVar

from pyflowkit.datastream.state_ttl_config import StateTtlConfig
from pyflowkit.errors import IllegalArgumentException

__all__ = [
    "AggregatingState",
    "AggregatingStateDescriptor",
    "ListState",
    "ListStateDescriptor",
    "MapState",
    "MapStateDescriptor",
    "ReducingState",
    "ReducingStateDescriptor",
    "AppendingState",
    "BroadcastState",
    "OperatorStateStore",
    "ReadOnlyBroadcastState",
    "MergingState",
    "State",
    "StateDescriptor",
    "StateTtlConfig",
    "ValueState",
    "ValueStateDescriptor",
]


T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")
IN = TypeVar("IN")
OUT = TypeVar("OUT")


class StateDescriptor(ABC):
    """Flink's ``StateDescriptor``: a state's name and type; equal names mean the same state."""

    kind: str = "?"

    def __init__(self, name: str, type_info: Any = None) -> None:
        if not isinstance(name, str) or not name:
            raise IllegalArgumentException(
                f"A state descriptor needs a non-empty string name, got {name!r}."
            )
        self.name = name
        self.type_info = type_info
        self._ttl_config: StateTtlConfig | None = None

    def get_name(self) -> str:
        return self.name

    def enable_time_to_live(self, ttl_config: StateTtlConfig) -> None:
        """Values of this state expire ``ttl`` after their last write (or read, as configured).

        Mirrors PyFlink's ``StateDescriptor.enable_time_to_live``; keyed state only (a non-keyed
        operator's state with a TTL is refused when it is created).
        """
        if not isinstance(ttl_config, StateTtlConfig):
            raise IllegalArgumentException(
                f"State '{self.name}': enable_time_to_live needs a StateTtlConfig, got "
                f"{ttl_config!r}."
            )
        self._ttl_config = ttl_config

    def get_ttl_config(self) -> StateTtlConfig | None:
        """The TTL configured with ``enable_time_to_live``, or None."""
        return self._ttl_config

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class ValueStateDescriptor(StateDescriptor):
    """PyFlink's ``ValueStateDescriptor(name, value_type_info)``."""

    kind = "value"

    def __init__(self, name: str, value_type_info: Any = None) -> None:
        super().__init__(name, value_type_info)


class ListStateDescriptor(StateDescriptor):
    """PyFlink's ``ListStateDescriptor(name, elem_type_info)``."""

    kind = "list"

    def __init__(self, name: str, elem_type_info: Any = None) -> None:
        super().__init__(name, elem_type_info)
        self.elem_type_info = elem_type_info


class MapStateDescriptor(StateDescriptor):
    """PyFlink's ``MapStateDescriptor(name, key_type_info, value_type_info)``."""

    kind = "map"

    def __init__(self, name: str, key_type_info: Any = None, value_type_info: Any = None) -> None:
        super().__init__(name, value_type_info)
        self.key_type_info = key_type_info
        self.value_type_info = value_type_info


class ReducingStateDescriptor(StateDescriptor):
    """PyFlink's ``ReducingStateDescriptor(name, reduce_function, type_info)``."""

    kind = "reducing"

    def __init__(self, name: str, reduce_function: Any, type_info: Any = None) -> None:
        super().__init__(name, type_info)
        fn = getattr(reduce_function, "reduce", reduce_function)
        if not callable(fn):
            raise IllegalArgumentException(
                f"ReducingStateDescriptor '{name}' needs a ReduceFunction or a callable, got "
                f"{reduce_function!r}."
            )
        self.reduce_function = reduce_function
        self.reduce = fn

    def get_reduce_function(self) -> Any:
        return self.reduce_function


class AggregatingStateDescriptor(StateDescriptor):
    """PyFlink's ``AggregatingStateDescriptor(name, agg_function, state_type_info)``."""

    kind = "aggregating"

    def __init__(self, name: str, agg_function: Any, state_type_info: Any = None) -> None:
        super().__init__(name, state_type_info)
        for method in ("create_accumulator", "add", "get_result"):
            if not callable(getattr(agg_function, method, None)):
                raise IllegalArgumentException(
                    f"AggregatingStateDescriptor '{name}' needs an AggregateFunction; "
                    f"{agg_function!r} has no '{method}' method."
                )
        self.agg_function = agg_function

    def get_agg_function(self) -> Any:
        return self.agg_function


class State(ABC):
    """Flink's ``State``: every state can be cleared for the current key."""

    @abstractmethod
    def clear(self) -> None: ...


class ValueState(State, Generic[T]):
    """PyFlink's ``ValueState``: ``value()`` (None when unset), ``update(v)``."""

    @abstractmethod
    def value(self) -> Any: ...

    @abstractmethod
    def update(self, value: Any) -> None: ...


class AppendingState(State, Generic[IN, OUT]):
    """A state that is appended to and read as a whole.

    Mirrors PyFlink's ``AppendingState`` (Flink's ``AppendingState<IN, OUT>``).
    """

    @abstractmethod
    def get(self) -> OUT: ...

    @abstractmethod
    def add(self, value: IN) -> None: ...


class MergingState(AppendingState[IN, OUT]):
    """An appending state whose namespaces can be merged (session windows).

    Mirrors PyFlink's ``MergingState`` (Flink's ``MergingState<IN, OUT>``).
    """


class ListState(MergingState[T, Iterable[T]]):
    """PyFlink's ``ListState``: ``get()``, ``add``, ``add_all``, ``update``."""

    @abstractmethod
    def get(self) -> Iterable[Any]: ...

    @abstractmethod
    def add(self, value: Any) -> None: ...

    @abstractmethod
    def add_all(self, values: Iterable[Any]) -> None: ...

    @abstractmethod
    def update(self, values: Iterable[Any]) -> None: ...

    def __iter__(self) -> Iterator[Any]:
        return iter(self.get())


class MapState(State, Generic[K, V]):
    """PyFlink's ``MapState``: a per-key dictionary."""

    @abstractmethod
    def get(self, key: Any) -> Any: ...

    @abstractmethod
    def put(self, key: Any, value: Any) -> None: ...

    @abstractmethod
    def put_all(self, dict_value: dict[Any, Any]) -> None: ...

    @abstractmethod
    def remove(self, key: Any) -> None: ...

    @abstractmethod
    def contains(self, key: Any) -> bool: ...

    @abstractmethod
    def items(self) -> Iterable[tuple[Any, Any]]: ...

    @abstractmethod
    def keys(self) -> Iterable[Any]: ...

    @abstractmethod
    def values(self) -> Iterable[Any]: ...

    @abstractmethod
    def is_empty(self) -> bool: ...

    def __getitem__(self, key: Any) -> Any:
        return self.get(key)

    def __setitem__(self, key: Any, value: Any) -> None:
        self.put(key, value)

    def __delitem__(self, key: Any) -> None:
        self.remove(key)

    def __contains__(self, key: Any) -> bool:
        return self.contains(key)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.keys())


class ReducingState(MergingState[T, T]):
    """PyFlink's ``ReducingState``: ``add`` folds with the reduce function; ``get()``."""

    @abstractmethod
    def get(self) -> Any: ...

    @abstractmethod
    def add(self, value: Any) -> None: ...


class AggregatingState(MergingState[IN, OUT]):
    """PyFlink's ``AggregatingState``: ``add`` into the accumulator; ``get()`` the result."""

    @abstractmethod
    def get(self) -> Any: ...

    @abstractmethod
    def add(self, value: Any) -> None: ...


class ReadOnlyBroadcastState(State, Generic[K, V]):
    """The broadcast state as the non-broadcast side sees it: reads only.

    Mirrors PyFlink's ``ReadOnlyBroadcastState`` (Flink's ``ReadOnlyBroadcastState``).
    """

    @abstractmethod
    def get(self, key: K) -> V | None: ...

    @abstractmethod
    def contains(self, key: K) -> bool: ...

    @abstractmethod
    def items(self) -> Iterable[tuple[K, V]]: ...

    @abstractmethod
    def keys(self) -> Iterable[K]: ...

    @abstractmethod
    def values(self) -> Iterable[V]: ...

    @abstractmethod
    def is_empty(self) -> bool: ...


class BroadcastState(ReadOnlyBroadcastState[K, V]):
    """The broadcast state as the broadcast side sees it: reads and writes.

    Mirrors PyFlink's ``BroadcastState`` (Flink's ``BroadcastState``).
    """

    @abstractmethod
    def put(self, key: K, value: V) -> None: ...

    @abstractmethod
    def put_all(self, dict_value: dict[K, V]) -> None: ...

    @abstractmethod
    def remove(self, key: K) -> None: ...


class OperatorStateStore(ABC):
    """Non-keyed state of an operator; PyFlink exposes its broadcast state.

    Mirrors PyFlink's ``OperatorStateStore``.
    """

    @abstractmethod
    def get_broadcast_state(self, state_descriptor: MapStateDescriptor) -> BroadcastState: ...
