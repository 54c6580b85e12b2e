"""A Python window function in BATCH mode with `execution.batch-state-backend.enabled: false`.

Without Flink's one-key-at-a-time BATCH state backend, PyFlink 1.20.3 prints all six windows, as
STREAMING does: the windows batch_window_apply.py loses are lost to that backend's clearing on
every key switch, not to Flink's BATCH semantics.
"""

from pyflink.common import Configuration, Duration, Types, WatermarkStrategy
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
    env.configure(Configuration().set_string("execution.batch-state-backend.enabled", "false"))
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
