"""CEP user functions see Flink's ``CepRuntimeContext``: task info and metrics work, keyed state,
accumulators and broadcast variables are refused with Flink's messages (CepOperator.setup /
NFA.open set it on conditions and on select / flat-select / process / timeout functions)."""

from __future__ import annotations

from collections import Counter
from typing import Any, ClassVar

import pytest

from pyflowkit.cep import (
    CEP,
    IterativeCondition,
    Pattern,
    PatternProcessFunction,
    TimedOutPartialMatchHandler,
)
from pyflowkit.common import WatermarkStrategy
from pyflowkit.datastream import OutputTag, TimeCharacteristic
from pyflowkit.datastream.state import ListStateDescriptor, ValueStateDescriptor
from pyflowkit.errors import FlinkRuntimeException, UnsupportedOperationException
from pyflowkit.operators.cep.cep_runtime_context import CepRuntimeContext
from pyflowkit.runtime import JobStatus, MiniCluster
from tests.cep.jobs import EventTime, environment, expected_pairs, pair, readings, strip

REFUSED = {
    "get_state": "State is not supported.",
    "get_list_state": "State is not supported.",
    "get_map_state": "State is not supported.",
    "get_reducing_state": "State is not supported.",
    "get_aggregating_state": "State is not supported.",
    "get_accumulator": "Accumulators are not supported.",
    "add_accumulator": "Accumulators are not supported.",
    "get_all_accumulators": "Accumulators are not supported.",
    "get_int_counter": "Int counters are not supported.",
    "get_long_counter": "Long counters are not supported.",
    "get_double_counter": "Double counters are not supported.",
    "get_histogram": "Histograms are not supported.",
    "has_broadcast_variable": "Broadcast variables are not supported.",
    "get_broadcast_variable": "Broadcast variables are not supported.",
    "get_broadcast_variable_with_initializer": "Broadcast variables are not supported.",
}
_ARGS = {"get_all_accumulators": 0, "add_accumulator": 2}
_ARGS_DEFAULT = 1


def _call(ctx: Any, method: str) -> str:
    """Call a refused method; the exception's message (or a note that it did not raise)."""
    n = _ARGS.get(method, 2 if method.endswith("_with_initializer") else _ARGS_DEFAULT)
    try:
        getattr(ctx, method)(*[ValueStateDescriptor("s")] * n)
    except UnsupportedOperationException as e:
        return str(e)
    return "did not raise"


class High(IterativeCondition):
    """A rich condition: remembers its context and counts its calls in a metric."""

    seen: ClassVar[list[dict[str, Any]]] = []

    def open(self, runtime_context: Any) -> None:
        self.ctx = runtime_context
        self.tested = runtime_context.get_metrics_group().add_group("cep").counter("tested")
        High.seen.append(
            {
                "type": type(runtime_context),
                "task": runtime_context.get_task_name(),
                "subtask": runtime_context.get_index_of_this_subtask(),
                "parallelism": runtime_context.get_number_of_parallel_subtasks(),
                "max": runtime_context.get_max_number_of_parallel_subtasks(),
                "attempt": runtime_context.get_attempt_number(),
                "with_subtasks": runtime_context.get_task_name_with_subtasks(),
                "param": runtime_context.get_job_parameter("missing", "fallback"),
                "refused": {m: _call(runtime_context, m) for m in REFUSED},
            }
        )

    def filter(self, value: Any, ctx: Any) -> bool:
        self.tested.inc()
        return value[2] > 70


class TaggedSelect:
    """A rich select function: every match carries the subtask that selected it."""

    def open(self, runtime_context: Any) -> None:
        self.subtask = runtime_context.get_index_of_this_subtask()
        self.selected = runtime_context.get_metrics_group().counter("selected")

    def select(self, match: dict[str, list]) -> tuple:
        self.selected.inc()
        return (*pair(match), self.subtask)


def _stream(env: Any) -> Any:
    return env.from_collection(readings()).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(EventTime())
    )


def _failure_chain(run: Any) -> list[BaseException]:
    chain, cause = [], run.failure_cause
    while cause is not None:
        chain.append(cause)
        cause = cause.__cause__ or getattr(cause, "cause", None)
    return chain


def _metrics(run: Any) -> dict[str, dict[str, Any]]:
    frame = run.tasks_frame()
    cep = frame[frame.vertex.str.startswith("CepOperator")]
    return dict(zip(cep.name, cep.metrics, strict=True))


# ---- what is refused, what is given -----------------------------------------------------------
@pytest.mark.parametrize("time", ["event", "processing"])
def test_conditions_and_select_get_task_info_and_metrics_but_no_state(time: str) -> None:
    """Conditions and the select function get a CepRuntimeContext: task info, job parameters and
    the metric group work, every state / accumulator / broadcast call raises Flink's message."""
    High.seen.clear()
    env = environment(2)
    if time == "processing":
        env.set_stream_time_characteristic(TimeCharacteristic.ProcessingTime)
    pattern = Pattern.begin("first").where(High()).next("second").where(High())
    if time == "event":
        pattern = pattern.within(25)
    CEP.pattern(_stream(env).key_by(lambda e: e[0]), pattern).select(TaggedSelect()).print()
    run = MiniCluster(echo_print=False, seed=1).submit(env.get_job_graph())
    run.run()
    assert run.job_status is JobStatus.FINISHED
    # two conditions per subtask, each opened once with the subtask's info
    assert sorted((s["subtask"], s["task"]) for s in High.seen) == [
        (0, "CepOperator -> Sink: Print to Std. Out"),
        (0, "CepOperator -> Sink: Print to Std. Out"),
        (1, "CepOperator -> Sink: Print to Std. Out"),
        (1, "CepOperator -> Sink: Print to Std. Out"),
    ]
    for seen in High.seen:
        assert seen["type"] is CepRuntimeContext
        assert (seen["parallelism"], seen["max"], seen["attempt"]) == (2, 128, 0)
        assert seen["with_subtasks"] == f"{seen['task']} ({seen['subtask'] + 1}/2)"
        assert seen["param"] == "fallback"
        for method, message in REFUSED.items():
            assert seen["refused"][method].startswith(message), method
            assert "Operator 'CepOperator'" in seen["refused"][method]
    # every match is selected on the subtask that printed it
    lines = run.printed()
    selected = Counter()
    for line in lines:
        prefix, body = line.split("> ", 1)
        out = eval(body)  # noqa: S307 - our own tuples
        assert out[3] == int(prefix) - 1
        selected[out[:3]] += 1
    if time == "event":
        assert selected == expected_pairs()
    else:  # processing time: no within, one clock for the whole collection
        assert selected == expected_pairs(within=10**9)
    per_task = _metrics(run)
    assert sorted(per_task) == [
        "CepOperator -> Sink: Print to Std. Out (1/2)",
        "CepOperator -> Sink: Print to Std. Out (2/2)",
    ]
    assert sum(m["CepOperator.selected"] for m in per_task.values()) == len(lines)
    assert all(m["CepOperator.cep.tested"] > 0 for m in per_task.values())


class ProcessWithTimeouts(PatternProcessFunction, TimedOutPartialMatchHandler):
    """A PatternProcessFunction with a timeout handler: both see the CepRuntimeContext."""

    TAG = OutputTag("timed-out")

    def open(self, runtime_context: Any) -> None:
        self.ctx = runtime_context

    def process_match(self, match: dict[str, list], ctx: Any) -> Any:
        yield (type(self.ctx).__name__, self.ctx.get_index_of_this_subtask(), *pair(match))

    def process_timed_out_match(self, match: dict[str, list], ctx: Any) -> None:
        first = match["first"][0]
        ctx.output(self.TAG, (type(self.ctx).__name__, first[0], first[1]))


def test_process_and_timeout_functions_get_the_cep_runtime_context() -> None:
    env = environment(1)
    pattern = Pattern.begin("first").where(lambda e: e[2] > 70).next("second")
    pattern = pattern.where(lambda e: e[2] > 70).within(25)
    out = CEP.pattern(_stream(env).key_by(lambda e: e[0]), pattern).process(ProcessWithTimeouts())
    out.print("match")
    out.get_side_output(ProcessWithTimeouts.TAG).print("timeout")
    run = MiniCluster(echo_print=False, seed=1).submit(env.get_job_graph())
    run.run()
    assert run.job_status is JobStatus.FINISHED
    lines = [line.split("> ", 1) for line in run.printed()]
    matches = [eval(body) for tag, body in lines if tag == "match"]  # noqa: S307
    timeouts = [eval(body) for tag, body in lines if tag == "timeout"]  # noqa: S307
    assert Counter(m[2:] for m in matches) == expected_pairs()
    assert {m[:2] for m in matches} == {("CepRuntimeContext", 0)}
    assert timeouts and {t[0] for t in timeouts} == {"CepRuntimeContext"}


# ---- state use fails the job ------------------------------------------------------------------
class CountingCondition(IterativeCondition):
    """Tries to keep a per-key count in keyed state (allowed in a ProcessFunction, not in CEP)."""

    def open(self, runtime_context: Any) -> None:
        self.ctx = runtime_context

    def filter(self, value: Any, ctx: Any) -> bool:
        count = self.ctx.get_state(ValueStateDescriptor("count"))
        count.update((count.value() or 0) + 1)
        return value[2] > 70


def test_a_rich_condition_reading_keyed_state_fails_the_job() -> None:
    env = environment(1)
    pattern = Pattern.begin("first").where(lambda e: e[2] > 70).next("second")
    pattern = pattern.where(CountingCondition())
    CEP.pattern(_stream(env).key_by(lambda e: e[0]), pattern).select(pair).print()
    run = MiniCluster(echo_print=False, seed=1).submit(env.get_job_graph())
    run.run()
    assert run.job_status is JobStatus.FAILED
    chain = _failure_chain(run)
    cep_error = next(c for c in chain if isinstance(c, FlinkRuntimeException))
    assert "CEP pattern state 'second'" in str(cep_error)
    refused = cep_error.__cause__
    assert isinstance(refused, UnsupportedOperationException)
    assert str(refused).startswith("State is not supported. (Operator 'CepOperator': ")
    assert "CepRuntimeContext, which offers no keyed state" in str(refused)
    assert run.printed() == []


class AccumulatingSelect:
    """Tries to count matches in an accumulator from a rich select function."""

    def open(self, runtime_context: Any) -> None:
        self.ctx = runtime_context

    def select(self, match: dict[str, list]) -> tuple:
        self.ctx.add_accumulator("matches", 1)
        return pair(match)


class StatefulSelectOpen:
    """Asks for list state when it is opened."""

    def open(self, runtime_context: Any) -> None:
        self.seen = runtime_context.get_list_state(ListStateDescriptor("seen"))

    def select(self, match: dict[str, list]) -> tuple:
        return pair(match)


@pytest.mark.parametrize(
    ("function", "message"),
    [
        (AccumulatingSelect(), "Accumulators are not supported."),
        (StatefulSelectOpen(), "State is not supported."),
    ],
)
def test_a_rich_select_function_using_accumulators_or_state_fails_the_job(
    function: Any, message: str
) -> None:
    env = environment(1)
    keyed = _stream(env).key_by(lambda e: e[0])
    pattern = Pattern.begin("first").where(lambda e: e[2] > 70).next("second")
    CEP.pattern(keyed, pattern.where(lambda e: e[2] > 70).within(25)).select(function).print()
    run = MiniCluster(echo_print=False, seed=1).submit(env.get_job_graph())
    run.run()
    assert run.job_status is JobStatus.FAILED
    refused = [c for c in _failure_chain(run) if isinstance(c, UnsupportedOperationException)]
    assert refused and str(refused[0]).startswith(f"{message} (Operator 'CepOperator': ")
    assert run.failure_cause.failed_operator == "CepOperator"
    assert "failed operator 'CepOperator'" in run.failure_traceback
    assert run.printed() == []


# ---- Spark hosts the same operator ------------------------------------------------------------
@pytest.mark.spark
def test_on_spark_cep_functions_get_task_info_and_state_is_refused(spark: Any, capsys) -> None:  # noqa: ANN001
    from pyflowkit.spark.executor import execute

    env = environment(2, local=False)
    pattern = Pattern.begin("first").where(lambda e: e[2] > 70).next("second")
    pattern = pattern.where(lambda e: e[2] > 70).within(25)
    CEP.pattern(_stream(env).key_by(lambda e: e[0]), pattern).select(TaggedSelect()).print()
    graph = env.get_job_graph()
    spark_lines = execute(graph, spark=spark, print_output=False).print_lines
    run = MiniCluster(echo_print=False, seed=0).submit(graph)
    run.run()
    assert Counter(spark_lines) == Counter(run.printed())
    assert all(eval(body)[3] == int(p) - 1 for p, body in (s.split("> ", 1) for s in spark_lines))  # noqa: S307
    assert Counter(eval(s)[:3] for s in strip(spark_lines)) == expected_pairs()  # noqa: S307

    env = environment(1, local=False)
    keyed = _stream(env).key_by(lambda e: e[0])
    pattern = Pattern.begin("first").where(lambda e: e[2] > 70).next("second")
    CEP.pattern(keyed, pattern.where(CountingCondition())).select(pair).print()
    with pytest.raises(Exception) as info:  # noqa: PT011 - Spark's wrapper of the job failure
        execute(env.get_job_graph(), spark=spark, print_output=False)
    capsys.readouterr()
    assert "State is not supported. (Operator 'CepOperator': " in str(info.value)
