"""Run a user's pipeline file and capture the environment it built, without executing the job.

Flink's counterpart: ``PackagedProgramUtils.getPipelineFromProgram`` with a
``StreamPlanEnvironment`` (``execute()`` throws ``ProgramAbortException`` once the plan is known).
"""

from __future__ import annotations

import os
import runpy
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyflowkit.cli.errors import CliError
from pyflowkit.errors import PipelineError, ProgramAbortException


@dataclass
class CapturedProgram:
    """The environment a pipeline file built, and the job name it passed to ``execute()``."""

    path: Path
    env: Any  # pyflowkit.datastream.StreamExecutionEnvironment
    job_name: str | None


def _failing_line(exc: BaseException, path: Path) -> str:
    """`` (line N)`` of the innermost frame inside the user's file, if any."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
    return f" (line {frames[-1].lineno})" if frames else ""


def describe_error(exc: BaseException) -> str:
    """``TypeName: message`` — the exception as a user reads it, without a traceback."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class _HardExit(BaseException):
    """``os._exit(status)`` called by the program: turned into an exception while it runs."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def _hard_exit(status: int) -> None:
    raise _HardExit(status)


def _run_file(path: Path) -> str | None:
    """Run the program; returns how it exited early (``os._exit(0)``, ``sys.exit(0)``) if it did."""
    saved_argv, saved_path, saved_exit = sys.argv[:], sys.path[:], os._exit
    sys.argv = [str(path)]
    sys.path.insert(0, str(path.parent))
    os._exit = _hard_exit  # type: ignore[assignment]  # would end this process, exit code 0
    try:
        runpy.run_path(str(path), run_name="__main__")
    except ProgramAbortException:
        pass  # execute() was called: the plan is captured
    except _HardExit as exc:
        if exc.status != 0:
            raise CliError(f"{path.name} called os._exit({exc.status})") from None
        return f"{path.name} called os._exit(0)"
    except SystemExit as exc:
        if exc.code not in (None, 0):
            raise CliError(f"{path.name} exited with status {exc.code}") from None
        return f"{path.name} called sys.exit({'' if exc.code is None else 0})"
    except PipelineError as exc:
        raise CliError(f"{path.name}{_failing_line(exc, path)}: {describe_error(exc)}") from None
    except Exception as exc:  # noqa: BLE001 — a user script may raise anything
        raise CliError(
            f"{path.name} failed{_failing_line(exc, path)}: {describe_error(exc)}"
        ) from None
    finally:
        sys.argv, sys.path[:], os._exit = saved_argv, saved_path, saved_exit
    return None


def _pick(captured: Any) -> tuple[Any, str | None] | None:
    """The executed environment if any, else the last one that recorded transformations."""
    envs = list(getattr(captured, "environments", captured))
    executed = list(getattr(captured, "executions", []))
    if executed:
        env, job_name = executed[-1]
        return env, job_name
    built = [env for env in envs if env.get_transformations()]
    return (built[-1], None) if built else None


def load_program(file: str | Path) -> CapturedProgram:
    """Run ``file`` with environments captured; failures become ``CliError``s with clear text."""
    path = Path(file).resolve()
    if not path.exists():
        raise CliError(f"{file}: no such file")
    if not path.is_file():
        raise CliError(f"{file}: not a file (expected a Python file that builds a pipeline)")
    from pyflowkit.common.flink_version import V1_20, entry_point_version
    from pyflowkit.datastream.environment_capture import capture_environments

    # a user's program is written for PyFlink 1.20 (issue #24): its environments follow 1.20's
    # API semantics unless it sets pyflowkit.flink-version itself
    with capture_environments() as captured, entry_point_version(V1_20):
        early_exit = _run_file(path)
    picked = _pick(captured)
    if picked is None:
        how = f" ({early_exit} before building one)" if early_exit else ""
        raise CliError(
            f"{path.name} built no pipeline{how}: create it on "
            "StreamExecutionEnvironment.get_execution_environment() and add a source and a sink "
            "(e.g. env.from_collection([...]).map(...).print())"
        )
    env, job_name = picked
    return CapturedProgram(path, env, job_name)


def compile_graph(program: CapturedProgram, level: str) -> Any:
    """The program's StreamGraph, JobGraph or ExecutionGraph; pipeline errors become CliErrors."""
    env, name = program.env, program.job_name
    getters = {
        "stream": env.get_stream_graph,
        "job": env.get_job_graph,
        "execution": env.get_execution_graph,
    }
    try:
        return getters[level](name) if name is not None else getters[level]()
    except PipelineError as exc:
        raise CliError(f"{program.path.name}: {describe_error(exc)}") from None
