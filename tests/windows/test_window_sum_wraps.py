"""A windowed ``sum`` on a declared Java integer field wraps on overflow as Flink's ``SumFunction``
does (``WindowedStream.sum`` reduces with the same ``SumAggregator`` as ``KeyedStream.sum``)."""

from __future__ import annotations

from pyflowkit.common import Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.reference.local_driver import run_local
from pyflowkit.runtime import JobStatus, MiniCluster

INT_MAX = 2**31 - 1
LONG_MAX = 2**63 - 1
ROWS = [("a", INT_MAX, LONG_MAX, 1.5), ("a", 5, 2, 2.0)]
TYPE = Types.TUPLE([Types.STRING(), Types.INT(), Types.LONG(), Types.DOUBLE()])


def _env() -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    return env


def _printed(env: StreamExecutionEnvironment) -> list[str]:
    graph = env.get_job_graph()
    run = MiniCluster(echo_print=False).submit(graph)
    run.run()
    assert run.job_status is JobStatus.FINISHED, run.failure_traceback
    assert sorted(run.printed()) == sorted(run_local(graph).printed)  # both hosts alike
    return run.printed()


def test_count_window_sum_wraps_int_and_long_fields() -> None:
    env = _env()
    windowed = env.from_collection(ROWS, type_info=TYPE).key_by(lambda r: r[0]).count_window(2)
    windowed.sum(1).print()
    windowed.sum(2).print()
    assert sorted(_printed(env)) == sorted(
        [f"(a,{-(2**31) + 4},{LONG_MAX},1.5)", f"(a,{INT_MAX},{-(2**63) + 1},1.5)"]
    )


def test_window_all_sum_wraps_and_a_double_field_does_not() -> None:
    env = _env()
    windowed = env.from_collection(ROWS, type_info=TYPE).count_window_all(2)
    windowed.sum(1).print()
    windowed.sum(3).print()
    assert sorted(_printed(env)) == sorted(
        [f"(a,{-(2**31) + 4},{LONG_MAX},1.5)", f"(a,{INT_MAX},{LONG_MAX},3.5)"]
    )


def test_undeclared_records_keep_python_ints() -> None:
    """Without a declared type the records travel pickled: nothing says the field is a Java int."""
    env = _env()
    env.from_collection([("a", INT_MAX), ("a", 5)]).key_by(lambda r: r[0]).count_window(2).sum(
        1
    ).print()
    assert _printed(env) == [f"('a', {INT_MAX + 5})"]
