"""Every operator instance owns its user function (Flink deserialises one per subtask/attempt)."""

from __future__ import annotations

import threading
from collections import Counter

from pyflowkit.common import Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import KeyedProcessFunction, MapFunction
from pyflowkit.datastream.state import ValueStateDescriptor
from pyflowkit.graph.transformations import OperatorFactory
from pyflowkit.operators.sources import CollectionSource
from pyflowkit.operators.user_code_copy import copy_user_code
from pyflowkit.reference.local_driver import run_local


class CountPerKey(KeyedProcessFunction):
    """Keeps the state handle it got in open(), as PyFlink programs do."""

    def open(self, runtime_context) -> None:
        self.count = runtime_context.get_state(ValueStateDescriptor("count", Types.INT()))

    def process_element(self, value, ctx):
        n = (self.count.value() or 0) + 1
        self.count.update(n)
        yield (value, n)


def test_local_driver_counts_per_key_at_parallelism_2_with_state_handles_from_open() -> None:
    words = ["a", "b", "c", "d", "a", "b", "e", "a", "f", "c"] * 3
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    (
        env.from_collection(words)
        .key_by(lambda w: w)
        .process(CountPerKey(), output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
        .print()
    )
    result = run_local(env)
    final: dict[str, int] = {}
    for line in result.printed:
        body = line.split("> ", 1)[1]
        word, n = body.strip("()").split(",")
        final[word] = max(final.get(word, 0), int(n))
    assert final == dict(Counter(words))
    assert {line.split(">")[0] for line in result.printed} == {"1", "2"}


class Tagger(MapFunction):
    def __init__(self) -> None:
        self.opened_by: list[int] = []

    def open(self, runtime_context) -> None:
        self.opened_by.append(runtime_context.get_index_of_this_subtask())

    def map(self, value):
        return (tuple(self.opened_by), value)


def test_create_gives_each_operator_its_own_function_and_leaves_the_factory_untouched() -> None:
    fn = Tagger()
    factory = OperatorFactory("StreamMap", params={"function": fn})
    a, b = factory.create(), factory.create()
    assert a.user_function is not b.user_function
    assert a.user_function is not fn and isinstance(a.user_function, Tagger)
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(3)
    env.from_collection(list(range(6))).rebalance().map(fn).print()
    printed = run_local(env).printed
    # each subtask's copy was opened once, by that subtask only
    assert printed == [
        "1> ((0,), 0)",
        "2> ((1,), 1)",
        "3> ((2,), 2)",
        "1> ((0,), 3)",
        "2> ((1,), 4)",
        "3> ((2,), 5)",
    ]
    assert fn.opened_by == []


def test_large_immutable_collections_are_shared_small_mutable_ones_copied() -> None:
    big = [f"w{i}" for i in range(1000)]
    small = [[1], [2]]
    source = CollectionSource(big)
    copied = copy_user_code({"source": source, "extra": small, "name": "x", "n": 3})
    assert copied["source"] is not source and copied["source"].elements is source.elements
    assert copied["extra"] == small and copied["extra"][0] is not small[0]
    assert copied["name"] == "x" and copied["n"] == 3


def test_large_collections_of_tuples_are_shared_only_when_every_field_is_immutable() -> None:
    class Name(str):
        pass

    pairs = [(f"w{i}", i, None) for i in range(100)]
    named = [Name(f"w{i}") for i in range(100)]  # str subclasses: still immutable
    nested = [(i, [i]) for i in range(100)]  # a list inside a tuple: copied
    copied = copy_user_code({"pairs": pairs, "named": named, "nested": nested})
    assert copied["pairs"] is pairs and copied["named"] is named
    assert copied["nested"] == nested and copied["nested"][0][1] is not nested[0][1]


def test_values_that_cannot_be_copied_are_shared_as_given() -> None:
    lock = threading.Lock()
    gen = (i for i in range(3))
    copied = copy_user_code({"lock": lock, "gen": gen, "fn": len})
    assert copied["lock"] is lock and copied["gen"] is gen and copied["fn"] is len
