"""``Configuration`` (PyFlink's ``pyflink.common.Configuration``): string key → value settings."""

from __future__ import annotations

import base64
from collections.abc import Iterable
from typing import Any

from pyflowkit.common.config_options import ConfigOption
from pyflowkit.common.yaml_list import parse_yaml_list


class Configuration:
    """PyFlink's ``Configuration`` (Flink's ``org.apache.flink.configuration.Configuration``).

    Values are kept as Flink's string forms (``true``/``false`` for booleans).
    """

    def __init__(self, other: Configuration | None = None) -> None:
        self._data: dict[str, str] = dict(other._data) if other is not None else {}

    # --- strings --------------------------------------------------------------------------
    def set_string(self, key: str, value: str) -> Configuration:
        self._data[_check_key(key)] = str(value)
        return self

    def get_string(self, key: str, default_value: str | None = None) -> str | None:
        return self._data.get(key, default_value)

    # --- typed accessors ----------------------------------------------------------------------
    def set_integer(self, key: str, value: int) -> Configuration:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"Configuration.set_integer('{key}') needs an int, got {value!r}.")
        self._data[_check_key(key)] = str(value)
        return self

    def get_integer(self, key: str, default_value: int = 0) -> int:
        raw = self._data.get(key)
        if raw is None:
            return default_value
        try:
            return int(raw)
        except ValueError:
            raise ValueError(
                f"Configuration key '{key}' holds {raw!r}, which is not an integer."
            ) from None

    def set_float(self, key: str, value: float) -> Configuration:
        self._data[_check_key(key)] = repr(float(value))
        return self

    def get_float(self, key: str, default_value: float = 0.0) -> float:
        raw = self._data.get(key)
        if raw is None:
            return default_value
        try:
            return float(raw)
        except ValueError:
            raise ValueError(
                f"Configuration key '{key}' holds {raw!r}, which is not a float."
            ) from None

    def set_boolean(self, key: str, value: bool) -> Configuration:
        if not isinstance(value, bool):
            raise TypeError(f"Configuration.set_boolean('{key}') needs a bool, got {value!r}.")
        self._data[_check_key(key)] = "true" if value else "false"
        return self

    def get_boolean(self, key: str, default_value: bool = False) -> bool:
        raw = self._data.get(key)
        if raw is None:
            return default_value
        low = raw.strip().lower()
        if low in ("true", "false"):
            return low == "true"
        raise ValueError(f"Configuration key '{key}' holds {raw!r}, which is not a boolean.")

    # --- typed options (Flink's get/set(ConfigOption)) ---------------------------------------
    def get(self, option: ConfigOption[Any]) -> Any:
        """Flink's ``get(ConfigOption)``: the typed value of the option's key, else its default."""
        return _option(option, "get").read(self)

    def set(self, option: ConfigOption[Any], value: Any) -> Configuration:
        """Flink's ``set(ConfigOption, value)``: stores a value of the option's type."""
        _option(option, "set").write(self, value)
        return self

    def contains(self, option: ConfigOption[Any]) -> bool:
        """Flink's ``contains(ConfigOption)``: the key or one of its fallback keys is set."""
        opt = _option(option, "contains")
        return any(k in self._data for k in (opt.key(), *opt.fallback_keys()))

    # --- whole-map operations ---------------------------------------------------------------
    def contains_key(self, key: str) -> bool:
        return key in self._data

    def key_set(self) -> set[str]:
        return set(self._data)

    # --- bytes ----------------------------------------------------------------------------
    def set_bytearray(self, key: str, value: bytes | bytearray) -> Configuration:
        """Flink's ``setBytes``: kept as Flink's string form of bytes (base64)."""
        if not isinstance(value, (bytes, bytearray)):
            raise TypeError(f"Configuration.set_bytearray('{key}') needs bytes, got {value!r}.")
        self._data[_check_key(key)] = base64.b64encode(bytes(value)).decode("ascii")
        return self

    def get_bytearray(self, key: str, default_value: bytearray | None = None) -> bytearray | None:
        """Flink's ``getBytes``: the value decoded from base64, or ``default_value``."""
        raw = self._data.get(key)
        if raw is None:
            return default_value
        try:
            return bytearray(base64.b64decode(raw.encode("ascii"), validate=True))
        except (ValueError, UnicodeEncodeError):
            raise ValueError(
                f"Configuration key '{key}': {raw!r} is not a byte array (base64)."
            ) from None

    def add_all_to_dict(self, target_dict: dict[str, Any]) -> None:
        """Flink's ``addAllToProperties``: every entry into ``target_dict`` (string values)."""
        target_dict.update(self._data)

    def to_dict(self) -> dict[str, str]:
        return dict(self._data)

    def add_all(self, other: Configuration, prefix: str | None = None) -> Configuration:
        for k, v in other._data.items():
            self._data[(prefix or "") + k] = v
        return self

    def remove_config(self, key: str) -> bool:
        return self._data.pop(key, None) is not None

    def set_all(self, items: Iterable[tuple[str, Any]]) -> Configuration:
        for k, v in items:
            self.set_string(k, v)
        return self

    @staticmethod
    def parse_list_value(value: str, standard_yaml: bool = True) -> list[Any]:
        """A list option's value as a list: with ``standard_yaml`` a YAML 1.2 sequence
        (``[a, b]`` or ``- a`` lines), else (or when it holds no sequence) split on ``;``.

        PyFlink's ``Configuration.parse_list_value`` (Flink's standard ``config.yaml`` lists)."""
        if not value:
            return []
        if standard_yaml:
            items = parse_yaml_list(value)
            if items is not None:
                return items
        return value.split(";")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Configuration) and self._data == other._data

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._data.items())))

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"Configuration({self._data!r})"

    def __str__(self) -> str:
        return "{" + ", ".join(f"{k}={v}" for k, v in self._data.items()) + "}"


def _check_key(key: str) -> str:
    if not isinstance(key, str) or not key:
        raise ValueError(f"Configuration keys must be non-empty strings, got {key!r}.")
    return key


def _option(option: Any, method: str) -> ConfigOption[Any]:
    if not isinstance(option, ConfigOption):
        raise TypeError(
            f"Configuration.{method}() needs a ConfigOption (ConfigOptions.key(...)...), "
            f"got {option!r}; use get_string/set_string for plain keys."
        )
    return option
