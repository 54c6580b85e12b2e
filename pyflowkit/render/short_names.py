"""Short names for a projector: chained task names cut to their first and last operator, ids cut to
6 hex digits. No Flink counterpart (the web UI shows the full names; the full name stays in tooltips).
"""

from __future__ import annotations

import re

_SUBTASK = re.compile(r"^(.*?)( \(\d+(?:/\d+)?\))$")
_PREFIXES = ("Source: ", "Sink: ")
_WINDOW = re.compile(r"^(\w*Window\w*)\((.*)\)$")
_KNOWN = {"Print to Std. Out": "Print", "Print to Std. Err": "Print (stderr)"}
ID_DIGITS = 6


def short_operator_name(name: str) -> str:
    """``Sink: Print to Std. Out`` → ``Print``; ``Source: Collection Source`` → ``Collection Source``."""
    for prefix in _PREFIXES:
        if name.startswith(prefix):
            name = name[len(prefix) :]
    window = _WINDOW.match(name)
    if window and "," in window.group(2):  # Window(assigner, trigger, evictor, function)
        return f"{window.group(1)}(…, {window.group(2).rsplit(',', 1)[1].strip()})"
    return _KNOWN.get(name, name)


def short_task_name(name: str, max_operator: int = 22) -> str:
    """``Keyed Reduce -> Sink: Print to Std. Out (1/2)`` → ``Keyed Reduce → Print (1/2)``.

    A chain keeps its first and last operator (``A → … → C`` when more are chained).
    """
    found = _SUBTASK.match(name)
    base, subtask = (found.group(1), found.group(2)) if found else (name, "")
    ops = [short_operator_name(op) for op in base.split(" -> ")]
    ops = [op if len(op) <= max_operator else op[: max_operator - 1] + "…" for op in ops]
    if len(ops) > 2:
        ops = [ops[0], "…", ops[-1]]
    return " → ".join(ops) + subtask


def short_id(hex_id: str) -> str:
    """The first 6 hex digits of a 32-digit Flink id (``JobID``, ``ExecutionAttemptID``…)."""
    return hex_id[:ID_DIGITS]


_HEX_ID = re.compile(r"\b([0-9a-f]{6})[0-9a-f]{26}\b")


def short_ids(text: str) -> str:
    """Every 32-digit hex id in ``text`` cut to its first 6 digits (``4c1609c3f1…`` → ``4c1609``)."""
    return _HEX_ID.sub(r"\1", text)
