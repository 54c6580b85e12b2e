"""Tampered savepoints and traces: refused before any task restores, naming file, field, rule."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.runtime import JobStatus, MiniCluster, load_trace
from pyflowkit.runtime.checkpoint.savepoint import read_savepoint
from pyflowkit.runtime.predicates import checkpoint_completed
from pyflowkit.runtime.trace import trace_from_json
from pyflowkit.runtime.two_phase_commit import TransactionStore
from tests.checkpoint.jobs import WORDS, word_count


@pytest.fixture(scope="module")
def savepoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One savepoint of the word count (keyed reduce state, operator list state of the sink)."""
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(
        word_count(TransactionStore(), interval=30)
    )
    run.run_until(checkpoint_completed(1))
    sp = run.trigger_savepoint(tmp_path_factory.mktemp("sp"))
    run.run()
    return Path(run.savepoint_path(sp))


def meta(d: Path) -> dict[str, Any]:
    return json.loads((d / "_metadata").read_text())


def put_meta(d: Path, m: Any) -> None:
    (d / "_metadata").write_text(json.dumps(m))


def edit_meta(fn: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    def apply(d: Path) -> None:
        m = meta(d)
        fn(m)
        put_meta(d, m)

    return apply


def state_doc(d: Path) -> dict[str, Any]:
    return json.loads((d / "state").read_text())


def resign(d: Path, doc: Any) -> None:
    """Write a new state file WITH a matching checksum: the schema must still catch the edit."""
    data = json.dumps(doc).encode()
    (d / "state").write_bytes(data)
    m = meta(d)
    m["state_sha256"] = hashlib.sha256(data).hexdigest()
    put_meta(d, m)


def edit_state(fn: Callable[[dict[str, Any], dict[str, Any]], None]) -> Callable[[Path], None]:
    """``fn(state_doc, metadata)`` edits the decoded-JSON state of the keyed reduce; re-signed."""

    def apply(d: Path) -> None:
        doc, m = state_doc(d), meta(d)
        fn(doc, m)
        resign(d, doc)

    return apply


def op_id(m: dict[str, Any], name: str) -> str:
    return next(o["operator_id"] for o in m["operators"] if o["operator_name"] == name)


def reduce_snapshot(doc: dict[str, Any], m: dict[str, Any], subtask: str = "0") -> list[Any]:
    """The tagged-dict item list of the keyed reduce's snapshot of ``subtask``."""
    return doc[op_id(m, "Keyed Reduce")][subtask]["v"]


def section(snapshot_items: list[Any], name: str) -> list[Any]:
    return next(v for k, v in snapshot_items if k == name)["v"]


def first_keyed_entry_state(doc: dict[str, Any], m: dict[str, Any]) -> dict[str, Any]:
    keyed = section(reduce_snapshot(doc, m), "keyed_state")
    per_kg = keyed[0][1]["v"]  # [[state name, {"@": "dict", "v": [["kind", …], ["entries", …]]}]]
    return per_kg[0][1]


def set_item(tagged: dict[str, Any], key: str, value: Any) -> None:
    for item in tagged["v"]:
        if item[0] == key:
            item[1] = value


def truncate(name: str, keep: int = 100) -> Callable[[Path], None]:
    return lambda d: (d / name).write_text((d / name).read_text()[:keep])


def replace_in_state(old: str, new: str) -> Callable[[Path], None]:
    def apply(d: Path) -> None:
        text = (d / "state").read_text()
        assert old in text
        (d / "state").write_text(text.replace(old, new, 1))

    return apply


def first_reduce_value(d: Path) -> str:
    """The text of the first keyed reduce value in the state file, e.g. ``["to",11]``."""
    entry = first_keyed_entry_state(state_doc(d), meta(d))
    entries = next(v for k, v in entry["v"] if k == "entries")
    return json.dumps(entries[0][2], separators=(",", ":"))


def edit_value(d: Path) -> None:
    old = first_reduce_value(d)
    value = json.loads(old)
    value["v"][1] = 999999
    replace_in_state(old, json.dumps(value, separators=(",", ":")))(d)


def edit_value_to(d: Path, new: Any) -> None:
    old = first_reduce_value(d)
    value = json.loads(old)
    value["v"][1] = new
    replace_in_state(old, json.dumps(value, separators=(",", ":")))(d)


CHECKSUM = "does not match the checksum written at save time"
# (case id, tamper, file named, fragments of the message)
SAVEPOINT_CASES: list[tuple[str, Callable[[Path], None], list[str]]] = [
    ("truncated _metadata", truncate("_metadata"), ["_metadata is not valid JSON", "truncated"]),
    ("truncated state", truncate("state"), ["state file", CHECKSUM]),
    ("deleted state", lambda d: (d / "state").unlink(), ["state file is missing"]),
    ("deleted _metadata", lambda d: (d / "_metadata").unlink(), ["no _metadata file"]),
    (
        "missing operators key",
        edit_meta(lambda m: m.pop("operators")),
        ["_metadata field 'operators' is missing", "expected a JSON list"],
    ),
    (
        "_metadata is a list",
        lambda d: put_meta(d, [meta(d)]),
        ["_metadata (top level)", "expected a JSON object", "(list)"],
    ),
    (
        "parallelism 'two'",
        edit_meta(lambda m: m["operators"][0].update(parallelism="two")),
        [
            "_metadata field 'operators[0].parallelism'",
            "expected an int between 1 and 128",
            "'two'",
        ],
    ),
    ("edited state value 999999", edit_value, ["state file", CHECKSUM]),
    ("state value edited to a string", lambda d: edit_value_to(d, "many"), [CHECKSUM]),
    (
        "binary _metadata",
        lambda d: (d / "_metadata").write_bytes(b"\x80\x04\x95\x00"),
        ["not UTF-8"],
    ),
    ("empty _metadata", lambda d: (d / "_metadata").write_text(""), ["_metadata is empty"]),
    ("binary state", lambda d: (d / "state").write_bytes(b"\x80\x04K\x01."), [CHECKSUM]),
    (
        "wrong format",
        edit_meta(lambda m: m.update(format="flink")),
        ["field 'format'", "expected 'pyflowkit-savepoint'", "'flink'"],
    ),
    (
        "version 1 (no checksum)",
        edit_meta(lambda m: m.update(version=1)),
        ["field 'version'", "carry no state checksum"],
    ),
    ("version as a string", edit_meta(lambda m: m.update(version="2")), ["field 'version'", "'2'"]),
    (
        "checksum removed",
        edit_meta(lambda m: m.pop("state_sha256")),
        ["field 'state_sha256' is missing", "SHA-256"],
    ),
    (
        "checksum not hex",
        edit_meta(lambda m: m.update(state_sha256="z" * 64)),
        ["field 'state_sha256'", "64 lowercase hex digits"],
    ),
    (
        "subtask index out of range",
        edit_meta(lambda m: m["operators"][0].update(subtasks=[0, 7])),
        ["field 'operators[0].subtasks[1]'", "between 0 and 1", "7 (int)"],
    ),
    (
        "duplicate subtask",
        edit_meta(lambda m: m["operators"][0].update(subtasks=[1, 1])),
        ["field 'operators[0].subtasks'", "distinct subtask indexes"],
    ),
    (
        "duplicate operator id",
        edit_meta(lambda m: m["operators"].append(dict(m["operators"][0]))),
        ["field 'operators[4].operator_id'", "not listed before"],
    ),
    (
        "unknown metadata field",
        edit_meta(lambda m: m.update(pickle="gASV")),
        ["_metadata field 'pickle' is unknown", "expected only"],
    ),
    (
        "max parallelism 0",
        edit_meta(lambda m: m["operators"][0].update(max_parallelism=0)),
        ["field 'operators[0].max_parallelism'", "between 1 and 32768"],
    ),
    (
        "parallelism above max parallelism",
        edit_meta(lambda m: m["operators"][0].update(parallelism=200)),
        ["field 'operators[0].parallelism'", "between 1 and 128", "200"],
    ),
    (
        "negative checkpoint id",
        edit_meta(lambda m: m.update(checkpoint_id=-1)),
        ["field 'checkpoint_id'", "-1"],
    ),
    ("boolean timestamp", edit_meta(lambda m: m.update(timestamp=True)), ["field 'timestamp'"]),
    (
        "operator without id",
        edit_meta(lambda m: m["operators"][1].pop("operator_id")),
        ["field 'operators[1].operator_id' is missing"],
    ),
    (
        "uid as a number",
        edit_meta(lambda m: m["operators"][2].update(uid=7)),
        ["field 'operators[2].uid'", "non-empty string or null"],
    ),
    (
        "operator entry is a string",
        edit_meta(lambda m: m["operators"].__setitem__(0, "Map")),
        ["field 'operators[0]'", "expected a JSON object"],
    ),
    (
        "state of an unlisted operator (re-signed)",
        edit_state(lambda doc, m: doc.update(ffff={})),
        ["state field 'ffff'", "an operator listed in _metadata"],
    ),
    (
        "unknown tag in state (re-signed)",
        edit_state(lambda doc, m: doc[op_id(m, "Map")].update({"0": {"@": "exec", "v": "gA"}})),
        ["state field", ".0'", "Unknown tag 'exec'"],
    ),
    (
        "pickle in state, not trusted (re-signed)",
        edit_state(lambda doc, m: doc[op_id(m, "Map")].update({"0": {"@": "pickle", "v": "gA"}})),
        ["state field", ".0'", "does not trust pickles", "trust-pickled-state-files"],
    ),
    (
        "object of a class the job does not use (re-signed)",
        edit_state(
            lambda doc, m: doc[op_id(m, "Map")].update(
                {"0": {"@": "obj", "c": "subprocess:Popen", "f": {"args": "touch x"}}}
            )
        ),
        ["state field", ".0'", "'subprocess:Popen'", "does not use"],
    ),
    (
        "malformed tuple tag (re-signed)",
        edit_state(lambda doc, m: doc[op_id(m, "Map")].update({"0": {"@": "tuple"}})),
        ["state field", "tagged JSON encoding"],
    ),
    (
        "subtask missing from state (re-signed)",
        edit_state(lambda doc, m: doc[op_id(m, "Keyed Reduce")].pop("1")),
        ["the subtasks ['0', '1'] listed in _metadata", "['0']"],
    ),
    (
        "unknown state kind (re-signed)",
        edit_state(lambda doc, m: set_item(first_keyed_entry_state(doc, m), "kind", "bag")),
        [".kind'", "one of 'value', 'list', 'map'", "'bag'"],
    ),
    (
        "state entry not a triple (re-signed)",
        edit_state(lambda doc, m: set_item(first_keyed_entry_state(doc, m), "entries", [[1, 2]])),
        [".entries[0]'", "a [key, namespace, value] list"],
    ),
    (
        "key group of another subtask (re-signed)",
        edit_state(
            lambda doc, m: section(reduce_snapshot(doc, m), "keyed_state")[0].__setitem__(0, "127")
        ),
        [".keyed_state.127'", "a key group of this subtask (0..63)"],
    ),
    (
        "operator state mode (re-signed)",
        edit_state(
            lambda doc, m: set_item(
                section(doc[op_id(m, "Sink: Unnamed")]["0"]["v"], "operator_state")[0][1],
                "mode",
                "ROUND_ROBIN",
            )
        ),
        [".operator_state.state.mode'", "'SPLIT_DISTRIBUTE', 'UNION'", "'ROUND_ROBIN'"],
    ),
    (
        "unknown snapshot section (re-signed)",
        edit_state(lambda doc, m: reduce_snapshot(doc, m).append(["channels", []])),
        [".0.channels' is unknown", "keyed_state, operator_state, timers"],
    ),
    ("state is a list (re-signed)", lambda d: resign(d, [1]), ["state (top level)", "JSON object"]),
]


@pytest.mark.parametrize(
    "tamper,fragments", [c[1:] for c in SAVEPOINT_CASES], ids=[c[0] for c in SAVEPOINT_CASES]
)
def test_tampered_savepoint_is_refused_before_submission(
    savepoint: Path, tmp_path: Path, tamper: Callable[[Path], None], fragments: list[str]
) -> None:
    d = tmp_path / savepoint.name
    shutil.copytree(savepoint, d)
    tamper(d)
    cluster = MiniCluster(echo_print=False, seed=2)
    env = word_count(TransactionStore(), interval=None)
    with pytest.raises(IllegalArgumentException) as err:
        cluster.submit(env, savepoint_path=d)
    message = str(err.value)
    assert message.startswith(f"Cannot read savepoint {str(d)!r}: "), message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert "\n" not in message
    # nothing was submitted; the same environment and cluster still run from the intact savepoint
    run = cluster.submit(env, savepoint_path=savepoint)
    run.run()
    assert run.job_status is JobStatus.FINISHED


def test_intact_savepoint_round_trips_with_its_checksum(savepoint: Path) -> None:
    metadata, states = read_savepoint(savepoint)
    data = (savepoint / "state").read_bytes()
    assert metadata["state_sha256"] == hashlib.sha256(data).hexdigest()
    assert metadata["version"] == 2
    names = sorted(s.operator_name for s in states.values())
    assert names == ["Keyed Reduce", "Map", "Sink: Unnamed", "Source: Collection Source"]


GOOD_EVENT = {"step": 0, "time": 0, "component": "Dispatcher", "method": "m", "message": "x"}


def trace_doc(**changes: Any) -> str:
    event = {**GOOD_EVENT, **changes}
    return json.dumps({"version": 1, "events": [GOOD_EVENT, {k: v for k, v in event.items()}]})


def without(key: str) -> str:
    event = {k: v for k, v in GOOD_EVENT.items() if k != key}
    return json.dumps({"version": 1, "events": [event]})


# (case id, file bytes, fragments)
TRACE_CASES: list[tuple[str, bytes, list[str]]] = [
    ("truncated", trace_doc().encode()[:40], ["is not valid JSON", "truncated"]),
    ("a list", b"[1, 2]", ["(top level)", "expected a JSON object", "(list)"]),
    ("no events", b'{"version": 1}', ["field 'events' is missing"]),
    ("binary", b"\x80\x04\x95\x10\x00", ["not UTF-8 JSON text"]),
    ("empty", b"", ["is empty"]),
    ("unknown top-level field", b'{"version": 1, "events": [], "x": 1}', ["field 'x' is unknown"]),
    ("unknown event field", trace_doc(colour="red").encode(), ["'events[1].colour' is unknown"]),
    ("missing message", without("message").encode(), ["'events[0].message' is missing"]),
    ("missing step", without("step").encode(), ["'events[0].step' is missing"]),
    ("step 'zero'", trace_doc(step="zero").encode(), ["'events[1].step'", "an int >= 0", "'zero'"]),
    ("negative time", trace_doc(time=-5).encode(), ["'events[1].time'", "an int >= 0", "-5"]),
    ("boolean step", trace_doc(step=True).encode(), ["'events[1].step'", "True (bool)"]),
    ("subtask as text", trace_doc(subtask="1").encode(), ["'events[1].subtask'", "'1' (str)"]),
    ("message as a number", trace_doc(message=3).encode(), ["'events[1].message'", "a string"]),
    ("version 2", b'{"version": 2, "events": []}', ["field 'version'", "expected 1"]),
    ("no version", b'{"events": []}', ["field 'version' is missing"]),
    ("events not a list", b'{"version": 1, "events": {}}', ["field 'events'", "a JSON list"]),
    ("event not an object", b'{"version": 1, "events": [3]}', ["'events[0]'", "a JSON object"]),
]


@pytest.mark.parametrize(
    "data,fragments", [c[1:] for c in TRACE_CASES], ids=[c[0] for c in TRACE_CASES]
)
def test_malformed_trace_is_refused_naming_the_field(
    tmp_path: Path, data: bytes, fragments: list[str]
) -> None:
    path = tmp_path / "trace.json"
    path.write_bytes(data)
    with pytest.raises(IllegalArgumentException) as err:
        load_trace(path)
    message = str(err.value)
    assert message.startswith(f"Cannot read trace {str(path)!r}: "), message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    # a good trace still loads afterwards
    path.write_text(trace_doc())
    assert [e.step for e in load_trace(path)] == [0, 0]


def test_missing_trace_file_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(IllegalArgumentException, match="trace .*nope.json'.* is missing"):
        load_trace(tmp_path / "nope.json")


def test_trace_from_json_accepts_what_save_trace_writes() -> None:
    events = trace_from_json(trace_doc(subtask=1, attempt=0, vertex="Map"))
    assert events[1].subtask == 1 and events[1].vertex == "Map"


def typed_word_count(interval: int | None = 30) -> Any:
    """The word count with declared types (the reduce's state is read as Tuple(String, Int))."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    if interval is not None:
        env.enable_checkpointing(interval)
    pair = Types.TUPLE([Types.STRING(), Types.INT()])
    (
        env.from_collection(WORDS, type_info=Types.STRING())
        .map(lambda w: (w, 1), output_type=pair)
        .key_by(lambda t: t[0], key_type=Types.STRING())
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .uid("counts")
        .print()
    )
    return env


@pytest.fixture(scope="module")
def typed_savepoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(typed_word_count())
    run.run_until(checkpoint_completed(1))
    sp = run.trigger_savepoint(tmp_path_factory.mktemp("typed-sp"))
    run.run()
    return Path(run.savepoint_path(sp))


def resigned(edit: Callable[[Path], None]) -> Callable[[Path], None]:
    def apply(d: Path) -> None:
        edit(d)
        resign(d, state_doc(d))

    return apply


def edit_key_to(d: Path, new: Any) -> None:
    entry = first_keyed_entry_state(state_doc(d), meta(d))
    first = next(v for k, v in entry["v"] if k == "entries")[0]
    old = json.dumps(first, separators=(",", ":"))
    replace_in_state(old, json.dumps([new, *first[1:]], separators=(",", ":")))(d)


# (case id, tamper, fragments): re-signed edits the checksum cannot catch, which the declared
# types of the restoring job must (was: accepted, then 101 restarts blaming the user's reduce)
TYPED_CASES: list[tuple[str, Callable[[Path], None], list[str]]] = [
    (
        "reduce value edited to a string (re-signed)",
        resigned(lambda d: edit_value_to(d, "many")),
        [
            "its state file holds a value of state '_op_state' of operator 'Keyed Reduce' "
            "(uid 'counts', operator id ",
            "that the restoring job's declared type Java Tuple2<String, Integer> cannot read: (",
            "'many') (tuple): field 1 ('many'): an integer is required.",
            "Flink fails the restore when the state's serializer cannot read a value",
        ],
    ),
    (
        "key edited to an int (re-signed)",
        resigned(lambda d: edit_key_to(d, 7)),
        [
            "holds a key of state '_op_state' of operator 'Keyed Reduce'",
            "declared type String cannot read: 7 (int): a str is required.",
        ],
    ),
]


@pytest.mark.parametrize(
    "tamper,fragments", [c[1:] for c in TYPED_CASES], ids=[c[0] for c in TYPED_CASES]
)
def test_a_state_value_the_declared_type_cannot_read_fails_the_restore_once(
    typed_savepoint: Path, tmp_path: Path, tamper: Callable[[Path], None], fragments: list[str]
) -> None:
    d = tmp_path / typed_savepoint.name
    shutil.copytree(typed_savepoint, d)
    tamper(d)
    read_savepoint(d)  # the schema and the checksum accept it: only the type can refuse it
    cluster = MiniCluster(echo_print=False, seed=2)
    env = typed_word_count(interval=None)
    with pytest.raises(IllegalArgumentException) as err:
        cluster.submit(env, savepoint_path=d)
    message = str(err.value)
    assert message.startswith(f"Cannot restore savepoint {str(d)!r}: "), message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    run = cluster.submit(env, savepoint_path=typed_savepoint)  # the intact one restores
    run.run()
    assert run.job_status is JobStatus.FINISHED
