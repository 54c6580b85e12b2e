"""Savepoint directories: ``_metadata`` (JSON, with the state file's SHA-256) plus a ``state``
payload (tagged JSON, no pickle).

Stands for Flink's ``Checkpoints.storeCheckpointMetadata`` / ``loadCheckpointMetadata`` with a
``FsCheckpointStorage`` savepoint directory ``savepoint-<jobid prefix>-<random>``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.runtime.checkpoint.savepoint_format import (
    FORMAT,
    VERSION,
    check_metadata,
    check_state,
)
from pyflowkit.runtime.checkpoint.task_state import OperatorState, is_finished_subtask_state
from pyflowkit.state import state_codec
from pyflowkit.state.file_schema import FileSchema, sha256_of
from pyflowkit.state.user_types import NO_CLASSES, StateClasses

METADATA_FILE = "_metadata"
STATE_FILE = "state"


@dataclass(frozen=True)
class SavepointRestoreSettings:
    """Flink's ``SavepointRestoreSettings``: the savepoint a job starts from, and whether state
    that maps to no operator may be skipped (``--allowNonRestoredState``)."""

    restore_path: str
    allow_non_restored_state: bool = False


def savepoint_directory(target: str | Path, job_id: str, suffix: str) -> Path:
    """``savepoint-<first 6 chars of the job id>-<12 hex chars>`` under ``target``."""
    from pyflowkit.common.fs_path import local_path

    return Path(local_path(target, "savepoint directory")) / f"savepoint-{job_id[:6]}-{suffix[:12]}"


def write_savepoint(
    directory: str | Path,
    job_id: str,
    checkpoint_id: int,
    timestamp: int,
    operator_states: dict[str, OperatorState],
    trust_pickled: bool = False,
) -> Path:
    """Write ``state`` and then ``_metadata`` (with the state file's checksum); returns the path.
    Values with no schema form are pickled only if ``trust_pickled`` (the job's opt-in)."""
    path = Path(directory)
    payload: dict[str, Any] = {}
    operators = []
    for op_id, st in sorted(operator_states.items()):
        entry: dict[str, Any] = {
            "operator_id": op_id,
            "operator_name": st.operator_name,
            "uid": st.uid,
            "parallelism": st.parallelism,
            "max_parallelism": st.max_parallelism,
            "subtasks": sorted(st.subtask_states),
        }
        if st.fully_finished:  # 1.20's FullyFinishedOperatorState (FLIP-147)
            entry["fully_finished"] = True
        finished = [
            i for i, sub in sorted(st.subtask_states.items()) if is_finished_subtask_state(sub)
        ]
        if finished:  # 1.20's FinishedOperatorSubtaskState (Flink writes -index - 1)
            entry["finished_subtasks"] = finished
        operators.append(entry)
        payload[op_id] = {
            str(i): state_codec.encode(
                s.to_dict(), f"the state of operator '{st.operator_name}'", trust_pickled
            )
            for i, s in sorted(st.subtask_states.items())
        }
    # encode first: fail before anything is written
    state_bytes = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode("utf-8")
    metadata = {
        "format": FORMAT,
        "version": VERSION,
        "job_id": job_id,
        "checkpoint_id": checkpoint_id,
        "timestamp": timestamp,
        "operators": operators,
        "state_sha256": sha256_of(state_bytes),
    }
    path.mkdir(parents=True, exist_ok=True)
    (path / STATE_FILE).write_bytes(state_bytes)
    (path / METADATA_FILE).write_text(json.dumps(metadata, indent=1, sort_keys=True), "utf-8")
    return path


def read_savepoint(
    path: str | Path, classes: StateClasses = NO_CLASSES
) -> tuple[dict[str, Any], dict[str, OperatorState]]:
    """Read a savepoint directory (or its ``_metadata`` file): metadata and operator states.

    Both files are checked against their schema and the state file against the checksum in
    ``_metadata``; any mismatch is an ``IllegalArgumentException`` naming the file and field.
    User objects are rebuilt only from ``classes`` (``job_state_classes`` of the restoring job).
    """
    from pyflowkit.common.fs_path import local_path

    p = Path(local_path(path, "savepoint path"))
    if p.is_file() and p.name == METADATA_FILE:
        p = p.parent
    what = f"savepoint {str(path)!r}"
    if not p.exists():
        raise IllegalArgumentException(f"Cannot read {what}: no such directory.")
    meta_file = p / METADATA_FILE
    if not meta_file.is_file():
        retained = sorted(
            (c for c in p.glob("chk-*") if (c / METADATA_FILE).is_file()),
            key=lambda c: int(c.name[4:]) if c.name[4:].isdigit() else -1,
        )
        hint = (
            f" It holds retained checkpoints ({', '.join(c.name for c in retained)}): point "
            f"at one of them, e.g. {retained[-1]} (Flink's -s of a retained checkpoint)."
            if retained
            else ""
        )
        raise IllegalArgumentException(
            f"Cannot read {what}: no {METADATA_FILE} file in that directory.{hint}"
        )
    meta_schema = FileSchema(what, METADATA_FILE)
    metadata = check_metadata(meta_schema, meta_schema.parse(meta_schema.read_bytes(meta_file)))
    state_schema = FileSchema(what, f"{STATE_FILE} file")
    state_bytes = state_schema.read_bytes(p / STATE_FILE, f" (written with {METADATA_FILE})")
    if sha256_of(state_bytes) != metadata["state_sha256"]:
        state_schema.refuse(
            f"does not match the checksum written at save time ({METADATA_FILE} field "
            "'state_sha256'): it was edited or truncated after the savepoint was taken"
        )
    states = check_state(
        FileSchema(what, STATE_FILE),
        state_schema.parse(state_bytes),
        metadata["operators"],
        classes,
    )
    return metadata, states
