"""A chain with several operators of one name says which of them failed (its place among them),
on the MiniCluster and in a Spark stage alike; a unique name is left as it is."""

from __future__ import annotations

import pyarrow as pa
import pytest

from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.operators.user_failure import FailedOperator, failed_in
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.spark.plan import effective_runtime_mode, stage_specs
from pyflowkit.spark.stage import stage_function

CHAIN = "Source: Collection Source -> Map -> Map -> Sink: Print to Std. Out"


def _env(fail_in_second: bool) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    first = (lambda x: 10 // x) if not fail_in_second else (lambda x: x)
    second = (lambda x: 10 // x) if fail_in_second else (lambda x: x)
    env.from_collection([1, 2, 0]).map(first).map(second).print()
    return env


@pytest.mark.parametrize(("second", "ordinal"), [(False, "1st"), (True, "2nd")])
def test_the_minicluster_names_the_failing_map_among_two(second: bool, ordinal: str) -> None:
    run = MiniCluster(echo_print=False).submit(_env(second))
    run.run()
    assert run.job_status is JobStatus.FAILED
    assert (
        f"The above exception failed operator 'Map' (the {ordinal} 'Map' in the chain) of "
        f"{CHAIN} (1/1) (attempt #0)"
    ) in run.failure_traceback


def test_a_spark_stage_names_the_failing_map_among_two() -> None:
    job = _env(True).get_job_graph()
    spec = stage_specs(job, job.stream_graph.execution_config, effective_runtime_mode(job))[0]
    batches = iter([pa.record_batch({"id": pa.array([0], pa.int64())})])
    with pytest.raises(RuntimeError) as failure:
        list(stage_function(spec)(batches))
    assert f"failed operator 'Map' (the 2nd 'Map' in the chain) of {CHAIN} (1/1)" in str(
        failure.value
    )


def test_a_unique_name_or_an_unknown_place_adds_nothing() -> None:
    assert failed_in("Source -> Map (1/2)", FailedOperator("Map", 1), 0) == (
        "operator 'Map' of Source -> Map (1/2) (attempt #0)"
    )
    assert failed_in(f"{CHAIN} (1/1)", "Map", 3) == f"operator 'Map' of {CHAIN} (1/1) (attempt #3)"
    assert failed_in(f"{CHAIN} (1/1)", FailedOperator("Map", 3), 0).startswith(
        "operator 'Map' of"  # index 3 is the sink, not a Map: no guess
    )
