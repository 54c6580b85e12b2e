"""Timer identity follows key identity: ``1``, ``True`` and ``1.0`` are three keys, three timers.

Python finds them equal; Java (and the keyed state backend, which puts them in their own key
groups) does not, so Flink's ``InternalTimerServiceImpl`` keeps one timer per key.
"""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Types, WatermarkStrategy
from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from pyflowkit.datastream.functions import KeyedProcessFunction
from pyflowkit.operators.processing_time import ManualProcessingTimeService
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.state import HeapKeyedStateBackend
from pyflowkit.state.key_groups import KeyGroupRange
from pyflowkit.state.time import VOID_NAMESPACE
from pyflowkit.state.timer_service import InternalTimer, InternalTimeServiceManager

MIXED = [1, True, 1.0]


class Recorder:
    """A ``Triggerable`` that records what fired and the key context at that moment."""

    def __init__(self, backend: HeapKeyedStateBackend) -> None:
        self.backend = backend
        self.fired: list[tuple[str, int, Any, type, Any]] = []

    def on_event_time(self, timer: InternalTimer) -> None:
        current = self.backend.get_current_key()
        self.fired.append(("event", timer.timestamp, timer.key, type(current), timer.namespace))

    def on_processing_time(self, timer: InternalTimer) -> None:
        current = self.backend.get_current_key()
        self.fired.append(("proc", timer.timestamp, timer.key, type(current), timer.namespace))


def service_with_backend() -> tuple[Any, HeapKeyedStateBackend, Recorder, Any]:
    backend = HeapKeyedStateBackend(128, KeyGroupRange(0, 127))
    clock = ManualProcessingTimeService(0)
    manager = InternalTimeServiceManager(backend, clock, 128)
    recorder = Recorder(backend)
    return manager.get_internal_timer_service("t", recorder), backend, recorder, clock


def test_equal_python_keys_of_other_types_get_their_own_timers() -> None:
    svc, backend, rec, _ = service_with_backend()
    for key in MIXED + [1, True]:  # registering again is a no-op per key
        backend.set_current_key(key)
        svc.register_event_time_timer(VOID_NAMESPACE, 10)
    assert svc.num_event_time_timers() == 3
    svc.manager.advance_watermark(10)
    # registration order for the tie; each fires with its own key (type kept) as current key
    assert [(k, t) for _, _, k, t, _ in rec.fired] == [(1, int), (True, bool), (1.0, float)]
    assert [type(k) for _, _, k, _, _ in rec.fired] == [int, bool, float]
    assert svc.num_event_time_timers() == 0


def test_deleting_one_keys_timer_leaves_the_equal_keys_timers() -> None:
    svc, backend, rec, clock = service_with_backend()
    for key in MIXED:
        backend.set_current_key(key)
        svc.register_event_time_timer(VOID_NAMESPACE, 5)
        svc.register_processing_time_timer(VOID_NAMESPACE, 7)
    backend.set_current_key(True)
    svc.delete_event_time_timer(VOID_NAMESPACE, 5)
    backend.set_current_key(1.0)
    svc.delete_processing_time_timer(VOID_NAMESPACE, 7)
    assert (svc.num_event_time_timers(), svc.num_processing_time_timers()) == (2, 2)
    svc.manager.advance_watermark(100)
    clock.set_current_time(100)
    assert [(d, k, t) for d, _, k, t, _ in rec.fired] == [
        ("event", 1, int),
        ("event", 1.0, float),
        ("proc", 1, int),
        ("proc", True, bool),
    ]


def test_tuple_keys_with_equal_but_differently_typed_fields_are_distinct() -> None:
    svc, backend, rec, _ = service_with_backend()
    for key in [(1, "a"), (True, "a"), (1.0, "a"), (1, "a")]:
        backend.set_current_key(key)
        svc.register_event_time_timer("ns", 3)
    assert svc.num_event_time_timers() == 3
    svc.manager.advance_watermark(3)
    assert [type(k[0]) for _, _, k, _, _ in rec.fired] == [int, bool, float]


def test_snapshot_and_restore_keep_the_equal_keys_apart() -> None:
    svc, backend, _, _ = service_with_backend()
    for ts, key in [(4, True), (4, 1), (2, 1.0), (4, 1.0)]:
        backend.set_current_key(key)
        svc.register_event_time_timer(VOID_NAMESPACE, ts)
    snap = svc.manager.snapshot()
    entries = sorted(
        ((e[2], repr(e[3])) for es in snap.values() for e in es), key=lambda x: (x[0], x[1])
    )
    assert entries == [(2, "1.0"), (4, "1"), (4, "1.0"), (4, "True")]
    for kg, es in snap.items():  # each timer sits in its own key's Java key group
        assert all(backend.key_group_of(e[3]) == kg for e in es)

    svc2, backend2, rec2, _ = service_with_backend()
    svc2.manager.restore(snap, KeyGroupRange(0, 127))
    assert svc2.num_event_time_timers() == 4
    svc2.manager.advance_watermark(4)
    fired = [(ts, repr(k)) for _, ts, k, _, _ in rec2.fired]
    assert fired[0] == (2, "1.0")
    assert sorted(fired[1:]) == [(4, "1"), (4, "1.0"), (4, "True")]


# ---- pipelines on the simulated cluster ----
class EventTimerPerKey(KeyedProcessFunction):
    def process_element(self, value: Any, ctx: Any) -> Any:
        ctx.timer_service().register_event_time_timer(100)
        return iter(())

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        key = ctx.get_current_key()
        yield f"{key!r}:{type(key).__name__}@{timestamp}"


def run_printed(env: StreamExecutionEnvironment) -> list[str]:
    run = MiniCluster(seed=1, echo_print=False).submit(env).run()
    run.raise_if_failed()
    assert run.job_status is JobStatus.FINISHED
    return [line.split("> ", 1)[1] for line in run.printed()]


def test_keyed_process_function_fires_a_timer_per_mixed_key() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        lambda v, ts: v[1]
    )
    data = [(1, 1), (True, 2), (1.0, 3), (1, 4), (True, 5)]
    (
        env.from_collection(data, type_info=Types.PICKLED_BYTE_ARRAY())
        .assign_timestamps_and_watermarks(strategy)
        .key_by(lambda v: v[0])
        .process(EventTimerPerKey(), output_type=Types.STRING())
        .print("t")
    )
    assert run_printed(env) == ["1:int@100", "True:bool@100", "1.0:float@100"]


def add(a: tuple, b: tuple) -> tuple:
    return (a[0], a[1] + b[1])


# 1.11: the keys land in three key groups (Java's equals would keep them apart in one too); 1.20:
# the AdaptiveBatchScheduler gives this job max parallelism 1, one key group, where PyFlink keys
# by the pickled bytes (golden program__python_equal_keys_apart): the state tables hold 1, True and
# 1.0 as three keys (java_semantics.state_key) under both profiles.
@pytest.mark.parametrize(
    "version", [pytest.param("1.11", marks=pytest.mark.flink_version("1.11")), "1.20"]
)
def test_batch_mode_keyed_reduce_emits_one_value_per_mixed_key(version: str) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    data = [(1, 1), (True, 2), (1.0, 4), (1, 8), (True, 16), ("x", 32)]
    (
        env.from_collection(data, type_info=Types.PICKLED_BYTE_ARRAY())
        .key_by(lambda v: v[0])
        .reduce(add)
        .map(lambda v: f"{v[0]!r}:{type(v[0]).__name__}={v[1]}", output_type=Types.STRING())
        .print("sum")
    )
    assert run_printed(env) == ["1:int=9", "True:bool=18", "1.0:float=4", "'x':str=32"]


def test_a_timer_deleted_and_registered_again_is_snapshot_once() -> None:
    svc, backend, rec, _ = service_with_backend()
    for key in MIXED:
        backend.set_current_key(key)
        svc.register_event_time_timer(VOID_NAMESPACE, 9)
    backend.set_current_key(True)
    svc.delete_event_time_timer(VOID_NAMESPACE, 9)
    svc.register_event_time_timer(VOID_NAMESPACE, 9)
    entries = [e for es in svc.manager.snapshot().values() for e in es]
    assert sorted(repr(e[3]) for e in entries) == ["1", "1.0", "True"]
    assert svc.num_event_time_timers() == 3
    svc.manager.advance_watermark(9)
    assert sorted(repr(k) for _, _, k, _, _ in rec.fired) == ["1", "1.0", "True"]  # once each


def mixed_key_jobs(mode: str) -> StreamExecutionEnvironment:
    """A keyed process timer job and a keyed reduce over keys 1, True, 1.0 (parallelism 2).

    The function class is local, so Spark's workers get it by value (this module is not importable
    there).
    """

    class TimerPerKey(KeyedProcessFunction):
        def process_element(self, value: Any, ctx: Any) -> Any:
            ctx.timer_service().register_event_time_timer(100)
            return iter(())

        def on_timer(self, timestamp: int, ctx: Any) -> Any:
            key = ctx.get_current_key()
            yield f"{key!r}:{type(key).__name__}@{timestamp}"

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    if mode == "BATCH":
        env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        lambda v, ts: v[1]
    )
    data = [(1, 1), (True, 2), (1.0, 4), (1, 8), (True, 16)]
    stream = env.from_collection(data, type_info=Types.PICKLED_BYTE_ARRAY())
    (
        stream.assign_timestamps_and_watermarks(strategy)
        .key_by(lambda v: v[0])
        .process(TimerPerKey(), output_type=Types.STRING())
        .print("t")
    )
    (
        stream.key_by(lambda v: v[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .map(lambda v: f"{v[0]!r}:{type(v[0]).__name__}={v[1]}", output_type=Types.STRING())
        .print("sum")
    )
    return env


@pytest.mark.spark
@pytest.mark.parametrize(
    # BATCH under 1.20: one subtask (the AdaptiveBatchScheduler), so the three keys share a key
    # group, where PyFlink keeps them apart by their pickled bytes (see above)
    "mode",
    [
        "STREAMING",
        pytest.param("BATCH", id="BATCH-1.20"),
        pytest.param("BATCH", marks=pytest.mark.flink_version("1.11"), id="BATCH-1.11"),
    ],
)
def test_mixed_keys_on_spark_fire_and_reduce_per_key(spark: Any, mode: str) -> None:
    from pyflowkit.spark.executor import execute

    lines = execute(mixed_key_jobs(mode).get_job_graph(), spark=spark, print_output=False)
    got = sorted(line.split("> ", 1)[1] for line in lines.print_lines)
    timers = ["1.0:float@100", "1:int@100", "True:bool@100"]
    if mode == "BATCH":
        sums = ["1.0:float=4", "1:int=9", "True:bool=18"]
    else:  # a running value per record
        sums = ["1.0:float=4", "1:int=1", "1:int=9", "True:bool=18", "True:bool=2"]
    assert got == sorted(timers + sums)
