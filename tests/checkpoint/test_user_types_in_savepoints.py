"""User types in state files: the user's own classes, dataclasses, NamedTuples and enums are
written with their schema and rebuilt only from the restoring job's classes (Flink's
PojoSerializer and its snapshot resolved with the job's class loader); loading never runs code
from the file; pickles only with ``pyflowkit.state.trust-pickled-state-files``."""

from __future__ import annotations

import base64
import datetime as dt
import enum
import json
import pickle
import sys
from collections import deque
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from pyflowkit.common import Configuration, Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import KeyedProcessFunction
from pyflowkit.datastream.state import ValueStateDescriptor
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.examples import alerts_geohash as seed
from pyflowkit.runtime import ExecutionState, JobStatus, MiniCluster
from pyflowkit.runtime.checkpoint.savepoint import read_savepoint
from pyflowkit.runtime.predicates import all_tasks_in, checkpoint_completed, job_finished
from pyflowkit.state import state_codec
from pyflowkit.state.file_schema import sha256_of
from pyflowkit.state.user_types import (
    TRUST_PICKLED_STATE_FILES,
    StateClasses,
    StateClassNotAllowed,
    classes_of,
    job_state_classes,
)


class Color(enum.Enum):
    RED = "r"
    BLUE = "b"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Point(NamedTuple):
    x: int
    y: float


@dataclass(frozen=True)
class Tag:
    name: str
    level: Level


@dataclass
class Acc:
    count: int = 0
    points: list[Point] = field(default_factory=list)
    color: Color = Color.RED
    tags: dict[str, Tag] = field(default_factory=dict)
    seen: set[int] = field(default_factory=set)


@dataclass(slots=True)
class Slotted:
    a: int
    b: Any


class Plain:
    def __init__(self, v: Any) -> None:
        self.v = v

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Plain) and other.v == self.v


class NotUsedByTheJob:
    pass


def uses_acc(x: Any) -> Acc:  # a "job function" of this module: its module's classes count
    return Acc(x)


JOB = StateClasses(classes_of([uses_acc]))
MARKER_MODULE = "tests.checkpoint.never_imported_payload"


def _round_trip(value: Any, classes: StateClasses = JOB) -> Any:
    text = state_codec.dumps(value)
    json.loads(text)  # plain JSON
    return state_codec.loads(text, classes)


def test_user_objects_round_trip_by_schema() -> None:
    acc = Acc(
        3,
        [Point(1, 2.5), Point(-1, float("inf"))],
        Color.BLUE,
        {"t": Tag("hot", Level.HIGH)},
        {1, 2},
    )
    value = {
        ("k", Level.LOW): acc,
        "slotted": Slotted(1, [Plain({"n": (1, 2)})]),
        "when": [dt.datetime(2024, 5, 1, 12, 30, tzinfo=dt.timezone.utc), dt.date(2024, 5, 1)],
        "more": [dt.time(1, 2, 3), dt.timedelta(days=1, seconds=5), Decimal("1.10")],
    }
    back = _round_trip(value)
    assert back == value
    restored = back[("k", Level.LOW)]
    assert type(restored) is Acc and type(restored.points[0]) is Point
    assert restored.color is Color.BLUE and restored.tags["t"].level is Level.HIGH
    assert type(back["slotted"]) is Slotted and type(back["slotted"].b[0]) is Plain
    assert str(back["more"][2]) == "1.10"
    encoded = state_codec.encode(acc)
    assert encoded["@"] == "obj" and encoded["c"] == f"{__name__}:Acc"
    assert sorted(encoded["f"]) == ["color", "count", "points", "seen", "tags"]


def test_restore_refuses_a_class_the_job_does_not_use() -> None:
    text = state_codec.dumps(NotUsedByTheJob())
    with pytest.raises(StateClassNotAllowed, match="NotUsedByTheJob.*does not use") as info:
        state_codec.loads(text, StateClasses(classes_of([seed.GprsDelta()])))
    assert "nothing is imported or run from the file" in str(info.value)
    # a class of a module the job never loaded: refused, and the module is not imported
    crafted = json.dumps({"@": "obj", "c": f"{MARKER_MODULE}:Evil", "f": {}})
    with pytest.raises(StateClassNotAllowed, match="never_imported_payload:Evil"):
        state_codec.loads(crafted, JOB)
    assert MARKER_MODULE not in sys.modules
    # standard library classes are never rebuilt from a name (subprocess.Popen, os._wrap_close)
    for name in ("subprocess:Popen", "os:_wrap_close", "builtins:eval"):
        with pytest.raises(StateClassNotAllowed):
            state_codec.loads(json.dumps({"@": "obj", "c": name, "f": {}}), JOB)


def test_classes_of_a_job_follow_its_functions_fields_and_declared_fields() -> None:
    names = set(JOB.by_name)
    for cls in (Acc, Tag, Point, Color, Level, Slotted, Plain, NotUsedByTheJob):
        assert f"{__name__}:{cls.__qualname__}" in names
    assert not any(n.split(":")[0] in ("os", "subprocess", "builtins", "pickle") for n in names)
    geo = classes_of([seed.GprsDelta()])
    assert "pyflowkit.examples.alerts_geohash:GeoHashEvent" in geo


class Touch:
    """A pickle payload: unpickling it would create a file."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> Any:
        return (Path.touch, (Path(self.path),))


def test_pickles_only_when_the_job_trusts_state_files(tmp_path: Path) -> None:
    target = tmp_path / "ran"
    crafted = json.dumps(
        {"@": "pickle", "v": base64.b64encode(pickle.dumps(Touch(str(target)))).decode()}
    )
    with pytest.raises(StateClassNotAllowed, match=TRUST_PICKLED_STATE_FILES):
        state_codec.loads(crafted, JOB)
    assert not target.exists()
    # a value with no schema form (a deque: a built-in type without fields)
    with pytest.raises(
        IllegalArgumentException, match=f"deque have no JSON form.*{TRUST_PICKLED_STATE_FILES}"
    ):
        state_codec.dumps(deque([1, 2]))
    text = state_codec.dumps(deque([1, 2]), trust_pickled=True)
    with pytest.raises(StateClassNotAllowed, match="does not trust pickles"):
        state_codec.loads(text, JOB)
    trusted = StateClasses(JOB.by_name, trust_pickled=True)
    assert state_codec.loads(text, trusted) == deque([1, 2])


def test_a_class_defined_in_a_function_is_refused_at_write_time() -> None:
    class Local:
        pass

    with pytest.raises(IllegalArgumentException, match="defined inside a function"):
        state_codec.dumps({"x": Local()})


# ---- the seed job: savepoint mid-window, resume --------------------------------------------------


def _seed_env(events: int | None) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    seed.build(env, events)
    return env


def _held(path: str, job_graph: Any) -> tuple[int, list[Any], Any]:
    """The source's reader position, the count window's events and the CEP operator's NFA
    state, as the restoring job reads them back from the savepoint."""
    _, states = read_savepoint(path, job_state_classes(job_graph))
    position, window, nfa = -1, [], None
    for st in states.values():
        (snap,) = st.subtask_states.values()
        if st.operator_name.startswith("Source"):
            (position,) = snap.operator_state["reader-position"]["entries"]
        for per_kg in snap.keyed_state.values():
            for name, table in per_kg.items():
                for _key, _ns, value in table["entries"]:
                    if name == "window-contents":
                        window.extend(v.value for v in value)
                    elif name == "nfaStateName":
                        nfa = value
    return position, window, nfa


@pytest.mark.parametrize("steps", [12, 18])
def test_seed_job_savepoints_mid_window_and_resumes(tmp_path: Path, steps: int) -> None:
    events = 30
    first = MiniCluster(echo_print=False, seed=1, source_batch=1).submit(_seed_env(events))
    first.run_until(all_tasks_in(ExecutionState.RUNNING))
    for _ in range(steps):
        first.step()
    sp = first.stop_with_savepoint(tmp_path)
    location = first.savepoint_path(sp)
    first.run_until(job_finished())
    assert first.job_status is JobStatus.FINISHED
    position, window, _nfa = _held(location, first.job_graph)
    generated = list(seed.generate(events))
    # stopped mid-stream, before the first alarm (the 5th event), the count window holding the
    # last events read as the user's own GeoHashEvent objects
    assert 1 <= position <= 4 and first.printed() == []
    assert window == generated[max(0, position - 2) : position]
    assert all(type(e) is seed.GeoHashEvent for e in window)

    second = MiniCluster(echo_print=False, seed=2, source_batch=1).submit(
        _seed_env(events), savepoint_path=location
    )
    second.run()
    assert second.job_status is JobStatus.FINISHED
    # the source goes on from its position, the window computes the next delta against the
    # event it held, and CEP completes matches: exactly the alarms of an uninterrupted run
    assert second.printed() == seed.expected_output(events) and len(second.printed()) == 2


# ---- a keyed job with user objects in ValueState, rescaled ---------------------------------------


class Accumulate(KeyedProcessFunction):
    def open(self, ctx: Any) -> None:
        self.acc = ctx.get_state(ValueStateDescriptor("acc", Types.PICKLED_BYTE_ARRAY()))

    def process_element(self, v: int, ctx: Any) -> Any:
        acc = self.acc.value() or Acc()
        acc.count += 1
        acc.points.append(Point(v, v / 2))
        acc.color = Color.BLUE if v % 2 else Color.RED
        acc.tags[str(v)] = Tag(f"t{v}", Level.HIGH if v > 50 else Level.LOW)
        self.acc.update(acc)
        yield f"{v % 4}:{acc.count}:{sum(p.x for p in acc.points)}:{acc.color.name}"


def _keyed_env(parallelism: int, trust: bool = False) -> StreamExecutionEnvironment:
    conf = Configuration()
    if trust:
        conf.set_string(TRUST_PICKLED_STATE_FILES, "true")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    numbers = env.from_collection(list(range(100)), type_info=Types.INT()).uid("numbers")
    keyed = numbers.key_by(lambda v: v % 4)
    keyed.process(Accumulate(), output_type=Types.STRING()).uid("acc").print()
    return env


def test_user_objects_in_value_state_survive_savepoint_and_rescale(tmp_path: Path) -> None:
    first = MiniCluster(echo_print=False, seed=3, source_batch=1).submit(_keyed_env(2))
    first.run_until(all_tasks_in(ExecutionState.RUNNING))
    for _ in range(60):
        first.step()
    location = first.savepoint_path(first.stop_with_savepoint(tmp_path))
    first.run_until(job_finished())
    second = MiniCluster(echo_print=False, seed=4, source_batch=1).submit(
        _keyed_env(3), savepoint_path=location
    )
    second.run()
    assert second.job_status is JobStatus.FINISHED
    last: dict[str, str] = {}
    for line in first.printed() + second.printed():
        record = line.split("> ", 1)[-1]  # print's "<subtask>> " prefix
        last[record.split(":")[0]] = record
    expected = {
        str(k): f"{k}:25:{sum(range(k, 100, 4))}:{'BLUE' if k % 2 else 'RED'}" for k in range(4)
    }
    assert last == expected
    assert 0 < len(first.printed()) < 100  # stopped mid-stream, state held per key
    assert len(first.printed()) + len(second.printed()) == 100


def _craft(location: str, edit: Any) -> None:
    """Edit a savepoint's state file and recompute its checksum (a hostile, consistent file)."""
    root = Path(location)
    state = json.loads((root / "state").read_text())
    edit(state)
    data = json.dumps(state, sort_keys=True, separators=(",", ":")).encode()
    (root / "state").write_bytes(data)
    meta = json.loads((root / "_metadata").read_text())
    meta["state_sha256"] = sha256_of(data)
    (root / "_metadata").write_text(json.dumps(meta))


def _replace_objects(node: Any, replacement: dict[str, Any]) -> None:
    """Every user object in ``node`` becomes ``replacement``."""
    if isinstance(node, list):
        for i, v in enumerate(node):
            if isinstance(v, dict) and v.get("@") == "obj":
                node[i] = replacement
            else:
                _replace_objects(v, replacement)
    elif isinstance(node, dict):
        for k, v in list(node.items()):
            if isinstance(v, dict) and v.get("@") == "obj":
                node[k] = replacement
            else:
                _replace_objects(v, replacement)


@pytest.mark.parametrize("kind", ["foreign class", "pickle"])
def test_crafted_savepoint_is_refused_and_runs_nothing(tmp_path: Path, kind: str) -> None:
    first = MiniCluster(echo_print=False, seed=3, source_batch=1).submit(_keyed_env(2))
    first.run_until(all_tasks_in(ExecutionState.RUNNING))
    for _ in range(60):
        first.step()
    location = first.savepoint_path(first.stop_with_savepoint(tmp_path / "sp"))
    first.run_until(job_finished())
    ran = tmp_path / "payload-ran"
    if kind == "pickle":
        payload = base64.b64encode(pickle.dumps(Touch(str(ran)))).decode()
        bad: dict[str, Any] = {"@": "pickle", "v": payload}
    else:
        bad = {"@": "obj", "c": f"{MARKER_MODULE}:Evil", "f": {"path": str(ran)}}
    _craft(location, lambda state: _replace_objects(state, bad))
    with pytest.raises(IllegalArgumentException) as info:
        MiniCluster(echo_print=False).submit(_keyed_env(2), savepoint_path=location)
    message = str(info.value)
    assert location in message and "state" in message
    if kind == "pickle":
        assert TRUST_PICKLED_STATE_FILES in message
    else:
        assert f"{MARKER_MODULE}:Evil" in message and "does not use" in message
    assert not ran.exists() and MARKER_MODULE not in sys.modules


# ---- resume from a retained checkpoint (Flink's -s of chk-<n>) ------------------------------------


def test_seed_job_resumes_from_a_retained_checkpoint(tmp_path: Path) -> None:
    events = 30
    conf = Configuration()
    conf.set_string("state.checkpoints.dir", str(tmp_path))
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.enable_checkpointing(2500)
    seed.build(env, events)
    first = MiniCluster(echo_print=False, seed=1, source_batch=1).submit(env)
    first.run_until(checkpoint_completed())
    first.cancel()
    first.run_until(job_finished())
    assert first.job_status is JobStatus.CANCELED
    (job_dir,) = tmp_path.iterdir()
    retained = sorted(job_dir.glob("chk-*"))[-1]
    position, window, _nfa = _held(str(retained), first.job_graph)
    assert position >= 1 and window and type(window[-1]) is seed.GeoHashEvent

    # the job's checkpoint directory itself is not a checkpoint: the error names the chk-<n>
    again = Configuration()
    again.set_string("execution.savepoint.path", str(job_dir))
    with pytest.raises(IllegalArgumentException, match=f"point at one of them, e.g. {retained}"):
        MiniCluster(echo_print=False).submit(_conf_seed_env(again, events))

    conf2 = Configuration()
    conf2.set_string("execution.savepoint.path", str(retained))
    second = MiniCluster(echo_print=False, seed=2, source_batch=1).submit(
        _conf_seed_env(conf2, events)
    )
    second.run()
    assert second.job_status is JobStatus.FINISHED
    assert any("restoreSavepoint" in e.method and str(retained) in e.message for e in second.trace)
    # alarms printed after the checkpoint (the print sink is not transactional) print again
    expected = seed.expected_output(events)
    assert second.printed() == expected[len(expected) - len(second.printed()) :]
    assert set(first.printed()) | set(second.printed()) == set(expected)


def _conf_seed_env(conf: Configuration, events: int) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    seed.build(env, events)
    return env
