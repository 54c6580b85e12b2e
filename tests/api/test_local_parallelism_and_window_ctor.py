"""set/get_default_local_parallelism (Flink's static default of new local environments) and
PyFlink's WindowedStream / AllWindowedStream constructor parameters."""

from __future__ import annotations

import os

import pytest

from pyflowkit.datastream import (
    AllWindowedStream,
    StreamExecutionEnvironment,
    WindowedStream,
)
from pyflowkit.datastream.window import CountTumblingWindowAssigner, GlobalWindows
from pyflowkit.errors import IllegalArgumentException


@pytest.fixture
def restore_default():
    yield
    StreamExecutionEnvironment._default_local_parallelism = None


def test_default_local_parallelism_applies_to_new_environments(restore_default):
    env = StreamExecutionEnvironment.get_execution_environment()
    assert env.get_default_local_parallelism() == (os.cpu_count() or 1)
    env.set_default_local_parallelism(3)
    assert StreamExecutionEnvironment.get_execution_environment().get_parallelism() == 3
    assert env.get_default_local_parallelism() == 3
    with pytest.raises(IllegalArgumentException, match="must be an int >= 1, got 0"):
        env.set_default_local_parallelism(0)


def test_windowed_streams_take_pyflinks_parameter_names():
    env = StreamExecutionEnvironment.get_execution_environment()
    stream = env.from_collection([("a", 1)])
    keyed = WindowedStream(
        keyed_stream=stream.key_by(lambda v: v[0]),
        window_assigner=CountTumblingWindowAssigner.of(1),
    )
    assert keyed.get_input_type() == stream.key_by(lambda v: v[0]).get_type()
    every = AllWindowedStream(data_stream=stream, window_assigner=GlobalWindows.create())
    assert every.get_execution_environment() is env
