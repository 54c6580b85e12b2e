"""Float keys Python's equality and PyFlink's key bytes disagree on: ``0.0 == -0.0`` in Python
but they pickle (and Java's ``Double.equals`` compares them) apart; ``nan != nan`` in Python but
every NaN of the same bits pickles to the same bytes (and ``Double.equals`` holds for NaN). No
key type declared (PyFlink keys by the pickled bytes) and ``key_type=Types.DOUBLE()`` (the
DOUBLE key coder's bytes); never two Python-equal keys in a row (PyFlink's key-switch shortcut:
program python_equal_keys)."""

from pyflink.common import Types
from pyflink.datastream.functions import KeyedProcessFunction, RuntimeContext
from pyflink.datastream.state import ValueStateDescriptor

COMPARE = "sorted"  # four sinks: their lines interleave as the JVM prints them

NAN = float("nan")
KEYS = [0.0, "x", -0.0, "y", NAN, 1.0, float("nan"), 0.0, "x", -0.0, NAN, "y", -0.0, 1.0, 0.0]
TUPLE_KEYS = [
    (0.0, "a"),
    (NAN, "b"),
    (-0.0, "a"),
    (float("nan"), "b"),
    (0.0, "a"),
    "z",
    (-0.0, "a"),
]
DOUBLE_KEYS = [0.0, 1.0, -0.0, NAN, 0.0, float("nan"), -0.0, 2.0, NAN, 0.0]


class CountPerKey(KeyedProcessFunction):
    def open(self, ctx: RuntimeContext) -> None:
        self.c = ctx.get_state(ValueStateDescriptor("c", Types.INT()))

    def process_element(self, value, ctx):
        n = (self.c.value() or 0) + 1
        self.c.update(n)
        yield f"{ctx.get_current_key()!r}#{n}@{value[1]}"


def build(env) -> None:
    env.set_parallelism(1)
    records = env.from_collection([(k, i) for i, k in enumerate(KEYS)])
    records.key_by(lambda v: v[0]).process(CountPerKey(), output_type=Types.STRING()).print("n")
    (
        records.key_by(lambda v: v[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .map(lambda v: f"{v[0]!r}={v[1]}", output_type=Types.STRING())
        .print("sum")
    )
    pairs = env.from_collection([(k, i) for i, k in enumerate(TUPLE_KEYS)])
    pairs.key_by(lambda v: v[0]).process(CountPerKey(), output_type=Types.STRING()).print("t")
    doubles = env.from_collection(
        [(k, i) for i, k in enumerate(DOUBLE_KEYS)],
        type_info=Types.TUPLE([Types.DOUBLE(), Types.INT()]),
    )
    (
        doubles.key_by(lambda v: v[0], key_type=Types.DOUBLE())
        .process(CountPerKey(), output_type=Types.STRING())
        .print("d")
    )
