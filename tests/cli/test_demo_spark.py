"""The demo's Spark stage: without a usable Spark (no Java, …) it says why and the demo goes on."""

from __future__ import annotations

from pyflowkit.examples.demo import compile_example
from pyflowkit.examples.demo_spark import run_on_spark
from pyflowkit.spark import session
from pyflowkit.spark.preflight import SparkEnvironmentError


def test_spark_stage_reports_a_missing_java_in_one_line(tmp_path, monkeypatch) -> None:
    def no_java(configuration=None, spark=None):
        raise SparkEnvironmentError("Java 17 or newer is required to run on Spark")

    monkeypatch.setattr(session, "get_session", no_java)
    result = run_on_spark(compile_example("word_count", tmp_path))
    assert result.lines == ["Spark           not run: Java 17 or newer is required to run on Spark"]
    assert result.files == []
