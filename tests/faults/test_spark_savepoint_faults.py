"""Spark streaming savepoints that are damaged, or resumed into a changed job (issue 26).

Each case refuses with the savepoint, the file (``_pyflowkit_savepoint.json``) or the operator
named, before anything is copied (was: ``JSONDecodeError``, ``KeyError: 'vertices'``, "zip()
argument 2 is longer than argument 1", "a savepoint of another job" for the same job with an
operator added, ``execution.savepoint.ignore-unclaimed-state`` ignored). Which behaviour each has:
- damaged metadata: Flink's (``Checkpoints.loadCheckpointMetadata`` refuses a file it cannot
  read, naming it);
- an operator removed: Flink's text ("Cannot map checkpoint/savepoint state for operator ...");
  with ignore-unclaimed-state Flink skips that state, the option is honoured as far as that, and
  the Spark rule that follows (a query restores only into its own chains) is named instead;
- an operator added: Flink starts it empty; on Spark the chain rule is named, not another job;
- a bounded job: Flink's bounded STREAMING job restores the savepoint, so it runs as a streaming
  query here; in BATCH mode (no checkpointing in Flink) it is refused, never ignored.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import Types
from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from pyflowkit.datastream.functions import SourceFunction
from pyflowkit.spark.executor import runs_as_streaming_query
from pyflowkit.spark.streaming_savepoint import METADATA, restore_into, write_savepoint


class Numbers(SourceFunction):
    def run(self, ctx: Any) -> Any:
        yield from range(3)


def graph(mapped: bool = False, parallelism: int = 2, extra_vertex: bool = False) -> Any:
    """A job with uids (its operator ids survive changes elsewhere in the graph)."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    ds = env.add_source(Numbers(), "Numbers", Types.INT()).uid("numbers")
    if mapped:
        ds = ds.map(lambda x: x + 1, Types.INT()).uid("plus-one")
    summed = ds.key_by(lambda x: x % 2, key_type=Types.INT()).reduce(lambda a, b: a + b)
    summed = summed.uid("sums")
    if extra_vertex:
        summed = summed.rebalance().map(lambda x: x, Types.INT()).uid("after")
    summed.print().uid("print")
    return env.get_job_graph()


@pytest.fixture()
def savepoint(tmp_path: Path) -> Callable[..., str]:
    def make(job: Any = None) -> str:
        checkpoint = tmp_path / "chk"
        (checkpoint / "commits").mkdir(parents=True, exist_ok=True)
        (checkpoint / "commits" / "3").write_text("v1")
        path = str(tmp_path / "sp")
        write_savepoint(str(checkpoint), path, job if job is not None else graph(), "job-a")
        return path

    return make


def _edit(path: str, change: Callable[[dict], Any]) -> None:
    meta = os.path.join(path, METADATA)
    with open(meta) as f:
        doc = json.load(f)
    change(doc)
    with open(meta, "w") as f:
        json.dump(doc, f)


def _write(path: str, data: bytes) -> None:
    with open(os.path.join(path, METADATA), "wb") as f:
        f.write(data)


def _truncate(path: str) -> None:
    meta = os.path.join(path, METADATA)
    data = open(meta, "rb").read()
    _write(path, data[: len(data) // 2])


# (case, damage, what the error says after "<file> ")
DAMAGED = [
    ("truncated", _truncate, "is not valid JSON (truncated or edited?)"),
    ("empty", lambda p: _write(p, b""), "is not valid JSON (truncated or edited?)"),
    ("binary", lambda p: _write(p, b"\x80\x81\x00"), "is not UTF-8 JSON text (binary data"),
    ("a JSON list", lambda p: _write(p, b"[1, 2]"), "holds [1, 2], not a JSON object"),
    (
        "vertices missing",
        lambda p: _edit(p, lambda d: d.pop("vertices")),
        "field 'vertices' is missing (expected a list of vertex names)",
    ),
    (
        "vertices one short",
        lambda p: _edit(p, lambda d: d["vertices"].pop()),
        "field 'vertices': expected 2 vertex names, one per entry of 'operators'",
    ),
    (
        "operators not lists",
        lambda p: _edit(p, lambda d: d.__setitem__("operators", ["a", "b"])),
        "field 'operators[0]': expected a list of non-empty strings, got 'a'",
    ),
    (
        "parallelism one short",
        lambda p: _edit(p, lambda d: d["parallelism"].pop()),
        "field 'parallelism': expected 2 ints >= 1, one per vertex, got [1]",
    ),
    (
        "parallelism zero",
        lambda p: _edit(p, lambda d: d.__setitem__("parallelism", [0, 2])),
        "field 'parallelism': expected 2 ints >= 1, one per vertex, got [0, 2]",
    ),
    (
        "last_batch a str",
        lambda p: _edit(p, lambda d: d.__setitem__("last_batch", "3")),
        "field 'last_batch': expected an int >= 0 or null, got '3'",
    ),
    (
        "job_id a number",
        lambda p: _edit(p, lambda d: d.__setitem__("job_id", 7)),
        "field 'job_id': expected a string, got 7",
    ),
    (
        "unknown version",
        lambda p: _edit(p, lambda d: d.__setitem__("version", 99)),
        "has an unknown format 'pyflowkit-spark-streaming-savepoint' version 99",
    ),
    (
        "operator_names one short",
        lambda p: _edit(p, lambda d: d["operator_names"][1].pop()),
        "field 'operator_names[1]': expected 2 names, one per operator id",
    ),
]


@pytest.mark.parametrize(("damage", "said"), [pytest.param(*c[1:], id=c[0]) for c in DAMAGED])
def test_damaged_metadata_is_refused_naming_the_file_and_field(
    savepoint, tmp_path, damage, said
) -> None:
    path = savepoint()
    damage(path)
    target = tmp_path / "restored"
    with pytest.raises(ValueError) as info:
        restore_into(path, str(target), graph())
    assert str(info.value).startswith(f"Failed to restore from savepoint {path!r}: {METADATA} ")
    assert said in str(info.value)
    assert not target.exists()  # nothing copied


def test_an_operator_added_names_the_chain_rule_not_another_job(savepoint, tmp_path) -> None:
    path = savepoint(graph())
    with pytest.raises(ValueError) as info:
        restore_into(path, str(tmp_path / "r"), graph(mapped=True))
    text = str(info.value)
    assert "a savepoint of another job" not in text
    assert "the job's operators changed since the savepoint of job 'Flink Streaming Job'" in text
    assert "added 'Map' (" in text
    assert "Flink maps state operator by operator (an added operator starts empty)" in text
    assert "a Spark streaming query restores only into the same chains of operators" in text
    assert not (tmp_path / "r").exists()


def test_an_operator_added_as_a_new_vertex_is_not_a_zip_error(savepoint, tmp_path) -> None:
    path = savepoint(graph())
    with pytest.raises(ValueError) as info:
        restore_into(path, str(tmp_path / "r"), graph(extra_vertex=True))
    assert "zip()" not in str(info.value)
    assert "added 'Map' (" in str(info.value)


def test_an_operator_removed_gets_flinks_message(savepoint, tmp_path) -> None:
    path = savepoint(graph(mapped=True))
    with pytest.raises(ValueError) as info:
        restore_into(path, str(tmp_path / "r"), graph())
    text = str(info.value)
    assert text.startswith(f"Failed to rollback to checkpoint/savepoint {path}. Cannot map ")
    assert "because the operator is not available in the new program. If you want to allow " in text
    assert "execution.savepoint.ignore-unclaimed-state: true" in text
    assert "is 'Map' in 'Map' of job 'Flink Streaming Job' (job-a)" in text


def test_ignore_unclaimed_state_is_honoured_then_the_spark_rule_named(savepoint, tmp_path) -> None:
    path = savepoint(graph(mapped=True))
    with pytest.raises(ValueError) as info:
        restore_into(path, str(tmp_path / "r"), graph(), allow_non_restored_state=True)
    text = str(info.value)
    assert "Cannot map checkpoint/savepoint state" not in text  # the option was honoured
    assert "removed 'Map' (" in text
    assert "execution.savepoint.ignore-unclaimed-state: true lets Flink skip" in text
    assert "a Spark streaming query restores only into the same chains" in text


def test_a_changed_parallelism_is_named_even_with_a_vertex_added(savepoint, tmp_path) -> None:
    path = savepoint(graph(mapped=True, parallelism=2))
    with pytest.raises(ValueError) as info:
        restore_into(path, str(tmp_path / "r"), graph(True, parallelism=3, extra_vertex=True))
    assert "the parallelism changed ('Map' 2 → 3)" in str(info.value)


def test_the_same_job_restores(savepoint, tmp_path) -> None:
    path = savepoint(graph(mapped=True))
    data = restore_into(path, str(tmp_path / "r"), graph(mapped=True))
    assert data["last_batch"] == 3 and (tmp_path / "r" / "commits" / "3").exists()


def test_a_savepoint_written_before_operator_names_still_restores(savepoint, tmp_path) -> None:
    path = savepoint(graph(mapped=True))
    _edit(path, lambda d: d.pop("operator_names"))
    restore_into(path, str(tmp_path / "r"), graph(mapped=True))
    with pytest.raises(ValueError, match="Cannot map checkpoint/savepoint state"):
        restore_into(path, str(tmp_path / "r2"), graph())


def _bounded(mode: RuntimeExecutionMode) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_runtime_mode(mode)
    env.from_collection([1, 2]).key_by(lambda x: x).reduce(lambda a, b: a + b).print()
    return env.get_job_graph()


def test_a_bounded_job_with_a_savepoint_runs_as_a_streaming_query_or_is_refused() -> None:
    conf = {"execution.savepoint.path": "/tmp/sp"}
    assert not runs_as_streaming_query(_bounded(RuntimeExecutionMode.STREAMING), {})
    assert runs_as_streaming_query(_bounded(RuntimeExecutionMode.STREAMING), conf)
    with pytest.raises(ValueError) as info:
        runs_as_streaming_query(_bounded(RuntimeExecutionMode.BATCH), conf)
    assert str(info.value).startswith(
        "Cannot restore savepoint '/tmp/sp' (execution.savepoint.path) into job "
    )
    assert "BATCH execution supports neither checkpointing nor anything that depends" in str(
        info.value
    )
