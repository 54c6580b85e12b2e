"""Small helpers shared by the DataStream classes (function checks, names, field references)."""

from __future__ import annotations

import inspect
from typing import Any

from pyflowkit.common.typeinfo import (
    BasicTypeInfo,
    PickledBytesTypeInfo,
    RowTypeInfo,
    TupleTypeInfo,
    TypeInformation,
)
from pyflowkit.errors import IllegalArgumentException


def check_function(fn: Any, methods: tuple[str, ...], api: str, interface: str) -> None:
    """``fn`` must be a Function object with one of ``methods`` or a plain callable."""
    if fn is None or not (callable(fn) or any(callable(getattr(fn, m, None)) for m in methods)):
        raise IllegalArgumentException(f"{api} needs a {interface} or a callable, got {fn!r}.")


def check_type_info(type_info: Any, api: str) -> None:
    if type_info is not None and not isinstance(type_info, TypeInformation):
        raise IllegalArgumentException(
            f"{api}: output/type info must be a TypeInformation such as Types.STRING(), got "
            f"{type_info!r}."
        )


def function_name(fn: Any, interface: str) -> str:
    """Flink's ``udf.getClass().getSimpleName()``; a lambda is named by its interface."""
    if inspect.isfunction(fn) or inspect.ismethod(fn) or inspect.isbuiltin(fn):
        name = getattr(fn, "__name__", interface)
        return interface if name == "<lambda>" else name
    return type(fn).__name__


def has_class_in_mro(obj: Any, class_name: str) -> bool:
    return any(c.__name__ == class_name for c in type(obj).__mro__)


def resolve_field(field: int | str, type_info: TypeInformation | None) -> int | str:
    """A Row field name as its position when the declared type names it (Flink's FieldAccessor
    resolves names against the TypeInformation, not against the record)."""
    if isinstance(field, str) and isinstance(type_info, RowTypeInfo):
        position = type_info.get_field_index(field)
        if position >= 0:
            return position
    return field


def validate_field(field: Any, type_info: TypeInformation | None, api: str, operator: str) -> None:
    """An aggregation field: a tuple/Row position (int) or a Row field name (str)."""
    if isinstance(field, bool) or not isinstance(field, (int, str)):
        raise IllegalArgumentException(
            f"{api} on '{operator}': the field must be a position (int) or a Row field name "
            f"(str), got {field!r}."
        )
    if isinstance(field, int) and field < 0:
        raise IllegalArgumentException(
            f"{api} on '{operator}': field position {field} is negative."
        )
    if type_info is None or isinstance(type_info, PickledBytesTypeInfo):
        return
    if isinstance(type_info, (TupleTypeInfo, RowTypeInfo)):
        if isinstance(field, int) and field >= type_info.get_arity():
            raise IllegalArgumentException(
                f"{api} on '{operator}': Tuple position is out of range: {field} (type "
                f"{type_info} has {type_info.get_arity()} fields)."
            )
        if isinstance(field, str):
            if not isinstance(type_info, RowTypeInfo):
                raise IllegalArgumentException(
                    f"{api} on '{operator}': field name '{field}' needs a Row type; {type_info} "
                    "is referenced by position."
                )
            if field not in type_info.field_names:
                raise IllegalArgumentException(
                    f"{api} on '{operator}': Row {type_info} has no field '{field}'."
                )
    elif isinstance(type_info, BasicTypeInfo) and field not in (0, "*"):
        raise IllegalArgumentException(
            f"{api} on '{operator}': Selecting a field by position on a basic type ({type_info}) "
            "is only allowed for position 0."
        )
