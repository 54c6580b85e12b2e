"""The schema of a savepoint's ``_metadata`` and ``state`` files, checked before any task restores.

Stands for Flink's ``MetadataV3Serializer.deserialize`` and ``Checkpoints.loadAndValidateCheckpoint``:
fields are read with their types and ranges checked, the state file must match the checksum
written at save time, and every state value must decode, so an edited or truncated savepoint is
refused at submission instead of failing (and restarting) the tasks that restore from it.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.java_semantics import LONG_MAX_VALUE
from pyflowkit.runtime.checkpoint.task_state import FinishedOperatorSubtaskState, OperatorState
from pyflowkit.state import state_codec
from pyflowkit.state.file_schema import FileSchema, describe
from pyflowkit.state.heap_states import STATE_CLASSES
from pyflowkit.state.key_groups import compute_key_group_range_for_operator_index
from pyflowkit.state.snapshot import BROADCAST, SPLIT_DISTRIBUTE, UNION, OperatorSnapshot
from pyflowkit.state.timer_service import EVENT_TIME, PROCESSING_TIME
from pyflowkit.state.user_types import NO_CLASSES, StateClasses, StateClassNotAllowed

FORMAT = "pyflowkit-savepoint"
VERSION = 2  # 2: ``state_sha256`` (version 1 had no checksum)
MAX_PARALLELISM_BOUND = 1 << 15  # KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM
METADATA_KEYS = (
    "checkpoint_id",
    "format",
    "job_id",
    "operators",
    "state_sha256",
    "timestamp",
    "version",
)
OPERATOR_KEYS = (
    "finished_subtasks",  # optional: 1.20's FinishedOperatorSubtaskState subtasks (FLIP-147)
    "fully_finished",  # optional: 1.20's FullyFinishedOperatorState (FLIP-147)
    "max_parallelism",
    "operator_id",
    "operator_name",
    "parallelism",
    "subtasks",
    "uid",
)
SNAPSHOT_KEYS = ("keyed_state", "operator_state", "timers")


def check_metadata(schema: FileSchema, doc: Any) -> dict[str, Any]:
    """``_metadata`` checked field by field; returns it (operators in file order)."""
    doc = schema.obj(doc, "")
    fmt = schema.key(doc, "format", "format", repr(FORMAT))
    if fmt != FORMAT:
        schema.fail("format", repr(FORMAT), fmt)
    version = schema.key(doc, "version", "version", f"{VERSION}")
    if version != VERSION or type(version) is not int:
        older = " (version 1 savepoints carry no state checksum: take a new savepoint)"
        schema.fail("version", f"{VERSION}{older if version == 1 else ''}", version)
    schema.only_keys(doc, "", METADATA_KEYS)
    schema.str_(schema.key(doc, "job_id", "job_id", "a string"), "job_id")
    schema.int_(schema.key(doc, "checkpoint_id", "checkpoint_id", "an int"), "checkpoint_id")
    schema.int_(
        schema.key(doc, "timestamp", "timestamp", "an int"), "timestamp", maximum=LONG_MAX_VALUE
    )
    digest = schema.key(doc, "state_sha256", "state_sha256", "a SHA-256 hex digest")
    if not isinstance(digest, str) or len(digest) != 64 or digest.strip("0123456789abcdef"):
        schema.fail("state_sha256", "a SHA-256 hex digest (64 lowercase hex digits)", digest)
    operators = schema.lst(schema.key(doc, "operators", "operators", "a JSON list"), "operators")
    seen: set[str] = set()
    for i, op in enumerate(operators):
        _check_operator(schema, op, f"operators[{i}]", seen)
    return doc


def _check_operator(schema: FileSchema, op: Any, field: str, seen: set[str]) -> None:
    op = schema.obj(op, field)
    schema.only_keys(op, field, OPERATOR_KEYS)
    op_id = schema.str_(
        schema.key(op, "operator_id", f"{field}.operator_id", "a string"), f"{field}.operator_id"
    )
    if op_id in seen:
        schema.fail(f"{field}.operator_id", "an operator id not listed before", op_id)
    seen.add(op_id)
    schema.str_(op.get("operator_name", ""), f"{field}.operator_name", empty=True)
    schema.str_(op.get("uid"), f"{field}.uid", optional=True)
    if not isinstance(op.get("fully_finished", False), bool):
        schema.fail(f"{field}.fully_finished", "a boolean", op["fully_finished"])
    max_p = schema.int_(
        schema.key(op, "max_parallelism", f"{field}.max_parallelism", "an int"),
        f"{field}.max_parallelism",
        1,
        MAX_PARALLELISM_BOUND,
    )
    parallelism = schema.int_(
        schema.key(op, "parallelism", f"{field}.parallelism", "an int"),
        f"{field}.parallelism",
        1,
        max_p,
    )
    subtasks = schema.lst(
        schema.key(op, "subtasks", f"{field}.subtasks", "a list of subtask indexes"),
        f"{field}.subtasks",
    )
    for j, index in enumerate(subtasks):
        schema.int_(index, f"{field}.subtasks[{j}]", 0, parallelism - 1)
    if len(set(subtasks)) != len(subtasks):
        schema.fail(f"{field}.subtasks", "distinct subtask indexes", subtasks)
    finished = op.get("finished_subtasks", [])
    if not isinstance(finished, list) or not all(
        type(i) is int and i in subtasks for i in finished
    ):
        schema.fail(f"{field}.finished_subtasks", "a list of the operator's subtasks", finished)


def check_state(
    schema: FileSchema,
    payload: Any,
    operators: list[dict[str, Any]],
    classes: StateClasses = NO_CLASSES,
) -> dict[str, OperatorState]:
    """The ``state`` file decoded and checked against ``_metadata``'s operators; user objects
    are rebuilt only from ``classes`` (the restoring job's)."""
    payload = schema.obj(payload, "")
    listed = {op["operator_id"] for op in operators}
    for op_id in payload:
        if op_id not in listed:
            schema.fail(op_id, "an operator listed in _metadata's operators", show=False)
    states: dict[str, OperatorState] = {}
    for op in operators:
        op_id = op["operator_id"]
        per_subtask = schema.obj(payload.get(op_id, {}), op_id)
        expected = sorted(str(i) for i in op["subtasks"])
        if sorted(per_subtask) != expected:
            schema.fail(op_id, f"the subtasks {expected} listed in _metadata", sorted(per_subtask))
        subtasks = {
            int(i): _check_snapshot(schema, data, f"{op_id}.{i}", op, int(i), classes)
            for i, data in per_subtask.items()
        }
        for i in op.get("finished_subtasks", []):  # FinishedOperatorSubtaskState: no state
            subtasks[i] = FinishedOperatorSubtaskState()
        states[op_id] = OperatorState(
            op_id,
            op["parallelism"],
            op["max_parallelism"],
            subtasks,
            op.get("operator_name", ""),
            op.get("uid"),
            fully_finished=op.get("fully_finished", False),
        )
    return states


def _decode(schema: FileSchema, data: Any, field: str, classes: StateClasses) -> Any:
    try:
        return state_codec.decode(data, classes)
    except StateClassNotAllowed as exc:
        schema.refuse(f"field {field!r}: {exc}")
    except Exception as exc:  # noqa: BLE001 - any malformed tag (KeyError, TypeError, ...)
        schema.fail(field, f"state in pyflowkit's tagged JSON encoding ({exc})", data)


def _check_snapshot(
    schema: FileSchema,
    data: Any,
    field: str,
    op: dict[str, Any],
    subtask: int,
    classes: StateClasses,
) -> OperatorSnapshot:
    snap = schema.obj(_decode(schema, data, field, classes), field)
    schema.only_keys(snap, field, SNAPSHOT_KEYS)
    max_p, parallelism = op["max_parallelism"], op["parallelism"]
    own = compute_key_group_range_for_operator_index(max_p, parallelism, subtask)
    keyed = schema.obj(snap.get("keyed_state", {}), f"{field}.keyed_state")
    for kg, states in keyed.items():
        where = f"{field}.keyed_state.{kg}"
        _check_key_group(schema, kg, where, own)
        for name, st in schema.obj(states, where).items():
            _check_keyed_state(schema, st, f"{where}.{name}")
    for name, st in schema.obj(snap.get("operator_state", {}), f"{field}.operator_state").items():
        where = f"{field}.operator_state.{name}"
        st = schema.obj(st, where)
        schema.one_of(schema.key(st, "mode", f"{where}.mode", "a mode"), f"{where}.mode", MODES)
        schema.lst(schema.key(st, "entries", f"{where}.entries", "a list"), f"{where}.entries")
    for kg, timers in schema.obj(snap.get("timers", {}), f"{field}.timers").items():
        where = f"{field}.timers.{kg}"
        _check_key_group(schema, kg, where, own)
        for i, timer in enumerate(schema.lst(timers, where)):
            _check_timer(schema, timer, f"{where}[{i}]")
    return OperatorSnapshot.from_dict(snap)


MODES = (SPLIT_DISTRIBUTE, UNION, BROADCAST)
KINDS = tuple(STATE_CLASSES)
DOMAINS = (EVENT_TIME, PROCESSING_TIME)


def _check_key_group(schema: FileSchema, kg: Any, field: str, own: Any) -> None:
    if not isinstance(kg, str) or not kg.isdigit() or int(kg) not in own:
        schema.fail(
            field,
            f"a key group of this subtask ({own.start_key_group}..{own.end_key_group})",
            kg,
        )


def _check_keyed_state(schema: FileSchema, st: Any, field: str) -> None:
    st = schema.obj(st, field)
    kind = schema.one_of(schema.key(st, "kind", f"{field}.kind", "a kind"), f"{field}.kind", KINDS)
    entries = schema.lst(
        schema.key(st, "entries", f"{field}.entries", "a list"), f"{field}.entries"
    )
    for i, entry in enumerate(entries):
        where = f"{field}.entries[{i}]"
        if not isinstance(entry, list) or len(entry) != 3:
            schema.fail(where, "a [key, namespace, value] list", entry)
        value = entry[2]
        if kind == "list" and not isinstance(value, list):
            schema.fail(f"{where}.value", "a list (list state)", value)
        if kind == "map" and (
            not isinstance(value, list)
            or not all(isinstance(kv, list) and len(kv) == 2 for kv in value)
        ):
            schema.fail(f"{where}.value", "a list of [key, value] pairs (map state)", value)


def _check_timer(schema: FileSchema, timer: Any, field: str) -> None:
    if not isinstance(timer, list) or len(timer) != 5:
        schema.fail(field, "a [service, domain, timestamp, key, namespace] list", timer)
    schema.str_(timer[0], f"{field}.service")
    schema.one_of(timer[1], f"{field}.domain", DOMAINS)
    if type(timer[2]) is not int:
        schema.fail(f"{field}.timestamp", "an int", timer[2])


__all__ = ["FORMAT", "VERSION", "check_metadata", "check_state", "describe"]
