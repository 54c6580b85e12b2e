"""``ConfigOptions`` / ``ConfigOption``: typed, defaulted configuration keys.

PyFlink's ``pyflink.common.config_options`` (Flink's ``org.apache.flink.configuration``
``ConfigOptions`` builder and ``ConfigOption``); read and written with ``Configuration.get`` /
``Configuration.set``.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

T = TypeVar("T")

# option type -> (Python types a value may have, Configuration getter, Configuration setter)
_TYPES: dict[str, tuple[tuple[type, ...], str, str]] = {
    "boolean": ((bool,), "get_boolean", "set_boolean"),
    "int": ((int,), "get_integer", "set_integer"),
    "long": ((int,), "get_integer", "set_integer"),
    "float": ((float, int), "get_float", "set_float"),
    "double": ((float, int), "get_float", "set_float"),
    "string": ((str,), "get_string", "set_string"),
}


class ConfigOption(Generic[T]):
    """A configuration key with its value type and default (Flink's ``ConfigOption``).

    Mirrors PyFlink's ``ConfigOption``; ``Configuration.get(option)`` returns the stored value
    converted to the type, else the default."""

    def __init__(
        self,
        key: str,
        option_type: str,
        default_value: Any = None,
        description: str = "",
        fallback_keys: tuple[str, ...] = (),
    ) -> None:
        self._key = key
        self._type = option_type
        self._default = default_value
        self._description = description
        self._fallback_keys = fallback_keys

    def key(self) -> str:
        return self._key

    def default_value(self) -> Any:
        return self._default

    def has_default_value(self) -> bool:
        return self._default is not None

    def description(self) -> str:
        return self._description

    def fallback_keys(self) -> tuple[str, ...]:
        return self._fallback_keys

    def with_description(self, description: str) -> ConfigOption[T]:
        """Flink's ``withDescription``: a copy with the description."""
        return ConfigOption(self._key, self._type, self._default, description, self._fallback_keys)

    def with_fallback_keys(self, *fallback_keys: str) -> ConfigOption[T]:
        """Flink's ``withFallbackKeys``: read these keys when the option's own key is unset."""
        keys = self._fallback_keys + tuple(fallback_keys)
        return ConfigOption(self._key, self._type, self._default, self._description, keys)

    def check_value(self, value: Any) -> Any:
        """The value if it has the option's type, else a ``TypeError`` naming key and type."""
        allowed = _TYPES[self._type][0]
        if isinstance(value, bool) and bool not in allowed or not isinstance(value, allowed):
            raise TypeError(f"ConfigOption '{self._key}' is of type {self._type}, got {value!r}.")
        return value

    def read(self, configuration: Any) -> Any:
        """The option's value in ``configuration`` (own key, then fallback keys), else default."""
        getter = getattr(configuration, _TYPES[self._type][1])
        for key in (self._key, *self._fallback_keys):
            if configuration.contains_key(key):
                return getter(key)
        return self._default

    def write(self, configuration: Any, value: Any) -> None:
        """Stores ``value`` under the option's key in Flink's string form."""
        setter = getattr(configuration, _TYPES[self._type][2])
        setter(self._key, self.check_value(value))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConfigOption) and (self._key, self._type, self._default) == (
            other._key,
            other._type,
            other._default,
        )

    def __hash__(self) -> int:
        return hash((self._key, self._type))

    def __repr__(self) -> str:
        return f"Key: '{self._key}' , default: {self._default} (fallback keys: {list(self._fallback_keys)})"


class ConfigOptions:
    """Builds ``ConfigOption`` s: ``ConfigOptions.key(k).int_type().default_value(3)``.

    Mirrors PyFlink's ``ConfigOptions`` (Flink's ``ConfigOptions``)."""

    @staticmethod
    def key(key: str) -> ConfigOptions.OptionBuilder:
        if not isinstance(key, str) or not key:
            raise ValueError(f"ConfigOptions.key() needs a non-empty string, got {key!r}.")
        return ConfigOptions.OptionBuilder(key)

    class OptionBuilder:
        """Chooses the option's type (Flink's ``ConfigOptions.OptionBuilder``)."""

        def __init__(self, key: str) -> None:
            self._key = key

        def _typed(self, option_type: str) -> ConfigOptions.TypedConfigOptionBuilder:
            return ConfigOptions.TypedConfigOptionBuilder(self._key, option_type)

        def boolean_type(self) -> ConfigOptions.TypedConfigOptionBuilder[bool]:
            return self._typed("boolean")

        def int_type(self) -> ConfigOptions.TypedConfigOptionBuilder[int]:
            return self._typed("int")

        def long_type(self) -> ConfigOptions.TypedConfigOptionBuilder[int]:
            return self._typed("long")

        def float_type(self) -> ConfigOptions.TypedConfigOptionBuilder[float]:
            return self._typed("float")

        def double_type(self) -> ConfigOptions.TypedConfigOptionBuilder[float]:
            return self._typed("double")

        def string_type(self) -> ConfigOptions.TypedConfigOptionBuilder[str]:
            return self._typed("string")

    class TypedConfigOptionBuilder(Generic[T]):
        """Sets the default (Flink's ``ConfigOptions.TypedConfigOptionBuilder``)."""

        def __init__(self, key: str, option_type: str) -> None:
            self._key = key
            self._type = option_type

        def default_value(self, value: T) -> ConfigOption[T]:
            option: ConfigOption[T] = ConfigOption(self._key, self._type)
            return ConfigOption(self._key, self._type, option.check_value(value))

        def no_default_value(self) -> ConfigOption[T]:
            return ConfigOption(self._key, self._type)
