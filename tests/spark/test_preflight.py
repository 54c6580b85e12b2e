"""Pre-flight checks: clear errors before Spark prints a JVM stack trace."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from pyflowkit.spark import preflight
from pyflowkit.spark.preflight import SparkEnvironmentError


@pytest.mark.parametrize(
    ("text", "major"),
    [
        ('openjdk version "17.0.15" 2025-04-15', 17),
        ('java version "1.8.0_392"', 8),
        ('openjdk version "21" 2023-09-19', 21),
        ('openjdk version "11.0.2" 2019-01-15 LTS', 11),
        ("garbage", None),
    ],
)
def test_parse_java_major(text: str, major: int | None) -> None:
    assert preflight.parse_java_major(text) == major


def test_java_on_this_machine_is_17_or_newer() -> None:
    assert preflight.check_java() >= 17


def test_old_java_is_rejected(tmp_path, monkeypatch) -> None:
    fake = tmp_path / "jdk8" / "bin"
    fake.mkdir(parents=True)
    java = fake / "java"
    java.write_text("#!/bin/sh\necho 'java version \"1.8.0_392\"' >&2\n")
    java.chmod(0o755)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk8"))
    with pytest.raises(SparkEnvironmentError, match="needs Java 17 or newer, but .* is Java 8"):
        preflight.check_java()


def test_missing_java_in_a_subprocess_gives_a_clear_error(tmp_path) -> None:
    """Empty JAVA_HOME and a PATH without java: the executor says so before Spark starts."""
    script = textwrap.dedent(
        """
        from pyflowkit.spark import session
        try:
            session.get_session({"spark.master": "local[1]"})
        except Exception as exc:
            print(type(exc).__name__ + ": " + str(exc))
        """
    )
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "PATH")}
    env["JAVA_HOME"] = ""
    env["PATH"] = str(tmp_path)
    env["PYTHONPATH"] = os.getcwd()
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.stdout.startswith("SparkEnvironmentError: Spark needs Java 17 or newer, but no Java")
    assert "Py4J" not in out.stdout + out.stderr
    assert "Exception in thread" not in out.stderr


def test_master_address_parsing() -> None:
    assert preflight.master_address("spark://127.0.0.1:7078") == ("127.0.0.1", 7078)
    assert preflight.master_address("spark://h1:7077,h2:7077") == ("h1", 7077)
    assert preflight.master_address("spark://host") == ("host", 7077)
    assert preflight.master_address("sc://localhost") == ("localhost", 15002)
    assert preflight.master_address("sc://host:1234/;token=x") == ("host", 1234)
    assert preflight.master_address("local[2]") is None
    assert preflight.master_address("yarn") is None


def test_unreachable_master_is_reported() -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(SparkEnvironmentError, match=f"spark://127.0.0.1:{port} is unreachable"):
        preflight.check_master_reachable(f"spark://127.0.0.1:{port}", timeout=1)


def test_python_packages_are_new_enough() -> None:
    preflight.check_python_packages()
