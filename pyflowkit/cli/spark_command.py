"""``pyflowkit spark start|stop|status``: the local Spark service (a Spark Connect server on
127.0.0.1 that later programs connect to instead of starting a JVM each).

Flink's counterpart in spirit: ``start-cluster.sh`` / ``stop-cluster.sh`` for a local cluster.
"""

from __future__ import annotations

import argparse

from pyflowkit.cli.errors import CliError

NAME = "spark"
HELP = "Start, stop or show the local Spark service (Spark Connect on 127.0.0.1)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    start = actions.add_parser("start", help="start the service (no-op when it runs)")
    start.add_argument(
        "--idle-timeout",
        type=float,
        metavar="MIN",
        help="stop after MIN minutes without a connected program (default: "
        "pyflowkit.spark.service.idle-timeout / $PYFLOWKIT_SPARK_SERVICE_IDLE, else 30)",
    )
    start.add_argument("--port", type=int, help="the Connect port (default: a free one)")
    actions.add_parser("stop", help="stop the service of this Python environment")
    actions.add_parser("status", help="pid, url, uptime, idle time and log of every service")


def run(args: argparse.Namespace) -> int:
    from pyflowkit.spark import service

    try:
        if args.action == "start":
            idle = args.idle_timeout or service.idle_timeout_minutes()
            if idle <= 0:
                raise CliError("--idle-timeout must be > 0 minutes")
            state, started = service.start(idle, args.port)
            print(("Started" if started else "Already running:") + " the local Spark service")
            print("\n".join(service.describe(state)))
        elif args.action == "stop":
            state = service.stop()
            if state is None:
                print("No local Spark service runs for this Python environment.")
            else:
                print(f"Stopped the local Spark service (pid {state.pid}, {state.url}).")
        else:
            states = service.all_states()
            if not states:
                print(f"No local Spark service runs (state in {service.base_dir()}).")
            for state in states:
                print("\n".join(service.describe(state)))
    except service.SparkServiceError as exc:
        raise CliError(str(exc)) from None
    return 0
