"""The task core sets the key context before a keyed operator sees a record, on every host path.

The issue's pattern: a ``MapFunction`` whose ``open`` takes a ``ValueState``, after ``key_by``.
Flink counts per key (``a1 a2 a3 b1 b2``); before the task core, batch paths skipped the key
context and the count ran per subtask (``a1 a3 a5 b2 b4``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from pyflowkit.common import Types
from pyflowkit.datastream import (
    FilterFunction,
    FlatMapFunction,
    MapFunction,
    ReduceFunction,
    StreamExecutionEnvironment,
)
from pyflowkit.datastream.execution_mode import RuntimeExecutionMode
from pyflowkit.datastream.state import ValueStateDescriptor
from pyflowkit.reference.local_driver import run_local
from pyflowkit.runtime.job_status import JobStatus
from pyflowkit.runtime.mini_cluster import MiniCluster
from pyflowkit.runtime.predicates import job_finished
from pyflowkit.task.chain import OperatorChain
from pyflowkit.task.key_context import batch_input

WORDS = list("ababacbcaa")


def _counter(ctx: Any) -> Any:
    return ctx.get_state(ValueStateDescriptor("n", Types.INT()))


def _bump(state: Any) -> int:
    n = (state.value() or 0) + 1
    state.update(n)
    return n


class CountMap(MapFunction):
    def open(self, ctx: Any) -> None:
        self.n = _counter(ctx)

    def map(self, value: str) -> str:
        return f"{value}{_bump(self.n)}"


class CountFlatMap(FlatMapFunction):
    def open(self, ctx: Any) -> None:
        self.n = _counter(ctx)

    def flat_map(self, value: str) -> Any:
        yield f"{value}{_bump(self.n)}"


class EverySecond(FilterFunction):
    """Keeps every second record of each key."""

    def open(self, ctx: Any) -> None:
        self.n = _counter(ctx)

    def filter(self, value: str) -> bool:
        return _bump(self.n) % 2 == 0


class CountingReduce(ReduceFunction):
    """Reduces to the latest value, suffixed with how often reduce ran for the key."""

    def open(self, ctx: Any) -> None:
        self.n = _counter(ctx)

    def reduce(self, a: str, b: str) -> str:
        return f"{b[0]}{_bump(self.n)}"


def expected(kind: str) -> Counter:
    seen: Counter = Counter()
    out = []
    for w in WORDS:
        seen[w] += 1
        n = seen[w]
        if kind in ("map", "flat_map"):
            out.append(f"{w}{n}")
        elif kind == "filter":
            if n % 2 == 0:
                out.append(w)
        elif kind == "reduce":
            out.append(w if n == 1 else f"{w}{n - 1}")
    return Counter(out)


def build(kind: str, parallelism: int, batch: bool = False) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    if batch:
        env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    keyed = env.from_collection(WORDS, type_info=Types.STRING()).key_by(lambda w: w)
    if kind == "map":
        out = keyed.map(CountMap(), output_type=Types.STRING())
    elif kind == "flat_map":
        out = keyed.flat_map(CountFlatMap(), output_type=Types.STRING())
    elif kind == "filter":
        out = keyed.filter(EverySecond())
    else:
        out = keyed.reduce(CountingReduce())
    out.print()
    return env.get_job_graph()


def strip(line: str) -> str:
    return line.partition("> ")[2] or line


KINDS = ["map", "flat_map", "filter", "reduce"]


@pytest.mark.parametrize("parallelism", [1, 2])
@pytest.mark.parametrize("kind", KINDS)
def test_reference_driver_keys_each_record(kind: str, parallelism: int) -> None:
    printed = run_local(build(kind, parallelism), batch_size=4).printed
    assert Counter(map(strip, printed)) == expected(kind)


@pytest.mark.parametrize("fast", [False, True], ids=["step", "fast"])
@pytest.mark.parametrize("parallelism", [1, 2])
@pytest.mark.parametrize("kind", KINDS)
def test_simulated_cluster_keys_each_record(kind: str, parallelism: int, fast: bool) -> None:
    run = MiniCluster(task_managers=1, slots_per_task_manager=4, echo_print=False).submit(
        build(kind, parallelism)
    )
    if fast:
        run.run()
    else:
        run.run_until(job_finished(), max_steps=100_000)
    assert run.job_status is JobStatus.FINISHED, run.failure_traceback
    assert Counter(map(strip, run.printed())) == expected(kind)


def test_batch_mode_reduce_keys_each_record() -> None:
    """BATCH: one final value per key, from a reduce that reads its own keyed state."""
    run = MiniCluster(task_managers=1, slots_per_task_manager=4, echo_print=False).submit(
        build("reduce", 2, batch=True)
    )
    run.run()
    assert run.job_status is JobStatus.FINISHED, run.failure_traceback
    assert sorted(map(strip, run.printed())) == ["a4", "b2", "c1"]


def _head_and_chain(job_graph: Any, vertex_index: int) -> OperatorChain:
    from pyflowkit.operators.context import TaskEnvironment
    from pyflowkit.operators.processing_time import ManualProcessingTimeService

    vertex = job_graph.vertices[vertex_index]
    env = TaskEnvironment(
        job_name="t",
        task_name=vertex.name,
        subtask_index=0,
        parallelism=1,
        max_parallelism=128,
        processing_time_service=ManualProcessingTimeService(0),
        print_writer=lambda line, err: None,
    )
    from pyflowkit.operators.output import CollectingOutput

    outs = [CollectingOutput() for _ in range(len(vertex.outputs))]
    chain = OperatorChain(vertex, env, outs)
    chain.initialize_state()
    chain.open()
    return chain


def test_batch_path_is_kept_where_nothing_reads_the_key() -> None:
    """A lambda after key_by reads no keyed state: its batch goes through ``process_batch``; a
    function that was handed the runtime context goes record by record under its key."""
    env = StreamExecutionEnvironment.get_execution_environment()
    keyed = env.from_collection(WORDS, type_info=Types.STRING()).key_by(lambda w: w)
    keyed.map(lambda w: w.upper()).print()
    keyed.map(CountMap()).print()
    jg = env.get_job_graph()
    lambda_vertex, rich_vertex = (i for i, v in enumerate(jg.vertices) if v.name.startswith("Map"))
    plain = _head_and_chain(jg, lambda_vertex).head
    rich = _head_and_chain(jg, rich_vertex).head
    assert batch_input(plain) == plain.process_batch
    assert batch_input(rich) == rich.process_keyed_batch
