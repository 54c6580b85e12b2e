"""A Python window function in BATCH mode, on Flink's BATCH keyed state backend (the default).

PyFlink 1.20.3 prints none of the six windows: BatchExecutionKeyedStateBackend keeps one key at a
time and clears every state and timer whenever the current key changes (setCurrentKey), while
PyFlink's Python window operator switches keys asynchronously (its state requests and timer
registrations arrive a bundle behind the input), so windows are wiped before they fire. The same
mechanism is apache/flink-agents#939. Flink's semantics are the six windows that STREAMING prints
and that PyFlink prints with the backend switched off (batch_window_apply_backend_off.py).
"""

from pyflink.common import Duration, Types, WatermarkStrategy
from pyflink.common.time import Time
from pyflink.common.watermark_strategy import TimestampAssigner
from pyflink.datastream.functions import WindowFunction
from pyflink.datastream.window import TumblingEventTimeWindows

MODES = ("BATCH",)
EVENTS = [
    ("a", 1, 1),
    ("b", 2, 3),
    ("a", 3, 12),
    ("a", 4, 7),
    ("b", 5, 14),
    ("a", 6, 25),
    ("b", 7, 2),
    ("a", 8, 18),
    ("b", 9, 30),
    ("a", 10, 19),
]


class EventTime(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value[2]


class ValuesOfWindow(WindowFunction):
    def apply(self, key, window, inputs):
        yield (key, window.end, ",".join(str(v) for _, v in sorted(inputs, key=lambda e: e[1])))


def build(env) -> None:
    env.set_parallelism(1)
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(5)
    ).with_timestamp_assigner(EventTime())
    s, i = Types.STRING(), Types.INT()
    (
        env.from_collection(EVENTS, type_info=Types.TUPLE([s, i, i]))
        .assign_timestamps_and_watermarks(strategy)
        .map(lambda e: (e[0], e[1]), output_type=Types.TUPLE([s, i]))
        .key_by(lambda e: e[0], key_type=s)
        .window(TumblingEventTimeWindows.of(Time.milliseconds(10)))
        .apply(ValuesOfWindow(), output_type=Types.TUPLE([s, Types.LONG(), s]))
        .print("apply")
    )
