"""Declared ``Types`` applied to an operator's records and keys, where PyFlink serialises them.

Stands for PyFlink's typed coders (``IntCoderImpl``, ``FloatCoderImpl``, ``TupleCoderImpl``,
``RowCoderImpl``… in ``pyflink/fn_execution/coder_impl_fast.pyx``): a record is encoded with its
declared ``TypeInformation`` where it is serialised — on a network edge or into a (Java) sink —
and the next operator sees what the coder reads back: a FLOAT as a 32-bit float, a 3.7 declared
INT as 3, a bool declared INT as 1, a 3-tuple declared as a 2-tuple as its first two fields. A
record the coder refuses fails the job (an int out of range: ``OverflowError``). Records between
fused Python operators of one chain are passed as objects, unconverted. Undeclared types
(``PICKLED_BYTE_ARRAY``) and types without a coder here (lists, maps, arrays, time types) pass
as they are. The number rules themselves live in ``pyflowkit.java_semantics``. A batch is
converted a column at a time in C (``str.join``, ``array``), a record at a time only to name the
misfit.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

from pyflowkit.java_semantics import (
    INT_BITS,
    INT_MAX_VALUE,
    INT_MIN_VALUE,
    LONG_MAX_VALUE,
    LONG_MIN_VALUE,
    coder_boolean,
    coder_float,
    coder_int,
    coder_real,
    java_float,
    java_floats,
    java_narrow,
)
from pyflowkit.operators.output import Output

#: Java's integer ranges and the ``array`` typecode of that width, by BasicType value.
INT_RANGES: dict[str, tuple[int, int]] = {
    "Byte": (-(2**7), 2**7 - 1),
    "Short": (-(2**15), 2**15 - 1),
    "Integer": (INT_MIN_VALUE, INT_MAX_VALUE),
    "Long": (LONG_MIN_VALUE, LONG_MAX_VALUE),
}
_INT_CODES = {"Byte": "b", "Short": "h", "Integer": "i", "Long": "q"}


def _short(value: Any) -> str:
    text = repr(value)
    return f"{text[:57]}..." if len(text) > 60 else text


class Misfit(Exception):
    """A value the declared type's coder refuses: ``why`` and the exception PyFlink raises."""

    def __init__(self, why: str, error: type[Exception] = TypeError) -> None:
        super().__init__(why)
        self.why = why
        self.error = error


def _misfit(exc: Exception) -> Misfit:
    return Misfit(str(exc), type(exc) if isinstance(exc, OverflowError | ValueError) else TypeError)


class TypeCheck:
    """One declared type's coder: ``convert(v)`` per record (the value the coder reads back, or
    ``Misfit``), ``convert_all(values)`` per batch (the same list when nothing changes)."""

    def convert(self, value: Any) -> Any:
        raise NotImplementedError

    def convert_all(self, values: Sequence[Any]) -> Sequence[Any]:
        convert = self.convert
        converted = [convert(v) for v in values]
        return values if _same(converted, values) else converted

    def why_not(self, value: Any) -> str | None:
        """Why the coder refuses ``value``, or None when it takes it (perhaps converted)."""
        try:
            self.convert(value)
        except Misfit as misfit:
            return misfit.why
        return None

    def all_fit(self, values: Sequence[Any]) -> bool:
        try:
            self.convert_all(values)
        except Misfit:
            return False
        return True


def _same(converted: Sequence[Any], values: Sequence[Any]) -> bool:
    """Whether a conversion changed nothing: each value the identical object."""
    return len(converted) == len(values) and all(map(_is, converted, values))


def _is(a: Any, b: Any) -> bool:
    return a is b


class _StringCheck(TypeCheck):
    def convert(self, value: Any) -> Any:
        if isinstance(value, str):
            return value
        raise Misfit("a str is required")

    def convert_all(self, values: Sequence[Any]) -> Sequence[Any]:
        try:
            "".join(values)
        except TypeError:
            return TypeCheck.convert_all(self, values)
        return values


class _IntCheck(TypeCheck):
    """``TinyIntCoderImpl`` … ``BigIntCoderImpl``: an int of one Java width (``coder_int``)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.bits = INT_BITS[name]
        self.code = _INT_CODES[name]

    def convert(self, value: Any) -> Any:
        if type(value) is int and -(1 << (self.bits - 1)) <= value < (1 << (self.bits - 1)):
            return value
        try:
            return coder_int(value, self.bits)
        except (TypeError, OverflowError, ValueError) as exc:
            raise _misfit(exc) from None

    def convert_all(self, values: Sequence[Any]) -> Sequence[Any]:
        if not values:
            return values
        if set(map(type, values)) == {int}:
            try:
                array(self.code, values)  # C range check of the whole column
            except OverflowError:
                pass
            else:
                return values
        return TypeCheck.convert_all(self, values)


class _RealCheck(TypeCheck):
    """``DoubleCoderImpl`` (``coder_real``) or, 32-bit, ``FloatCoderImpl`` (``coder_float``)."""

    def __init__(self, name: str) -> None:
        self.float32 = name == "Float"

    def convert(self, value: Any) -> Any:
        try:
            return coder_float(value) if self.float32 else coder_real(value)
        except TypeError as exc:
            raise _misfit(exc) from None

    def convert_all(self, values: Sequence[Any]) -> Sequence[Any]:
        if not values:
            return values
        if self.float32:
            try:
                return java_floats(values)  # one C pass: array('f')
            except TypeError:
                return TypeCheck.convert_all(self, values)
        if set(map(type, values)) == {float}:
            return values
        return TypeCheck.convert_all(self, values)


class _BooleanCheck(TypeCheck):
    def convert(self, value: Any) -> Any:
        if type(value) is bool:
            return value
        try:
            return coder_boolean(value)
        except (TypeError, OverflowError, ValueError) as exc:
            raise _misfit(exc) from None


class _TupleCheck(TypeCheck):
    """``TupleCoderImpl`` (``Java TupleN<…>``): a tuple of at least N fields, each converted by
    its type (no nulls); the coder writes only the first N (a longer tuple arrives cut)."""

    is_row = False

    def __init__(self, fields: list[TypeCheck | None]) -> None:
        self.arity = len(fields)
        self.fields = [(i, c) for i, c in enumerate(fields) if c is not None]

    def _values(self, value: Any) -> Any:
        return value if isinstance(value, tuple) else None

    def _rebuild(self, value: Any, fields: list[Any]) -> Any:
        return tuple(fields)

    def convert(self, value: Any) -> Any:
        values = self._values(value)
        if values is None:
            raise Misfit("a Row is required" if self.is_row else "a tuple is required")
        if len(values) < self.arity:
            raise Misfit(f"{self.arity} fields are required, got {len(values)}")
        out: list[Any] | None = list(values[: self.arity]) if len(values) > self.arity else None
        for i, check in self.fields:
            field = values[i]
            if field is None and self.is_row:
                continue  # RowCoder writes a null mask; TupleCoder has none
            try:
                converted = check.convert(field)
            except Misfit as misfit:
                raise Misfit(f"field {i} ({_short(field)}): {misfit.why}", misfit.error) from None
            if converted is not field:
                if out is None:
                    out = list(values)
                out[i] = converted
        return value if out is None else self._rebuild(value, out)

    def convert_all(self, values: Sequence[Any]) -> Sequence[Any]:
        if not values:
            return values
        try:  # one pass: a non-tuple or another arity takes the per-record path
            uniform = set(map(type, values)) == {tuple} and set(map(len, values)) == {self.arity}
        except TypeError:
            uniform = False
        if not uniform:
            return TypeCheck.convert_all(self, values)
        columns: list[Sequence[Any]] = [list(map(itemgetter(i), values)) for i in range(self.arity)]
        changed = False
        for i, check in self.fields:
            try:
                converted = check.convert_all(columns[i])
            except Misfit:
                return TypeCheck.convert_all(self, values)  # names the first misfit
            if converted is not columns[i]:
                columns[i], changed = converted, True
        return list(zip(*columns, strict=True)) if changed else values


class _RowCheck(_TupleCheck):
    """``RowCoderImpl``: a Row of at least N fields; None fields pass (its null mask)."""

    is_row = True

    def _values(self, value: Any) -> Any:
        from pyflowkit.common.types import Row

        return value._values if isinstance(value, Row) else None

    def _rebuild(self, value: Any, fields: list[Any]) -> Any:
        from pyflowkit.common.types import _rebuild_row

        names = value._fields[: self.arity] if value._fields is not None else None
        return _rebuild_row(fields, names, value._row_kind)

    def convert_all(self, values: Sequence[Any]) -> Sequence[Any]:
        return TypeCheck.convert_all(self, values)


def _basic_check(name: str) -> TypeCheck | None:
    if name == "String":
        return _StringCheck()
    if name in INT_BITS:
        return _IntCheck(name)
    if name in ("Float", "Double"):
        return _RealCheck(name)
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
    found = _first_misfit(check, values)
    return None if found is None else (found[0], found[1].why)


def _first_misfit(check: TypeCheck, values: Sequence[Any]) -> tuple[int, Misfit] | None:
    convert = check.convert
    for i, v in enumerate(values):
        try:
            convert(v)
        except Misfit as misfit:
            return i, misfit
    return None


def mismatch(
    operator: str,
    what: str,
    declared: Any,
    value: Any,
    why: str,
    error: type[Exception] = TypeError,
) -> Exception:
    """PyFlink's kind of error (the coder's ``TypeError``/``OverflowError``), naming operator,
    type and value."""
    fix = (
        "return keys of the declared key_type, or leave key_type out"
        if what == "key"
        else "return values of the declared type, or declare the type the function returns "
        "(records of undeclared types travel pickled)"
    )
    return error(
        f"{operator}: cannot serialize {what} {_short(value)} ({type(value).__name__}) with its "
        f"declared type {declared}: {why}. Fix: {fix}."
    )


class DeclaredTypeOutput(Output):
    """Passes each record an operator emits on as its declared output (and side output) type's
    coder reads it back (PyFlink serialises the records a Python function returns)."""

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
            self._convert = check.convert

    def collect(self, value: Any, timestamp: int | None) -> None:
        try:
            converted = self._convert(value)
        except Misfit as misfit:
            raise mismatch(
                self.operator, "record", self.declared, value, misfit.why, misfit.error
            ) from None
        self.inner.collect(converted, timestamp)

    def collect_batch(self, values: Sequence[Any], timestamps: Sequence[int | None] | None) -> None:
        try:
            converted = self.check.convert_all(values)  # type: ignore[union-attr]
        except Misfit:
            i, misfit = _first_misfit(self.check, values)  # type: ignore[arg-type,misc]
            raise mismatch(
                self.operator, "record", self.declared, values[i], misfit.why, misfit.error
            ) from None
        self.inner.collect_batch(converted, timestamps)

    def collect_side(self, output_tag: Any, value: Any, timestamp: int | None) -> None:
        type_info = getattr(output_tag, "type_info", None)
        key = id(output_tag)
        if key not in self._side_checks:
            self._side_checks[key] = value_check(type_info)
        check = self._side_checks[key]
        if check is not None:
            try:
                value = check.convert(value)
            except Misfit as misfit:
                what = f"side output '{getattr(output_tag, 'tag_id', output_tag)}' record"
                raise mismatch(
                    self.operator, what, type_info, value, misfit.why, misfit.error
                ) from None
        self.inner.collect_side(output_tag, value, timestamp)

    def emit_watermark(self, watermark: int) -> None:
        self.inner.emit_watermark(watermark)

    def close(self) -> None:
        self.inner.close()


def key_check(key_type: Any, operator: str) -> Callable[[Any], None] | None:
    """A check of keys against ``key_by(..., key_type=...)`` that raises, or None (undeclared).

    The keyed state backend runs it once per new key (on a key-group cache miss), not per record.
    Keys reach it converted (``converting_key_selector``), so it only guards a selector that was
    not wrapped (a key context set by hand).
    """
    check = value_check(key_type)
    if check is None:
        return None

    def check_key(key: Any) -> None:
        try:
            check.convert(key)
        except Misfit as misfit:
            raise key_mismatch(operator, key_type, key, misfit) from None

    return check_key


def key_mismatch(operator: str, key_type: Any, key: Any, misfit: Misfit) -> Exception:
    """The job failure for a key its declared ``key_type``'s coder refuses.

    PyFlink 1.20 writes the key with the type's coder as the first field of the ``Row(key, value)``
    its ``key_by`` map emits: a non-str key under STRING fails in ``value.encode('utf-8')``
    (``AttributeError: 'int' object has no attribute 'encode'``); an int out of range fails the
    Cython coder (``OverflowError: value too large to convert to int32_t``).
    """
    why, error = misfit.why, misfit.error
    if isinstance(value_check(key_type), _StringCheck) and not isinstance(key, str):
        why, error = f"'{type(key).__name__}' object has no attribute 'encode'", AttributeError
    return mismatch(operator, "key", key_type, key, why, error)


def converting_key_selector(
    selector: Callable[[Any], Any], key_type: Any, operator: str
) -> Callable[[Any], Any]:
    """``selector`` whose keys are converted by ``key_type``'s coder, as PyFlink's ``key_by`` does.

    PyFlink's ``key_by`` map encodes the selected key with the declared type's coder, and every
    later step (routing by the key's Java hash, key context, state scoping, the keyed operator's
    ``ctx.get_current_key()``) sees the decoded key: float keys under INT are truncated by
    ``int()`` (1.7 and 1.2 share key 1), FLOAT rounds to 32 bits, BOOLEAN takes ``bool()`` of a
    number, Tuple/Row keys convert field by field. A key the coder refuses fails the job with the
    key_by's name and PyFlink's own text. ``selector`` is returned as is for an undeclared key
    type (keys travel pickled) or one without a checked coder.
    """
    check = value_check(key_type)
    if check is None:
        return selector
    convert, convert_all = check.convert, check.convert_all

    def select_converted_key(value: Any) -> Any:
        key = selector(value)
        try:
            return convert(key)
        except Misfit as misfit:
            raise key_mismatch(operator, key_type, key, misfit) from None

    def refuse_first_misfit(keys: list[Any]) -> None:
        found = _first_misfit(check, keys)
        if found is not None:
            raise key_mismatch(operator, key_type, keys[found[0]], found[1])

    def select_converted_keys(values: Sequence[Any]) -> list[Any]:
        """``select_converted_key`` of each value: the selector per record, the coder per column
        (``convert_all``: one C pass); the same failure first as record by record."""
        keys: list[Any] = []
        try:
            keys.extend(map(selector, values))
        except BaseException:  # a refused key before the failing record fails first
            refuse_first_misfit(keys)
            raise
        try:
            converted = convert_all(keys)
        except Misfit:
            refuse_first_misfit(keys)
            raise
        return keys if converted is keys else list(converted)

    select_converted_key.user_key_selector = selector  # type: ignore[attr-defined]
    select_converted_key.converts_keys = True  # type: ignore[attr-defined]  # see ChannelSelector
    select_converted_key.select_keys = select_converted_keys  # type: ignore[attr-defined]
    return select_converted_key


def collection_converter(type_info: Any) -> Callable[[Any], Any] | None:
    """What ``from_collection`` makes of an element declared ``type_info``, or None (as is).

    Stands for PyFlink's Java-side ``PythonTypeUtils.converter`` (``getCollectionInputFormat``):
    an unpickled ``Integer``/``Long`` declared BYTE/SHORT/INT/LONG is narrowed by a Java cast
    (``java_narrow``: 43878 as SHORT is -21658), a ``Double`` declared FLOAT by ``floatValue()``
    (``java_float``); Tuple and Row fields alike. An element of another kind is left for the
    declared-type check (PyFlink makes it null and fails the job).
    """
    from pyflowkit.common.typeinfo import BasicTypeInfo, RowTypeInfo, TupleTypeInfo

    if isinstance(type_info, BasicTypeInfo):
        name = type_info.basic_type.value
        if name in INT_BITS:
            bits = INT_BITS[name]
            return lambda v: java_narrow(v, bits) if type(v) is int and _fits_long(v) else v
        if name == "Float":
            return lambda v: java_float(v) if type(v) is float else v
        return None
    if isinstance(type_info, (TupleTypeInfo, RowTypeInfo)):
        fields = [collection_converter(t) for t in type_info.get_field_types()]
        if not any(fields):
            return None
        is_row = isinstance(type_info, RowTypeInfo)

        def convert(value: Any) -> Any:
            values = value._values if is_row else value
            if not isinstance(values, tuple | list) or len(values) != len(fields):
                return value
            out = [
                f(v) if f is not None and v is not None else v
                for f, v in zip(fields, values, strict=True)
            ]
            if is_row:
                from pyflowkit.common.types import _rebuild_row

                return _rebuild_row(out, value._fields, value._row_kind)
            return tuple(out) if isinstance(value, tuple) else value

        return convert
    return None


def tuple_columns(type_info: Any, elements: list[Any]) -> list[list[Any]] | None:
    """The fields of ``elements`` column by column when ``type_info`` is a declared tuple and
    every element a plain tuple of its arity (the common shape, checked in C), else None."""
    from pyflowkit.common.typeinfo import TupleTypeInfo

    if not isinstance(type_info, TupleTypeInfo):
        return None
    arity = type_info.get_arity()
    if set(map(type, elements)) != {tuple} or set(map(len, elements)) != {arity}:
        return None
    return [list(map(itemgetter(i), elements)) for i in range(arity)]


def convert_collection(
    type_info: Any, elements: list[Any], columns: list[list[Any]] | None = None
) -> list[Any]:
    """``collection_converter(type_info)`` applied to every element, column by column.

    The same values as converting element by element, at C speed for the common shape (a
    declared tuple, every element a plain tuple of its arity): an integer column that
    ``array(code, column)`` accepts needs no narrowing (every value fits the Java type, so
    ``java_narrow`` is the identity) and a column of Python floats declared FLOAT is rounded in
    one ``array('f')`` pass. Any other column, or another shape, takes the per-value path.
    ``columns``: ``tuple_columns(type_info, elements)`` if the caller has it.
    """
    convert = collection_converter(type_info)
    if convert is None:
        return elements
    columns = list(columns) if columns is not None else tuple_columns(type_info, elements)
    if columns is None:
        return [convert(e) for e in elements]
    changed = False
    for index, field_type in enumerate(type_info.get_field_types()):
        column = _convert_column(field_type, columns[index])
        if column is not None:
            columns[index], changed = column, True
    return list(zip(*columns, strict=True)) if changed else elements


def _convert_column(field_type: Any, column: list[Any]) -> Sequence[Any] | None:
    """One tuple field's converted column, or None when no value changes."""
    field = collection_converter(field_type)
    if field is None:
        return None
    name = getattr(getattr(field_type, "basic_type", None), "value", None)
    if name in _INT_CODES:
        try:
            array(_INT_CODES[name], column)  # ints (or __index__ objects) all in range: as is
            return None
        except (TypeError, OverflowError, ValueError):
            pass
    elif name == "Float" and set(map(type, column)) == {float}:
        return java_floats(column)  # the same C cast as ``java_float``'s native struct
    return [field(v) if v is not None else v for v in column]


def first_null_tuple_field(
    type_info: Any, elements: list[Any], columns: list[list[Any]] | None = None
) -> tuple[int, int] | None:
    """(element, field) of the first None field in ``elements`` declared as a Java tuple, or None.

    Flink's ``TupleSerializer`` refuses null fields (``NullFieldException``: "Field 1 is null, but
    expected to hold a value."), and ``fromCollection`` serializes the whole collection on the
    client (``FromElementsFunction``), so PyFlink refuses such a collection in ``from_collection``
    itself. A ``Row`` allows None fields. Only a declared tuple pays for the scan (in C).
    """
    from pyflowkit.common.typeinfo import TupleTypeInfo

    if not isinstance(type_info, TupleTypeInfo):
        return None
    columns = columns if columns is not None else tuple_columns(type_info, elements)
    none = type(None)
    if columns is not None and not any(none in set(map(type, c)) for c in columns):
        return None  # the common case, column by column in C: no None field at all
    for index, element in enumerate(elements):
        if None in element if type(element) is tuple else _has_none(element):
            field = next((i for i, v in enumerate(element) if v is None), None)
            if field is not None:  # `in` also matched a field equal to None
                return index, field
    return None


def _has_none(element: Any) -> bool:
    return isinstance(element, tuple | list) and any(v is None for v in element)


def _fits_long(value: int) -> bool:
    """Pyrolite unpickles a Python int as ``Integer``/``Long``; a larger one is a ``BigInteger``,
    which the converter does not narrow (it makes it null)."""
    return LONG_MIN_VALUE <= value <= LONG_MAX_VALUE


def serialized_edges(node: Any, chained: set[int]) -> bool:
    """Whether a record of ``node`` is serialised: it crosses the network or enters a sink."""
    return any(id(e) not in chained or not e.target.out_edges for e in node.out_edges)
