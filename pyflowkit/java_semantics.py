"""Java value semantics Flink relies on: ``int``/``long`` bounds, when two keys are the same key,
and how a Python number becomes a declared Java number (PyFlink's coders, Java casts).

Stands for ``java.lang.Integer``/``Long`` ``MIN_VALUE``/``MAX_VALUE`` and for ``equals`` of boxed
keys: Python finds ``1 == True == 1.0`` (and hashes them alike) where Java's ``Integer``,
``Boolean`` and ``Double`` never are equal, so keyed state, timers and routing caches must not
merge them. Like ``pyflowkit.errors`` it sits below every layer (it imports nothing of
pyflowkit), so the user API, the graph, operators, state and both hosts share one definition.
"""

from __future__ import annotations

import pickle
from array import array
from collections.abc import Callable, Hashable
from numbers import Number
from struct import Struct
from typing import Any

INT_MIN_VALUE = -(2**31)  # Integer.MIN_VALUE
INT_MAX_VALUE = 2**31 - 1  # Integer.MAX_VALUE
LONG_MIN_VALUE = -(2**63)  # Long.MIN_VALUE
LONG_MAX_VALUE = 2**63 - 1  # Long.MAX_VALUE

# Exact key types that are their own identity: only a str equals a str, and an int (never a bool,
# whose type is not int) equals only an int of the same value. Hot loops test
# ``type(key) in SELF_IDENTIFYING_KEY_TYPES`` before calling ``key_identity``.
SELF_IDENTIFYING_KEY_TYPES = frozenset((str, int))


def key_identity(key: Any) -> Hashable:
    """A dict key equal for two keys exactly when Java's ``equals`` holds for them.

    ``str`` and ``int`` keys are their own identity; any other key is paired with its type
    signature (recursively through tuples), so ``1``, ``True`` and ``1.0`` stay apart. A list,
    dict or set key (plain or ``PickledKey``) is its pickled bytes, as PyFlink keys it.
    """
    tk = type(key)
    if tk is str or tk is int:
        return key
    if tk is TypedKey:
        return key._identity
    if tk.__hash__ is None or tk in _PLAIN_OF:  # PyFlink keys it by its pickled bytes
        return (PickledKey, pickle.dumps(_plain(key)))
    return (_type_signature(key), _value_identity(key))


def _type_signature(key: Any) -> Any:
    if isinstance(key, tuple):
        return (type(key), *(_type_signature(k) for k in key))
    return type(key)


_DOUBLE_BITS = Struct(">d")


def _value_identity(key: Any) -> Any:
    """``key`` with each float as its 8 bytes: ``0.0`` and ``-0.0`` are two keys and every NaN
    of the same bits is one (as their pickles, and Java's ``Double.equals``: Python's ``==``
    merges the zeros and never finds a NaN equal)."""
    if isinstance(key, float):
        return _DOUBLE_BITS.pack(key)
    if isinstance(key, tuple):
        return tuple(_value_identity(k) for k in key)
    return key


def has_signed_zero_or_nan(key: Any) -> bool:
    """A float key (or a tuple holding one) that Python's equality gets wrong: ``-0.0`` (equal
    to ``0.0``) or NaN (equal to nothing)."""
    if isinstance(key, float):
        return key != key or (key == 0.0 and _DOUBLE_BITS.pack(key)[0] == 0x80)
    if isinstance(key, tuple):
        return any(has_signed_zero_or_nan(k) for k in key)
    return False


# --- Keys of an undeclared key type, as PyFlink 1.20 keys them -------------------------------
# PyFlink's ``key_by`` without ``key_type`` emits ``Row(key, record)`` typed
# ``ROW([PICKLED_BYTE_ARRAY, …])``: its ``PickleCoderImpl`` (``coder_impl_fast.pyx``) writes
# ``pickle.dumps(key)`` and Java keys by those bytes (``KeyByKeySelector`` wraps them in a
# ``Row``). So a list or a dict is a key there: two keys are one when their pickles are equal.


def pickled_key_hash_code(key: Any) -> int:
    """The 1.11 profile's Java ``hashCode()`` of a key of an undeclared type, keyed by its pickle
    (1.20 keys by ``Row.of(bytes)``: ``java_hash.pickled_row_hash``).

    ``KeyByKeySelector`` keys by ``Row(byte[])``, whose ``hashCode`` is
    ``RowUtils.deepHashCodeRow``: the RowKind's byte (INSERT: 0) times 31 plus
    ``Arrays.deepHashCode(new Object[]{bytes})``, i.e. ``31 + Arrays.hashCode(bytes)`` (over
    signed bytes), then ``KeyGroupRangeAssignment`` murmur-hashes it as any key.
    """
    h = 1
    for b in pickle.dumps(_plain(key)):
        h = (31 * h + (b - 256 if b > 127 else b)) & 0xFFFFFFFF
    h = (31 + h) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


class PickledKey:
    """A key PyFlink would key by its pickled bytes: equal and hashed by ``pickle.dumps`` of its
    plain form; it is still the list, dict or set the key selector returned (a subclass)."""

    __slots__ = ()

    def _pickled(self) -> bytes:
        return pickle.dumps(_plain(self))

    def __hash__(self) -> int:
        return hash(self._pickled())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PickledKey):
            return self._pickled() == other._pickled()
        return _PLAIN_OF[type(self)].__eq__(self, other)  # type: ignore[no-any-return]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __repr__(self) -> str:
        return _PLAIN_OF[type(self)].__repr__(self)  # type: ignore[no-any-return]

    def __reduce__(self) -> Any:
        return (pickled_key, (_plain(self),))

    def java_hash_code(self) -> int:
        return pickled_key_hash_code(self)


class PickledList(PickledKey, list):  # type: ignore[misc]
    __slots__ = ()


class PickledDict(PickledKey, dict):  # type: ignore[misc]
    __slots__ = ()


class PickledSet(PickledKey, set):  # type: ignore[misc]
    __slots__ = ()


_PLAIN_OF: dict[type, type] = {
    PickledList: list,
    PickledDict: dict,
    PickledSet: set,
}
_PICKLED_OF = {plain: wrapped for wrapped, plain in _PLAIN_OF.items()}


def _plain(key: Any) -> Any:
    plain = _PLAIN_OF.get(type(key))
    return key if plain is None else plain(key)


def pickled_key(key: Any) -> Any:
    """``key`` as a usable key of an undeclared key type: a list, dict or set as its
    ``PickledKey`` subclass, keyed by its pickled bytes as in PyFlink; anything else as it is."""
    wrapper = _PICKLED_OF.get(type(key))
    return key if wrapper is None else wrapper(key)


# --- Keys as the keyed state tables hold them ------------------------------------------------
# Flink's state tables find a key by ``equals``: Java's (``keyBy``, 1.11) or, for PyFlink 1.20's
# undeclared key type, that of the pickled bytes (``Row(byte[])``). Both keep ``1``, ``True`` and
# ``1.0`` apart, and ``(1, "a")`` from ``(True, "a")``, where a Python dict merges them; so a key
# whose Python equality is wider than its identity is held as a ``TypedKey`` (``str`` and ``int``
# keys, and tuples of them, are held as they are: the word count's path).


class TypedKey:
    """A key held in the state tables by ``key_identity``: equal only to a key of the same type
    signature (``True`` is not ``1``); ``key`` is what the key selector returned."""

    __slots__ = ("_hash", "_identity", "key")

    def __init__(self, key: Any) -> None:
        self.key = key
        self._identity = key_identity(key)
        self._hash = hash(self._identity)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return type(other) is TypedKey and self._identity == other._identity

    def __repr__(self) -> str:
        return repr(self.key)

    def __reduce__(self) -> Any:
        return (TypedKey, (self.key,))


def _wider_equality(key: Any, subclasses: bool) -> bool:
    """Whether Python finds ``key`` equal to a key Flink tells apart: a number other than an
    exact ``int`` (``True`` is not ``1``), with ``subclasses`` a ``str``/``int`` subclass too."""
    tk = type(key)
    if tk is str or tk is int or key is None or tk is bytes:
        return False
    if tk is tuple or tk is frozenset:
        return any(_wider_equality(k, subclasses) for k in key)
    if isinstance(key, (str, int)) and tk is not bool:
        return subclasses
    return isinstance(key, (int, float, complex, Number))  # bool, float, Decimal, Fraction


def _state_key_rule(subclasses: bool) -> Callable[[Any], Any]:
    """The state tables' key rule; ``subclasses``: a ``str``/``int`` subclass is its own key."""

    def rule(key: Any) -> Any:
        tk = type(key)
        if tk is str or tk is int or tk is TypedKey:
            return key
        wrapper = _PICKLED_OF.get(tk)
        if wrapper is not None:
            return wrapper(key)
        return TypedKey(key) if _wider_equality(key, subclasses) else key

    return rule


#: ``key`` as the state tables hold a key of an undeclared key type under PyFlink 1.20 (its
#: pickled bytes): a list, dict or set as its ``PickledKey``; a number other than an exact
#: ``int``, a ``str``/``int`` subclass or a tuple holding one as a ``TypedKey``; anything else
#: (``str``, ``int``, tuples of them: the word count's keys) as it is.
state_key = _state_key_rule(True)
#: ``key`` as the state tables hold a key of Java's ``keyBy`` (1.11: ``equals`` of the key's
#: Java value): as ``state_key``, but a ``str``/``int`` subclass is its String/Integer.
java_state_key = _state_key_rule(False)


def declared_state_key(key: Any) -> Any:
    """``key`` as the state tables hold a key of a declared ``key_type`` (PyFlink 1.20: the key
    coder's bytes): Python-equal keys are one key (``True`` as INT is ``1``), but ``-0.0`` is
    not ``0.0`` and every NaN is one key (the DOUBLE coder's bytes, Java's ``Double.equals``);
    a list, dict or set as its ``PickledKey``."""
    tk = type(key)
    if tk is str or tk is int or tk is TypedKey:
        return key
    wrapper = _PICKLED_OF.get(tk)
    if wrapper is not None:
        return wrapper(key)
    return TypedKey(key) if has_signed_zero_or_nan(key) else key


def plain_key(key: Any) -> Any:
    """The key a ``TypedKey`` holds; any other key as it is."""
    return key.key if type(key) is TypedKey else key


# --- Numbers as PyFlink 1.20 serialises them ------------------------------------------------
# Two places convert a Python number to a declared Java type, with different rules:
#  * the Python side's coders (``pyflink/fn_execution/coder_impl_fast.pyx``: ``TinyIntCoderImpl``
#    … ``DoubleCoderImpl``, writing through ``stream_fast.pyx``'s ``write_int8(int8_t)`` …
#    ``write_float(float)``), used for every record a Python function hands to the Java side (a
#    network edge, a Java sink): Cython converts the object to the C type, so an int out of range
#    raises ``OverflowError``, a float is truncated to an int, a FLOAT becomes a C ``float``;
#  * the Java side's ``PythonTypeUtils.converter`` (``flink-python/.../streaming/api/utils/
#    PythonTypeUtils.java``), used by ``from_collection``: the unpickled ``Integer``/``Long`` is
#    narrowed by a Java cast (``((Integer) c).shortValue()``), a ``Double`` by ``floatValue()``.

#: Java's integer types by BasicType value → their width in bits (Cython's C type names below).
INT_BITS: dict[str, int] = {"Byte": 8, "Short": 16, "Integer": 32, "Long": 64}
_C_INT = {8: "int8_t", 16: "int16_t", 32: "int32_t", 64: "int64_t"}


def java_float(x: float) -> float:
    """``(float) x``: the nearest 32-bit float, as a Python float (overflow gives infinity).

    PyFlink's ``FloatCoderImpl`` writes a C ``float`` (``OutputStream.write_float``) and reads it
    back as a double, so 110.1 declared FLOAT arrives as ``110.0999984741211``.
    """
    return _unpack_f(_pack_f(x))[0]


def java_floats(values: Any) -> list[float]:
    """``java_float`` of a column in one C pass (``array('f')`` casts as C does); ints and bools
    are accepted as real numbers, anything else raises ``TypeError`` as PyFlink's coder does."""
    return array("f", values).tolist()


def java_narrow(value: int, bits: int) -> int:
    """Java's narrowing primitive conversion (JLS 5.1.3) of an integer to ``bits``: the low bits,
    two's complement (``(short) 43878 == -21658``)."""
    half = 1 << (bits - 1)
    return ((value + half) & ((1 << bits) - 1)) - half


def coder_int(value: Any, bits: int) -> int:
    """What PyFlink's ``TinyIntCoderImpl``/``SmallIntCoderImpl``/``IntCoderImpl``/``BigIntCoderImpl``
    make of ``value`` (Cython's object → ``intN_t``): ints in range pass, bools and floats become
    ints (truncated), anything else raises as Cython does (``OverflowError``, ``TypeError``,
    ``ValueError`` for NaN), with Cython's message."""
    if type(value) is not int:
        if isinstance(value, str | bytes) or not hasattr(type(value), "__int__"):
            raise TypeError("an integer is required")
        value = int(value)  # nb_int: floats truncate; NaN raises ValueError, inf OverflowError
    if not LONG_MIN_VALUE <= value <= LONG_MAX_VALUE:
        raise OverflowError("Python int too large to convert to C long")
    half = 1 << (bits - 1)
    if not -half <= value < half:
        raise OverflowError(f"value too large to convert to {_C_INT[bits]}")
    return value


def coder_real(value: Any) -> float:
    """What PyFlink's ``DoubleCoderImpl`` makes of ``value`` (Cython's object → ``double``):
    any real number (int, bool, float) as a float; anything else raises ``TypeError``."""
    if type(value) is float:
        return value
    if isinstance(value, str | bytes) or not (
        hasattr(type(value), "__float__") or hasattr(type(value), "__index__")
    ):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    return float(value)


def coder_float(value: Any) -> float:
    """What PyFlink's ``FloatCoderImpl`` makes of ``value``: ``coder_real`` then ``java_float``."""
    return java_float(coder_real(value))


def coder_boolean(value: Any) -> bool:
    """What PyFlink's ``BooleanCoderImpl`` makes of ``value``: it writes a C ``unsigned char``
    (``write_byte``) and reads ``not not byte``, so ints 0-255 (and floats, truncated) pass as
    their truth value; a negative or larger number raises ``OverflowError``."""
    if type(value) is bool:
        return value
    if isinstance(value, str | bytes) or not hasattr(type(value), "__int__"):
        raise TypeError("an integer is required")
    number = int(value)
    if number < 0:
        raise OverflowError("can't convert negative value to unsigned char")
    if number > 255:
        raise OverflowError("value too large to convert to unsigned char")
    return number != 0


def java_float_to_string(x: float) -> str:
    """``Float.toString`` of a 32-bit float: the shortest decimal that reads back as the same
    float, plain between 1e-3 and 1e7, else ``d.dddE±n`` (as ``Double.toString`` lays it out)."""
    if x != x:
        return "NaN"
    if x in (_INF, -_INF):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if str(x).startswith("-") else "0.0"
    f = java_float(x)
    for digits in range(1, 10):
        text = f"{f:.{digits}g}"
        if java_float(float(text)) == f:
            break
    sign = "-" if text.startswith("-") else ""
    mantissa, _, exp = text.lstrip("-").partition("e")
    whole, _, frac = mantissa.partition(".")
    all_digits = (whole + frac).lstrip("0") or "0"
    point = len(whole.lstrip("0")) + (int(exp) if exp else 0)
    if not whole.lstrip("0"):  # 0.000ddd: the point sits before the leading zeros
        point = -(len(frac) - len(frac.lstrip("0"))) + (int(exp) if exp else 0)
    if 1e-3 <= abs(f) < 1e7:
        if point <= 0:
            return f"{sign}0.{'0' * -point}{all_digits.rstrip('0') or '0'}"
        body = all_digits.ljust(point, "0")
        return f"{sign}{body[:point]}.{body[point:].rstrip('0') or '0'}"
    if len(all_digits) == 1:  # Java shows at least one fraction digit: the nearest of two digits
        two = f"{abs(f):.1e}"
        all_digits, point = two[0] + two[2], int(two.partition("e")[2]) + 1
    rest = all_digits[1:].rstrip("0") or "0"
    return f"{sign}{all_digits[0]}.{rest}E{point - 1}"


_INF = float("inf")
_FLOAT32 = Struct("f")
_pack_f = _FLOAT32.pack
_unpack_f = _FLOAT32.unpack
