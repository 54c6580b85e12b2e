"""Savepoints of streaming jobs on Spark: the query's checkpoint directory plus JSON metadata.

Stands for Flink's savepoint (``SavepointV2`` ``_metadata``) and its restore check
(``Checkpoints.loadAndValidateCheckpoint``): a savepoint is a copy of the Structured Streaming
checkpoint (offsets, commits, RocksDB state) taken at a micro-batch boundary, with
``_pyflowkit_savepoint.json`` naming the job and its operators and the SHA-256 of every file
(its manifest); resuming verifies every file against the manifest, checks the RocksDB state the
query resumes from (``rocksdb_files``: the version's zip and its SST files), checks the source
offsets decode with the job's own classes, checks every operator with state exists in the new
program, and only then copies it into the new job's checkpoint location. A retained checkpoint (the query's
checkpoint location, as Flink's ``-s`` of a retained checkpoint) is checked against the CRC32
files Hadoop wrote beside its files, its RocksDB state the same way, and resumed the same way.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import time
from typing import Any, NoReturn

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.spark.rocksdb_files import verify_rocksdb_state
from pyflowkit.spark.state_files import manifest, verify_crc_files, verify_manifest
from pyflowkit.state.user_types import job_state_classes
from pyflowkit.task.chain import operator_ids

METADATA = "_pyflowkit_savepoint.json"
FORMAT = "pyflowkit-spark-streaming-savepoint"
VERSION = 2  # 2: a SHA-256 per file and schema-encoded state (1 held pickles)
CONTROL_MARKERS = ("_pyflowkit_pause", "_pyflowkit_drain")  # streaming_source's PAUSE, DRAIN


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
    _remove_control_markers(path)  # the stopping job's control files are not state
    relocate(path)  # self-contained: the job's checkpoints may be discarded
    metadata = {
        "format": FORMAT,
        "version": VERSION,
        "job_id": job_id,
        "job_name": job_graph.job_name,
        "operators": job_operators(job_graph),
        "vertices": [v.name for v in job_graph.vertices],  # chained operator names
        "operator_names": [[n.operator_name for n in v.stream_nodes] for v in job_graph.vertices],
        "parallelism": [v.parallelism for v in job_graph.vertices],
        "last_batch": last_batch(checkpoint_dir),
        "timestamp": int(time.time() * 1000),
        "files": manifest(path, skip=(METADATA,)),
    }
    with open(os.path.join(path, METADATA), "w") as f:
        json.dump(metadata, f, indent=2)
    return path


_NOTHING = object()


class _Metadata:
    """Field-by-field checks of ``_pyflowkit_savepoint.json`` (as Flink's
    ``Checkpoints.loadCheckpointMetadata`` refuses a metadata file it cannot trust): each error
    names the savepoint, the file and the field, before anything is copied or restored."""

    def __init__(self, path: str, file: str) -> None:
        self.prefix = f"Failed to restore from savepoint {path!r}: {file}"

    def refuse(self, problem: str) -> NoReturn:
        raise ValueError(f"{self.prefix} {problem}.")

    def fail(self, field: str, expected: str, got: Any = _NOTHING) -> NoReturn:
        shown = "" if got is _NOTHING else f", got {_describe(got)}"
        self.refuse(f"field {field!r}: expected {expected}{shown}")

    def key(self, doc: dict[str, Any], key: str, expected: str) -> Any:
        if key not in doc:
            self.refuse(f"field {key!r} is missing (expected {expected})")
        return doc[key]

    def strings(self, value: Any, field: str) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(x, str) and x for x in value):
            self.fail(field, "a list of non-empty strings", value)
        return value


def _describe(value: Any) -> str:
    text = repr(value)
    return f"{text[:57]}... ({type(value).__name__})" if len(text) > 60 else text


def check_metadata(path: str, text: str) -> dict[str, Any]:
    """The savepoint metadata in ``text``, every field checked (see ``_Metadata``)."""
    m = _Metadata(path, METADATA)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        m.refuse(
            f"is not valid JSON (truncated or edited?): {exc.msg} (line {exc.lineno}, "
            f"column {exc.colno})"
        )
    if not isinstance(doc, dict):
        m.refuse(f"holds {_describe(doc)}, not a JSON object")
    if doc.get("format") != FORMAT or doc.get("version") != VERSION:
        older = (
            "; version 1 savepoints hold pickled state, which pyflowkit no longer loads: take a "
            "new savepoint"
            if doc.get("format") == FORMAT and doc.get("version") == 1
            else ""
        )
        m.refuse(
            f"has an unknown format {doc.get('format')!r} version {doc.get('version')!r} "
            f"(expected {FORMAT!r} version {VERSION}{older})"
        )
    files = m.key(doc, "files", "a map of file → SHA-256 (the manifest)")
    if not isinstance(files, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in files.items()
    ):
        m.fail("files", "a map of file → SHA-256 (the manifest)", files)
    for key in ("job_id", "job_name"):
        if not isinstance(m.key(doc, key, "a string"), str):
            m.fail(key, "a string", doc[key])
    operators = m.key(doc, "operators", "a list of operator-id lists, one per vertex")
    if not isinstance(operators, list) or not operators:
        m.fail("operators", "a non-empty list of operator-id lists, one per vertex", operators)
    for i, ops in enumerate(operators):
        if not m.strings(ops, f"operators[{i}]"):
            m.fail(f"operators[{i}]", "at least one operator id", ops)
    vertices = m.strings(m.key(doc, "vertices", "a list of vertex names"), "vertices")
    if len(vertices) != len(operators):
        m.fail("vertices", f"{len(operators)} vertex names, one per entry of 'operators'", vertices)
    names = doc.get("operator_names")
    if names is not None:
        if not isinstance(names, list) or len(names) != len(operators):
            m.fail("operator_names", f"{len(operators)} lists, one per entry of 'operators'", names)
        for i, (own, ops) in enumerate(zip(names, operators, strict=True)):
            if len(m.strings(own, f"operator_names[{i}]")) != len(ops):
                m.fail(f"operator_names[{i}]", f"{len(ops)} names, one per operator id", own)
    parallelism = doc.get("parallelism")  # absent in savepoints written before it was recorded
    if parallelism is not None and (
        not isinstance(parallelism, list)
        or len(parallelism) != len(operators)
        or not all(type(p) is int and p >= 1 for p in parallelism)
    ):
        m.fail("parallelism", f"{len(operators)} ints >= 1, one per vertex", parallelism)
    last = m.key(doc, "last_batch", "the last committed micro-batch (an int) or null")
    if last is not None and (type(last) is not int or last < 0):
        m.fail("last_batch", "an int >= 0 or null", last)
    return doc


def read_metadata(path: str) -> dict[str, Any]:
    """The savepoint's metadata, or an error saying why ``path`` is not a savepoint."""
    meta = os.path.join(path, METADATA)
    if not os.path.isfile(meta):
        raise ValueError(
            f"Failed to restore from savepoint {path!r}: it has no {METADATA}, so it is not a "
            "savepoint of a pyflowkit streaming job on Spark (stop_with_savepoint or "
            "trigger_savepoint write one) nor a retained checkpoint (a query's checkpoint "
            "location, with offsets/ and commits/)."
        )
    try:
        with open(meta, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"Failed to restore from savepoint {path!r}: {METADATA} is not UTF-8 JSON text "
            f"(binary data at byte {exc.start})."
        ) from None
    return check_metadata(path, text)


def _own_names(data: dict[str, Any]) -> list[list[str]] | None:
    """Each saved operator's own name, per vertex (split from the chain names of savepoints
    written before ``operator_names`` was recorded, where that is unambiguous)."""
    if data.get("operator_names") is not None:
        return data["operator_names"]
    split = [vertex.split(" -> ") for vertex in data["vertices"]]
    if all(len(names) == len(ops) for names, ops in zip(split, data["operators"], strict=True)):
        return split
    return None


def restore_into(
    path: str, checkpoint_dir: str, job_graph: Any, allow_non_restored_state: bool = False
) -> dict[str, Any]:
    """Check the savepoint fits ``job_graph`` (Flink's operator mapping) and copy it into the new
    job's (empty) checkpoint location.

    As Flink: the state of an operator missing from the new program is refused unless
    ``allow_non_restored_state`` (``execution.savepoint.ignore-unclaimed-state``); an operator
    whose id maps onto another operator is another job's. Beyond Flink: a Spark streaming query
    restores only into the very chains it was saved from, so operators added or removed are
    refused with that rule named.
    """
    if is_retained_checkpoint(path):
        return restore_checkpoint_into(path, checkpoint_dir, job_graph)
    data = read_metadata(path)
    what = f"savepoint {path!r}"
    verify_manifest(path, data["files"], what, skip=(METADATA,))
    verify_rocksdb_state(path, what, last_batch(path))  # also when the manifest was re-signed
    check_offsets(path, job_graph, what)
    new = job_operators(job_graph)
    new_names = {
        op: node.operator_name
        for v, ops in zip(job_graph.vertices, new, strict=True)
        for op, node in zip(ops, v.stream_nodes, strict=True)
    }
    saved_names = _own_names(data)
    of_job = f"job '{data['job_name']}' ({data['job_id']})"
    removed: list[str] = []
    for i, (vertex, ops) in enumerate(zip(data["vertices"], data["operators"], strict=True)):
        for j, op in enumerate(ops):
            own = saved_names[i][j] if saved_names is not None else vertex
            if op not in new_names:
                if not allow_non_restored_state:
                    raise ValueError(
                        f"Failed to rollback to checkpoint/savepoint {path}. Cannot map "
                        f"checkpoint/savepoint state for operator {op} to the new program, "
                        "because the operator is not available in the new program. If you "
                        "want to allow to skip this, you can set the --allowNonRestoredState "
                        "option on the CLI (execution.savepoint.ignore-unclaimed-state: true). "
                        f"(Operator {op} is '{own}' in '{vertex}' of {of_job}.)"
                    )
                removed.append(f"'{own}' ({op})")
            elif saved_names is not None and new_names[op] != own:
                raise ValueError(
                    f"Failed to rollback to checkpoint/savepoint {path}: operator {op} is "
                    f"'{new_names[op]}' in this job but was '{own}' (in '{vertex}') in "
                    f"{of_job}, whose savepoint this is: a savepoint of another job."
                )
    saved_ops = {op for ops in data["operators"] for op in ops}
    added = [f"'{new_names[op]}' ({op})" for ops in new for op in ops if op not in saved_ops]
    _check_parallelism(path, data, job_graph, new)
    if new != data["operators"]:
        now = [v.name for v in job_graph.vertices]
        changes = []
        if added:
            changes.append(f"added {', '.join(added)}")
        if removed:
            changes.append(
                f"removed {', '.join(removed)}, whose state "
                "execution.savepoint.ignore-unclaimed-state: true lets Flink skip"
            )
        what = "; ".join(changes) or "operators regrouped into other chains"
        raise ValueError(
            f"Failed to rollback to checkpoint/savepoint {path}: the job's operators changed "
            f"since the savepoint of {of_job} ({what}; chains {data['vertices']} → {now}). "
            "Flink maps state operator by operator (an added operator starts empty), but a "
            "Spark streaming query restores only into the same chains of operators it was "
            "saved from: resume the job as it was saved, or start the changed job without "
            "execution.savepoint.path."
        )
    shutil.copytree(path, checkpoint_dir, dirs_exist_ok=True)
    os.remove(os.path.join(checkpoint_dir, METADATA))
    relocate(checkpoint_dir)
    return data


def _remove_control_markers(directory: str) -> None:
    for marker in CONTROL_MARKERS:
        if os.path.exists(os.path.join(directory, marker)):
            os.remove(os.path.join(directory, marker))


def is_retained_checkpoint(path: str) -> bool:
    """A Structured Streaming checkpoint location (what a job's checkpoints are on Spark)."""
    return (
        not os.path.isfile(os.path.join(path, METADATA))
        and os.path.isdir(os.path.join(path, "offsets"))
        and os.path.isfile(os.path.join(path, "metadata"))
    )


def check_offsets(path: str, job_graph: Any, what: str) -> int:
    """Every planned batch's source offsets in ``path``'s offset log parse, and the source
    state in pyflowkit's offsets decodes with the job's own classes; the batches checked."""
    from pyflowkit.spark.streaming_source import _decode_state

    classes = job_state_classes(job_graph)
    folder = os.path.join(path, "offsets")
    names = os.listdir(folder) if os.path.isdir(folder) else []
    for batch in sorted(int(n) for n in names if n.isdigit()):
        file = os.path.join(folder, str(batch))
        with open(file, "rb") as f:
            raw = f.read()
        try:
            lines = raw.decode("utf-8").splitlines()
        except UnicodeDecodeError:
            raise IllegalArgumentException(
                f"Cannot restore {what}: offsets file {file} is not UTF-8 text (corrupted)."
            ) from None
        if len(lines) < 3 or lines[0] != "v1":
            raise IllegalArgumentException(
                f"Cannot restore {what}: offsets file {file} is truncated or not a Spark offset "
                "log entry (version line, batch metadata, one offset per source)."
            )
        for line in lines[1:]:
            if not line.strip() or line == "-":
                continue
            try:
                doc = json.loads(line)
            except ValueError as exc:
                raise IllegalArgumentException(
                    f"Cannot restore {what}: offsets file {file} is truncated or edited: {exc}."
                ) from None
            for i, sub in enumerate(doc.get("subtasks", []) if isinstance(doc, dict) else []):
                state = sub.get("state") if isinstance(sub, dict) else None
                if not isinstance(state, str):
                    raise IllegalArgumentException(
                        f"Cannot restore {what}: offsets file {file}: subtask {i} has no state."
                    )
                _decode_state(state, classes, f"{what}: offsets file {file}, subtask {i}")
    return len(names)


def restore_checkpoint_into(path: str, checkpoint_dir: str, job_graph: Any) -> dict[str, Any]:
    """Resume from a retained checkpoint (Flink's ``-s`` of a retained checkpoint): its files
    are checked against Hadoop's CRC32 files, its RocksDB state (zip and SST files) and its
    offsets decoded, then it is copied into the
    new job's checkpoint location. Spark's own plan check refuses another job's checkpoint."""
    what = f"retained checkpoint {path!r}"
    verify_crc_files(path, what)
    verify_rocksdb_state(path, what, last_batch(path))  # also where a .crc file is missing
    check_offsets(path, job_graph, what)
    shutil.copytree(path, checkpoint_dir, dirs_exist_ok=True)
    _remove_control_markers(checkpoint_dir)  # the old job's stop/drain files are not state
    relocate(checkpoint_dir)
    return {"job_name": job_graph.job_name, "last_batch": last_batch(checkpoint_dir)}


def _check_parallelism(path: str, data: dict[str, Any], job_graph: Any, new: list) -> None:
    """A vertex saved at another parallelism is refused (per vertex, whatever else changed)."""
    saved = data.get("parallelism")
    if saved is None:
        return
    was = {
        tuple(ops): (name, p)
        for ops, name, p in zip(data["operators"], data["vertices"], saved, strict=True)
    }
    changed = [
        f"'{v.name}' {was[tuple(ops)][1]} → {v.parallelism}"
        for v, ops in zip(job_graph.vertices, new, strict=True)
        if tuple(ops) in was and was[tuple(ops)][1] != v.parallelism
    ]
    if changed:
        raise ValueError(
            f"Failed to rollback to checkpoint/savepoint {path}: the parallelism changed "
            f"({', '.join(changed)}). A Spark streaming query keeps each subtask's state under "
            "its subtask, so it restores only at the parallelism it was saved at; resume with "
            "the same parallelism (the simulated cluster rescales savepoints by key group)."
        )
