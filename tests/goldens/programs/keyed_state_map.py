"""The issue's keyed-state pattern: a MapFunction whose open() takes a ValueState, after key_by.

Flink sets the key context before every record (StreamTaskNetworkOutput.emitRecord), so each key
counts on its own: a1 b1 a2 b2 a3.
"""

from pyflink.common import Types
from pyflink.datastream.functions import MapFunction, RuntimeContext
from pyflink.datastream.state import ValueStateDescriptor

MODES = ("STREAMING", "BATCH")


class Count(MapFunction):
    def open(self, ctx: RuntimeContext) -> None:
        self.c = ctx.get_state(ValueStateDescriptor("c", Types.INT()))

    def map(self, v):
        n = (self.c.value() or 0) + 1
        self.c.update(n)
        return f"{v}{n}"


def build(env) -> None:
    env.set_parallelism(1)
    (
        env.from_collection(list("ababa"), type_info=Types.STRING())
        .key_by(lambda x: x, key_type=Types.STRING())
        .map(Count(), output_type=Types.STRING())
        .print("count")
    )
