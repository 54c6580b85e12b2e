"""Exception types, named as Flink names them (messages name the operator and the rule)."""

from __future__ import annotations


class PipelineError(Exception):
    """Base class of every error pyflowkit raises for a wrong pipeline."""


class UnsupportedOperationException(PipelineError):
    """Java's ``UnsupportedOperationException`` as Flink throws it (e.g. FORWARD across parallelism)."""


class IllegalArgumentException(PipelineError, ValueError):
    """Java's ``IllegalArgumentException`` (e.g. a bad parallelism or a duplicate uid)."""


class IllegalStateException(PipelineError):
    """Java's ``IllegalStateException`` (e.g. an illegal state-machine transition)."""


class IOException(PipelineError, OSError):
    """Java's ``java.io.IOException`` as Flink's ``FileSystem`` throws it (e.g. ``file://var/x``)."""


class InvalidTypesException(PipelineError, TypeError):
    """Flink's ``InvalidTypesException``: a key or record type that Flink cannot handle."""


class InvalidProgramException(PipelineError):
    """Flink's ``InvalidProgramException``: the program cannot be built (e.g. a collection whose
    elements its declared type cannot serialize)."""


class JobException(PipelineError):
    """Flink's ``org.apache.flink.runtime.JobException`` (e.g. parallelism above max parallelism)."""


class JobExecutionException(Exception):
    """Flink's ``JobExecutionException``: a job failed; ``__cause__`` holds the root failure."""

    def __init__(self, job_id: str, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.job_id = job_id
        self.cause = cause


class RestartGuardException(JobExecutionException):
    """pyflowkit's guard of ``run()``/``execute()`` on the simulated cluster (no Flink class): a job
    kept failing and restarting past the guard; names the function, the restarts and the fix."""

    def __init__(self, job_id: str, message: str, restarts: int, cause: BaseException | None):
        super().__init__(job_id, message, cause)
        self.restarts = restarts


class NoResourceAvailableException(JobException):
    """Flink's ``NoResourceAvailableException``: slot requests could not be fulfilled in time."""


class CheckpointException(Exception):
    """Flink's ``CheckpointException``; ``reason`` is a ``CheckpointFailureReason`` member name."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class ProgramAbortException(Exception):
    """Raised by ``execute()`` in a plan-capturing context (Flink's ``ProgramAbortException``)."""


class MalformedPatternException(PipelineError):
    """Flink CEP's ``MalformedPatternException``: a pattern that cannot be compiled into an NFA."""


class FlinkRuntimeException(Exception):
    """Flink's ``FlinkRuntimeException`` (e.g. a CEP condition that raised); ``__cause__`` is the
    user's exception."""
