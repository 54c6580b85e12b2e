"""Keys Python finds equal but that pickle differently (1, True, 1.0; 0, False; (1, "a") and
(True, "a")), no key type declared, never two Python-equal keys in a row: PyFlink keys by the
pickled bytes, so each is its own key with its own state, even in one key group (parallelism 1).
(Two Python-equal keys in a row share the first one's state in PyFlink: program
python_equal_keys, a defect pyflowkit does not copy.)"""

from pyflink.common import Types
from pyflink.datastream.functions import KeyedProcessFunction, RuntimeContext
from pyflink.datastream.state import ValueStateDescriptor

COMPARE = "sorted"  # two sinks: their lines interleave as the JVM prints them

KEYS = [1, "x", True, "y", 1.0, 0, "x", False, 1, (1, "a"), 2, (True, "a"), True, 0.0, 1.0]
KEYS += [(1, "a"), False]


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
