"""The local Spark service's supervisor: starts the Spark Connect server JVM, records its state,
and stops it after the idle timeout (no program connected) or on SIGTERM.

Run as ``python -m pyflowkit.spark.service_daemon DIR PORT IDLE_SECONDS FINGERPRINT`` by
``service.start`` in its own session. No Flink counterpart (Flink's ``ClusterEntrypoint`` runs
until stopped); Spark's ``SparkConnectServer`` has no idle shutdown of its own.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from pyflowkit.spark import service

POLL_S = 2.0
WORKER_DAEMON = "pyflowkit.spark.worker_daemon"


def connect_args(port: int) -> list[str]:
    """``spark-submit`` arguments: the embedded session's quiet settings, loopback only."""
    import pyspark

    from pyflowkit.spark.session import DEFAULT_MASTER, quiet_settings

    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    args = [str(submit), "--class", service.CONNECT_SERVER, "--name", "pyflowkit Spark service"]
    args += ["--master", DEFAULT_MASTER]
    settings = quiet_settings(DEFAULT_MASTER)
    settings["spark.connect.grpc.binding.address"] = "127.0.0.1"
    settings["spark.connect.grpc.binding.port"] = str(port)
    # The shared session lives as long as the service (the idle timeout stops both).
    settings["spark.connect.session.manager.defaultSessionTimeout"] = "3650d"
    # Python workers fork from a daemon that has pyflowkit's stage code imported already.
    settings["spark.python.daemon.module"] = WORKER_DAEMON
    for key, value in settings.items():
        args += ["--conf", f"{key}={value}"]
    return args


def _own_socket_inodes() -> set[str]:
    inodes = set()
    try:
        for fd in os.listdir("/proc/self/fd"):
            try:
                target = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    except OSError:
        pass
    return inodes


def established_clients(port: int, ignore_own: bool = False) -> int:
    """TCP connections established to ``port`` (Linux ``/proc/net/tcp*``; else psutil; else -1).
    ``ignore_own``: not those this process opened (the dispatcher's session on the server)."""
    wanted = f"{port:04X}"
    rows, seen = [], False
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(name).read_text().splitlines()[1:]
        except OSError:
            continue
        seen = True
        rows += [f for f in (line.split() for line in lines) if len(f) > 9 and f[3] == "01"]
    if seen:
        own_ports: set[str] = set()
        if ignore_own:
            inodes = _own_socket_inodes()
            own_ports = {
                f[1].rsplit(":", 1)[-1]
                for f in rows
                if f[2].rsplit(":", 1)[-1] == wanted and f[9] in inodes
            }
        return sum(
            1
            for f in rows
            if f[1].rsplit(":", 1)[-1] == wanted and f[2].rsplit(":", 1)[-1] not in own_ports
        )
    try:
        import psutil  # type: ignore[import-not-found]

        conns = psutil.net_connections(kind="tcp")
        return sum(
            1 for c in conns if c.laddr and c.laddr.port == port and c.status == "ESTABLISHED"
        )
    except Exception:  # noqa: BLE001 — no way to see connections: rely on clients' activity file
        return -1


def main(argv: list[str]) -> int:
    directory, port, idle_s, fingerprint = Path(argv[0]), int(argv[1]), float(argv[2]), argv[3]
    token = (directory / "token").read_text().strip()
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable)
    env["SPARK_CONNECT_AUTHENTICATE_TOKEN"] = token
    started = time.time()
    record = {
        "pid": os.getpid(),
        "jvm_pid": None,
        "port": port,
        "started": started,
        "idle_timeout_s": idle_s,
        "status": "starting",
        "python": sys.executable,
        "pyflowkit": str(Path(service.__file__).resolve().parent.parent),
        "fingerprint": fingerprint,
    }
    service.write_state(directory, **record)
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append("SIGTERM"))
    signal.signal(signal.SIGINT, lambda *_: stopping.append("SIGINT"))
    print(f"[{time.ctime()}] starting {' '.join(connect_args(port))}", flush=True)
    jvm = subprocess.Popen(connect_args(port), env=env, stdin=subprocess.DEVNULL, cwd=directory)
    record["jvm_pid"] = jvm.pid
    service.write_state(directory, **record)
    reason = "the Spark Connect server exited"
    dispatcher = None
    last_active = last_touch = started
    service.touch_activity(directory)
    while not stopping:
        if jvm.poll() is not None:
            reason = f"the Spark Connect server exited with code {jvm.returncode}"
            break
        now = time.time()
        if record["status"] == "starting" and service._listening(port):
            record["status"] = "running"
            dispatcher = _start_dispatcher(directory, port)
            record["dispatcher_port"] = dispatcher.port if dispatcher is not None else None
            service.write_state(directory, **record)
            last_active = now  # the idle clock starts when programs can connect, not at launch
            service.touch_activity(directory)
            print(f"[{time.ctime()}] ready on 127.0.0.1:{port}", flush=True)
        clients = established_clients(port, ignore_own=True)
        if dispatcher is not None and clients >= 0:
            clients += dispatcher.running + max(0, established_clients(dispatcher.port))
        if clients > 0:
            last_active = now
            if now - last_touch >= POLL_S * 5:  # `status` shows idle 0 while a program is connected
                service.touch_activity(directory)
                last_touch = now
        last_active = max(last_active, _mtime(directory / "activity"))
        if record["status"] == "running" and clients <= 0 and now - last_active > idle_s:
            reason = f"idle for {idle_s / 60:g} min"
            break
        time.sleep(POLL_S)
    if stopping:
        reason = f"{stopping[0]} (pyflowkit spark stop)"
    print(f"[{time.ctime()}] stopping: {reason}", flush=True)
    if dispatcher is not None:
        dispatcher.close()
    _stop_jvm(jvm)
    if service.read_state(directory) is not None:
        service.clear_state(directory)
    return 0


def _start_dispatcher(directory: Path, port: int) -> Any:
    """The service's ``Dispatcher`` (programs submit JobGraphs to it), on the shared session of
    the Connect server on ``port``; None (programs then use Spark Connect) if it cannot start."""
    try:
        from pyflowkit.spark.job_dispatcher import Dispatcher

        token = (directory / "token").read_text().strip()
        shared = (directory / "session").read_text().strip()
        remote = f"sc://localhost:{port}/;token={token};{service.SHARED_SESSION_PARAM}={shared}"
        dispatcher = Dispatcher(directory, remote).start()
    except Exception as exc:  # noqa: BLE001 — the Connect server alone still serves programs
        print(f"[{time.ctime()}] no dispatcher: {exc!r}", flush=True)
        return None
    print(f"[{time.ctime()}] dispatcher on 127.0.0.1:{dispatcher.port}", flush=True)
    return dispatcher


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _stop_jvm(jvm: subprocess.Popen, grace_s: float = 20.0) -> None:
    if jvm.poll() is not None:
        return
    jvm.terminate()
    try:
        jvm.wait(grace_s)
    except subprocess.TimeoutExpired:
        jvm.kill()
        jvm.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
