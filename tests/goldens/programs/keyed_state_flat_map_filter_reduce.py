"""Keyed state read in flat_map, filter and a keyed reduce: each sees only its own key's state."""

from pyflink.common import Types
from pyflink.datastream.functions import FilterFunction, FlatMapFunction, ReduceFunction
from pyflink.datastream.state import ValueStateDescriptor

MODES = ("STREAMING", "BATCH")
T = Types.TUPLE([Types.STRING(), Types.INT()])


class Seen(FlatMapFunction):
    def open(self, ctx) -> None:
        self.n = ctx.get_state(ValueStateDescriptor("n", Types.INT()))

    def flat_map(self, v):
        n = (self.n.value() or 0) + 1
        self.n.update(n)
        yield f"{v[0]}#{n}"


class EverySecond(FilterFunction):
    def open(self, ctx) -> None:
        self.n = ctx.get_state(ValueStateDescriptor("n", Types.INT()))

    def filter(self, v):
        n = (self.n.value() or 0) + 1
        self.n.update(n)
        return n % 2 == 0


class SumCalls(ReduceFunction):
    def open(self, ctx) -> None:
        self.calls = ctx.get_state(ValueStateDescriptor("calls", Types.INT()))

    def reduce(self, a, b):
        n = (self.calls.value() or 0) + 1
        self.calls.update(n)
        return (a[0], a[1] + b[1] * 10 + n)


DATA = [("a", 1), ("b", 2), ("a", 3), ("b", 4), ("a", 5), ("c", 6), ("b", 7)]


def build(env) -> None:
    env.set_parallelism(1)
    src = env.from_collection(DATA, type_info=T)
    src.key_by(lambda r: r[0], key_type=Types.STRING()).flat_map(
        Seen(), output_type=Types.STRING()
    ).print("flat_map")
    src.key_by(lambda r: r[0], key_type=Types.STRING()).filter(EverySecond()).print("filter")
    src.key_by(lambda r: r[0], key_type=Types.STRING()).reduce(SumCalls()).print("reduce")
