"""ExecutionConfig's serializer, mode and cancellation settings of PyFlink 1.20: defaults,
validation, registration order, the environment's shortcuts, and a failed call changing nothing."""

from __future__ import annotations

import pytest

from pyflowkit.common import (
    Configuration,
    ExecutionConfig,
    ExecutionMode,
    InputDependencyConstraint,
)
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.errors import IllegalArgumentException


def test_defaults_are_flinks() -> None:
    config = ExecutionConfig()
    assert config.get_execution_mode() is ExecutionMode.PIPELINED
    assert config.get_task_cancellation_timeout() == 180_000
    assert not config.is_force_kryo_enabled()
    assert not config.is_force_avro_enabled()
    assert not config.has_generic_types_disabled()
    assert not config.is_auto_type_registration_disabled()
    assert not config.is_use_snapshot_compression()
    assert config.get_registered_kryo_types() == []
    assert config.get_registered_pojo_types() == []
    assert config.get_default_kryo_serializer_classes() == {}
    assert config.get_registered_types_with_kryo_serializer_classes() == {}


def test_switches_set_and_report_and_return_the_config() -> None:
    config = ExecutionConfig()
    assert config.enable_force_kryo() is config and config.is_force_kryo_enabled()
    assert config.disable_force_kryo() is config and not config.is_force_kryo_enabled()
    assert config.enable_force_avro().is_force_avro_enabled()
    assert not config.disable_force_avro().is_force_avro_enabled()
    assert config.disable_generic_types().has_generic_types_disabled()
    assert not config.enable_generic_types().has_generic_types_disabled()
    assert config.disable_auto_type_registration().is_auto_type_registration_disabled()
    assert config.set_use_snapshot_compression(True).is_use_snapshot_compression()
    assert (
        config.set_execution_mode(ExecutionMode.BATCH).get_execution_mode() is ExecutionMode.BATCH
    )
    assert config.set_task_cancellation_timeout(0).get_task_cancellation_timeout() == 0


def test_kryo_and_pojo_registrations_keep_order_and_register_once() -> None:
    config = ExecutionConfig()
    config.register_kryo_type("com.acme.B").register_kryo_type("com.acme.A")
    config.register_kryo_type("com.acme.B")
    assert config.get_registered_kryo_types() == ["com.acme.B", "com.acme.A"]
    config.register_pojo_type("com.acme.Pojo$Inner").register_pojo_type("com.acme.Pojo$Inner")
    assert config.get_registered_pojo_types() == ["com.acme.Pojo$Inner"]
    config.register_type_with_kryo_serializer("com.acme.T", "com.acme.TSer")
    config.register_type_with_kryo_serializer("com.acme.T", "com.acme.TSer2")
    config.add_default_kryo_serializer("com.acme.U", "com.acme.USer")
    assert config.get_registered_types_with_kryo_serializer_classes() == {
        "com.acme.T": "com.acme.TSer2"
    }
    assert config.get_default_kryo_serializer_classes() == {"com.acme.U": "com.acme.USer"}
    # the getters hand out copies
    config.get_registered_kryo_types().append("x.Y")
    assert config.get_registered_kryo_types() == ["com.acme.B", "com.acme.A"]


@pytest.mark.parametrize("bad", ["", "1abc.Foo", "com..acme", "com.acme.", 42, None, "a b"])
def test_a_name_that_is_no_java_class_is_refused_and_nothing_registers(bad: object) -> None:
    config = ExecutionConfig()
    with pytest.raises(IllegalArgumentException, match=r"register_kryo_type.*fully qualified"):
        config.register_kryo_type(bad)  # type: ignore[arg-type]
    with pytest.raises(IllegalArgumentException, match="add_default_kryo_serializer"):
        config.add_default_kryo_serializer("com.acme.T", bad)  # type: ignore[arg-type]
    assert config.get_registered_kryo_types() == []
    assert config.get_default_kryo_serializer_classes() == {}


def test_bad_values_are_refused_naming_the_rule() -> None:
    config = ExecutionConfig()
    with pytest.raises(IllegalArgumentException, match="Timeout needs to be >= 0"):
        config.set_task_cancellation_timeout(-1)
    with pytest.raises(IllegalArgumentException, match="needs an ExecutionMode"):
        config.set_execution_mode("BATCH")  # type: ignore[arg-type]
    with pytest.raises(IllegalArgumentException, match="True or False"):
        config.set_use_snapshot_compression("yes")  # type: ignore[arg-type]
    assert config.get_task_cancellation_timeout() == 180_000
    assert config.get_execution_mode() is ExecutionMode.PIPELINED


def test_input_dependency_constraint_is_deprecated_as_in_pyflink() -> None:
    config = ExecutionConfig()
    with pytest.warns(DeprecationWarning, match="Deprecated in 1.13"):
        assert config.get_default_input_dependency_constraint() is InputDependencyConstraint.ANY
    with pytest.warns(DeprecationWarning, match="obsolete"):
        config.set_default_input_dependency_constraint(InputDependencyConstraint.ALL)
    with pytest.warns(DeprecationWarning):
        assert config.get_default_input_dependency_constraint() is InputDependencyConstraint.ALL


def test_environment_registrations_land_in_its_execution_config() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.add_default_kryo_serializer("com.acme.T", "com.acme.TSer")
    env.register_type_with_kryo_serializer("com.acme.U", "com.acme.USer")
    env.register_type("com.acme.V")
    config = env.get_config()
    assert config.get_default_kryo_serializer_classes() == {"com.acme.T": "com.acme.TSer"}
    assert config.get_registered_types_with_kryo_serializer_classes() == {
        "com.acme.U": "com.acme.USer"
    }
    assert config.get_registered_kryo_types() == ["com.acme.V"]
    with pytest.raises(IllegalArgumentException, match="register_kryo_type"):
        env.register_type("not a class")
    assert config.get_registered_kryo_types() == ["com.acme.V"]


def test_serializer_settings_leave_a_job_and_its_results_unchanged() -> None:
    """Python records never go through Kryo (in PyFlink neither): the job runs the same."""

    def run(tune: bool) -> list[str]:
        config = Configuration().set_string("execution.target", "local")
        env = StreamExecutionEnvironment.get_execution_environment(config)
        env.set_parallelism(1)
        if tune:
            env.get_config().disable_generic_types().enable_force_kryo()
            env.get_config().register_kryo_type("com.acme.Word")
        env.from_collection(["a", "b", "a"]).map(lambda w: (w, 1)).key_by(lambda t: t[0]).sum(
            1
        ).print()
        return sorted(env.execute("words").printed)

    assert run(True) == run(False) == ["('a', 1)", "('a', 2)", "('b', 1)"]


def test_copy_and_restore_state_roll_registrations_back() -> None:
    config = ExecutionConfig()
    config.register_kryo_type("com.acme.A")
    saved = config._copy_state()
    config.register_kryo_type("com.acme.B")
    config._restore_state(saved)
    assert config.get_registered_kryo_types() == ["com.acme.A"]
