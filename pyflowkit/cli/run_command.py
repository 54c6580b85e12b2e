"""``pyflowkit run FILE.py``: run a pipeline file's job on Spark (default) or the MiniCluster.

Flink's counterpart: ``flink run`` (``CliFrontend.run``), which executes the program and, for an
attached job, prints ``Job with JobID … has finished.`` and ``Job Runtime: … ms``.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from pyflowkit.cli.errors import CliError
from pyflowkit.cli.program import CapturedProgram, describe_error, load_program

NAME = "run"
HELP = "Run a pipeline file's job on Spark (default: embedded local[*]) or the simulated cluster."
TARGETS = ("spark", "local")
_USER_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE.py", help="a Python file that builds a pipeline")
    parser.add_argument(
        "--target",
        choices=TARGETS,
        help="execution.target: spark (default, or the file's own setting) or local (MiniCluster)",
    )
    parser.add_argument(
        "--master",
        metavar="URL",
        help="spark.master (local[N], spark://host:port, yarn, k8s://…) or sc://host:port (Connect)",
    )
    parser.add_argument(
        "--no-progress", action="store_true", help="no Spark progress line on stderr"
    )


def configure_target(env: Any, target: str | None, master: str | None, progress: bool) -> str:
    """Apply ``--target``/``--master`` as Flink ``Configuration`` keys; returns the target."""
    from pyflowkit.common import Configuration

    current = env.get_configuration().get_string("execution.target", "spark") or "spark"
    target = target or current
    if master is not None and target != "spark":
        raise CliError(f"--master applies to --target spark, not --target {target}")
    conf = Configuration()
    conf.set_string("execution.target", target)
    if master is not None:
        conf.set_string("spark.remote" if master.startswith("sc://") else "spark.master", master)
    if target == "spark" and progress:
        conf.set_string("pyflowkit.spark.progress", "text")
    env.configure(conf)
    return target


def failure_line(exc: BaseException, program: CapturedProgram) -> str:
    """One line for a failed job: the user's exception, where in their file, which subtask."""
    text = str(exc).strip()
    lines = [line for line in text.splitlines() if line.strip()]
    frames = [m for m in _USER_FRAME.finditer(text) if m.group(1) == str(program.path)]
    where = f" ({program.path.name} line {frames[-1].group(2)})" if frames else ""
    failed = next((i for i, line in enumerate(lines) if line.startswith(_FAILED)), None)
    if failed is None:
        return describe_error(exc) + where
    exception = next(
        (line.strip() for line in lines[:failed] if not line.startswith(_NOT_EXCEPTION)), ""
    )
    summary = [line for line in lines if line.startswith("Job '")]
    if summary:  # Spark: "Job '…' (id) failed in <subtask> on Spark." closes the text
        return f"{summary[-1].rstrip('.')}: {exception}{where}"
    task = lines[failed][len(_FAILED) :].split(" and was the direct cause")[0]
    name = f"Job '{program.job_name}'" if program.job_name else "Job"
    return f"{name} failed on the MiniCluster in {task}: {exception}{where}"


_FAILED = "The above exception failed "
_NOT_EXCEPTION = (" ", "Traceback", "Job execution failed.")


def run(args: argparse.Namespace) -> int:
    import importlib

    from pyflowkit.datastream.stream_execution_environment import EXECUTION_TARGETS
    from pyflowkit.errors import JobExecutionException, PipelineError

    if args.target in (None, "spark"):  # start Spark while the program loads and compiles
        from pyflowkit.examples.warm_up import warm_up_job_graph
        from pyflowkit.spark.job_submission import running_service
        from pyflowkit.spark.warmup import prewarm

        master = args.master
        key = "spark.remote" if master and master.startswith("sc://") else "spark.master"
        # a job for the running local service is submitted to it: nothing to warm up here
        if master or running_service({}) is None:
            prewarm(
                {key: master} if master else None, reason="pyflowkit run", job=warm_up_job_graph
            )
    program = load_program(args.file)
    target = configure_target(program.env, args.target, args.master, not args.no_progress)
    # The captured environment's own execute() only records (plan capture): run its executor.
    executor = importlib.import_module(EXECUTION_TARGETS[target])
    try:
        result = executor.execute(program.env, program.job_name)
    except JobExecutionException as exc:
        raise CliError(failure_line(exc, program)) from None
    except PipelineError as exc:
        raise CliError(f"{program.path.name}: {describe_error(exc)}") from None
    except Exception as exc:  # noqa: BLE001 — session start-up, unreachable master, …
        raise CliError(f"{program.path.name} on {target}: {describe_error(exc)}") from None
    sys.stdout.flush()
    print("Program execution finished")
    if getattr(result, "job_status", "FINISHED") == "CANCELED":  # Ctrl-C on a streaming job
        print(f"Job with JobID {result.get_job_id()} has been cancelled.")
    else:
        print(f"Job with JobID {result.get_job_id()} has finished.")
    print(f"Job Runtime: {result.get_net_runtime()} ms")
    accumulators = result.get_all_accumulator_results()
    if accumulators:
        print("Accumulator Results: ")
        for name, value in accumulators.items():
            print(f"- {name} ({type(value).__name__}): {value}")
    return 0
