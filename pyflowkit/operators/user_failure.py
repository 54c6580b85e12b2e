"""A user function's failure as Flink reports it: the user's frames first, then where it failed
(operator, subtask, attempt), then the outer ``Recovery is suppressed by …`` — one text for both
hosts (the MiniCluster and Spark).

Stands for the chained stack trace of Flink's ``JobExecutionException`` (``Caused by:`` the
``JobException`` of ``ExecutionFailureHandler``, caused by the task's exception) and for the task
name and attempt of the job's exception history (``/jobs/:id/exceptions``).
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

_PACKAGE_DIR = str(Path(__file__).resolve().parents[1])
_HOST_PARTS = ("/pyspark/", "/py4j/")
JOB_EXCEPTION = (
    "pyflowkit.errors.JobException"  # as Flink prints org.apache.flink.runtime.JobException
)


def suppressed_message(restart_strategy: Any) -> str:
    """``ExecutionFailureHandler``'s message when the restart strategy refuses a restart."""
    return f"Recovery is suppressed by {restart_strategy}"


def is_own_frame(filename: str) -> bool:
    """A frame of pyflowkit itself or of the host (pyspark, py4j), not of the user's code."""
    return filename.startswith(_PACKAGE_DIR) or any(p in filename for p in _HOST_PARTS)


def user_traceback(exc: BaseException) -> str:
    """The traceback with pyflowkit's and the host's frames left out; only the exception line
    when no frame is the user's (an error pyflowkit raised, which names the user's code itself)."""
    frames = traceback.extract_tb(exc.__traceback__)
    user = [f for f in frames if not is_own_frame(f.filename)]
    lines = ["Traceback (most recent call last):\n", *traceback.format_list(user)] if user else []
    lines += traceback.format_exception_only(type(exc), exc)
    return "".join(lines)


def failing_operator(exc: BaseException) -> str | None:
    """The name of the innermost stream operator on the exception's stack (the one whose user
    function failed), or None (an injected failure, or one outside any operator)."""
    from pyflowkit.operators.base import StreamOperator

    tbs: list[TracebackType] = []
    tb = exc.__traceback__
    while tb is not None:
        tbs.append(tb)
        tb = tb.tb_next
    for tb in reversed(tbs):
        owner = tb.tb_frame.f_locals.get("self")
        if isinstance(owner, StreamOperator):
            config = getattr(owner, "config", None)
            name = getattr(config, "operator_name", None) or type(owner).__name__
            return FailedOperator(name, getattr(config, "chain_index", None))
    return None


class FailedOperator(str):
    """An operator's name that also knows the operator's place in its chain (``chain_index``),
    so a chain of several operators with that name can say which one failed."""

    chain_index: int | None

    def __new__(cls, name: str, chain_index: int | None = None) -> FailedOperator:
        self = super().__new__(cls, name)
        self.chain_index = chain_index
        return self


_SUBTASK_SUFFIX = re.compile(r" \(\d+/\d+\)$")
_ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}


def _which_of_its_name(task_name: str, operator: str) -> str:
    """`` (the 2nd 'Map' in the chain)`` when the chain has several operators named so."""
    index = getattr(operator, "chain_index", None)
    names = _SUBTASK_SUFFIX.sub("", task_name).split(" -> ")
    if index is None or names.count(operator) < 2 or not 0 <= index < len(names):
        return ""
    if names[index] != operator:
        return ""
    n = names[: index + 1].count(operator)
    return f" (the {_ORDINALS.get(n, f'{n}th')} '{operator}' in the chain)"


def trim_to_user_frames(exc: BaseException) -> None:
    """Let the exception's own traceback start at the user's first frame (when it has one), so
    a printed chain starts with the user's code."""
    tb = exc.__traceback__
    while tb is not None and is_own_frame(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    if tb is not None:
        exc.__traceback__ = tb


def failed_in(task_name: str, operator: str | None, attempt: int) -> str:
    """``operator 'Flat Map' of Source: … -> Flat Map (1/2) (attempt #0)``."""
    where = f"{task_name} (attempt #{attempt})"
    if not operator:
        return where
    return f"operator '{operator}'{_which_of_its_name(task_name, operator)} of {where}"


def chained_failure_text(user_tb: str, where: str, outer: str) -> str:
    """Python's chained-exception layout: the user's traceback, where it failed, the outer one."""
    return (
        f"{user_tb.rstrip()}\n\nThe above exception failed {where} and was the direct cause of "
        f"the following exception:\n\n{outer}\n"
    )


def note_failure(exc: BaseException, where: str) -> None:
    """Add ``Failed in …`` as a note (PEP 678) to the user's exception, once."""
    note = f"Failed in {where}."
    notes = getattr(exc, "__notes__", None)
    if notes is not None and note in notes:
        return
    if hasattr(exc, "add_note"):
        exc.add_note(note)
    else:  # Python 3.10
        exc.__notes__ = [*(notes or []), note]  # type: ignore[attr-defined]


def function_location(function: Callable[..., Any]) -> str:
    """``name (file.py, line N)`` of a user function (its ``__call__`` or method if an object)."""
    target = getattr(function, "__func__", function)
    code = getattr(target, "__code__", None)
    if code is None:
        call = vars(type(function)).get("__call__")
        code = getattr(call, "__code__", None)
    name = getattr(target, "__qualname__", None) or type(function).__name__
    if code is None:
        return name
    return f"{name} ({Path(code.co_filename).name}, line {code.co_firstlineno})"


def not_iterable(operator: str, function: Callable[..., Any], result: Any, kind: str) -> TypeError:
    """A function that must return an iterable (flat_map, process) returned something else."""
    return TypeError(
        f"{operator}: the {kind} function {function_location(function)} returned "
        f"{result!r:.60} ({type(result).__name__}), which is not iterable; return a list or "
        "yield the results (wrap a single value as [value])."
    )
