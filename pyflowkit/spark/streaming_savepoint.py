"""Savepoints of streaming jobs on Spark: the query's checkpoint directory plus JSON metadata.

Stands for Flink's savepoint (``SavepointV2`` ``_metadata``) and its restore check
(``Checkpoints.loadAndValidateCheckpoint``): a savepoint is a copy of the Structured Streaming
checkpoint (offsets, commits, RocksDB state) taken at a micro-batch boundary, with
``_pyflowkit_savepoint.json`` naming the job and its operators; resuming copies it into the new
job's checkpoint location after checking every operator with state exists in the new program.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import time
from typing import Any

from pyflowkit.task.chain import operator_ids

METADATA = "_pyflowkit_savepoint.json"
FORMAT = "pyflowkit-spark-streaming-savepoint"
VERSION = 1


def job_operators(job_graph: Any) -> list[list[str]]:
    """Per vertex (topological order), its chained operators' ids (Flink's OperatorIDs)."""
    return [operator_ids(v) for v in job_graph.vertices]


def _last_log_entry(checkpoint_dir: str, log: str) -> int | None:
    folder = os.path.join(checkpoint_dir, log)
    ids = [int(n) for n in os.listdir(folder) if n.isdigit()] if os.path.isdir(folder) else []
    return max(ids) if ids else None


def last_batch(checkpoint_dir: str) -> int | None:
    """The last committed micro-batch of a checkpoint directory (Spark's ``commits`` log)."""
    return _last_log_entry(checkpoint_dir, "commits")


def planned_batch(checkpoint_dir: str) -> int | None:
    """The last planned micro-batch (Spark's ``offsets`` write-ahead log)."""
    return _last_log_entry(checkpoint_dir, "offsets")


def cut_logs(checkpoint_dir: str, last: int) -> None:
    """Cut a stopped query's logs back to micro-batch ``last``: its commits and planned batches
    after ``last`` go, so a resumed query plans ``last + 1`` anew from ``last``'s end offsets
    (pyflowkit's stream readers only; no planned batch is replayed). State store versions beyond
    are overwritten by the new batches."""
    for log in ("commits", "offsets"):
        folder = os.path.join(checkpoint_dir, log)
        if not os.path.isdir(folder):
            continue
        for name in os.listdir(folder):
            batch = name.removeprefix(".").removesuffix(".crc")
            if batch.isdigit() and int(batch) > last:
                os.remove(os.path.join(folder, name))


_SCHEMA_PATH = re.compile(r'"(file:)?[^"]*(/state/\d+/_stateSchema/[^"]*)"')


def relocate(directory: str) -> None:
    """Point the state schema paths of a copied checkpoint at ``directory`` itself.

    Spark's operator metadata (``state/<op>/_metadata/v2/<batch>``) names its state schema files
    by absolute path, so a copy would still read them from the original checkpoint location
    (gone once that job's checkpoints are discarded). The checksum of a rewritten file is
    dropped (Hadoop's local file system reads a file without one)."""
    base = os.path.abspath(directory)
    for meta in glob.glob(os.path.join(base, "state", "*", "_metadata", "*", "*")):
        name = os.path.basename(meta)
        if name.startswith(".") or not os.path.isfile(meta):
            continue
        with open(meta, encoding="utf-8") as f:
            text = f.read()
        moved = _SCHEMA_PATH.sub(lambda m: f'"{m.group(1) or ""}{base}{m.group(2)}"', text)
        if moved != text:
            with open(meta, "w", encoding="utf-8") as f:
                f.write(moved)
            crc = os.path.join(os.path.dirname(meta), f".{name}.crc")
            if os.path.exists(crc):
                os.remove(crc)


def write_savepoint(checkpoint_dir: str, path: str, job_graph: Any, job_id: str) -> str:
    """Copy a stopped (or paused) query's checkpoint to ``path`` and write the metadata."""
    if os.path.exists(path) and os.listdir(path):
        raise ValueError(f"Savepoint directory {path!r} exists and is not empty; choose a new one.")
    shutil.copytree(checkpoint_dir, path, dirs_exist_ok=True)
    relocate(path)  # self-contained: the job's checkpoints may be discarded
    metadata = {
        "format": FORMAT,
        "version": VERSION,
        "job_id": job_id,
        "job_name": job_graph.job_name,
        "operators": job_operators(job_graph),
        "vertices": [v.name for v in job_graph.vertices],  # chained operator names
        "parallelism": [v.parallelism for v in job_graph.vertices],
        "last_batch": last_batch(checkpoint_dir),
        "timestamp": int(time.time() * 1000),
    }
    with open(os.path.join(path, METADATA), "w") as f:
        json.dump(metadata, f, indent=2)
    return path


def read_metadata(path: str) -> dict[str, Any]:
    """The savepoint's metadata, or an error saying why ``path`` is not a savepoint."""
    meta = os.path.join(path, METADATA)
    if not os.path.isfile(meta):
        raise ValueError(
            f"Failed to restore from savepoint {path!r}: it has no {METADATA}, so it is not a "
            "savepoint of a pyflowkit streaming job on Spark (stop_with_savepoint or "
            "trigger_savepoint write one)."
        )
    with open(meta) as f:
        data = json.load(f)
    if data.get("format") != FORMAT or data.get("version") != VERSION:
        raise ValueError(
            f"Failed to restore from savepoint {path!r}: unknown format "
            f"{data.get('format')!r} version {data.get('version')!r}."
        )
    return data


def restore_into(path: str, checkpoint_dir: str, job_graph: Any) -> dict[str, Any]:
    """Check the savepoint fits ``job_graph`` (Flink's operator mapping) and copy it into the new
    job's (empty) checkpoint location."""
    data = read_metadata(path)
    new = job_operators(job_graph)
    present = {op for ops in new for op in ops}
    for vertex, ops in zip(data["vertices"], data["operators"], strict=True):
        for op in ops:
            if op not in present:
                raise ValueError(
                    f"Failed to rollback to checkpoint/savepoint {path}. Cannot map "
                    f"checkpoint/savepoint state for operator {op} ('{vertex}') to the new "
                    f"program, because the operator is not available in the new program. "
                    f"(This savepoint is of job '{data['job_name']}' ({data['job_id']}).)"
                )
    names = {op: v.name for v, ops in zip(job_graph.vertices, new, strict=True) for op in ops}
    for vertex, ops in zip(data["vertices"], data["operators"], strict=True):
        for op in ops:
            if names[op] != vertex:  # same id (position in the graph), another operator
                raise ValueError(
                    f"Failed to rollback to checkpoint/savepoint {path}: operator {op} is "
                    f"'{names[op]}' in this job but was '{vertex}' in job '{data['job_name']}' "
                    f"({data['job_id']}), whose savepoint this is: a savepoint of another job."
                )
    saved = data.get("parallelism")  # absent in savepoints written before it was recorded
    now = [v.parallelism for v in job_graph.vertices]
    if saved is not None and saved != now:
        changed = [
            f"'{v.name}' {old} → {p}"
            for v, old, p in zip(job_graph.vertices, saved, now, strict=True)
            if old != p
        ]
        raise ValueError(
            f"Failed to rollback to checkpoint/savepoint {path}: the parallelism changed "
            f"({', '.join(changed)}). A Spark streaming query keeps each subtask's state under "
            "its subtask, so it restores only at the parallelism it was saved at; resume with "
            "the same parallelism (the simulated cluster rescales savepoints by key group)."
        )
    if new != data["operators"]:
        raise ValueError(
            f"Failed to rollback to checkpoint/savepoint {path}: the job's operator chains "
            f"changed ({data['vertices']} → {[v.name for v in job_graph.vertices]}); a Spark "
            "streaming query restores only into the same chain of stateful operators."
        )
    shutil.copytree(path, checkpoint_dir, dirs_exist_ok=True)
    os.remove(os.path.join(checkpoint_dir, METADATA))
    relocate(checkpoint_dir)
    return data
