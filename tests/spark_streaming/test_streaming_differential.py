"""Every catalog pipeline with keyed or event-time semantics (25 of them), fed to Spark as a
stream in micro-batches of a few records (run to the end with ``availableNow``), gives the
simulated cluster's results: the catalog's expected records under their order guarantee
(multiset, per key, per subtask) and the same records on the same sink subtasks as the
MiniCluster. The whole set takes 2-3 minutes on 2 shared cores (about 5 s a pipeline)."""

from __future__ import annotations

import pytest

from tests.pipelines.catalog import BY_NAME, CATALOG
from tests.pipelines.spec import STREAMING, assert_results
from tests.pipelines.test_spark_results import deterministic_placement, placement, run_simulator
from tests.spark_streaming.helpers import RECORDS_PER_BATCH, run_streaming, streaming_env

pytestmark = pytest.mark.spark


def _keyed_or_event_time(pipeline) -> bool:
    if STREAMING not in pipeline.modes:
        return False
    graph = streaming_env(pipeline).get_job_graph()
    nodes = [n for v in graph.vertices for n in v.stream_nodes]
    keyed = any(
        n.state_key_selector is not None or n.state_key_selector1 is not None for n in nodes
    )
    timed = any(
        "Timestamps" in n.operator_factory.operator_class
        or "Window" in n.operator_factory.operator_class
        for n in nodes
    )
    return keyed or timed


STREAMED = [p for p in CATALOG if _keyed_or_event_time(p)]
assert len(STREAMED) >= 25, "the catalog lost keyed or event-time pipelines"


@pytest.mark.parametrize("pipeline", STREAMED, ids=lambda p: p.name)
def test_streamed_pipeline_equals_the_simulated_cluster(spark, pipeline) -> None:
    env = streaming_env(pipeline)
    largest = max(
        len(n.operator_factory.params.get("elements") or ())
        for v in env.get_job_graph().vertices
        if not v.inputs
        for n in v.stream_nodes
    )
    job = run_streaming(spark, env)
    job.raise_if_failed()
    assert job.status == "FINISHED"
    if largest > RECORDS_PER_BATCH:
        assert job.batches >= 2, "the input was not split into several micro-batches"
    assert_results(pipeline, STREAMING, job.print_lines)
    if deterministic_placement(pipeline, STREAMING):
        assert placement(pipeline, STREAMING, job.print_lines) == placement(
            pipeline, STREAMING, run_simulator(pipeline, STREAMING)
        )


def test_keyed_state_read_back_with_sparks_state_reader(spark, tmp_path) -> None:
    """The keyed reduce's state after the stream, read from the checkpoint with Spark's state
    data source, in ``keyed_state_at``'s shape: each key's final reduced value."""
    from tests.pipelines.catalog import WORD_PAIRS, _add, finals

    # a configured checkpoint directory outlives the job (a temporary one is deleted at its end)
    env = streaming_env(BY_NAME["keyed_reduce_p2"], **{"state.checkpoints.dir": str(tmp_path)})
    job = run_streaming(spark, env)
    job.raise_if_failed()
    state = job.keyed_state(1)
    assert list(state) == [job.job_graph.vertices[1].stream_nodes[0].operator_name]
    (values,) = state[list(state)[0]].values()
    assert values == {v[0]: v for v in finals(WORD_PAIRS, _add)}


@pytest.mark.parametrize(
    "golden_id",
    [
        "program__keyed_state_map__STREAMING",  # issue #22's pattern: ValueState in a keyed map
        "program__key_type_int_float_keys__STREAMING",  # key_type=INT truncates float keys
    ],
)
def test_streamed_golden_program_equals_real_pyflink(spark, golden_id: str) -> None:
    """What real PyFlink 1.20.3 printed, streamed on Spark in micro-batches of a few records."""
    from pyflowkit.common import Configuration
    from pyflowkit.datastream import StreamExecutionEnvironment
    from tests.goldens.test_pyflink_goldens import GOLDEN_LIST, assert_matches, entry_of

    golden = next(g for g in GOLDEN_LIST if g["id"] == golden_id)
    settings = {
        "pyflowkit.flink-version": "1.20",
        "pyflowkit.spark.streaming-query": "always",
        "pyflowkit.spark.streaming.trigger": "available-now",
        "pyflowkit.spark.streaming.max-records-per-batch": "2",
    }
    configuration = Configuration()
    for key, value in settings.items():
        configuration.set_string(key, value)
    env = StreamExecutionEnvironment.get_execution_environment(configuration)
    entry_of(golden)(env)
    job = run_streaming(spark, env)
    job.raise_if_failed()
    assert job.batches >= 2, "the input was not split into several micro-batches"
    assert_matches(golden, job.print_lines)
