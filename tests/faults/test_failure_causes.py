"""Every kind of user function failing: the job's failure names the operator, the subtask and the
attempt, starts with the user's own traceback and ends with Flink's ``Recovery is suppressed by``."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from pyflowkit.common import Configuration, Duration, Time, Types, WatermarkStrategy
from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import (
    AggregateFunction,
    CoMapFunction,
    KeyedProcessFunction,
    MapFunction,
    ProcessWindowFunction,
    SinkFunction,
    SourceFunction,
)
from pyflowkit.datastream.window import TumblingEventTimeWindows
from pyflowkit.errors import JobException, JobExecutionException
from tests.faults.helpers import assert_cleanly_failed, chain_of, environment, run_to_end

HERE = __file__


def fail(value: Any) -> Any:
    raise ValueError(f"bad value {value!r}")


class FailingOpen(MapFunction):
    def open(self, runtime_context: Any) -> None:
        raise RuntimeError("cannot connect")

    def map(self, value: Any) -> Any:
        return value


class FailingTimer(KeyedProcessFunction):
    def process_element(self, value: Any, ctx: Any) -> Any:
        ctx.timer_service().register_event_time_timer(value[1] + 1)
        return iter(())

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        raise KeyError(f"timer {timestamp}")


class FailingWindow(ProcessWindowFunction):
    def process(self, key: Any, context: Any, elements: Any) -> Any:
        raise ArithmeticError(f"window of {key}")


class FailingSource(SourceFunction):
    def run(self, ctx: Any) -> None:
        ctx.collect(1)
        raise ConnectionError("source lost")

    def cancel(self) -> None:
        pass


class FailingCoMap(CoMapFunction):
    def map1(self, value: Any) -> Any:
        return value

    def map2(self, value: Any) -> Any:
        raise LookupError(f"no match for {value}")


class FailingAggregate(AggregateFunction):
    def create_accumulator(self) -> Any:
        return 0

    def add(self, value: Any, accumulator: Any) -> Any:
        return accumulator + value["count"]  # a tuple has no "count"

    def get_result(self, accumulator: Any) -> Any:
        return accumulator


class FailingSink(SinkFunction):
    def invoke(self, value: Any, context: Any) -> None:
        raise OSError(f"disk full at {value}")


def events(env: StreamExecutionEnvironment) -> Any:
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(0))
    return env.from_collection(
        [("a", 1), ("b", 5), ("a", 9)], type_info=Types.TUPLE([Types.STRING(), Types.INT()])
    ).assign_timestamps_and_watermarks(
        strategy.with_timestamp_assigner(lambda e, ts: e[1])  # type: ignore[attr-defined]
    )


# (case id, pipeline, exception type, operator named, user function named in the traceback)
CASES: list[tuple[str, Callable[[StreamExecutionEnvironment], Any], type, str, str]] = [
    ("map", lambda env: env.from_collection([1, 2]).map(fail).print(), ValueError, "Map", "fail"),
    (
        "map chained after flat_map",
        lambda env: env.from_collection(["a b"]).flat_map(str.split).map(fail).print(),
        ValueError,
        "Map",
        "fail",
    ),
    (
        "filter",
        lambda env: env.from_collection([1, 2]).filter(lambda v: fail(v)).print(),
        ValueError,
        "Filter",
        "<lambda>",
    ),
    (
        "key selector",
        lambda env: env.from_collection([1, 2]).key_by(lambda v: fail(v)).reduce(max).print(),
        ValueError,
        "Source: Collection Source",
        "<lambda>",
    ),
    (
        "reduce",
        lambda env: (
            env.from_collection([("a", 1), ("a", 2)])
            .key_by(lambda t: t[0])
            .reduce(lambda a, b: fail(b))
            .print()
        ),
        ValueError,
        "Keyed Reduce",
        "<lambda>",
    ),
    (
        "process function",
        lambda env: env.from_collection([1]).process(lambda v, ctx: fail(v)).print(),
        ValueError,
        "Process",
        "<lambda>",
    ),
    (
        "open of a rich function",
        lambda env: env.from_collection([1]).map(FailingOpen()).print(),
        RuntimeError,
        "",
        "open",
    ),
    (
        "on_timer",
        lambda env: events(env).key_by(lambda e: e[0]).process(FailingTimer()).print(),
        KeyError,
        "KeyedProcess",
        "on_timer",
    ),
    (
        "window function",
        lambda env: (
            events(env)
            .key_by(lambda e: e[0])
            .window(TumblingEventTimeWindows.of(Time.milliseconds(4)))
            .process(FailingWindow())
            .print()
        ),
        ArithmeticError,
        "Window(",
        "process",
    ),
    (
        "window reduce",
        lambda env: (
            events(env).key_by(lambda e: e[0]).count_window(2).reduce(lambda a, b: fail(a)).print()
        ),
        ValueError,
        "Window(",
        "<lambda>",
    ),
    (
        "source",
        lambda env: env.add_source(FailingSource(), "my source").print(),
        ConnectionError,
        "my source",
        "run",
    ),
    (
        "sink",
        lambda env: env.from_collection([1]).add_sink(FailingSink()),
        OSError,
        "Sink: Unnamed",
        "invoke",
    ),
    (
        "sink as a lambda",
        lambda env: env.from_collection([1]).add_sink(lambda v: fail(v)),
        ValueError,
        "Sink: Unnamed",
        "<lambda>",
    ),
    (
        "map divides by zero",
        lambda env: env.from_collection([0]).map(lambda v: 1 // v).print(),
        ZeroDivisionError,
        "Map",
        "<lambda>",
    ),
    (
        "co_map on connected streams",
        lambda env: (
            env.from_collection([1]).connect(env.from_collection(["x"])).map(FailingCoMap()).print()
        ),
        LookupError,
        "Co-Map",
        "map2",
    ),
    (
        "window aggregate",
        lambda env: (
            events(env)
            .key_by(lambda e: e[0])
            .window(TumblingEventTimeWindows.of(Time.milliseconds(4)))
            .aggregate(FailingAggregate())
            .print()
        ),
        TypeError,
        "Window(",
        "add",
    ),
    (
        "timestamp assigner",
        lambda env: (
            env.from_collection([1])
            .assign_timestamps_and_watermarks(
                WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
                    lambda e, ts: fail(e)
                )
            )
            .print()
        ),
        ValueError,
        "Timestamps/Watermarks",
        "<lambda>",
    ),
    (
        "flat_map returning an int",
        lambda env: env.from_collection(["a"]).flat_map(len).print(),
        TypeError,
        "Flat Map",
        "",
    ),
    (
        "flat_map generator failing",
        lambda env: env.from_collection(["a"]).flat_map(lambda s: (fail(c) for c in s)).print(),
        ValueError,
        "Flat Map",
        "<genexpr>",
    ),
]


@pytest.mark.parametrize(
    "build,error,operator,function", [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_failure_names_operator_subtask_attempt_and_starts_with_user_traceback(
    build: Callable[[StreamExecutionEnvironment], Any], error: type, operator: str, function: str
) -> None:
    env = environment(build)
    run = run_to_end(env)
    assert_cleanly_failed(run)
    outer = run.failure_cause
    assert isinstance(outer, JobException)
    assert str(outer) == "Recovery is suppressed by NoRestartBackoffTimeStrategy"
    root = chain_of(outer)[-1]
    assert type(root) is error, repr(root)
    # where: operator, subtask (i/n) and attempt, as data and in the text
    assert outer.attempt_number == 0 and outer.failed_task.endswith(f"/{outer.failed_task[-2]})")
    assert operator in (outer.failed_operator or outer.failed_task)
    text = run.failure_traceback
    assert re.search(r"The above exception failed .* \(\d/\d\) \(attempt #0\) and was", text)
    assert operator in text.split("The above exception failed ")[1]
    assert text.rstrip().endswith(
        "pyflowkit.errors.JobException: Recovery is suppressed by NoRestartBackoffTimeStrategy"
    )
    # the user's traceback first: the first frame is the user's file, no pyflowkit frame at all
    frames = re.findall(r'File "([^"]+)", line \d+, in (\S+)', text)
    if function:
        assert frames and frames[0][0] == HERE, text
        assert function in [name for _, name in frames], text
    assert not [f for f, _ in frames if "/pyflowkit/" in f], text
    # the user's exception carries where it failed as a note, and its traceback starts in user code
    assert any("Failed in " in note for note in getattr(root, "__notes__", []))
    if function:
        assert root.__traceback__.tb_frame.f_code.co_filename == HERE
    # raise_if_failed: Flink's JobExecutionException with the same text
    with pytest.raises(JobExecutionException) as err:
        run.raise_if_failed()
    assert str(err.value) == f"Job execution failed.\n{text}".rstrip()


def test_flat_map_returning_an_int_names_the_users_function_and_line() -> None:
    def tokens(line: str) -> Any:
        return len(line)  # forgot to return a list

    env = environment(lambda e: e.from_collection(["a b"]).flat_map(tokens).print())
    run = run_to_end(env)
    root = chain_of(run.failure_cause)[-1]
    line = tokens.__code__.co_firstlineno
    assert str(root) == (
        f"Flat Map: the flat_map function test_flat_map_returning_an_int_names_the_users_function"
        f"_and_line.<locals>.tokens (test_failure_causes.py, line {line}) returned 3 (int), which "
        "is not iterable; return a list or yield the results (wrap a single value as [value])."
    )
    assert run.failure_traceback.startswith("TypeError: Flat Map: the flat_map function")


def test_restarted_attempt_is_named_in_the_final_failure() -> None:
    def build(env: StreamExecutionEnvironment) -> None:
        env.set_restart_strategy(RestartStrategies.fixed_delay_restart(2, 10))
        env.from_collection([1]).map(fail).print()

    run = run_to_end(environment(build, parallelism=1))
    assert_cleanly_failed(run)
    outer = run.failure_cause
    assert str(outer) == (
        "Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy"
        "(maxNumberRestartAttempts=2, backoffTimeMS=10)"
    )
    assert outer.attempt_number == 2
    assert "Map -> Sink: Print to Std. Out (1/1) (attempt #2)" in run.failure_traceback


def test_local_execute_raises_the_same_text() -> None:
    conf = Configuration()
    conf.set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(1)
    env.from_collection([3]).map(fail).print()
    with pytest.raises(JobExecutionException) as err:
        env.execute("local job")
    text = str(err.value)
    assert text.startswith("Job execution failed.\nTraceback (most recent call last):\n")
    assert f'File "{HERE}"' in text.splitlines()[2]
    assert "ValueError: bad value 3" in text
    assert (
        "operator 'Map' of Source: Collection Source -> Map -> Sink: Print to Std. Out (1/1)"
        in text
    )
    # the environment is usable afterwards
    env.from_collection([1, 2]).map(lambda v: v * 10).print()
    assert env.execute("again").get_job_id()


SPARK_CASES = [c for c in CASES if c[0] in ("map", "reduce", "flat_map returning an int")]


@pytest.mark.spark
@pytest.mark.parametrize(
    "build,error,operator,function", [c[1:] for c in SPARK_CASES], ids=[c[0] for c in SPARK_CASES]
)
def test_failure_text_on_spark(build, error, operator, function) -> None:
    env = environment(build)
    with pytest.raises(JobExecutionException) as err:
        env.execute("spark failure")
    text = str(err.value)
    if function:
        assert text.startswith("Traceback (most recent call last):\n") and HERE in text
    assert f"{error.__name__}: " in text
    assert re.search(
        rf"The above exception failed operator '{re.escape(operator)}' of .* \(\d/2\) "
        r"\(attempt #\d\) and was the direct cause",
        text,
    ), text
    assert (
        "pyflowkit.errors.JobException: Recovery is suppressed by NoRestartBackoffTimeStrategy"
        in text
    )
    assert re.search(r"Job 'spark failure' \([0-9a-f]{32}\) failed in .* on Spark\.$", text)
