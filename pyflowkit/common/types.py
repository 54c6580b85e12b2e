"""``Row`` and ``RowKind`` (PyFlink's ``pyflink.common.types``)."""

from __future__ import annotations

from enum import Enum
from typing import Any


class RowKind(Enum):
    """Flink's ``RowKind``: the change a row describes in a changelog."""

    INSERT = 0
    UPDATE_BEFORE = 1
    UPDATE_AFTER = 2
    DELETE = 3

    def short_string(self) -> str:
        return ("+I", "-U", "+U", "-D")[self.value]

    def __str__(self) -> str:
        return self.name


class Row:
    """PyFlink's ``Row``: positional (``Row(1, 'a')``) or named (``Row(a=1)``) fields.

    ``Row("name", "count")`` (only strings, no values) is a row *factory*: calling it with values
    gives a named Row. Hashes as Flink 1.11's ``Row.hashCode`` via ``_flink_row_fields()``.
    """

    __slots__ = ("_values", "_fields", "_row_kind")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            raise ValueError("Can not use both args and kwargs to create Row")
        self._row_kind = RowKind.INSERT
        if kwargs:
            self._fields: list[str] | None = list(kwargs)
            self._values: list[Any] = list(kwargs.values())
        else:
            self._fields = None
            self._values = list(args)

    # --- factory form -------------------------------------------------------------------------
    def __call__(self, *args: Any) -> Row:
        """``Row("name", "count")("Alice", 1)`` → ``Row(name='Alice', count=1)``."""
        names = self._values
        if not all(isinstance(n, str) for n in names):
            raise TypeError("Only a Row of field names (strings) can be called to create rows.")
        if len(args) > len(names):
            raise ValueError(
                f"Can not create Row with fields {names}, expected {len(names)} values but got "
                f"{args}"
            )
        row = Row(*args)
        row._fields = list(names[: len(args)])
        return row

    # --- access -------------------------------------------------------------------------------
    def as_dict(self, recursive: bool = False) -> dict[str, Any]:
        if self._fields is None:
            raise TypeError("Cannot convert a Row class into dict (the Row has no field names)")

        def conv(v: Any) -> Any:
            if isinstance(v, Row) and v._fields is not None:
                return v.as_dict(True)
            if isinstance(v, list):
                return [conv(x) for x in v]
            if isinstance(v, dict):
                return {k: conv(x) for k, x in v.items()}
            return v

        if recursive:
            return {k: conv(v) for k, v in zip(self._fields, self._values, strict=False)}
        return dict(zip(self._fields, self._values, strict=False))

    @staticmethod
    def of_kind(row_kind: RowKind, *args: Any, **kwargs: Any) -> Row:
        """A Row of the given ``RowKind`` (PyFlink's ``Row.of_kind``)."""
        row = Row(*args, **kwargs)
        row.set_row_kind(row_kind)
        return row

    def get_row_kind(self) -> RowKind:
        return self._row_kind

    def set_row_kind(self, row_kind: RowKind) -> None:
        if not isinstance(row_kind, RowKind):
            raise TypeError(f"Row.set_row_kind needs a RowKind, got {row_kind!r}.")
        self._row_kind = row_kind

    def set_field_names(self, field_names: list[str]) -> None:
        self._fields = list(field_names)

    def get_fields_by_names(self, names: list[str]) -> list[Any]:
        """The values of ``names`` in that order (all values when the names are the row's)."""
        if self._fields is None or list(names) == self._fields:
            return self._values
        missing = [n for n in names if n not in self._fields]
        if missing:
            raise KeyError(f"Field names {missing} not exist in {self._fields}.")
        return [self._values[self._fields.index(n)] for n in names]

    def _flink_row_fields(self) -> list[Any]:
        """The field values in order (``pyflowkit.state.java_hash`` hashes them as Flink)."""
        return self._values

    def _index_of(self, name: str) -> int:
        if self._fields is None or name not in self._fields:
            raise KeyError(name)
        return self._fields.index(name)

    def __getitem__(self, item: int | slice | str) -> Any:
        if isinstance(item, str):
            return self._values[self._index_of(item)]
        return self._values[item]

    def __setitem__(self, item: int | str, value: Any) -> None:
        if isinstance(item, str):
            item = self._index_of(item)
        self._values[item] = value

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in Row.__slots__:
            raise AttributeError(name)
        try:
            return self._values[self._index_of(name)]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        if name in Row.__slots__:
            object.__setattr__(self, name, value)
        else:
            raise AttributeError("Row is read-only by attribute; use row[name] = value.")

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self):  # noqa: ANN204
        return iter(self._values)

    def __contains__(self, item: Any) -> bool:
        if self._fields is not None:
            return item in self._fields
        return item in self._values

    def __eq__(self, other: object) -> bool:
        """PyFlink's: same kind; named rows compare field by field name (any order), a named
        row never equals an unnamed one."""
        if not isinstance(other, Row) or self._row_kind != other._row_kind:
            return False
        if self._fields is None or other._fields is None:
            return self._fields is None and other._fields is None and self._values == other._values
        if sorted(self._fields) != sorted(other._fields):
            return False
        if self._fields == other._fields:
            return self._values == other._values
        theirs = dict(zip(other._fields, other._values, strict=True))
        return all(theirs[f] == v for f, v in zip(self._fields, self._values, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self._values))

    def __reduce__(self):  # noqa: ANN204
        return (_rebuild_row, (self._values, self._fields, self._row_kind))

    def __repr__(self) -> str:
        """PyFlink's: ``Row(name='a', n=1)`` with field names, ``<Row('a', 1)>`` without."""
        if self._fields is not None:
            inner = ", ".join(
                f"{k}={v!r}" for k, v in zip(self._fields, self._values, strict=False)
            )
            return f"Row({inner})"
        return "<Row(" + ", ".join(repr(v) for v in self._values) + ")>"


def _rebuild_row(values: list[Any], fields: list[str] | None, kind: RowKind) -> Row:
    row = Row(*values)
    row._fields = fields
    row._row_kind = kind
    return row
