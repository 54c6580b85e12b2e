"""Type descriptors (PyFlink's ``pyflink.common.typeinfo``: ``Types`` and TypeInformation classes).

``str()`` of every class is Flink's Java ``TypeInformation.toString()``; equality is structural.
"""

from __future__ import annotations

import calendar
import datetime
import time
from collections.abc import Sequence
from enum import Enum
from typing import Any

from pyflowkit.errors import IllegalArgumentException, InvalidTypesException


class TypeInformation:
    """PyFlink's ``TypeInformation``: describes the type of the records of a stream."""

    def _key(self) -> tuple[Any, ...]:
        return ()

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._key() == other._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key()))

    def __repr__(self) -> str:
        return str(self)

    def is_basic_type(self) -> bool:
        return False

    def is_key_type(self) -> bool:
        """Flink's ``isKeyType`` + ``validateKeyTypeIsHashable``: usable as a ``key_by`` key."""
        return True

    def need_conversion(self) -> bool:
        """Whether Python values convert to an internal form (PyFlink's ``need_conversion``)."""
        return False

    def to_internal_type(self, obj: Any) -> Any:
        """A Python value in its internal form (PyFlink's ``to_internal_type``)."""
        return obj

    def from_internal_type(self, obj: Any) -> Any:
        """An internal value as Python sees it (PyFlink's ``from_internal_type``)."""
        return obj


class BasicType(Enum):
    """PyFlink's ``BasicType``: the basic types with their Java class simple names."""

    STRING = "String"
    BYTE = "Byte"
    BOOLEAN = "Boolean"
    SHORT = "Short"
    INT = "Integer"
    LONG = "Long"
    FLOAT = "Float"
    DOUBLE = "Double"
    CHAR = "Character"
    BIG_INT = "BigInteger"
    BIG_DEC = "BigDecimal"
    INSTANT = "Instant"


class BasicTypeInfo(TypeInformation):
    """PyFlink's ``BasicTypeInfo`` (Flink's ``BasicTypeInfo``): String, Integer, Long, …"""

    def __init__(self, basic_type: BasicType) -> None:
        self.basic_type = basic_type

    def _key(self) -> tuple[Any, ...]:
        return (self.basic_type,)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BasicTypeInfo) and self.basic_type == other.basic_type

    def __hash__(self) -> int:
        return hash(("BasicTypeInfo", self.basic_type))

    def is_basic_type(self) -> bool:
        return True

    def __str__(self) -> str:
        return self.basic_type.value

    # PyFlink's static accessors, one per basic type (equal to ``Types.STRING()`` etc.)
    @staticmethod
    def STRING_TYPE_INFO() -> BasicTypeInfo:
        return BasicTypeInfo(BasicType.STRING)

    @staticmethod
    def BOOLEAN_TYPE_INFO() -> BasicTypeInfo:
        return BasicTypeInfo(BasicType.BOOLEAN)

    @staticmethod
    def BYTE_TYPE_INFO() -> BasicTypeInfo:
        return BasicTypeInfo(BasicType.BYTE)

    @staticmethod
    def SHORT_TYPE_INFO() -> BasicTypeInfo:
        return BasicTypeInfo(BasicType.SHORT)

    @staticmethod
    def INT_TYPE_INFO() -> BasicTypeInfo:
        return BasicTypeInfo(BasicType.INT)

    @staticmethod
    def LONG_TYPE_INFO() -> BasicTypeInfo:
        return BasicTypeInfo(BasicType.LONG)

    @staticmethod
    def FLOAT_TYPE_INFO() -> BasicTypeInfo:
        return BasicTypeInfo(BasicType.FLOAT)

    @staticmethod
    def DOUBLE_TYPE_INFO() -> BasicTypeInfo:
        return BasicTypeInfo(BasicType.DOUBLE)

    @staticmethod
    def CHAR_TYPE_INFO() -> BasicTypeInfo:
        return BasicTypeInfo(BasicType.CHAR)

    @staticmethod
    def BIG_INT_TYPE_INFO() -> BasicTypeInfo:
        return BasicTypeInfo(BasicType.BIG_INT)

    @staticmethod
    def BIG_DEC_TYPE_INFO() -> BasicTypeInfo:
        return BasicTypeInfo(BasicType.BIG_DEC)

    @staticmethod
    def INSTANT_TYPE_INFO() -> BasicTypeInfo:
        return InstantTypeInfo(BasicType.INSTANT)


class InstantTypeInfo(BasicTypeInfo):
    """``Instant``: converts to and from microseconds since the epoch (millisecond precision).

    Mirrors PyFlink's ``InstantTypeInfo`` (``Types.INSTANT()``)."""

    def need_conversion(self) -> bool:
        return True

    def to_internal_type(self, obj: Any) -> int | None:
        return None if obj is None else obj.to_epoch_milli() * 1000

    def from_internal_type(self, obj: Any) -> Any:
        from pyflowkit.common.time import Instant

        return None if obj is None else Instant.of_epoch_milli(obj // 1000)


class SqlTimeTypeInfo(TypeInformation):
    """Flink's ``SqlTimeTypeInfo``: ``Date``, ``Time`` or ``Timestamp``.

    ``DATE()`` / ``TIME()`` / ``TIMESTAMP()`` give PyFlink's ``DateTypeInfo`` /
    ``TimeTypeInfo`` / ``TimestampTypeInfo``; equal when they describe the same type."""

    def __init__(self, name: str) -> None:
        self.name = name

    def _key(self) -> tuple[Any, ...]:
        return (self.name,)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SqlTimeTypeInfo) and self.name == other.name

    def __hash__(self) -> int:
        return hash(("SqlTimeTypeInfo", self.name))

    def __str__(self) -> str:
        return self.name

    @staticmethod
    def DATE() -> SqlTimeTypeInfo:
        """PyFlink's ``SqlTimeTypeInfo.DATE()`` (``Types.SQL_DATE()``)."""
        return DateTypeInfo()

    @staticmethod
    def TIME() -> SqlTimeTypeInfo:
        return TimeTypeInfo()

    @staticmethod
    def TIMESTAMP() -> SqlTimeTypeInfo:
        return TimestampTypeInfo()


class DateTypeInfo(SqlTimeTypeInfo):
    """``datetime.date`` as days since 1970-01-01 (PyFlink's ``DateTypeInfo``)."""

    EPOCH_ORDINAL = datetime.date(1970, 1, 1).toordinal()

    def __init__(self) -> None:
        super().__init__("Date")

    def need_conversion(self) -> bool:
        return True

    def to_internal_type(self, d: Any) -> int | None:
        return None if d is None else d.toordinal() - self.EPOCH_ORDINAL

    def from_internal_type(self, v: Any) -> datetime.date | None:
        return None if v is None else datetime.date.fromordinal(v + self.EPOCH_ORDINAL)


class TimeTypeInfo(SqlTimeTypeInfo):
    """``datetime.time`` as microseconds of the day, UTC (PyFlink's ``TimeTypeInfo``).

    As in PyFlink a naive time is read in the local time zone (its offset at the epoch)."""

    EPOCH_ORDINAL = calendar.timegm(time.localtime(0)) * 10**6

    def __init__(self) -> None:
        super().__init__("Time")

    def need_conversion(self) -> bool:
        return True

    def to_internal_type(self, t: Any) -> int | None:
        if t is None:
            return None
        if t.tzinfo is not None:
            offset = t.utcoffset() or datetime.timedelta()
            offset_micros = (offset.days * 86400 + offset.seconds) * 10**6 + offset.microseconds
        else:
            offset_micros = self.EPOCH_ORDINAL
        seconds = (t.hour * 60 + t.minute) * 60 + t.second
        return seconds * 10**6 + t.microsecond - offset_micros

    def from_internal_type(self, t: Any) -> datetime.time | None:
        if t is None:
            return None
        seconds, micros = divmod(t + self.EPOCH_ORDINAL, 10**6)
        minutes, seconds = divmod(seconds, 60)
        hours, minutes = divmod(minutes, 60)
        return datetime.time(hours, minutes, seconds, micros)


class TimestampTypeInfo(SqlTimeTypeInfo):
    """``datetime.datetime`` as microseconds since the epoch (PyFlink's ``TimestampTypeInfo``).

    As in PyFlink a naive datetime is local time; an aware one is converted from its zone."""

    def __init__(self) -> None:
        super().__init__("Timestamp")

    def need_conversion(self) -> bool:
        return True

    def to_internal_type(self, dt: Any) -> int | None:
        if dt is None:
            return None
        seconds = calendar.timegm(dt.utctimetuple()) if dt.tzinfo else time.mktime(dt.timetuple())
        return int(seconds) * 10**6 + dt.microsecond

    def from_internal_type(self, ts: Any) -> datetime.datetime | None:
        if ts is None:
            return None
        return datetime.datetime.fromtimestamp(ts // 10**6).replace(microsecond=ts % 10**6)


class LocalTimeTypeInfo(TypeInformation):
    """Java 8 ``LocalDate`` / ``LocalTime`` / ``LocalDateTime`` (PyFlink's ``LocalTimeTypeInfo``).

    Python's values are ``datetime.date`` / ``time`` / ``datetime``; ``str()`` is Java's."""

    class TimeType(Enum):
        """Which local time type (PyFlink's ``LocalTimeTypeInfo.TimeType``)."""

        LOCAL_DATE = 0
        LOCAL_TIME = 1
        LOCAL_DATE_TIME = 2

    _JAVA_NAMES = {
        "LOCAL_DATE": "LocalDate",
        "LOCAL_TIME": "LocalTime",
        "LOCAL_DATE_TIME": "LocalDateTime",
    }

    def __init__(self, time_type: LocalTimeTypeInfo.TimeType) -> None:
        if not isinstance(time_type, LocalTimeTypeInfo.TimeType):
            raise TypeError(
                f"LocalTimeTypeInfo needs a LocalTimeTypeInfo.TimeType, got {time_type!r}."
            )
        self.time_type = time_type

    def _key(self) -> tuple[Any, ...]:
        return (self.time_type,)

    def __str__(self) -> str:
        return self._JAVA_NAMES[self.time_type.name]


class PickledBytesTypeInfo(TypeInformation):
    """PyFlink's ``PickledBytesTypeInfo``: records travel as pickled Python objects."""

    def __str__(self) -> str:
        return "PickledByteArrayTypeInfo"


class RowTypeInfo(TypeInformation):
    """Flink's ``RowTypeInfo``: ``Row(name: String, count: Integer)``."""

    def __init__(
        self, field_types: Sequence[TypeInformation], field_names: Sequence[str] | None = None
    ) -> None:
        _check_types("ROW", field_types)
        self.field_types = list(field_types)
        if field_names is None:
            field_names = [f"f{i}" for i in range(len(self.field_types))]
        names = list(field_names)
        if len(names) != len(self.field_types):
            raise ValueError(
                f"Types.ROW_NAMED needs one name per type: got {len(names)} names for "
                f"{len(self.field_types)} types."
            )
        if len(set(names)) != len(names):
            raise ValueError(f"Types.ROW_NAMED field names must be unique, got {names}.")
        self.field_names = names

    def get_field_names(self) -> list[str]:
        return list(self.field_names)

    def get_field_types(self) -> list[TypeInformation]:
        return list(self.field_types)

    def get_field_index(self, field_name: str) -> int:
        return self.field_names.index(field_name) if field_name in self.field_names else -1

    def get_arity(self) -> int:
        return len(self.field_types)

    def _key(self) -> tuple[Any, ...]:
        return (tuple(self.field_types), tuple(self.field_names))

    def is_key_type(self) -> bool:
        return all(t.is_key_type() for t in self.field_types)

    def need_conversion(self) -> bool:
        return True

    def to_internal_type(self, obj: Any) -> tuple[Any, ...] | None:
        """``(row_kind, *values)`` in field order, from a Row, dict, tuple/list or object.

        Mirrors PyFlink's ``RowTypeInfo.to_internal_type``.
        """
        from pyflowkit.common.types import Row, RowKind

        if obj is None:
            return None
        names = self.field_names
        if isinstance(obj, dict):
            return (RowKind.INSERT.value, *(obj.get(n) for n in names))
        if isinstance(obj, Row):
            values = obj._values if obj._fields is None else [obj[n] for n in names]
            return (obj.get_row_kind().value, *values)
        if isinstance(obj, (list, tuple)):
            return (RowKind.INSERT.value, *obj)
        if hasattr(obj, "__dict__"):
            return (RowKind.INSERT.value, *(obj.__dict__.get(n) for n in names))
        raise ValueError(f"Unexpected tuple {obj!r} with RowTypeInfo")

    def from_internal_type(self, obj: Any) -> Any:
        """The field values as a tuple (PyFlink's ``RowTypeInfo.from_internal_type``)."""
        if obj is None or isinstance(obj, (tuple, list)):
            return obj
        return tuple(obj)

    def row_of(self, value: Any, operator: str) -> Any:
        """``value`` as the Row a user function sees: named by this type, arity checked.

        PyFlink's ``RowCoder`` hands functions ``Row`` objects carrying the type's field names;
        a tuple or list of the right arity becomes one. The error names the operator.
        """
        from pyflowkit.common.types import Row

        if isinstance(value, Row):
            values, kind = value._values, value._row_kind
        elif isinstance(value, (tuple, list)):
            values, kind = list(value), None
        else:
            raise InvalidTypesException(
                f"{operator}: record {value!r} ({type(value).__name__}) does not fit its declared "
                f"type {self}: a Row, tuple or list of {self.get_arity()} fields is required."
            )
        if len(values) != len(self.field_types):
            raise IllegalArgumentException(
                f"{operator}: record {value!r} has {len(values)} fields, its declared type "
                f"{self} has {len(self.field_types)}."
            )
        if isinstance(value, Row) and value._fields == self.field_names:
            return value
        if isinstance(value, Row) and value._fields is not None:
            if sorted(value._fields) != sorted(self.field_names):
                raise IllegalArgumentException(
                    f"{operator}: record {value!r} has fields {value._fields}, its declared "
                    f"type {self} has {self.field_names}."
                )
            values = [value[n] for n in self.field_names]
        row = Row(*values)
        row._fields = list(self.field_names)
        if kind is not None:
            row._row_kind = kind
        return row

    def __str__(self) -> str:
        fields = ", ".join(
            f"{n}: {t}" for n, t in zip(self.field_names, self.field_types, strict=True)
        )
        return f"Row({fields})"


class TupleTypeInfo(TypeInformation):
    """Flink's ``TupleTypeInfo``: ``Java Tuple2<String, Integer>``."""

    def __init__(self, field_types: Sequence[TypeInformation]) -> None:
        _check_types("TUPLE", field_types)
        self.field_types = list(field_types)

    def get_field_types(self) -> list[TypeInformation]:
        return list(self.field_types)

    def get_arity(self) -> int:
        return len(self.field_types)

    def _key(self) -> tuple[Any, ...]:
        return tuple(self.field_types)

    def is_key_type(self) -> bool:
        return all(t.is_key_type() for t in self.field_types)

    def __str__(self) -> str:
        inner = ", ".join(str(t) for t in self.field_types)
        return f"Java Tuple{len(self.field_types)}<{inner}>"


_PRIMITIVE_NAMES = {
    BasicType.BOOLEAN: "boolean",
    BasicType.BYTE: "byte",
    BasicType.SHORT: "short",
    BasicType.INT: "int",
    BasicType.LONG: "long",
    BasicType.FLOAT: "float",
    BasicType.DOUBLE: "double",
    BasicType.CHAR: "char",
}


class _ElementTypeInfo(TypeInformation):
    """A container of one element type (an array or a list): mutable, so never a key."""

    _factory = ""  # the Types factory named in errors

    def __init__(self, element_type: TypeInformation) -> None:
        self._check_element_type(element_type)
        self.element_type = element_type

    def _check_element_type(self, element_type: Any) -> None:
        _check_types(self._factory, [element_type])

    def _key(self) -> tuple[Any, ...]:
        return (self.element_type,)

    def is_key_type(self) -> bool:
        return False


class PrimitiveArrayTypeInfo(_ElementTypeInfo):
    """Flink's ``PrimitiveArrayTypeInfo``: ``int[]``; arrays cannot be keys."""

    def _check_element_type(self, element_type: Any) -> None:
        if not isinstance(element_type, BasicTypeInfo) or element_type.basic_type not in (
            _PRIMITIVE_NAMES
        ):
            raise TypeError(
                f"Types.PRIMITIVE_ARRAY needs a primitive element type (BOOLEAN, BYTE, SHORT, "
                f"INT, LONG, FLOAT, DOUBLE, CHAR), got {element_type!r}."
            )

    def __str__(self) -> str:
        return f"{_PRIMITIVE_NAMES[self.element_type.basic_type]}[]"  # type: ignore[attr-defined]


class BasicArrayTypeInfo(_ElementTypeInfo):
    """Flink's ``BasicArrayTypeInfo``: ``BasicArrayTypeInfo<String>``; arrays cannot be keys."""

    def _check_element_type(self, element_type: Any) -> None:
        if not isinstance(element_type, BasicTypeInfo):
            raise TypeError(f"Types.BASIC_ARRAY needs a basic element type, got {element_type!r}.")

    def __str__(self) -> str:
        return f"BasicArrayTypeInfo<{self.element_type}>"


class ObjectArrayTypeInfo(_ElementTypeInfo):
    """Flink's ``ObjectArrayTypeInfo``: ``ObjectArrayTypeInfo<...>``; arrays cannot be keys."""

    _factory = "OBJECT_ARRAY"

    def __str__(self) -> str:
        return f"ObjectArrayTypeInfo<{self.element_type}>"


class ListTypeInfo(_ElementTypeInfo):
    """Flink's ``ListTypeInfo``: ``List<String>`` (a Python list: mutable, so never a key)."""

    _factory = "LIST"

    def __str__(self) -> str:
        return f"List<{self.element_type}>"


class MapTypeInfo(TypeInformation):
    """Flink's ``MapTypeInfo``: ``Map<String, Integer>`` (a Python dict: never a key)."""

    def __init__(self, key_type_info: TypeInformation, value_type_info: TypeInformation) -> None:
        _check_types("MAP", [key_type_info, value_type_info])
        self.key_type = key_type_info
        self.value_type = value_type_info

    def _key(self) -> tuple[Any, ...]:
        return (self.key_type, self.value_type)

    def is_key_type(self) -> bool:
        return False

    def __str__(self) -> str:
        return f"Map<{self.key_type}, {self.value_type}>"


def _check_types(where: str, types: Sequence[Any]) -> None:
    for t in types:
        if not isinstance(t, TypeInformation):
            raise TypeError(
                f"Types.{where} expects TypeInformation values such as Types.STRING(), got {t!r}."
            )


_STRING = BasicTypeInfo(BasicType.STRING)


class Types:
    """PyFlink's ``Types``: factory of TypeInformation objects (``Types.STRING()`` …)."""

    @staticmethod
    def STRING() -> TypeInformation:
        return _STRING

    @staticmethod
    def BYTE() -> TypeInformation:
        return BasicTypeInfo(BasicType.BYTE)

    @staticmethod
    def BOOLEAN() -> TypeInformation:
        return BasicTypeInfo(BasicType.BOOLEAN)

    @staticmethod
    def SHORT() -> TypeInformation:
        return BasicTypeInfo(BasicType.SHORT)

    @staticmethod
    def INT() -> TypeInformation:
        return BasicTypeInfo(BasicType.INT)

    @staticmethod
    def LONG() -> TypeInformation:
        return BasicTypeInfo(BasicType.LONG)

    @staticmethod
    def FLOAT() -> TypeInformation:
        return BasicTypeInfo(BasicType.FLOAT)

    @staticmethod
    def DOUBLE() -> TypeInformation:
        return BasicTypeInfo(BasicType.DOUBLE)

    @staticmethod
    def CHAR() -> TypeInformation:
        return BasicTypeInfo(BasicType.CHAR)

    @staticmethod
    def BIG_INT() -> TypeInformation:
        return BasicTypeInfo(BasicType.BIG_INT)

    @staticmethod
    def BIG_DEC() -> TypeInformation:
        return BasicTypeInfo(BasicType.BIG_DEC)

    @staticmethod
    def INSTANT() -> TypeInformation:
        return InstantTypeInfo(BasicType.INSTANT)

    @staticmethod
    def SQL_DATE() -> TypeInformation:
        return DateTypeInfo()

    @staticmethod
    def SQL_TIME() -> TypeInformation:
        return TimeTypeInfo()

    @staticmethod
    def SQL_TIMESTAMP() -> TypeInformation:
        return TimestampTypeInfo()

    @staticmethod
    def PICKLED_BYTE_ARRAY() -> TypeInformation:
        return PickledBytesTypeInfo()

    @staticmethod
    def ROW(field_types: list[TypeInformation]) -> TypeInformation:
        return RowTypeInfo(field_types)

    @staticmethod
    def ROW_NAMED(field_names: list[str], field_types: list[TypeInformation]) -> TypeInformation:
        return RowTypeInfo(field_types, field_names)

    @staticmethod
    def TUPLE(field_types: list[TypeInformation]) -> TypeInformation:
        return TupleTypeInfo(field_types)

    @staticmethod
    def PRIMITIVE_ARRAY(element_type: TypeInformation) -> TypeInformation:
        return PrimitiveArrayTypeInfo(element_type)

    @staticmethod
    def BASIC_ARRAY(element_type: TypeInformation) -> TypeInformation:
        return BasicArrayTypeInfo(element_type)

    @staticmethod
    def OBJECT_ARRAY(element_type: TypeInformation) -> TypeInformation:
        return ObjectArrayTypeInfo(element_type)

    @staticmethod
    def LIST(element_type_info: TypeInformation) -> TypeInformation:
        return ListTypeInfo(element_type_info)

    @staticmethod
    def MAP(key_type_info: TypeInformation, value_type_info: TypeInformation) -> TypeInformation:
        return MapTypeInfo(key_type_info, value_type_info)
