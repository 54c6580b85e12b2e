"""The local Spark service from the shell, as users meet it: ``python word_count.py`` with no
master configured starts it (one stderr line says so), a second run reuses it with the same
results, ``pyflowkit spark status/start`` describe it; the supervisor stops the server when idle,
and a lock or a server that does not start ends with a bounded, clear error (one JVM start for
the whole test run, shared with the differential tests through ``spark_service``)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pyflowkit.examples import word_count
from pyflowkit.spark import service, service_daemon

REPO = Path(__file__).resolve().parents[2]
PROGRAM = REPO / "pyflowkit" / "examples" / "word_count.py"


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        args, env=env, cwd=REPO, capture_output=True, text=True, timeout=300, check=False
    )


# The program as ``python word_count.py`` runs it, then which of the modules a Spark client
# needs it loaded (stderr).
AS_MAIN_THEN_MODULES = (
    "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__'); "
    "print('loaded:', *[m for m in ('ipykernel', 'pyspark', 'pandas', 'pyarrow', 'grpc', 'py4j') "
    "if m in sys.modules], file=sys.stderr)"
)


def printed_counts(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if re.match(r"\d> \(", line)]


@pytest.mark.spark
@pytest.mark.slow
def test_a_second_program_reuses_the_service_the_first_one_started(
    spark_service_first_program,
) -> None:
    first, env = spark_service_first_program.result, spark_service_first_program.env
    started = json.loads((service.service_dir() / "service.json").read_text())
    cli = [sys.executable, "-m", "pyflowkit", "spark"]
    status = run([*cli, "status"], env)
    again = run([*cli, "start"], env)
    second = run([sys.executable, "-c", AS_MAIN_THEN_MODULES, str(PROGRAM)], env)
    assert second.returncode == 0, second.stderr[-3000:]
    # the second program submits its JobGraph to the service (Flink's client model): no Spark
    # client in its process (pyspark, pandas, pyarrow, grpc: 2-8 s of start-up), no ipykernel
    assert "loaded:" in second.stderr.splitlines()
    log = (service.service_dir() / "service.log").read_text()
    assert re.search(r"dispatcher: job 'Word Count' \(\w+\): loaded in [\d.]+ s, ran in", log)
    after = json.loads((service.service_dir() / "service.json").read_text())

    port = started["port"]
    announce = [line for line in first.stderr.splitlines() if "local Spark service" in line]
    assert announce == [
        f"pyflowkit: starting a local Spark service (Spark Connect on 127.0.0.1:{port}, idle "
        "timeout 30 min) so that later programs start in seconds; pyflowkit spark stop ends it"
    ]
    assert "local Spark service" not in second.stderr
    for result in (first, second):  # the word counts of the embedded session, per key in order
        lines = printed_counts(result.stdout)
        assert word_count.check_printed(lines)
        assert len(lines) == sum(word_count.expected_output().values())
    reused = (after["pid"], after["jvm_pid"], after["port"])
    assert reused == (started["pid"], started["jvm_pid"], port)
    assert status.returncode == 0
    out = status.stdout
    assert f"Spark service: running, pid {started['pid']} (JVM pid {started['jvm_pid']})" in out
    assert f"url:          sc://localhost:{port} (Spark Connect, 127.0.0.1 only" in out
    assert re.search(r"uptime: +\d+ (s|min)", out) and re.search(r"idle: +\d+ s \(stops", out)
    assert "stops itself after 30 min 00 s idle" in out and "service.log" in out
    jobs = f"jobs:         127.0.0.1:{started['dispatcher_port']} (programs submit their JobGraphs"
    assert jobs in out
    token = (service.service_dir() / "token").read_text().strip()
    assert token not in out  # the token stays in its owner-only file
    assert again.stdout.startswith("Already running: the local Spark service")


MIXED_PROGRAM = textwrap.dedent(
    """
    from pyflowkit.common import Types
    from pyflowkit.datastream import StreamExecutionEnvironment
    from pyflowkit.datastream.functions import SourceFunction
    from pyflowkit.examples import word_count


    class Words(SourceFunction):
        def run(self, ctx):
            for w in ["a", "b", "a"]:
                ctx.collect((w, 1))


    env = StreamExecutionEnvironment.get_execution_environment()
    word_count.build(env)
    env.execute("bounded, on the local Spark service")
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    words = env.add_source(Words(), "Words", Types.TUPLE([Types.STRING(), Types.INT()]))
    words.key_by(lambda w: w[0]).reduce(lambda a, b: (a[0], a[1] + b[1])).print("count")
    env.execute("unbounded, a Structured Streaming query on a classic session")
    """
)


@pytest.mark.spark
@pytest.mark.slow
def test_a_program_runs_a_bounded_job_on_the_service_then_an_unbounded_one(
    spark_service_first_program, tmp_path
) -> None:
    """PySpark marks a process that built a Connect session as Connect for good, and the
    Connect session stays active: the streaming query after a job on the service got it and
    failed (STREAMING_CONNECT_SERIALIZATION_ERROR); it now gets a classic session."""
    program = tmp_path / "mixed.py"
    program.write_text(MIXED_PROGRAM)
    result = run([sys.executable, str(program)], spark_service_first_program.env)
    assert result.returncode == 0, result.stderr[-3000:]
    assert word_count.check_printed(printed_counts(result.stdout))
    counts = [line for line in result.stdout.splitlines() if line.startswith("count> ")]
    assert counts == ["count> (a,1)", "count> (b,1)", "count> (a,2)"]


FAKE_SERVER = textwrap.dedent(
    """
    import socket, sys, time
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen()
    time.sleep(600)
    """
)


def test_the_supervisor_stops_its_server_when_idle(tmp_path, monkeypatch, capsys) -> None:
    """``service_daemon.main`` with a stand-in for the Connect server (a process listening on
    the port): ready, then idle past the timeout with no program connected, then it stops the
    server and removes its state."""
    port = service.free_port()
    (tmp_path / "token").write_text("t")
    monkeypatch.setattr(service_daemon, "POLL_S", 0.1)
    monkeypatch.setattr(
        service_daemon, "connect_args", lambda p: [sys.executable, "-c", FAKE_SERVER, str(p)]
    )
    began = time.monotonic()
    assert service_daemon.main([str(tmp_path), str(port), "1.0", "fp"]) == 0
    elapsed = time.monotonic() - began
    out = capsys.readouterr().out
    assert re.search(rf"ready on 127\.0\.0\.1:{port}\n.*stopping: idle for 0\.0166667 min\n", out)
    assert 1.0 <= elapsed < 30
    assert not (tmp_path / "service.json").exists()
    assert not service._listening(port)


def test_a_held_lock_ends_in_a_bounded_error_naming_its_holder(tmp_path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys, time; f = open(sys.argv[1], 'a+'); "
            "fcntl.flock(f, fcntl.LOCK_EX); f.write('4242'); f.flush(); print('held', flush=True); "
            "time.sleep(60)",
            str(tmp_path / "lock"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "held\n"
        began = time.monotonic()
        with pytest.raises(service.SparkServiceError) as info, service._DirLock(tmp_path, 0.5):
            pass
        assert time.monotonic() - began < 5
    finally:
        holder.kill()
        holder.wait()
    assert str(info.value) == (
        f"the local Spark service's lock {tmp_path / 'lock'} is still held after 0.5 s "
        "(by pid 4242, starting or stopping it)"
    )
    with service._DirLock(tmp_path, 0.5):  # released when its holder ends
        assert (tmp_path / "lock").read_text() == str(__import__("os").getpid())


def test_a_service_that_cannot_start_falls_back_to_the_embedded_session(
    tmp_path, monkeypatch, capsys
) -> None:
    """A supervisor that exits at once (here: no such Python) gives one stderr line and None:
    the program runs on an in-process session instead of hanging."""
    monkeypatch.setenv(service.DIR_ENV, str(tmp_path))
    monkeypatch.setattr(service, "is_script_process", lambda: True)
    monkeypatch.setattr(service.sys, "executable", str(tmp_path / "no-python"))
    assert service.default_remote({}) is None
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("pyflowkit: starting a local Spark service (Spark Connect on ")
    assert err[1].startswith("pyflowkit: ")
    assert err[1].endswith(
        "; running on an in-process Spark session instead "
        "(pyflowkit.spark.service=false skips the service)"
    )
    assert not list(tmp_path.glob("*/service.json"))


def test_opt_out_and_interactive_processes_keep_the_embedded_session(monkeypatch) -> None:
    monkeypatch.setattr(service, "is_script_process", lambda: True)
    monkeypatch.delenv(service.SERVICE_ENV, raising=False)
    assert service.enabled({}) is True
    assert service.enabled({service.SERVICE_OPTION: "false"}) is False
    assert service.default_remote({service.SERVICE_OPTION: "false"}) is None
    monkeypatch.setenv(service.SERVICE_ENV, "0")
    assert service.enabled({}) is False
    assert service.enabled({service.SERVICE_OPTION: "true"}) is True
    assert service.idle_timeout_minutes({service.IDLE_TIMEOUT_OPTION: "5 min"}) == 5.0
    with pytest.raises(service.SparkServiceError, match="must be > 0 minutes, got '0'"):
        service.idle_timeout_minutes({service.IDLE_TIMEOUT_OPTION: "0"})


def test_a_streaming_query_never_runs_on_the_service(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spark Connect cannot serialize pyflowkit's foreachBatch: a Structured Streaming query
    takes the classic session even where a batch job would use the local service."""
    from pyspark.sql import SparkSession

    from pyflowkit.spark import executor, session

    masters: list[str] = []
    monkeypatch.setattr(SparkSession, "getActiveSession", staticmethod(lambda: None))
    monkeypatch.setattr(session, "_service_remote", lambda configuration, conf: "sc://service")
    monkeypatch.setattr(
        session, "_embedded_session", lambda master, conf, err=None: masters.append(master)
    )
    monkeypatch.setattr(session.preflight, "check_python_packages", lambda: None)
    session.get_session({})
    session.get_session({}, use_service=False)
    assert masters == ["sc://service", session.DEFAULT_MASTER]

    calls: list[dict] = []
    monkeypatch.setattr(
        executor,
        "get_session",
        lambda *a, **k: calls.append(k) or (_ for _ in ()).throw(RuntimeError("stop")),
    )
    with pytest.raises(RuntimeError, match="stop"):
        executor.start_streaming(object(), {})
    assert calls == [{"use_service": False}]


def _fake(role: str) -> subprocess.Popen:
    """A process whose command line names ``role`` (the supervisor module or the Connect server
    class), as ``service`` recognises the service's processes by."""
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", role])


def _state(directory: Path, supervisor: int, jvm: int, port: int) -> service.ServiceState:
    return service.ServiceState(
        directory, supervisor, jvm, port, time.time(), 60.0, "running", "", "", ""
    )


def test_a_program_whose_service_dies_fails_at_once_naming_it(tmp_path) -> None:
    """Its Connect server killed (kill -9), a program's next Spark Connect call raises the
    service's error at once instead of retrying ~10 minutes (``DefaultPolicy``); while the JVM
    runs the client's own policies still decide."""
    pytest.importorskip("grpc", reason="Spark Connect needs grpcio")
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    jvm = _fake(service.CONNECT_SERVER)
    port = service.free_port()  # nothing listens: every call is UNAVAILABLE
    state = _state(tmp_path, 0, jvm.pid, port)
    session = ConnectSession.builder.remote(f"sc://localhost:{port}/;token=t").create()
    session.release_session_on_close = False
    try:
        service.watch(session, state)
        assert not service.server_gone(state) and service.gone_error_of(session) is None
        jvm.kill()
        jvm.wait()
        began = time.monotonic()
        with pytest.raises(service.SparkServiceGone) as info:
            session.range(3).collect()
        assert time.monotonic() - began < 5
    finally:
        jvm.kill()
        session.stop()
    assert str(info.value) == (
        f"the local Spark service (Spark Connect on 127.0.0.1:{port}, JVM pid {jvm.pid}) stopped "
        f"while this program was using it (its log: {tmp_path / 'service.log'}). Run the program "
        "again to start a new service (or start one with `pyflowkit spark start`), or set "
        "pyflowkit.spark.service=false (PYFLOWKIT_SPARK_SERVICE=0) to run on an in-process "
        "Spark session."
    )
    assert service.gone_error_of(session) is not None
    assert type(info.value.__cause__).__module__.startswith("grpc")


def test_the_next_program_replaces_a_service_whose_server_died(
    tmp_path, monkeypatch, capsys
) -> None:
    """A record still saying "running" (its supervisor not yet woken) but whose JVM is gone:
    the next program stops that supervisor and starts a new service (here one that cannot
    start, so the program then falls back)."""
    monkeypatch.setenv(service.DIR_ENV, str(tmp_path))
    monkeypatch.setattr(service, "is_script_process", lambda: True)
    supervisor, jvm = _fake(service.DAEMON_MODULE), _fake(service.CONNECT_SERVER)
    monkeypatch.setattr(service.sys, "executable", str(tmp_path / "no-python"))
    directory = service.service_dir()  # (named after the Python too)
    directory.mkdir(parents=True)
    jvm.kill()
    jvm.wait()
    try:
        state = _state(directory, supervisor.pid, jvm.pid, service.free_port())
        fields = {k: v for k, v in vars(state).items() if k != "directory"}
        service.write_state(directory, **{**fields, "fingerprint": service.code_fingerprint()})
        assert service.server_gone(service.read_state())
        assert service.default_remote({}) is None
        assert not service._pid_alive(supervisor.pid)  # the old supervisor was stopped (SIGTERM)
    finally:
        supervisor.kill()
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (
        f"pyflowkit: the local Spark service (pid {supervisor.pid}) lost its Spark Connect "
        f"server (JVM pid {jvm.pid} exited; log {directory / 'service.log'}); starting a new one"
    )
    assert err[1].startswith("pyflowkit: starting a local Spark service (Spark Connect on ")
    assert err[2].endswith("(pyflowkit.spark.service=false skips the service)")


def test_the_service_workers_fork_from_a_daemon_with_pyflowkit_imported(tmp_path) -> None:
    """``spark.python.daemon.module``: the service's worker daemon imports pyflowkit's stage code
    before forking, so a forked worker unpickles the word count's stage functions without
    importing pyflowkit modules; like ``pyspark.daemon`` it imports nothing that starts threads
    (pyarrow, pandas, numpy, grpc: each worker imports them after the fork)."""
    from pyspark import cloudpickle

    from pyflowkit.datastream import StreamExecutionEnvironment
    from pyflowkit.spark.executor import _job_graph, _settings
    from pyflowkit.spark.plan import stage_specs
    from pyflowkit.spark.stage import stage_function

    args = service_daemon.connect_args(service.free_port())
    assert f"spark.python.daemon.module={service_daemon.WORKER_DAEMON}" in args
    env = StreamExecutionEnvironment.get_execution_environment()
    word_count.build(env)
    job_graph = _job_graph(env, "wc")
    specs = stage_specs(job_graph, _settings(job_graph), "STREAMING")
    (tmp_path / "stages").write_bytes(cloudpickle.dumps([stage_function(s) for s in specs]))
    probe = textwrap.dedent(
        """
        import pickle, sys
        from pyflowkit.spark import worker_daemon
        worker_daemon.preload()
        native = [m for m in ("pyarrow", "pandas", "numpy", "grpc", "pyspark") if m in sys.modules]
        before = set(sys.modules)
        functions = pickle.loads(open(sys.argv[1], "rb").read())
        new = sorted(m for m in set(sys.modules) - before if m.startswith("pyflowkit"))
        print(len(functions), native, new)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path / "stages")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        cwd=REPO,
    )
    count, native, new = out.stdout.split(" ", 2)
    assert (count, native, out.stderr) == ("3", "[]", "")
    # left to the worker: the user's module (here the example) and the DataStream API it uses
    left = {m.split(".")[1] for m in eval(new)}  # noqa: S307 — our own probe's list
    assert left == {"examples", "datastream"}, new
    assert "'pyflowkit.spark.stage'" not in new and "'pyflowkit.operators" not in new


@pytest.mark.spark
def test_a_submitted_job_prints_fails_and_reports_as_on_a_session(
    spark_service_first_program, capsys
) -> None:
    """A JobGraph submitted to the service's dispatcher: the print sink's lines reach this
    process's stdout, the result's progress and Spark plan are read from the service when first
    asked for, and a failing function ends in Flink's ``JobExecutionException`` with the user's
    traceback and the failing subtask, as on a session."""
    from pyflowkit.datastream import StreamExecutionEnvironment
    from pyflowkit.errors import JobExecutionException
    from pyflowkit.spark import job_submission

    state = service.read_state()
    assert state is not None and state.dispatcher_port is not None
    env = StreamExecutionEnvironment.get_execution_environment()
    word_count.build(env)
    capsys.readouterr()
    result = job_submission.submit_to(state, env.get_job_graph("Word Count"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed == result.print_lines and word_count.check_printed(printed)
    assert type(result).__name__ == "SparkJobExecutionResult"
    assert result.progress.status == "FINISHED"
    assert result.spark_plan.stages[-1].vertex_name.startswith("Keyed Reduce")
    assert "MapInArrow" in result.spark_plan.physical_plan

    def boom(x):
        return 1 // (x - 2)

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.from_collection([1, 2, 3]).map(boom).print()
    with pytest.raises(JobExecutionException) as info:
        job_submission.submit_to(state, env.get_job_graph("failing on the service"), {})
    failure = str(info.value)
    assert failure.startswith("Traceback (most recent call last):")
    assert re.search(r"line \d+, in boom\n", failure) and "ZeroDivisionError: integer" in failure
    assert (
        "failed in Source: Collection Source -> Map -> Sink: Print to Std. Out (1/1) on Spark"
        in failure
    )
    assert info.value.job_id and info.value.cause is not None
