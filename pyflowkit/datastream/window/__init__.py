"""Windows, window assigners, triggers and evictors (PyFlink's ``pyflink.datastream.window``).

Semantics are Flink 1.11's ``org.apache.flink.streaming.api.windowing`` package, one module per
concept: ``windows``, ``triggers``, ``assigners``, ``evictors``. Every name PyFlink's
``pyflink.datastream.window`` has is importable from this package.
"""

from __future__ import annotations

from pyflowkit.datastream.window._common import (
    MAX_LONG_VALUE as MAX_LONG_VALUE,
)
from pyflowkit.datastream.window._common import (
    MIN_LONG_VALUE as MIN_LONG_VALUE,
)
from pyflowkit.datastream.window._common import (
    NO_TIMESTAMP_MESSAGE as NO_TIMESTAMP_MESSAGE,
)
from pyflowkit.datastream.window._common import (
    to_millis as to_millis,
)
from pyflowkit.datastream.window.assigners import (
    CountSlidingWindowAssigner,
    CountTumblingWindowAssigner,
    DynamicEventTimeSessionWindows,
    DynamicProcessingTimeSessionWindows,
    EventTimeSessionWindows,
    GlobalWindows,
    MergingWindowAssigner,
    ProcessingTimeSessionWindows,
    SessionWindowTimeGapExtractor,
    SlidingEventTimeWindows,
    SlidingProcessingTimeWindows,
    TumblingEventTimeWindows,
    TumblingProcessingTimeWindows,
    WindowAssigner,
)
from pyflowkit.datastream.window.evictors import (
    CountEvictor,
    Evictor,
    TimeEvictor,
    TimestampedValue,
)
from pyflowkit.datastream.window.serializers import (
    CountWindowSerializer,
    GlobalWindowSerializer,
    TimeWindowSerializer,
)
from pyflowkit.datastream.window.triggers import (
    ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger,
    CountTrigger,
    EventTimeTrigger,
    Min,
    NeverTrigger,
    ProcessingTimeTrigger,
    PurgingTrigger,
    Trigger,
    TriggerResult,
)
from pyflowkit.datastream.window.windows import (
    CountWindow,
    GlobalWindow,
    TimeWindow,
    Window,
    long_to_int_with_bit_mixing,
    mod_inverse,
)

__all__ = [
    "Window",
    "TimeWindow",
    "CountWindow",
    "GlobalWindow",
    "WindowAssigner",
    "MergingWindowAssigner",
    "TumblingEventTimeWindows",
    "SlidingEventTimeWindows",
    "TumblingProcessingTimeWindows",
    "SlidingProcessingTimeWindows",
    "EventTimeSessionWindows",
    "ProcessingTimeSessionWindows",
    "DynamicEventTimeSessionWindows",
    "DynamicProcessingTimeSessionWindows",
    "SessionWindowTimeGapExtractor",
    "GlobalWindows",
    "CountTumblingWindowAssigner",
    "CountSlidingWindowAssigner",
    "TriggerResult",
    "Trigger",
    "EventTimeTrigger",
    "ProcessingTimeTrigger",
    "CountTrigger",
    "PurgingTrigger",
    "ContinuousEventTimeTrigger",
    "ContinuousProcessingTimeTrigger",
    "NeverTrigger",
    "Min",
    "TimestampedValue",
    "Evictor",
    "CountEvictor",
    "TimeEvictor",
    "TimeWindowSerializer",
    "CountWindowSerializer",
    "GlobalWindowSerializer",
    "long_to_int_with_bit_mixing",
    "mod_inverse",
]
