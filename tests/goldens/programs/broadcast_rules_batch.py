"""BATCH reads the broadcast side first (FLINK-20491: BatchCoBroadcastWith[Non]KeyedOperator,
PyFlink's ExternalPythonBatch[Keyed]CoBroadcastProcessOperator are InputSelectable), so every
event is matched against every rule, whichever input's records come first."""

from pyflink.common import Types
from pyflink.datastream.functions import BroadcastProcessFunction, KeyedBroadcastProcessFunction
from pyflink.datastream.state import MapStateDescriptor

MODES = ("BATCH",)
COMPARE = "sorted"

RULES = MapStateDescriptor("rules", Types.STRING(), Types.INT())
PAIR = Types.TUPLE([Types.STRING(), Types.INT()])


def _verdict(limit, value) -> str:
    if limit is None:
        return f"{value[0]}={value[1]}: no rule"
    return f"{value[0]}={value[1]}: " + ("alert" if value[1] > limit else "ok")


class Match(BroadcastProcessFunction):
    def process_element(self, value, ctx):
        yield "match " + _verdict(ctx.get_broadcast_state(RULES).get(value[0]), value)

    def process_broadcast_element(self, value, ctx):
        ctx.get_broadcast_state(RULES).put(value[0], value[1])


class KeyedMatch(KeyedBroadcastProcessFunction):
    def process_element(self, value, ctx):
        yield "keyed " + _verdict(ctx.get_broadcast_state(RULES).get(value[0]), value)

    def process_broadcast_element(self, value, ctx):
        ctx.get_broadcast_state(RULES).put(value[0], value[1])


def build(env) -> None:
    env.set_parallelism(1)
    events = env.from_collection(
        [("cpu", 90), ("mem", 40), ("cpu", 50), ("disk", 99), ("net", 5)], type_info=PAIR
    )
    rules = env.from_collection([("cpu", 80), ("mem", 50), ("disk", 95)], type_info=PAIR)
    broadcast = rules.broadcast(RULES)
    events.connect(broadcast).process(Match(), output_type=Types.STRING()).print()
    events.key_by(lambda e: e[0], key_type=Types.STRING()).connect(broadcast).process(
        KeyedMatch(), output_type=Types.STRING()
    ).print()
