"""Shared fixtures for the API tests."""

from __future__ import annotations

import pytest

from pyflowkit.datastream import StreamExecutionEnvironment


@pytest.fixture
def env() -> StreamExecutionEnvironment:
    e = StreamExecutionEnvironment.get_execution_environment()
    e.set_parallelism(2)
    return e
