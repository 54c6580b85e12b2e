"""The broadcast state pattern's streams (PyFlink's ``BroadcastStream`` and
``BroadcastConnectedStream`` in ``pyflink.datastream.data_stream``; Flink's classes).

``stream.broadcast(descriptor, ...)`` gives a ``BroadcastStream`` (BROADCAST partitioning plus the
``MapStateDescriptor`` of each broadcast state); ``other.connect(broadcast_stream)`` gives a
``BroadcastConnectedStream`` whose ``process`` builds Flink's ``Co-Process-Broadcast`` (non-keyed)
or ``Co-Process-Broadcast-Keyed`` two-input operator.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.common.typeinfo import TypeInformation
from pyflowkit.datastream._util import check_type_info, has_class_in_mro
from pyflowkit.datastream.data_stream import DataStream
from pyflowkit.errors import IllegalArgumentException, UnsupportedOperationException
from pyflowkit.graph.transformations import (
    ChainingStrategy,
    OperatorFactory,
    TwoInputTransformation,
)


def check_broadcast_descriptors(descriptors: tuple[Any, ...]) -> list[Any]:
    """Each must be a ``MapStateDescriptor`` without TTL (Flink's ``broadcast(...)`` checks)."""
    from pyflowkit.datastream.state import MapStateDescriptor

    for d in descriptors:
        if not isinstance(d, MapStateDescriptor):
            raise IllegalArgumentException(
                f"broadcast(): broadcast state must be described by MapStateDescriptors, got "
                f"{d!r} ({type(d).__name__}). The stream is unchanged."
            )
        ttl = d.get_ttl_config()
        if ttl is not None and ttl.is_enabled():
            raise UnsupportedOperationException(
                f"broadcast(): broadcast state '{d.name}' has a time-to-live; TTL is only "
                "supported for keyed state. The stream is unchanged."
            )
    return list(descriptors)


class BroadcastStream:
    """A stream whose records reach every parallel instance, with its broadcast states.

    Mirrors PyFlink's ``BroadcastStream`` (Flink's ``BroadcastStream``).
    """

    def __init__(self, input_stream: DataStream, broadcast_state_descriptors: list[Any]) -> None:
        self.input_stream = input_stream
        self.broadcast_state_descriptors = list(broadcast_state_descriptors)

    def get_execution_environment(self) -> Any:
        return self.input_stream._env


class BroadcastConnectedStream:
    """A (keyed or non-keyed) stream connected with a ``BroadcastStream``.

    Mirrors PyFlink's ``BroadcastConnectedStream`` (Flink's ``BroadcastConnectedStream``).
    """

    def __init__(
        self,
        non_broadcast_stream: DataStream,
        broadcast_stream: BroadcastStream,
        broadcast_state_descriptors: list[Any],
    ) -> None:
        self.non_broadcast_stream = non_broadcast_stream
        self.broadcast_stream = broadcast_stream
        self.broadcast_state_descriptors = list(broadcast_state_descriptors)

    def process(self, func: Any, output_type: TypeInformation | None = None) -> DataStream:
        """``Co-Process-Broadcast-Keyed`` for a KeyedBroadcastProcessFunction on a keyed stream,
        ``Co-Process-Broadcast`` for a BroadcastProcessFunction on a non-keyed one."""
        from pyflowkit.datastream.keyed_stream import KeyedStream

        check_type_info(output_type, "BroadcastConnectedStream.process()")
        for method in ("process_element", "process_broadcast_element"):
            if not callable(getattr(func, method, None)):
                raise IllegalArgumentException(
                    "BroadcastConnectedStream.process() needs a BroadcastProcessFunction or "
                    f"KeyedBroadcastProcessFunction with {method}, got {func!r}."
                )
        keyed = isinstance(self.non_broadcast_stream, KeyedStream)
        keyed_function = has_class_in_mro(func, "KeyedBroadcastProcessFunction")
        if keyed and not keyed_function:
            raise UnsupportedOperationException(
                "BroadcastConnectedStream.process(): a keyed stream connected with a broadcast "
                "stream needs a KeyedBroadcastProcessFunction."
            )
        if not keyed and keyed_function:
            raise UnsupportedOperationException(
                "BroadcastConnectedStream.process(): a KeyedBroadcastProcessFunction needs a keyed "
                "stream (call key_by() before connect())."
            )
        name = "Co-Process-Broadcast-Keyed" if keyed else "Co-Process-Broadcast"
        operator = "CoBroadcastWithKeyedOperator" if keyed else "CoBroadcastWithNonKeyedOperator"
        first = self.non_broadcast_stream
        env = first._env
        params = {
            "function": func,
            "broadcast_state_descriptors": self.broadcast_state_descriptors,
        }
        t = TwoInputTransformation(
            first._transformation,
            self.broadcast_stream.input_stream._transformation,
            name,
            OperatorFactory(operator, ChainingStrategy.HEAD, params),
            output_type,
            env.get_parallelism(),
        )
        if keyed:
            t.state_key_selector1 = first._state_key_selector  # type: ignore[attr-defined]
            t.state_key_type = first._key_type  # type: ignore[attr-defined]
        env._add_operator(t)
        return DataStream(env, t)
