"""Run a user's pipeline file and capture the environment it built, without executing the job.

Flink's counterpart: ``PackagedProgramUtils.getPipelineFromProgram`` with a
``StreamPlanEnvironment`` (``execute()`` throws ``ProgramAbortException`` once the plan is known).
"""

from __future__ import annotations

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


def _run_file(path: Path) -> None:
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = [str(path)]
    sys.path.insert(0, str(path.parent))
    try:
        runpy.run_path(str(path), run_name="__main__")
    except ProgramAbortException:
        pass  # execute() was called: the plan is captured
    except SystemExit as exc:
        if exc.code not in (None, 0):
            raise CliError(f"{path.name} exited with status {exc.code}") from None
    except PipelineError as exc:
        raise CliError(f"{path.name}{_failing_line(exc, path)}: {describe_error(exc)}") from None
    except Exception as exc:  # noqa: BLE001 — a user script may raise anything
        raise CliError(
            f"{path.name} failed{_failing_line(exc, path)}: {describe_error(exc)}"
        ) from None
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path


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
    from pyflowkit.datastream.environment_capture import capture_environments

    with capture_environments() as captured:
        _run_file(path)
    picked = _pick(captured)
    if picked is None:
        raise CliError(
            f"{path.name} built no pipeline: create it on "
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
