"""``ConnectedStreams`` (PyFlink's ``pyflink.datastream.ConnectedStreams``, Flink's class).

Two streams feeding one two-input operator: ``Co-Map``, ``Co-Flat Map``, ``Co-Process`` or
``Co-Keyed-Process`` — all HEAD in Flink 1.11 (they never chain to their inputs).
"""

from __future__ import annotations

from typing import Any

from pyflowkit.common.typeinfo import TypeInformation
from pyflowkit.datastream._util import check_function, check_type_info, has_class_in_mro
from pyflowkit.datastream.data_stream import DataStream, _display_name
from pyflowkit.errors import IllegalArgumentException, UnsupportedOperationException
from pyflowkit.graph.transformations import (
    ChainingStrategy,
    OperatorFactory,
    TwoInputTransformation,
)


class ConnectedStreams:
    """Flink's ``ConnectedStreams``: ``first`` and ``second`` inputs of a two-input operator."""

    def __init__(self, stream1: DataStream, stream2: DataStream) -> None:
        self.stream1 = stream1
        self.stream2 = stream2

    def get_execution_environment(self) -> Any:
        return self.stream1._env

    def _keyed(self) -> bool:
        from pyflowkit.datastream.keyed_stream import KeyedStream

        return isinstance(self.stream1, KeyedStream) and isinstance(self.stream2, KeyedStream)

    def key_by(
        self, key_selector1: Any, key_selector2: Any, key_type: TypeInformation | None = None
    ) -> ConnectedStreams:
        """Keys both inputs (Flink's ``keyBy(KeySelector, KeySelector)``)."""
        check_function(key_selector1, ("get_key",), "ConnectedStreams.key_by()", "KeySelector")
        check_function(key_selector2, ("get_key",), "ConnectedStreams.key_by()", "KeySelector")
        first = self.stream1.key_by(key_selector1, key_type)
        second = self.stream2.key_by(key_selector2, key_type)
        return ConnectedStreams(first, second)

    def _two_input(
        self, name: str, operator_class: str, func: Any, output_type: TypeInformation | None
    ) -> DataStream:
        env = self.stream1._env
        keyed = self._keyed()
        if keyed:
            k1, k2 = self.stream1._key_type, self.stream2._key_type  # type: ignore[attr-defined]
            if k1 is not None and k2 is not None and k1 != k2:
                raise UnsupportedOperationException(
                    f"Key types if input KeyedStreams don't match: {k1} and {k2}. ({name} of "
                    f"'{_display_name(self.stream1._transformation)}' and "
                    f"'{_display_name(self.stream2._transformation)}')"
                )
        t = TwoInputTransformation(
            self.stream1._transformation,
            self.stream2._transformation,
            name,
            OperatorFactory(operator_class, ChainingStrategy.HEAD, {"function": func}),
            output_type,
            env.get_parallelism(),
        )
        if keyed:
            t.state_key_selector1 = self.stream1._state_key_selector  # type: ignore[attr-defined]
            t.state_key_selector2 = self.stream2._state_key_selector  # type: ignore[attr-defined]
            t.state_key_type = self.stream1._key_type or self.stream2._key_type  # type: ignore[attr-defined]
        env._add_operator(t)
        return DataStream(env, t)

    def map(self, func: Any, output_type: TypeInformation | None = None) -> DataStream:
        self._check_co(func, ("map1", "map2"), "map()", "CoMapFunction")
        check_type_info(output_type, "ConnectedStreams.map()")
        return self._two_input("Co-Map", "CoStreamMap", func, output_type)

    def flat_map(self, func: Any, output_type: TypeInformation | None = None) -> DataStream:
        self._check_co(func, ("flat_map1", "flat_map2"), "flat_map()", "CoFlatMapFunction")
        check_type_info(output_type, "ConnectedStreams.flat_map()")
        return self._two_input("Co-Flat Map", "CoStreamFlatMap", func, output_type)

    def process(self, func: Any, output_type: TypeInformation | None = None) -> DataStream:
        """``Co-Process`` (CoProcessFunction) or, on two keyed inputs, ``Co-Keyed-Process``."""
        self._check_co(
            func,
            ("process_element1", "process_element2"),
            "process()",
            "CoProcessFunction or KeyedCoProcessFunction",
        )
        check_type_info(output_type, "ConnectedStreams.process()")
        keyed_function = has_class_in_mro(func, "KeyedCoProcessFunction")
        if keyed_function and not self._keyed():
            raise UnsupportedOperationException(
                "KeyedCoProcessFunction can only be used when both input streams are of type "
                "KeyedStream. (call key_by(key_selector1, key_selector2) first)"
            )
        if not self._keyed():
            return self._two_input("Co-Process", "CoProcessOperator", func, output_type)
        # Flink 1.11: a CoProcessFunction on keyed inputs is "Co-Process"
        # (LegacyKeyedCoProcessOperator); a KeyedCoProcessFunction is "Co-Keyed-Process".
        legacy = has_class_in_mro(func, "CoProcessFunction") and not keyed_function
        name = "Co-Process" if legacy else "Co-Keyed-Process"
        return self._two_input(name, "KeyedCoProcessOperator", func, output_type)

    @staticmethod
    def _check_co(func: Any, methods: tuple[str, str], api: str, interface: str) -> None:
        if func is None or not all(callable(getattr(func, m, None)) for m in methods):
            raise IllegalArgumentException(
                f"ConnectedStreams.{api} needs a {interface} implementing {methods[0]} and "
                f"{methods[1]}, got {func!r}."
            )
