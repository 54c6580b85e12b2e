"""PyFlink's ``Generic`` classes are subscriptable and a subscripted subclass runs on both hosts.

``class MyFn(ProcessWindowFunction[tuple, tuple, str, TimeWindow])`` is how typed PyFlink programs
declare their functions; it must compile and run exactly as the unsubscripted class does.
"""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Configuration, Duration
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import (
    AllWindowFunction,
    ProcessAllWindowFunction,
    ProcessWindowFunction,
    WindowFunction,
)
from pyflowkit.datastream.state import (
    AggregatingState,
    AppendingState,
    ListState,
    MapState,
    MergingState,
    ReducingState,
    ValueState,
)
from pyflowkit.datastream.window import (
    CountTrigger,
    EventTimeTrigger,
    GlobalWindows,
    MergingWindowAssigner,
    Trigger,
    TumblingEventTimeWindows,
    WindowAssigner,
)
from pyflowkit.datastream.window import TimeWindow as TW
from pyflowkit.runtime import MiniCluster
from tests.api.typed_job import EXPECTED_WINDOWS, typed_job

GENERIC = [
    (ProcessWindowFunction, 4),
    (ProcessWindowFunction.Context, 1),
    (ProcessAllWindowFunction, 3),
    (WindowFunction, 4),
    (AllWindowFunction, 3),
    (ValueState, 1),
    (ListState, 1),
    (MapState, 2),
    (ReducingState, 1),
    (AggregatingState, 2),
    (AppendingState, 2),
    (MergingState, 2),
    (Trigger, 2),
    (EventTimeTrigger, 1),
    (CountTrigger, 1),
    (WindowAssigner, 2),
    (MergingWindowAssigner, 2),
    (MergingWindowAssigner.MergeCallback, 1),
    (TumblingEventTimeWindows, 1),
    (GlobalWindows, 1),
]


@pytest.mark.parametrize(("cls", "arity"), GENERIC, ids=[c.__qualname__ for c, _ in GENERIC])
def test_subscriptable_with_pyflinks_number_of_type_parameters(cls: Any, arity: int) -> None:
    alias = cls[tuple(int for _ in range(arity))] if arity > 1 else cls[int]
    assert alias.__origin__ is cls
    with pytest.raises(TypeError):
        cls[tuple(int for _ in range(arity + 1))]


def test_subscripted_assigner_and_trigger_still_build_flinks_objects() -> None:
    assigner = TumblingEventTimeWindows[tuple].of(Duration.of_millis(10))
    assert isinstance(assigner, TumblingEventTimeWindows)
    assert assigner.assign_windows(("a", 1), 13, None) == [TW(10, 20)]
    assert str(CountTrigger[tuple].of(3)) == "CountTrigger(3)"


def _lines(printed: list[str], prefix: str) -> list[Any]:
    return sorted(eval(line.split("> ", 1)[1]) for line in printed if line.startswith(prefix))


def test_typed_functions_run_on_the_simulated_cluster() -> None:
    conf = Configuration()
    conf.set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    typed_job(env)
    printed = MiniCluster(seed=3).submit(env, "typed").run().printed()
    assert _lines(printed, "win") == EXPECTED_WINDOWS
    assert _lines(printed, "count") == [("a", 1), ("a", 2), ("a", 3), ("b", 1), ("b", 2)]


@pytest.mark.spark
def test_typed_functions_run_on_spark(spark: Any, capsys: pytest.CaptureFixture[str]) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    typed_job(env)
    env.execute("typed on spark", spark=spark)
    printed = capsys.readouterr().out.splitlines()
    assert _lines(printed, "win") == EXPECTED_WINDOWS
    assert _lines(printed, "count") == [("a", 1), ("a", 2), ("a", 3), ("b", 1), ("b", 2)]
