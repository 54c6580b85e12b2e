"""Declared ``Types`` enforced on an operator's records and keys, where PyFlink enforces them.

Stands for PyFlink's typed coders (``IntCoderImpl``, ``StringCoderImpl``, ``TupleCoderImpl``,
``RowCoderImpl``…): a record that does not fit the declared ``TypeInformation`` fails the job where
it is serialised — on a network edge or into a (Java) sink; records between fused Python
operators of one chain are passed as objects. Undeclared types (``PICKLED_BYTE_ARRAY``) and types
without a strict coder here (lists, maps, arrays, time types) are not checked. A batch is checked
a column at a time in C (``str.join``, ``array``), a record at a time only to name the misfit.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

from pyflowkit.java_semantics import INT_MAX_VALUE, INT_MIN_VALUE, LONG_MAX_VALUE, LONG_MIN_VALUE
from pyflowkit.operators.output import Output

#: Java's integer ranges and the ``array`` typecode of that width, by BasicType value.
INT_RANGES: dict[str, tuple[int, int]] = {
    "Byte": (-(2**7), 2**7 - 1),
    "Short": (-(2**15), 2**15 - 1),
    "Integer": (INT_MIN_VALUE, INT_MAX_VALUE),
    "Long": (LONG_MIN_VALUE, LONG_MAX_VALUE),
}
_INT_CODES = {"Byte": "b", "Short": "h", "Integer": "i", "Long": "q"}
_NUMBERS = (int, float)


def _short(value: Any) -> str:
    text = repr(value)
    return f"{text[:57]}..." if len(text) > 60 else text


class TypeCheck:
    """One declared type's check: ``why_not(v)`` per record, ``all_fit(values)`` per batch."""

    def why_not(self, value: Any) -> str | None:
        raise NotImplementedError

    def all_fit(self, values: Sequence[Any]) -> bool:
        why_not = self.why_not
        return all(why_not(v) is None for v in values)


class _StringCheck(TypeCheck):
    def why_not(self, value: Any) -> str | None:
        return None if isinstance(value, str) else "a str is required"

    def all_fit(self, values: Sequence[Any]) -> bool:
        try:
            "".join(values)
        except TypeError:
            return False
        return True


class _ArrayCheck(TypeCheck):
    """Integers of one Java width (``array`` refuses non-ints and out-of-range values in C)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.code = _INT_CODES.get(name, "d")
        self.low, self.high = INT_RANGES.get(name, (0, 0))

    def why_not(self, value: Any) -> str | None:
        if self.code == "d":
            return None if isinstance(value, _NUMBERS) else "a float is required"
        if not isinstance(value, int):
            return "an integer is required"
        if not self.low <= value <= self.high:
            return f"value out of range for {self.name} ({self.low} to {self.high})"
        return None

    def all_fit(self, values: Sequence[Any]) -> bool:
        try:
            array(self.code, values)
        except (TypeError, OverflowError):
            return False
        return True


class _BooleanCheck(TypeCheck):
    def why_not(self, value: Any) -> str | None:
        return None if isinstance(value, int) else "a bool is required"


class _TupleCheck(TypeCheck):
    """``Java TupleN<…>``: a tuple of exactly N fields, each fitting its type (no nulls)."""

    is_row = False

    def __init__(self, fields: list[TypeCheck | None]) -> None:
        self.arity = len(fields)
        self.fields = [(i, c) for i, c in enumerate(fields) if c is not None]

    def _values(self, value: Any) -> Any:
        return value if isinstance(value, tuple) else None

    def why_not(self, value: Any) -> str | None:
        values = self._values(value)
        if values is None:
            return "a Row is required" if self.is_row else "a tuple is required"
        if len(values) != self.arity:
            return f"{self.arity} fields are required, got {len(values)}"
        for i, check in self.fields:
            field = values[i]
            if field is None and self.is_row:
                continue  # RowCoder writes a null mask; TupleCoder has none
            why = check.why_not(field)
            if why is not None:
                return f"field {i} ({_short(field)}): {why}"
        return None

    def all_fit(self, values: Sequence[Any]) -> bool:
        if not values:
            return True
        try:  # one pass: a non-tuple raises (then the per-record path names it)
            if set(map(tuple.__len__, values)) != {self.arity}:
                return False
        except TypeError:
            return False
        return all(check.all_fit(list(map(itemgetter(i), values))) for i, check in self.fields)


class _RowCheck(_TupleCheck):
    is_row = True

    def _values(self, value: Any) -> Any:
        from pyflowkit.common.types import Row

        return value._values if isinstance(value, Row) else None

    def all_fit(self, values: Sequence[Any]) -> bool:
        return TypeCheck.all_fit(self, values)


def _basic_check(name: str) -> TypeCheck | None:
    if name == "String":
        return _StringCheck()
    if name in _INT_CODES or name in ("Float", "Double"):
        return _ArrayCheck(name)
    if name == "Boolean":
        return _BooleanCheck()
    return None


def value_check(type_info: Any) -> TypeCheck | None:
    """The check of ``type_info``'s coder, or None when the type is not checked (pickled, lists…)."""
    from pyflowkit.common.typeinfo import BasicTypeInfo, RowTypeInfo, TupleTypeInfo

    if isinstance(type_info, BasicTypeInfo):
        return _basic_check(type_info.basic_type.value)
    if isinstance(type_info, (TupleTypeInfo, RowTypeInfo)):
        fields = [value_check(t) for t in type_info.get_field_types()]
        return (_RowCheck if isinstance(type_info, RowTypeInfo) else _TupleCheck)(fields)
    return None


def first_misfit(check: TypeCheck, values: Sequence[Any]) -> tuple[int, str] | None:
    """(index, why) of the first value that does not fit; one C pass per column when all fit."""
    if check.all_fit(values):
        return None
    why_not = check.why_not
    for i, v in enumerate(values):
        why = why_not(v)
        if why is not None:
            return i, why
    return None


def mismatch(operator: str, what: str, declared: Any, value: Any, why: str) -> TypeError:
    """PyFlink's kind of error (a ``TypeError`` from the coder), naming operator, type and value."""
    fix = (
        "return keys of the declared key_type, or leave key_type out"
        if what == "key"
        else "return values of the declared type, or declare the type the function returns "
        "(records of undeclared types travel pickled)"
    )
    return TypeError(
        f"{operator}: cannot serialize {what} {_short(value)} ({type(value).__name__}) with its "
        f"declared type {declared}: {why}. Fix: {fix}."
    )


class DeclaredTypeOutput(Output):
    """Checks each record an operator emits against its declared output (and side output) type
    before passing it on (PyFlink serialises the records a Python function returns)."""

    def __init__(
        self, inner: Output, operator: str, declared: Any, check: TypeCheck | None
    ) -> None:
        self.inner = inner
        self.operator = operator
        self.declared = declared
        self.check = check
        self._side_checks: dict[int, TypeCheck | None] = {}
        if check is None:
            self.collect = inner.collect  # type: ignore[method-assign]
            self.collect_batch = inner.collect_batch  # type: ignore[method-assign]
        else:
            self._why_not = check.why_not

    def collect(self, value: Any, timestamp: int | None) -> None:
        why = self._why_not(value)
        if why is not None:
            raise mismatch(self.operator, "record", self.declared, value, why)
        self.inner.collect(value, timestamp)

    def collect_batch(self, values: Sequence[Any], timestamps: Sequence[int | None] | None) -> None:
        bad = first_misfit(self.check, values)  # type: ignore[arg-type]
        if bad is not None:
            raise mismatch(self.operator, "record", self.declared, values[bad[0]], bad[1])
        self.inner.collect_batch(values, timestamps)

    def collect_side(self, output_tag: Any, value: Any, timestamp: int | None) -> None:
        type_info = getattr(output_tag, "type_info", None)
        key = id(output_tag)
        if key not in self._side_checks:
            self._side_checks[key] = value_check(type_info)
        check = self._side_checks[key]
        if check is not None:
            why = check.why_not(value)
            if why is not None:
                what = f"side output '{getattr(output_tag, 'tag_id', output_tag)}' record"
                raise mismatch(self.operator, what, type_info, value, why)
        self.inner.collect_side(output_tag, value, timestamp)

    def emit_watermark(self, watermark: int) -> None:
        self.inner.emit_watermark(watermark)

    def close(self) -> None:
        self.inner.close()


def key_check(key_type: Any, operator: str) -> Callable[[Any], None] | None:
    """A check of keys against ``key_by(..., key_type=...)`` that raises, or None (undeclared).

    The keyed state backend runs it once per new key (on a key-group cache miss), not per record.
    """
    check = value_check(key_type)
    if check is None:
        return None

    def check_key(key: Any) -> None:
        why = check.why_not(key)
        if why is not None:
            raise mismatch(operator, "key", key_type, key, why)

    return check_key


def serialized_edges(node: Any, chained: set[int]) -> bool:
    """Whether a record of ``node`` is serialised: it crosses the network or enters a sink."""
    return any(id(e) not in chained or not e.target.out_edges for e in node.out_edges)
