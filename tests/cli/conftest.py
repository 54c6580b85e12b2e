from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

PIPELINE = """
from pyflowkit.datastream import StreamExecutionEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
env.from_collection([("a", 1), ("b", 2)]).map(lambda x: x).key_by(lambda x: x[0]).sum(1).print()
env.execute("cli job")
print("after execute: never printed")
"""


@pytest.fixture
def write_script(tmp_path: Path):
    def write(source: str, name: str = "job.py") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        return path

    return write


@pytest.fixture
def pipeline_file(write_script) -> Path:
    return write_script(PIPELINE)
