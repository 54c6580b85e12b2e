"""Capturing a script's environments without running it (Flink's ``StreamPlanEnvironment``).

Inside ``capture_environments()``, ``StreamExecutionEnvironment.get_execution_environment()``
returns environments that are recorded, and their ``execute()`` records the job name and raises
``ProgramAbortException`` (as Flink's plan-capturing context environment does), so a CLI can
inspect the pipeline a script built.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass
class EnvironmentCapture:
    """What a captured script did: its environments and the jobs it tried to execute."""

    environments: list[Any] = field(default_factory=list)
    executions: list[tuple[Any, str | None]] = field(default_factory=list)  # (env, job_name)

    @property
    def job_names(self) -> list[str | None]:
        return [name for _, name in self.executions]

    def last_environment(self) -> Any:
        """The environment that executed last, else the last one created (None if none)."""
        if self.executions:
            return self.executions[-1][0]
        return self.environments[-1] if self.environments else None


_active: list[EnvironmentCapture] = []


def current_capture() -> EnvironmentCapture | None:
    """The innermost active capture, or None outside ``capture_environments()``."""
    return _active[-1] if _active else None


@contextmanager
def capture_environments() -> Iterator[EnvironmentCapture]:
    """Record every environment created (and every ``execute()``) while the block runs."""
    capture = EnvironmentCapture()
    _active.append(capture)
    try:
        yield capture
    finally:
        _active.remove(capture)
