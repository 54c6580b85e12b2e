"""The keyed-state matrix: jobs whose user functions report the keyed state they see, and the
per-key model that says what Flink shows them.

Every record is ``(key, uid, "")``; its token is ``"key#uid"``. A probe holds one state of each
kind (Value, List, Map, Reducing, Aggregating), adds the record's token to each and reads each
back whole, so an output ``"op@p|key|uid|v;l;m;r;a"`` names every record each state of the key
holds. Flink scopes keyed state to the current key, which the task sets before every
``processElement`` of an operator with a state key selector (``StreamTaskNetworkOutput
.emitRecord``, ``ChainingOutput.pushToOperator``: ``setKeyContextElement``) and the timer service
before every timer, so a key's states hold exactly that key's records. ``check_cell`` derives
each output from the input per key: along a HASH edge from one source subtask Flink keeps each
key's order (STREAMING: strict); BATCH sorts keyed inputs by key with an unstable sort, and two
inputs interleave freely, so there a key's outputs need only form one chain over a permutation
of the key's records.

CEP: Flink's ``CepRuntimeContext`` refuses keyed state in conditions and pattern functions
("State is not supported.", see ``tests/cep/test_cep_runtime_context.py``); the per-key state CEP
does have is its NFA's (partial matches, ``IterativeCondition.Context.getEventsForPattern``),
which the ``cep`` cell checks: each key's consecutive records pair up, and nothing else does.
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from pyflowkit.cep import CEP, IterativeCondition, Pattern
from pyflowkit.common import Types, WatermarkStrategy
from pyflowkit.common.flink_version import default_version, profile_for
from pyflowkit.common.watermark_strategy import TimestampAssigner
from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from pyflowkit.datastream.functions import (
    AggregateFunction,
    CoMapFunction,
    FilterFunction,
    FlatMapFunction,
    KeyedBroadcastProcessFunction,
    KeyedCoProcessFunction,
    KeyedProcessFunction,
    MapFunction,
    ProcessWindowFunction,
    ReduceFunction,
    WindowFunction,
)
from pyflowkit.datastream.state import (
    AggregatingStateDescriptor,
    ListStateDescriptor,
    MapStateDescriptor,
    ReducingStateDescriptor,
    ValueStateDescriptor,
)

S, INT = Types.STRING, Types.INT
RECORD = Types.TUPLE([S(), INT(), S()])  # (key, uid, state tokens carried by reduce)

STATES = ("value", "list", "map", "reducing", "aggregating")
OPS = (
    "map",
    "flat_map",
    "filter",
    "reduce",
    "process",
    "window_apply",
    "window_process_global",
    "window_process_window",
    "window_process_runtime",
    "co_process",
    "co_map",
    "broadcast",
    "cep",
)
TWO_INPUTS = ("co_process", "co_map")
PARALLELISMS = (1, 2, 4)
STREAMING, BATCH = "STREAMING", "BATCH"
KEYS = tuple("abcdefgh")
RIGHT_UID = 1000  # the second input's uids start here
RULES = MapStateDescriptor("rules", S(), S())


# ---------------------------------------------------------------------------------------------
# state probes
# ---------------------------------------------------------------------------------------------
def join_tokens(a: str, b: str) -> str:
    return f"{a},{b}"


class TokenList(AggregateFunction):
    """An AggregatingState's function: the accumulator is the comma-joined tokens."""

    def create_accumulator(self) -> str:
        return ""

    def add(self, value: str, accumulator: str) -> str:
        return value if not accumulator else f"{accumulator},{value}"

    def get_result(self, accumulator: str) -> str:
        return accumulator

    def merge(self, acc_a: str, acc_b: str) -> str:
        return acc_b if not acc_a else (acc_a if not acc_b else f"{acc_a},{acc_b}")


def descriptor(kind: str) -> Any:
    name = f"probe-{kind}"
    if kind == "value":
        return ValueStateDescriptor(name, S())
    if kind == "list":
        return ListStateDescriptor(name, S())
    if kind == "map":
        return MapStateDescriptor(name, S(), INT())
    if kind == "reducing":
        return ReducingStateDescriptor(name, join_tokens, S())
    return AggregatingStateDescriptor(name, TokenList(), S())


_GETTERS = {
    "value": "get_state",
    "list": "get_list_state",
    "map": "get_map_state",
    "reducing": "get_reducing_state",
    "aggregating": "get_aggregating_state",
}


def split(text: str | None) -> list[str]:
    return text.split(",") if text else []


def read(kind: str, state: Any) -> list[str]:
    """Every token the state holds, in the order they were added."""
    if kind == "value":
        return split(state.value())
    if kind == "list":
        return list(state.get() or [])
    if kind == "map":
        return [t for t, _ in sorted(state.items(), key=lambda item: item[1])]
    return split(state.get())


def add(kind: str, state: Any, token: str) -> None:
    if kind == "value":
        state.update(",".join([*split(state.value()), token]))
    elif kind == "map":
        state.put(token, len(list(state.keys())) + 1)
    else:
        state.add(token)


def token(record: Any) -> str:
    return f"{record[0]}#{record[1]}"


def line(cell: str, key: Any, uid: Any, tokens: str) -> str:
    return f"{cell}|{key}|{uid}|{tokens}"


class Probe:
    """One state of each kind, from a RuntimeContext or a KeyedStateStore."""

    def __init__(self, cell: str) -> None:
        self.cell = cell

    def open(self, runtime_context: Any) -> None:
        self.bind(runtime_context)

    def bind(self, store: Any) -> None:
        self.states = [getattr(store, _GETTERS[k])(descriptor(k)) for k in STATES]

    def read_all(self) -> list[list[str]]:
        return [read(k, s) for k, s in zip(STATES, self.states, strict=True)]

    def add_all(self, record: Any) -> list[list[str]]:
        for kind, state in zip(STATES, self.states, strict=True):
            add(kind, state, token(record))
        return self.read_all()

    def seen(self, record: Any, key: Any = None) -> str:
        tokens = ";".join(",".join(t) for t in self.add_all(record))
        wrong = "" if key is None or key == record[0] else f"|context key {key}"
        return line(self.cell, record[0], record[1], tokens) + wrong


class MapProbe(Probe, MapFunction):
    def map(self, value: Any) -> str:
        return self.seen(value)


class FlatMapProbe(Probe, FlatMapFunction):
    def flat_map(self, value: Any) -> Any:
        yield self.seen(value)


class FilterProbe(Probe, FilterFunction):
    """Keeps a record iff every state of its key holds only that key's tokens, distinct, ending
    with its own, an odd number of them: each key's 1st, 3rd, 5th, ... record."""

    def filter(self, value: Any) -> bool:
        own = token(value)
        for tokens in self.add_all(value):
            if not tokens or tokens[-1] != own or len(set(tokens)) != len(tokens):
                return False
            if any(t.split("#")[0] != value[0] for t in tokens) or len(tokens) % 2 == 0:
                return False
        return True


class Describe(MapFunction):
    """Stateless: a kept or reduced record as an output line."""

    def __init__(self, cell: str) -> None:
        self.cell = cell

    def map(self, value: Any) -> str:
        return line(self.cell, value[0], value[1], value[2])


class ReduceProbe(Probe, ReduceFunction):
    """``reduce(acc, value)`` adds ``value``'s token; the result carries the states' tokens."""

    def reduce(self, value1: Any, value2: Any) -> Any:
        tokens = ";".join(",".join(t) for t in self.add_all(value2))
        if value1[0] != value2[0]:  # the operator's own keyed state mixed two keys
            tokens += f"|accumulator of key {value1[0]}"
        return (value2[0], value2[1], tokens)


class ProcessProbe(Probe, KeyedProcessFunction):
    """Per record its states; one event-time timer per key reads the key's states at the end."""

    def process_element(self, value: Any, ctx: Any) -> Any:
        ctx.timer_service().register_event_time_timer(1)
        yield self.seen(value, ctx.get_current_key())

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        tokens = ";".join(",".join(t) for t in self.read_all())
        yield line(f"{self.cell}:timer", ctx.get_current_key(), "-", tokens)


class WindowApplyProbe(Probe, WindowFunction):
    """A WindowFunction with states from its runtime context."""

    def apply(self, key: Any, window: Any, inputs: Any) -> Any:
        for value in inputs:
            yield self.seen(value, key)


class WindowProcessProbe(Probe, ProcessWindowFunction):
    """States from ``context.global_state()``, ``context.window_state()`` or the runtime
    context. Flink 1.11's ``count_window(1)`` has one GlobalWindow per key, never cleaned up
    (its cleanup time is Long.MAX_VALUE), so per-window state lives on across firings as the
    global one does; PyFlink 1.20's ``CountTumblingWindowAssigner(1)`` puts record i of a key in
    ``CountWindow(i)``, so each firing's window state holds that one record."""

    def __init__(self, cell: str, store: str) -> None:
        super().__init__(cell)
        self.store = store

    def process(self, key: Any, context: Any, elements: Any) -> Any:
        if self.store == "global":
            self.bind(context.global_state())
        elif self.store == "window":
            self.bind(context.window_state())
        for value in elements:
            yield self.seen(value, key)


class CoProcessProbe(Probe, KeyedCoProcessFunction):
    def process_element1(self, value: Any, ctx: Any) -> Any:
        yield self.seen(value, ctx.get_current_key())

    def process_element2(self, value: Any, ctx: Any) -> Any:
        yield self.seen(value, ctx.get_current_key())


class CoMapProbe(Probe, CoMapFunction):
    def map1(self, value: Any) -> str:
        return self.seen(value)

    def map2(self, value: Any) -> str:
        return self.seen(value)


class BroadcastProbe(Probe, KeyedBroadcastProcessFunction):
    """``process_element`` sees its key's states; a broadcast element visits every key's state
    of each kind with ``apply_to_keyed_state`` (Flink makes each key the current key)."""

    def process_element(self, value: Any, ctx: Any) -> Any:
        yield self.seen(value, ctx.get_current_key())

    def process_broadcast_element(self, value: Any, ctx: Any) -> Any:
        ctx.get_broadcast_state(RULES).put(value, value)
        out: list[str] = []
        for kind in STATES:

            def visit(key: Any, state: Any, kind: str = kind) -> None:
                out.append(line(f"{self.cell}:bc:{kind}", key, "-", ",".join(read(kind, state))))

            ctx.apply_to_keyed_state(descriptor(kind), visit)
        yield from out


class UidTime(TimestampAssigner):
    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        return value[1]


class SameKeyAsFirst(IterativeCondition):
    """Accepts ``second`` iff every event matched to ``first`` has this event's key (the NFA's
    partial matches are keyed state)."""

    def filter(self, value: Any, ctx: Any) -> bool:
        return all(e[0] == value[0] for e in ctx.get_events_for_pattern("first"))


class Pair:
    def __init__(self, cell: str) -> None:
        self.cell = cell

    def __call__(self, match: dict[str, list[Any]]) -> str:
        first, second = match["first"][0], match["second"][0]
        return line(self.cell, second[0], second[1], f"{token(first)},{token(second)}")


# ---------------------------------------------------------------------------------------------
# one environment holding every op at every parallelism
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Inputs:
    """The keyed input (one source subtask), the second input of the connected ops, and the
    broadcast elements."""

    left: tuple[str, ...]
    right: tuple[str, ...]
    rules: tuple[str, ...] = ("x", "y")

    def left_records(self) -> list[tuple[str, int, str]]:
        return [(k, i, "") for i, k in enumerate(self.left)]

    def right_records(self) -> list[tuple[str, int, str]]:
        return [(k, RIGHT_UID + i, "") for i, k in enumerate(self.right)]


def random_keys(seed: str, n: int) -> list[str]:
    """A skewed key sequence: a few hot keys, some rare ones (fixed per seed)."""
    rng = random.Random(seed)
    hot = rng.sample(KEYS, 3)
    return [rng.choice(hot) if rng.random() < 0.7 else rng.choice(KEYS) for _ in range(n)]


FIXED = Inputs(
    tuple("ababa") + tuple(random_keys("left", 40)), tuple("ba") + tuple(random_keys("right", 20))
)


def _key(record: Any) -> str:
    return record[0]


def cell_name(op: str, parallelism: int) -> str:
    return f"{op}@{parallelism}"


def add_op(env: Any, op: str, p: int, left: Any, right: Any, rules: Any) -> None:
    """left --HASH--> the op at parallelism ``p`` → print (chained)."""
    name = cell_name(op, p)
    keyed = left.key_by(_key, key_type=S())
    if op == "map":
        out = keyed.map(MapProbe(name), output_type=S())
    elif op == "flat_map":
        out = keyed.flat_map(FlatMapProbe(name), output_type=S())
    elif op == "filter":
        out = keyed.filter(FilterProbe(name)).set_parallelism(p)
        out = out.map(Describe(name), output_type=S())
    elif op == "reduce":
        out = keyed.reduce(ReduceProbe(name)).set_parallelism(p)
        out = out.map(Describe(name), output_type=S())
    elif op == "process":
        out = keyed.process(ProcessProbe(name), output_type=S())
    elif op == "window_apply":
        out = keyed.count_window(1).apply(WindowApplyProbe(name), output_type=S())
    elif op.startswith("window_process_"):
        probe = WindowProcessProbe(name, op.removeprefix("window_process_"))
        out = keyed.count_window(1).process(probe, output_type=S())
    elif op == "co_process":
        connected = left.connect(right).key_by(_key, _key, key_type=S())
        out = connected.process(CoProcessProbe(name), output_type=S())
    elif op == "co_map":
        other = right.key_by(_key, key_type=S())
        out = keyed.connect(other).map(CoMapProbe(name), output_type=S())
    elif op == "broadcast":
        out = keyed.connect(rules).process(BroadcastProbe(name), output_type=S())
    elif op == "cep":
        timed = left.assign_timestamps_and_watermarks(
            WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(UidTime())
        )
        pattern = Pattern.begin("first").next("second").where(SameKeyAsFirst())
        stream = CEP.pattern(timed.key_by(_key, key_type=S()), pattern)
        out = stream.select(Pair(name), output_type=S())
    else:
        raise ValueError(op)
    out.set_parallelism(p).print().set_parallelism(p)


def build_env(
    mode: str,
    inputs: Inputs = FIXED,
    ops: tuple[str, ...] = OPS,
    parallelisms: tuple[int, ...] = PARALLELISMS,
) -> Any:
    """One job: each op at each parallelism, all reading the same (parallelism-1) sources."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(max(parallelisms))
    env.set_runtime_mode(
        RuntimeExecutionMode.BATCH if mode == BATCH else RuntimeExecutionMode.STREAMING
    )
    left = env.from_collection(inputs.left_records(), type_info=RECORD)
    right = env.from_collection(inputs.right_records(), type_info=RECORD)
    rules = env.from_collection(list(inputs.rules), type_info=S()).broadcast(RULES)
    for p in parallelisms:
        for op in ops:
            add_op(env, op, p, left, right, rules)
    return env


# ---------------------------------------------------------------------------------------------
# the per-key model
# ---------------------------------------------------------------------------------------------
_SUBTASK = re.compile(r"^\d+> ")


@dataclass
class Row:
    key: str
    uid: str
    tokens: str
    extra: str

    def kind(self, index: int) -> list[str]:
        if not self.tokens:
            return []
        parts = self.tokens.split(";")
        return split(parts[index]) if index < len(parts) else ["<missing>"]


@dataclass
class Outputs:
    """Print lines by cell (``op@p``, ``op@p:timer``, ``op@p:bc:kind``)."""

    rows: dict[str, list[Row]] = field(default_factory=lambda: defaultdict(list))

    def __repr__(self) -> str:
        return f"Outputs({sum(map(len, self.rows.values()))} lines, {len(self.rows)} cells)"

    @classmethod
    def parse(cls, lines: list[str]) -> Outputs:
        out = cls()
        for raw in lines:
            body = _SUBTASK.sub("", raw, count=1)
            cell, key, uid, rest = (body.split("|", 3) + ["", "", ""])[:4]
            tokens, _, extra = rest.partition("|")
            out.rows[cell].append(Row(key, uid, tokens, extra))
        return out


def _per_key(records: list[tuple[str, int, str]]) -> dict[str, list[str]]:
    keys: dict[str, list[str]] = defaultdict(list)
    for r in records:
        keys[r[0]].append(token(r))
    return keys


def brief(items: Any, n: int = 6) -> str:
    """A list shortened for a failure message."""
    items = list(items)
    shown = ", ".join(map(str, items[:n]))
    return f"[{shown}{', ...' if len(items) > n else ''}] ({len(items)})"


def _chain(key: str, outs: list[tuple[str, list[str]]], want: list[str], strict: bool) -> list[str]:
    """``outs`` (token, state) must be ``[(c[j], c[:j+1])]`` for one chain ``c`` that is ``want``
    (strict) or a permutation of it."""
    if not outs:
        return [f"key {key}: no output for its records {want}"]
    chain = max((tokens for _, tokens in outs), key=len)
    problems = []
    foreign = [t for t in chain if t not in set(want)]
    if foreign:
        problems.append(
            f"key {key}: its state holds {len(foreign)} records of other keys, {brief(foreign)}"
        )
    if strict and chain != want:
        problems.append(f"key {key}: its state ends {brief(chain)}, Flink: {brief(want)}")
    elif Counter(chain) != Counter(want):
        problems.append(f"key {key}: its state ends {brief(chain)}, its records: {brief(want)}")
    expected = Counter((chain[j], tuple(chain[: j + 1])) for j in range(len(chain)))
    off = Counter((t, tuple(tokens)) for t, tokens in outs) - expected
    if off:
        first = min(off)
        problems.append(
            f"key {key}: {sum(off.values())} outputs off that chain, e.g. {first[0]} saw "
            f"{brief(first[1])}"
        )
    return problems


def check_cell(
    op: str,
    kind: str,
    parallelism: int,
    mode: str,
    outputs: Outputs,
    inputs: Inputs = FIXED,
    version: str | None = None,
) -> list[str]:
    """What is wrong with the cell (empty: every record's function saw exactly its key's state
    of ``kind``); ``filter`` and ``cep`` have one check for all kinds. ``version``: the Flink
    version the job was built under (None: the default a new environment follows)."""
    name = cell_name(op, parallelism)
    count_windows = profile_for(version or default_version()).count_window.pyflink_assigners
    rows = outputs.rows.get(name, [])
    strict = mode == STREAMING
    left = inputs.left_records()
    records = left + (inputs.right_records() if op in TWO_INPUTS else [])
    want = _per_key(records)
    index = STATES.index(kind) if kind in STATES else 0
    problems = [f"{r.key}#{r.uid}: {r.extra}" for r in rows if r.extra]
    by_key: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        by_key[r.key].append(r)
    if set(by_key) - set(want):
        problems.append(f"outputs for keys never sent: {sorted(set(by_key) - set(want))}")
    for key, toks in want.items():
        outs = [(f"{r.key}#{r.uid}", r.kind(index)) for r in by_key.get(key, [])]
        kept = [t for t, _ in outs]
        if op == "filter":
            if strict and kept != toks[::2]:
                problems.append(f"key {key} kept {brief(kept)}, Flink keeps {brief(toks[::2])}")
            elif not strict and (len(kept) != (len(toks) + 1) // 2 or not set(kept) <= set(toks)):
                problems.append(f"key {key} kept {brief(kept)} of {brief(toks)}")
        elif op == "cep":  # event time = uid, so BATCH sorts into the same order
            got = sorted((t, ",".join(c)) for t, c in outs)
            pairs = sorted((toks[j], f"{toks[j - 1]},{toks[j]}") for j in range(1, len(toks)))
            if got != pairs:
                problems.append(f"key {key} matched {brief(got)}, Flink: {brief(pairs)}")
        elif op == "reduce":
            problems += _reduce(key, outs, toks, strict)
        elif op == "window_process_window" and count_windows:  # one CountWindow per record
            if Counter((t, tuple(c)) for t, c in outs) != Counter((t, (t,)) for t in toks):
                problems.append(
                    f"key {key}: window states {brief(outs, 2)}, Flink 1.20: each record's "
                    f"CountWindow holds that record alone, {brief(toks)}"
                )
        else:
            problems += _chain(key, outs, toks, strict and op not in TWO_INPUTS)
    if op in ("filter", "cep", "reduce") or (op == "window_process_window" and count_windows):
        return problems
    chains = {
        key: max((r.kind(index) for r in by_key.get(key, [])), key=len, default=[]) for key in want
    }
    if op in TWO_INPUTS and strict:  # each input's own order survives per key
        for side in (left, inputs.right_records()):
            for key in want:
                order = [token(r) for r in side if r[0] == key]
                seen = [t for t in chains[key] if t in set(order)]
                if seen != order:
                    problems.append(
                        f"key {key} saw an input as {brief(seen)}, it sent {brief(order)}"
                    )
    if op == "process":  # one timer per key reads the key's whole state
        timers: dict[str, list[list[str]]] = defaultdict(list)
        for r in outputs.rows.get(f"{name}:timer", []):
            timers[r.key].append(r.kind(index))
        if dict(timers) != {k: [chains[k]] for k in want}:
            wrong = sorted(k for k in set(want) | set(timers) if timers.get(k) != [chains.get(k)])
            problems.append(
                f"timers of keys {wrong} read {brief(timers.get(wrong[0], []), 2)}, Flink: "
                f"each key's whole state once, {brief(chains.get(wrong[0], []))}"
            )
    if op == "broadcast":  # apply_to_keyed_state: each key's state, a prefix of its chain
        for r in outputs.rows.get(f"{name}:bc:{kind}", []):
            seen = split(r.tokens)
            if r.key not in chains or not seen or chains[r.key][: len(seen)] != seen:
                problems.append(f"apply_to_keyed_state gave key {r.key} the state {brief(seen)}")
    return problems


def _reduce(
    key: str, outs: list[tuple[str, list[str]]], toks: list[str], strict: bool
) -> list[str]:
    """STREAMING: the first record passes unreduced, each later one is reduced into it; BATCH:
    one final value per key (``BatchGroupedReduceOperator``)."""
    if strict:
        expected = [(toks[0], [])] + [(toks[j], toks[1 : j + 1]) for j in range(1, len(toks))]
        if outs == expected:
            return []
        wrong = next((o, e) for o, e in zip([*outs, None], expected, strict=False) if o != e)
        return [f"key {key}: reduce gave {wrong[0]}, Flink: {wrong[1]} ({len(outs)} outputs)"]
    ok = len(outs) == 1 and len(outs[0][1]) == len(toks) - 1
    if ok and len(toks) > 1:
        tokens = outs[0][1]
        ok = (
            set(tokens) <= set(toks)
            and len(set(tokens)) == len(tokens)
            and tokens[-1] == outs[0][0]
        )
    return [] if ok else [f"key {key} reduced to {brief(outs, 2)}, its records: {brief(toks)}"]
