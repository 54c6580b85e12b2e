"""Keys Python finds equal but that pickle differently (1, True, 1.0; 0, False; (1, "a") and
(True, "a")), no key type declared: PyFlink keys by the pickled bytes, so each is its own key,
with its own state, at parallelism 1 (one key group holds them all)."""

from pyflink.common import Types
from pyflink.datastream.functions import KeyedProcessFunction, RuntimeContext
from pyflink.datastream.state import ValueStateDescriptor

MODES = ("STREAMING", "BATCH")
COMPARE = "sorted"  # two sinks: their lines interleave as the JVM prints them

KEYS = [1, True, 1.0, 0, False, 1, (1, "a"), (True, "a"), True, 0.0, 1.0, (1, "a"), False]


class CountPerKey(KeyedProcessFunction):
    def open(self, ctx: RuntimeContext) -> None:
        self.c = ctx.get_state(ValueStateDescriptor("c", Types.INT()))

    def process_element(self, value, ctx):
        n = (self.c.value() or 0) + 1
        self.c.update(n)
        key = ctx.get_current_key()
        yield f"{key!r}:{type(key).__name__}#{n}"


def build(env) -> None:
    env.set_parallelism(1)
    records = env.from_collection([(k, i) for i, k in enumerate(KEYS)])
    records.key_by(lambda v: v[0]).process(CountPerKey(), output_type=Types.STRING()).print("n")
    (
        records.key_by(lambda v: v[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .map(lambda v: f"{v[0]!r}:{type(v[0]).__name__}={v[1]}", output_type=Types.STRING())
        .print("sum")
    )
