"""Checkpoint notifications and window functions, as in Flink 1.11.

``WindowOperator`` is an ``AbstractUdfStreamOperator`` whose user function is the
``InternalWindowFunction`` wrapper (Flink's ``WrappingFunction`` subclasses forward open/close
only): ``notifyCheckpointComplete`` and ``notifyCheckpointAborted`` reach the operator but not
the window function, even one that implements ``CheckpointListener``. A map function that
implements it hears both.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import CheckpointListener, MapFunction, ProcessWindowFunction
from pyflowkit.datastream.window import TumblingEventTimeWindows
from pyflowkit.operators.factory import OperatorFactory
from pyflowkit.runtime.mini_cluster import MiniCluster
from pyflowkit.runtime.predicates import checkpoint_completed, job_finished
from tests.windows.harness import WindowHarness

HEARD: dict[str, list[tuple[str, int]]] = {}


class ListeningWindowFunction(ProcessWindowFunction, CheckpointListener):
    def __init__(self, name: str = "window") -> None:
        self.name = name

    def process(self, key: Any, context: Any, elements: Any) -> Any:
        yield (key, sum(v for _, v in elements))

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        HEARD.setdefault(self.name, []).append(("complete", checkpoint_id))

    def notify_checkpoint_aborted(self, checkpoint_id: int) -> None:
        HEARD.setdefault(self.name, []).append(("aborted", checkpoint_id))


class ListeningMap(MapFunction, CheckpointListener):
    def map(self, value: Any) -> Any:
        return value

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        HEARD.setdefault("map", []).append(("complete", checkpoint_id))

    def notify_checkpoint_aborted(self, checkpoint_id: int) -> None:
        HEARD.setdefault("map", []).append(("aborted", checkpoint_id))


def setup_function() -> None:
    HEARD.clear()


def test_the_window_operator_does_not_forward_notifications_to_the_window_function() -> None:
    h = WindowHarness(
        window_assigner=TumblingEventTimeWindows.of(10),
        function=ListeningWindowFunction(),
        window_function_kind="process",
    )
    h.element(("a", 1), 3)
    h.operator.notify_checkpoint_complete(1)
    h.operator.notify_checkpoint_aborted(2)
    h.watermark(20)
    assert h.values == [("a", 1)] and "window" not in HEARD


def test_a_udf_operator_forwards_both_notifications_to_a_listening_function() -> None:
    op = OperatorFactory("StreamMap", params={"function": ListeningMap()}).create()
    op.notify_checkpoint_complete(3)
    op.notify_checkpoint_aborted(4)
    assert HEARD["map"] == [("complete", 3), ("aborted", 4)]


def test_on_the_cluster_the_map_hears_completed_checkpoints_and_the_window_function_does_not() -> (
    None
):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.enable_checkpointing(10)
    events = [(f"k{i % 2}", i) for i in range(300)]
    (
        env.from_collection(events)
        .map(ListeningMap())
        .assign_timestamps_and_watermarks(_watermarks())
        .key_by(lambda t: t[0])
        .window(TumblingEventTimeWindows.of(50))
        .process(ListeningWindowFunction())
        .print()
    )
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(env)
    run.run_until(checkpoint_completed(1))
    run.run_until(job_finished())
    assert ("complete", 1) in HEARD["map"]
    assert "window" not in HEARD
    assert len(run.printed()) == 12  # the windows fired: 300 events, 50 ms each, 2 keys


def _watermarks() -> Any:
    from pyflowkit.common import Duration, WatermarkStrategy

    strategy = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(0))
    return strategy.with_timestamp_assigner(lambda value, _ts: value[1])
