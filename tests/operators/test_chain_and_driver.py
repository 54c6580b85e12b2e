"""OperatorChain lifecycle and routing, and the local reference driver on whole pipelines."""

from __future__ import annotations

from collections import Counter

from pyflowkit.common import Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import MapFunction, ProcessFunction
from pyflowkit.datastream.output_tag import OutputTag
from pyflowkit.reference.local_driver import LocalDriver, run_local

EVENTS: list[str] = []


class Named(MapFunction):
    def __init__(self, name: str) -> None:
        self.name = name

    def open(self, runtime_context) -> None:
        EVENTS.append(f"open {self.name}")

    def close(self) -> None:
        EVENTS.append(f"close {self.name}")

    def map(self, value):
        return value


def env(parallelism: int = 2) -> StreamExecutionEnvironment:
    e = StreamExecutionEnvironment.get_execution_environment()
    e.set_parallelism(parallelism)
    return e


def test_chain_opens_tail_to_head_and_closes_head_to_tail() -> None:
    EVENTS.clear()
    e = env(1)
    e.from_collection([1]).map(Named("m1")).map(Named("m2")).map(Named("m3")).print()
    run_local(e)
    assert EVENTS == ["open m3", "open m2", "open m1", "close m1", "close m2", "close m3"]


def test_word_count_matches_plain_python_at_parallelism_2() -> None:
    text = ["to be or not to be", "that is the question", "to see or not to see"]
    e = env(2)
    (
        e.from_collection(text)
        .flat_map(lambda line: (w for w in line.split()), output_type=Types.STRING())
        .map(lambda w: (w, 1), output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .print()
    )
    result = run_local(e)
    final: dict[str, int] = {}
    for line in result.printed:
        prefix, body = line.split("> ", 1)
        word, count = body.strip("()").split(",")
        final[word] = max(final.get(word, 0), int(count))
        assert prefix in ("1", "2")
    assert final == Counter(w for line in text for w in line.split())
    assert len(result.printed) == sum(len(line.split()) for line in text)
    # same key -> same subtask (key groups), so every word's prefix is constant
    prefixes: dict[str, set[str]] = {}
    for line in result.printed:
        prefix, body = line.split("> ", 1)
        prefixes.setdefault(body.strip("()").split(",")[0], set()).add(prefix)
    assert all(len(p) == 1 for p in prefixes.values())


def test_side_outputs_route_only_tagged_records() -> None:
    odd = OutputTag("odd", Types.INT())

    class Split(ProcessFunction):
        def process_element(self, value, ctx):
            if value % 2:
                yield odd, value
            else:
                yield value

    e = env(1)
    main = e.from_collection(list(range(8))).process(Split(), output_type=Types.INT())
    main.get_side_output(odd).map(lambda x: -x, output_type=Types.INT()).print("odd")
    main.print("even")
    printed = run_local(e).printed
    assert [p for p in printed if p.startswith("even")] == [f"even> {i}" for i in (0, 2, 4, 6)]
    assert [p for p in printed if p.startswith("odd")] == [f"odd> {-i}" for i in (1, 3, 5, 7)]


def test_keyed_state_restores_after_rescale_2_to_3() -> None:
    def build(p: int):
        e = env(p)
        (
            e.from_collection([(f"k{i % 7}", 1) for i in range(28)])
            .key_by(lambda t: t[0])
            .sum(1)
            .uid("summer")
            .print()
        )
        return e.get_job_graph()

    first = LocalDriver(build(2))
    first.run()
    # restore only the keyed operator (the source's restored position would be its end)
    snaps = {op: s for op, s in first.snapshot().items() if any(x.keyed_state for x in s)}
    assert len(snaps) == 1
    second = LocalDriver(build(3))
    result = second.run(restored=snaps)
    finals: dict[str, int] = {}
    for line in result.printed:  # untyped tuples print as Python str(): "('k0', 5)"
        word, count = eval(line.split("> ", 1)[1])  # noqa: S307
        finals[word] = max(finals.get(word, 0), count)
    assert finals == {f"k{i}": 8 for i in range(7)}  # 4 restored + 4 new per key
