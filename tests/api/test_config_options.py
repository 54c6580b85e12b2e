"""ConfigOptions / ConfigOption (PyFlink's pyflink.common.config_options) with Configuration."""

from __future__ import annotations

import pytest

from pyflowkit.common import ConfigOption, ConfigOptions, Configuration
from pyflowkit.common.config_options import ConfigOptions as ConfigOptionsByPath
from pyflowkit.datastream import StreamExecutionEnvironment


def test_typed_options_read_their_default_until_set():
    retries = ConfigOptions.key("my.retries").int_type().default_value(3)
    name = ConfigOptions.key("my.name").string_type().no_default_value()
    config = Configuration()
    assert config.get(retries) == 3 and config.get(name) is None
    assert not config.contains(retries)
    config.set(retries, 5).set(name, "job")
    assert config.get(retries) == 5 and config.get(name) == "job"
    assert config.get_string("my.retries") == "5"  # Flink's string form
    assert config.contains(retries)
    assert retries.key() == "my.retries" and retries.default_value() == 3
    assert retries.has_default_value() and not name.has_default_value()


def test_values_are_converted_to_the_option_type():
    config = Configuration().set_string("a.flag", "TRUE").set_string("a.ratio", "0.5")
    assert config.get(ConfigOptions.key("a.flag").boolean_type().default_value(False)) is True
    assert config.get(ConfigOptions.key("a.ratio").double_type().no_default_value()) == 0.5
    assert config.get(ConfigOptions.key("a.ratio").float_type().default_value(1.0)) == 0.5
    big = ConfigOptions.key("a.big").long_type().default_value(2**40)
    assert Configuration().set(big, 2**41).get(big) == 2**41


def test_fallback_keys_are_read_when_the_key_is_unset():
    option = ConfigOptions.key("new.key").int_type().default_value(1).with_fallback_keys("old.key")
    config = Configuration().set_integer("old.key", 9)
    assert config.get(option) == 9 and config.contains(option)
    config.set(option, 4)
    assert config.get(option) == 4 and config.get_integer("old.key") == 9


@pytest.mark.parametrize(
    ("build", "value"),
    [
        (lambda: ConfigOptions.key("k").int_type(), "3"),
        (lambda: ConfigOptions.key("k").int_type(), True),
        (lambda: ConfigOptions.key("k").boolean_type(), 1),
        (lambda: ConfigOptions.key("k").string_type(), 3),
    ],
)
def test_a_value_of_the_wrong_type_names_the_key_and_type(build, value):
    with pytest.raises(TypeError, match="ConfigOption 'k' is of type"):
        build().default_value(value)
    option = build().no_default_value()
    config = Configuration()
    with pytest.raises(TypeError, match="ConfigOption 'k' is of type"):
        config.set(option, value)
    assert len(config) == 0  # a failed set leaves the configuration as it was


def test_get_and_set_need_an_option():
    with pytest.raises(TypeError, match=r"Configuration.get\(\) needs a ConfigOption"):
        Configuration().get("parallelism.default")
    with pytest.raises(ValueError, match="non-empty string"):
        ConfigOptions.key("")


def test_an_option_configures_the_environment():
    parallelism = ConfigOptions.key("parallelism.default").int_type().default_value(1)
    env = StreamExecutionEnvironment.get_execution_environment(Configuration().set(parallelism, 3))
    assert env.get_parallelism() == 3


def test_generic_and_module_path_as_pyflink():
    assert ConfigOption[int] is not None
    assert ConfigOptions.TypedConfigOptionBuilder[str] is not None
    assert ConfigOptionsByPath is ConfigOptions
    option = ConfigOptions.key("x").string_type().default_value("d")
    assert option == ConfigOptions.key("x").string_type().default_value("d")
    assert option.with_description("what x is").description() == "what x is"
    assert repr(option) == "Key: 'x' , default: d (fallback keys: [])"
