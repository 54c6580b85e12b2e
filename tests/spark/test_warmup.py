"""Background start of the embedded Spark session (``pyflowkit.spark.warmup``)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time

import pytest

from pyflowkit.spark import preflight, session, warmup


@pytest.fixture
def fake_build(monkeypatch):
    """Replace the JVM start by a slow fake that counts its calls."""
    calls: list[tuple[str, dict]] = []
    calls_jvm_stderr: list[object] = []

    def build(master, conf, jvm_stderr=None):
        calls.append((master, dict(conf)))
        calls_jvm_stderr.append(jvm_stderr)
        time.sleep(0.2)
        return object()

    monkeypatch.setattr(session, "_build", build)
    monkeypatch.setattr(session, "_build_jvm_stderr", calls_jvm_stderr, raising=False)
    monkeypatch.setattr(session, "_embedded", None)
    monkeypatch.setattr(session, "_embedded_key", None)
    monkeypatch.setattr(session, "_starting", {})
    monkeypatch.setattr(session, "_atexit_registered", True)
    monkeypatch.setattr(preflight, "check_java", lambda: 17)
    monkeypatch.setattr(preflight, "check_master_reachable", lambda master: None)
    return calls


def test_concurrent_callers_share_one_session_start(fake_build):
    got: list[object] = []
    threads = [
        threading.Thread(target=lambda: got.append(session._embedded_session("local[2]", {})))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert fake_build == [("local[2]", {})]
    assert len(got) == 4 and all(s is got[0] for s in got)
    assert session._starting == {}


def test_a_failed_start_reaches_every_waiter_and_is_retried(fake_build, monkeypatch):
    def broken(master, conf, jvm_stderr=None):
        time.sleep(0.1)
        raise preflight.SparkEnvironmentError("no JVM today")

    monkeypatch.setattr(session, "_build", broken)
    errors: list[str] = []

    def call():
        try:
            session._embedded_session("local[2]", {})
        except preflight.SparkEnvironmentError as exc:
            errors.append(str(exc))

    threads = [threading.Thread(target=call) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == ["no JVM today"] * 3
    assert session._starting == {}  # nothing stuck: the next call starts afresh
    monkeypatch.setattr(session, "_build", lambda master, conf, jvm_stderr=None: "fresh")
    assert session._embedded_session("local[2]", {}) == "fresh"


def test_prewarm_is_off_when_the_environment_says_so(monkeypatch):
    monkeypatch.setenv(warmup.PREWARM_ENV, "0")
    assert warmup.prewarm(reason="test") is None
    assert warmup.enabled() is False


def test_prewarm_does_nothing_without_java(monkeypatch):
    monkeypatch.setenv(warmup.PREWARM_ENV, "1")
    monkeypatch.setattr(preflight, "find_java", lambda: None)
    assert warmup.prewarm({"spark.master": "local[1]"}, reason="test") is None


def test_prewarm_runs_in_the_background_and_is_shared(fake_build, monkeypatch):
    monkeypatch.setenv(warmup.PREWARM_ENV, "1")
    monkeypatch.setattr(warmup, "_warmups", {})
    monkeypatch.setattr(preflight, "find_java", lambda: "/usr/bin/java")
    warmed: list[object] = []
    monkeypatch.setattr(warmup, "warm_python_workers", warmed.append)
    conf = {"spark.master": "local[3]", "spark.executor.memory": "1g"}
    started = time.perf_counter()
    future = warmup.prewarm(conf, reason="test")
    assert time.perf_counter() - started < 0.15  # returned before the (0.2 s) start finished
    assert warmup.prewarm(dict(conf), reason="again") is future
    assert warmup.warmup_for(conf) is future
    report = future.result(timeout=10)
    assert report.reason == "test" and report.session_seconds >= 0.2
    assert fake_build == [("local[3]", {"spark.executor.memory": "1g"})]
    # the warm-up's JVM writes its stderr to the log file (no red JVM lines in a notebook)
    assert session._build_jvm_stderr == [session.jvm_log_path()]
    # the run that follows gets the very session the warm-up started and warmed
    assert session.get_session(conf) is warmed[0]
    assert len(fake_build) == 1


@pytest.mark.slow
@pytest.mark.spark
def test_a_real_warm_up_then_a_job_in_a_fresh_process(tmp_path):
    if not preflight.find_java():
        pytest.skip("Java not found")
    script = textwrap.dedent(
        """
        import os, sys
        os.environ["PYFLOWKIT_SPARK_PREWARM"] = "1"
        from pyflowkit.common import Configuration, Types
        from pyflowkit.datastream import StreamExecutionEnvironment
        from pyflowkit.spark import session, warmup

        conf = {"spark.master": "local[1]"}
        future = warmup.prewarm(conf, reason="script")
        report = future.result(timeout=300)
        print("warm", report.session_seconds > 0, report.workers_seconds > 0)
        c = Configuration()
        c.set_string("spark.master", "local[1]")
        env = StreamExecutionEnvironment.get_execution_environment(c)
        env.set_parallelism(1)
        env.from_collection([1, 2, 3], type_info=Types.INT()).map(
            lambda x: x * 10, output_type=Types.INT()
        ).print()
        env.execute("three records")
        print("same", session.get_session(conf) is session._embedded)
        sys.stdout.flush()
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines[0] == "warm True True"
    assert sorted(lines[1:4]) == ["10", "20", "30"]
    assert lines[4] == "same True"


def test_load_ext_starts_the_warm_up_with_the_warm_up_job(monkeypatch):
    from IPython.testing.globalipapp import get_ipython

    from pyflowkit.examples.warm_up import warm_up_job_graph

    calls: list[tuple] = []
    monkeypatch.setattr(warmup, "prewarm", lambda conf=None, **kw: calls.append((conf, kw)))
    shell = get_ipython()
    shell.run_line_magic("load_ext", "pyflowkit")
    try:
        assert calls == [(None, {"reason": "%load_ext pyflowkit", "job": warm_up_job_graph})]
    finally:
        shell.run_line_magic("unload_ext", "pyflowkit")


def test_pyflowkit_run_warms_the_master_it_was_given(monkeypatch, tmp_path):
    from pyflowkit.cli import main as cli_main

    calls: list[tuple] = []
    monkeypatch.setattr(warmup, "prewarm", lambda conf=None, **kw: calls.append((conf, kw)))
    program = tmp_path / "job.py"
    program.write_text("raise SystemExit('stop before anything runs')\n")
    for argv in (["run", str(program), "--master", "local[1]"], ["run", str(program)]):
        try:
            cli_main(argv)
        except SystemExit:
            pass
    assert [c[0] for c in calls] == [{"spark.master": "local[1]"}, None]
    assert all(c[1]["reason"] == "pyflowkit run" for c in calls)
    calls.clear()
    try:
        cli_main(["run", str(program), "--target", "local"])
    except SystemExit:
        pass
    assert calls == []  # the simulated cluster needs no Spark


def test_the_warm_up_job_is_a_small_keyed_job():
    from pyflowkit.examples.warm_up import warm_up_job_graph

    graph = warm_up_job_graph()
    assert [v.name for v in graph.vertices] == [
        "Source: Collection Source",
        "Map",
        "Keyed Reduce -> Sink: Unnamed",
    ]
