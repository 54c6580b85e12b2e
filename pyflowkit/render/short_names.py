"""Short names for a projector: chained task names cut to their first and last operator, ids cut to
6 hex digits. No Flink counterpart (the web UI shows the full names; the full name stays in tooltips).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

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


#: What a status line leaves out of a long log line (the whole line stays in its title and in the
#: Event log): a class's package, a TaskManager's location, a nested object's fields but the last,
#: a remark of three words or more in parentheses.
_PACKAGE = re.compile(r"\b(?:[a-z][a-z0-9_]*\.){2,}(?=[A-Z])")
_LOCATION = re.compile(r" @ [\w.-]+ \(dataPort=-?\d+\)")
_NESTED = re.compile(r"\{(?:\w+=\w+\{[^{}]*\}, )+")
_REMARK = re.compile(r" \([^()]*? [^()]*? [^()]*\)")
#: Lower-case words before a class name (``restart back off time strategy
#: FixedDelayRestartBackoffTimeStrategy``): left out where the class's name spells them.
_SPELLED = re.compile(r"\b((?:[a-z]+ ){2,})\[?([A-Z][A-Za-z]+)\b")


def _drop_spelled(found: re.Match[str]) -> str:
    words, cls = found.group(1).split(), found.group(2).lower()
    for start in range(len(words) - 1):  # the longest run of trailing words the name ends with
        if cls.endswith("".join(words[start:])):
            return found.group(0).replace(" ".join(words[start:]) + " ", "", 1)
    return found.group(0)


def abridge_log_line(text: str, task_names: Iterable[str] = ()) -> str:
    """``text`` shortened for a status line, its subject and what happened kept (a state
    transition, a checkpoint id, a count): each of ``task_names`` (a job vertex's name, chained
    operators) and each of its operators as :func:`short_task_name` has them, a bracketed list
    the line already named before it, and the details ``_PACKAGE``, ``_LOCATION``, ``_NESTED``
    and ``_REMARK`` describe left out, and the words a class's name spells before it
    (``_SPELLED``: ``Using restart back off time strategy FixedDelayRestartBackoffTimeStrategy(…)``
    → ``Using FixedDelayRestartBackoffTimeStrategy(…)``, its figures kept).

    ``Keyed Reduce -> Sink: Print to Std. Out (1/2) (4c1609) switched from DEPLOYING to RUNNING.``
    → ``Keyed Reduce → Print (1/2) (4c1609) switched from DEPLOYING to RUNNING.``
    """
    names = {n for name in task_names for n in (name, *name.split(" -> "))}
    for name in sorted(names, key=len, reverse=True):  # (a chain before its operators)
        if name in text:
            text = text.replace(name, short_task_name(name))
    for listed in re.findall(r" \[([^\[\]]+)\]", text):  # a chain the subject already names
        if text.find(listed) < text.find(f"[{listed}]"):
            text = text.replace(f" [{listed}]", "", 1)
    text = _PACKAGE.sub("", text)
    text = _LOCATION.sub("", text)
    text = _NESTED.sub("{…, ", text)
    text = _SPELLED.sub(_drop_spelled, text)
    return _REMARK.sub("", text)
