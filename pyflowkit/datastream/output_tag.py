"""``OutputTag`` (PyFlink's ``pyflink.datastream.OutputTag``): names a side output."""

from __future__ import annotations

from typing import Any

from pyflowkit.common.typeinfo import PickledBytesTypeInfo, TypeInformation
from pyflowkit.errors import IllegalArgumentException


class OutputTag:
    """Flink's ``OutputTag``: a side output's id and type; equal when the ids are equal."""

    def __init__(self, tag_id: str, type_info: TypeInformation | None = None) -> None:
        if not isinstance(tag_id, str) or not tag_id:
            raise IllegalArgumentException("OutputTag id must not be empty.")
        if type_info is not None and not isinstance(type_info, TypeInformation):
            raise IllegalArgumentException(
                f"OutputTag '{tag_id}': type_info must be a TypeInformation such as "
                f"Types.STRING(), got {type_info!r}."
            )
        self.tag_id = tag_id
        self.type_info: TypeInformation = (
            type_info if type_info is not None else PickledBytesTypeInfo()
        )

    def get_id(self) -> str:
        return self.tag_id

    def get_type_info(self) -> TypeInformation:
        return self.type_info

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, OutputTag) and self.tag_id == other.tag_id

    def __hash__(self) -> int:
        return hash(self.tag_id)

    def __repr__(self) -> str:
        return f"OutputTag({self.type_info}, {self.tag_id})"
