"""User functions are opened once and closed exactly once: by close() or, on failure, dispose()."""

from __future__ import annotations

from pyflowkit.datastream.functions import ProcessWindowFunction, SourceFunction
from pyflowkit.datastream.window import TumblingEventTimeWindows
from pyflowkit.operators.stream_source import StreamSource
from tests.windows.harness import WindowHarness

MAX = 2**63 - 1


class CountingWindowFunction(ProcessWindowFunction):
    def __init__(self) -> None:
        self.opened = 0
        self.closed = 0

    def open(self, runtime_context) -> None:
        self.opened += 1

    def close(self) -> None:
        self.closed += 1

    def process(self, key, context, elements):
        yield (key, len(list(elements)))


class CountingSourceFunction(SourceFunction):
    def __init__(self) -> None:
        self.opened = 0
        self.closed = 0

    def open(self, runtime_context) -> None:
        self.opened += 1

    def close(self) -> None:
        self.closed += 1

    def run(self, ctx) -> None:
        ctx.collect(1)

    def cancel(self) -> None:
        pass


def window_harness() -> tuple[WindowHarness, CountingWindowFunction]:
    """The operator holds its own copy of the function (Flink deserialises it per subtask)."""
    h = WindowHarness(
        window_assigner=TumblingEventTimeWindows.of(5000),
        function=CountingWindowFunction(),
        window_function_kind="process",
    )
    return h, h.operator.internal_function.user_function


def test_window_function_normal_run_opened_and_closed_once() -> None:
    h, fn = window_harness()
    h.element(("a", 1), 1000)
    h.watermark(MAX)
    h.operator.close()
    h.operator.dispose()
    assert h.values == [("a", 1)]
    assert (fn.opened, fn.closed) == (1, 1)


def test_window_function_failed_task_closed_once_by_dispose() -> None:
    h, fn = window_harness()
    h.element(("a", 1), 1000)
    h.operator.dispose()  # failure/cancel: close() is never called
    assert (fn.opened, fn.closed) == (1, 1)
    h.operator.dispose()
    assert fn.closed == 1


def test_source_function_closed_once_by_close_then_dispose() -> None:
    fn = CountingSourceFunction()
    op = StreamSource(fn)
    op._close_function()  # the operator's close path reaches the SourceFunction
    assert fn.closed == 1
    fn.closed = 0
    op.close()
    op.dispose()
    assert fn.closed == 1


def test_source_function_of_failed_task_closed_by_dispose() -> None:
    fn = CountingSourceFunction()
    op = StreamSource(fn)
    op.dispose()
    op.dispose()
    assert fn.closed == 1


class CountingFunction:
    """Stands for any rich user function (process, co-process, sink)."""

    def __init__(self) -> None:
        self.closed = 0

    def close(self) -> None:
        self.closed += 1

    def process_element(self, value, ctx):
        return ()

    def process_element1(self, value, ctx):
        return ()

    def process_element2(self, value, ctx):
        return ()

    def invoke(self, value, context) -> None:
        pass


def test_process_co_process_and_sink_operators_close_once() -> None:
    from pyflowkit.operators.co_operators import CoProcessOperator
    from pyflowkit.operators.process import KeyedProcessOperator
    from pyflowkit.operators.sinks import StreamSink

    for cls in (KeyedProcessOperator, CoProcessOperator, StreamSink):
        finished, failed = CountingFunction(), CountingFunction()
        op = cls(finished)
        op.close()
        op.dispose()
        assert finished.closed == 1, cls.__name__
        op = cls(failed)
        op.dispose()  # failed/canceled task: close() never ran
        op.dispose()
        assert failed.closed == 1, cls.__name__


class CountingWindowClose(ProcessWindowFunction):
    """Counts open()/close() per subtask into shared dicts (each subtask has its own copy)."""

    def __init__(self, opens: dict[int, int], closes: dict[int, int]) -> None:
        self.opens = opens
        self.closes = closes
        self.subtask = -1

    def open(self, runtime_context) -> None:
        self.subtask = runtime_context.get_index_of_this_subtask()
        self.opens[self.subtask] = self.opens.get(self.subtask, 0) + 1

    def close(self) -> None:
        self.closes[self.subtask] = self.closes.get(self.subtask, 0) + 1

    def process(self, key, context, elements):
        yield (key, len(list(elements)))


def window_job(fn: CountingWindowClose):
    from pyflowkit.common.restart_strategy import RestartStrategies
    from pyflowkit.datastream import StreamExecutionEnvironment

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.set_restart_strategy(RestartStrategies.no_restart())
    env.from_collection(list(range(40))).key_by(lambda v: v % 4).count_window(5).process(fn).print()
    return env


def test_window_function_in_minicluster_finished_and_failed() -> None:
    from pyflowkit.runtime import JobStatus, MiniCluster
    from pyflowkit.runtime.predicates import job_finished
    from tests.checkpoint.test_dispose_closes_functions import SharedDict, invoked

    opens, closes = SharedDict(), SharedDict()
    run = MiniCluster(echo_print=False, seed=1).submit(
        window_job(CountingWindowClose(opens, closes))
    )
    run.run()
    assert run.job_status is JobStatus.FINISHED
    assert (opens, closes) == ({0: 1, 1: 1}, {0: 1, 1: 1})

    opens, closes = SharedDict(), SharedDict()
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(
        window_job(CountingWindowClose(opens, closes))
    )
    vertex = next(v.name for v in run.job_graph.vertices if "Window" in v.name)
    run.run_until(invoked(vertex, 1))
    run.fail_task(vertex, 1, cause="boom")
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FAILED
    assert opens.get(1) == 1
    assert closes.get(1) == 1  # the failed subtask's window function, closed by dispose


class CountingSourceClose(SourceFunction):
    """Emits until canceled; counts close() per subtask into a shared dict."""

    def __init__(self, closes: dict[int, int]) -> None:
        self.closes = closes
        self.subtask = -1

    def open(self, runtime_context) -> None:
        self.subtask = runtime_context.get_index_of_this_subtask()

    def close(self) -> None:
        self.closes[self.subtask] = self.closes.get(self.subtask, 0) + 1

    def run(self, ctx) -> None:
        for i in range(20):
            ctx.collect(i)

    def cancel(self) -> None:
        pass


def test_source_function_in_minicluster_closed_by_dispose_when_its_task_fails() -> None:
    from pyflowkit.common.restart_strategy import RestartStrategies
    from pyflowkit.datastream import StreamExecutionEnvironment
    from pyflowkit.runtime import JobStatus, MiniCluster
    from pyflowkit.runtime.predicates import job_finished
    from tests.checkpoint.test_dispose_closes_functions import SharedDict, invoked

    closes = SharedDict()
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.set_restart_strategy(RestartStrategies.no_restart())
    env.add_source(CountingSourceClose(closes)).print()
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(env)
    vertex = next(v.name for v in run.job_graph.vertices if v.name.startswith("Source"))
    run.run_until(invoked(vertex, 0))
    run.fail_task(vertex, 0, cause="boom")
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FAILED
    assert closes == {0: 1}
