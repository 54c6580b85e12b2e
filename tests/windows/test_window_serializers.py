"""PyFlink's window serializers (Flink's byte layouts), get_window_serializer, the window
helper functions and Trigger.TriggerContext.get_metric_group."""

from __future__ import annotations

from io import BytesIO

import pytest

from pyflowkit.common import TypeSerializer
from pyflowkit.datastream.window import (
    CountSlidingWindowAssigner,
    CountTrigger,
    CountTumblingWindowAssigner,
    CountWindow,
    CountWindowSerializer,
    DynamicEventTimeSessionWindows,
    EventTimeSessionWindows,
    GlobalWindow,
    GlobalWindows,
    GlobalWindowSerializer,
    ProcessingTimeSessionWindows,
    SlidingEventTimeWindows,
    TimeWindow,
    TimeWindowSerializer,
    TumblingProcessingTimeWindows,
    long_to_int_with_bit_mixing,
    mod_inverse,
)
from tests.windows.harness import WindowHarness


def test_time_window_is_two_big_endian_longs():
    stream = BytesIO()
    serializer = TimeWindowSerializer()
    serializer.serialize(TimeWindow(1, 256), stream)
    serializer.serialize(TimeWindow(-5, 0), stream)
    assert stream.getvalue()[:16] == bytes(7) + b"\x01" + bytes(6) + b"\x01\x00"
    stream.seek(0)
    assert serializer.deserialize(stream) == TimeWindow(1, 256)
    assert serializer.deserialize(stream) == TimeWindow(-5, 0)


def test_count_and_global_windows():
    stream = BytesIO()
    CountWindowSerializer().serialize(CountWindow(2**40), stream)
    GlobalWindowSerializer().serialize(GlobalWindow.get(), stream)
    assert stream.getvalue() == (2**40).to_bytes(8, "big") + b"\x00"
    stream.seek(0)
    assert CountWindowSerializer().deserialize(stream) == CountWindow(2**40)
    assert GlobalWindowSerializer().deserialize(stream) == GlobalWindow.get()


def test_a_short_stream_is_a_clear_error():
    with pytest.raises(EOFError, match="TimeWindowSerializer: needs 16 bytes, the stream has 8"):
        TimeWindowSerializer().deserialize(BytesIO(bytes(8)))


def test_serializers_are_type_serializers_equal_by_class():
    assert isinstance(TimeWindowSerializer(), TypeSerializer)
    assert TimeWindowSerializer() == TimeWindowSerializer() != CountWindowSerializer()
    assert repr(GlobalWindowSerializer()) == "GlobalWindowSerializer"
    assert TypeSerializer[TimeWindow] is not None


@pytest.mark.parametrize(
    ("assigner", "serializer"),
    [
        (TumblingProcessingTimeWindows.of(5), TimeWindowSerializer),
        (SlidingEventTimeWindows.of(10, 5), TimeWindowSerializer),
        (EventTimeSessionWindows.with_gap(3), TimeWindowSerializer),
        (ProcessingTimeSessionWindows.with_gap(3), TimeWindowSerializer),
        (DynamicEventTimeSessionWindows.with_dynamic_gap(lambda e: 3), TimeWindowSerializer),
        (GlobalWindows.create(), GlobalWindowSerializer),
        (CountTumblingWindowAssigner.of(2), CountWindowSerializer),
        (CountSlidingWindowAssigner.of(2, 1), CountWindowSerializer),
    ],
)
def test_each_assigner_names_its_window_serializer(assigner, serializer):
    assert type(assigner.get_window_serializer()) is serializer


def test_mod_inverse_and_bit_mixing_as_pyflink():
    for x in (1, 3, 12345, 2**31 - 1, 2**33 + 7):
        assert (x * mod_inverse(x)) % 2**32 == 1
    assert long_to_int_with_bit_mixing(0) == 0
    assert long_to_int_with_bit_mixing(1) == long_to_int_with_bit_mixing(1) != 1


def test_a_trigger_reports_to_the_operators_metric_group():
    class CountingTrigger(CountTrigger):
        def on_element(self, element, timestamp, window, ctx):
            ctx.get_metric_group().counter("trigger-calls").inc()
            return super().on_element(element, timestamp, window, ctx)

    h = WindowHarness(
        window_assigner=GlobalWindows.create(),
        trigger=CountingTrigger(2),
        function=lambda a, b: (a[0], a[1] + b[1]),
        window_function_kind="reduce",
    )
    for i in range(5):
        h.element(("k", i))
    assert h.values == [("k", 1), ("k", 6)]  # CountTrigger fires without purging
    group = h.operator.runtime_context.get_metrics_group()
    assert group.counter("trigger-calls").get_count() == 5
