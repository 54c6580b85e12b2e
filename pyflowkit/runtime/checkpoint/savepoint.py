"""Savepoint directories: ``_metadata`` (JSON) plus a ``state`` payload (tagged JSON, no pickle).

Stands for Flink's ``Checkpoints.storeCheckpointMetadata`` / ``loadCheckpointMetadata`` with a
``FsCheckpointStorage`` savepoint directory ``savepoint-<jobid prefix>-<random>``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.runtime.checkpoint import state_codec
from pyflowkit.runtime.checkpoint.task_state import OperatorState
from pyflowkit.state.snapshot import OperatorSnapshot

METADATA_FILE = "_metadata"
STATE_FILE = "state"
FORMAT = "pyflowkit-savepoint"
VERSION = 1


@dataclass(frozen=True)
class SavepointRestoreSettings:
    """Flink's ``SavepointRestoreSettings``: the savepoint a job starts from, and whether state
    that maps to no operator may be skipped (``--allowNonRestoredState``)."""

    restore_path: str
    allow_non_restored_state: bool = False


def savepoint_directory(target: str | Path, job_id: str, suffix: str) -> Path:
    """``savepoint-<first 6 chars of the job id>-<12 hex chars>`` under ``target``."""
    return Path(target) / f"savepoint-{job_id[:6]}-{suffix[:12]}"


def write_savepoint(
    directory: str | Path,
    job_id: str,
    checkpoint_id: int,
    timestamp: int,
    operator_states: dict[str, OperatorState],
) -> Path:
    """Write ``_metadata`` and ``state``; returns the savepoint directory."""
    path = Path(directory)
    payload: dict[str, Any] = {}
    operators = []
    for op_id, st in sorted(operator_states.items()):
        operators.append(
            {
                "operator_id": op_id,
                "operator_name": st.operator_name,
                "uid": st.uid,
                "parallelism": st.parallelism,
                "max_parallelism": st.max_parallelism,
                "subtasks": sorted(st.subtask_states),
            }
        )
        payload[op_id] = {
            str(i): state_codec.encode(s.to_dict(), f"the state of operator '{st.operator_name}'")
            for i, s in sorted(st.subtask_states.items())
        }
    metadata = {
        "format": FORMAT,
        "version": VERSION,
        "job_id": job_id,
        "checkpoint_id": checkpoint_id,
        "timestamp": timestamp,
        "operators": operators,
    }
    state_text = json.dumps(payload, sort_keys=True, separators=(",", ":"))  # encode first: fail
    path.mkdir(parents=True, exist_ok=True)  # before anything is written
    (path / STATE_FILE).write_text(state_text, encoding="utf-8")
    (path / METADATA_FILE).write_text(json.dumps(metadata, indent=1, sort_keys=True), "utf-8")
    return path


def read_savepoint(path: str | Path) -> tuple[dict[str, Any], dict[str, OperatorState]]:
    """Read a savepoint directory (or its ``_metadata`` file): metadata and operator states."""
    p = Path(path)
    if p.is_file() and p.name == METADATA_FILE:
        p = p.parent
    meta_file = p / METADATA_FILE
    if not meta_file.is_file():
        raise IllegalArgumentException(
            f"Cannot read savepoint {str(path)!r}: no {METADATA_FILE} file in that directory."
        )
    metadata = json.loads(meta_file.read_text(encoding="utf-8"))
    if metadata.get("format") != FORMAT or metadata.get("version") != VERSION:
        raise IllegalArgumentException(
            f"Cannot read savepoint {str(path)!r}: unknown format "
            f"{metadata.get('format')!r} version {metadata.get('version')!r}."
        )
    payload = json.loads((p / STATE_FILE).read_text(encoding="utf-8"))
    states: dict[str, OperatorState] = {}
    for op in metadata["operators"]:
        op_id = op["operator_id"]
        subtasks = {
            int(i): OperatorSnapshot.from_dict(state_codec.decode(data))
            for i, data in payload.get(op_id, {}).items()
        }
        states[op_id] = OperatorState(
            op_id,
            int(op["parallelism"]),
            int(op["max_parallelism"]),
            subtasks,
            op.get("operator_name", ""),
            op.get("uid"),
        )
    return metadata, states
