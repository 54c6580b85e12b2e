"""The reference job AlertsGeoHashRepSubJob runs endless on Spark Structured Streaming for a few
micro-batches and is stopped at a batch boundary; its ALARMs equal the simulated cluster's run of
the same seeded generator bounded to exactly the events the Spark source had consumed (read from
the last committed source offset), and the plain-Python alarms of that prefix."""

from __future__ import annotations

import json
import time

import pytest

from pyflowkit.common import Configuration
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.examples import alerts_geohash as job
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.spark.streaming_plan import NO_TIMERS, PROCESSING_TIME, time_mode

# 134 events per micro-batch: ALARM #3 (events 267 → 268) has its first surge at the end of the
# 2nd batch and its second at the start of the 3rd, so the CEP partial match (and the count
# window's previous event) crosses a batch boundary in Spark's state store
EVENTS_PER_BATCH = 134
AT_LEAST = 640  # events consumed before stopping: alarms at events 5, 6, 269 and 631
TIMEOUT_S = 240


def _committed_events(query) -> int:  # noqa: ANN001
    """Events the generator subtask had read at the last committed micro-batch."""
    (source,) = query.lastProgress["sources"]
    end = source["endOffset"]
    end = json.loads(end) if isinstance(end, str) else end
    (subtask,) = end["subtasks"]
    assert not subtask["ended"], "the endless generator ended"
    return int(subtask["pos"])


def test_cep_needs_spark_timers_only_to_sort_in_processing_time() -> None:
    """The reference job's vertices run without Spark timers (CEP in processing time processes
    each event on arrival), so the stopped query goes idle at a batch boundary; a comparator makes
    processing-time CEP buffer until a timer."""
    env = StreamExecutionEnvironment.get_execution_environment()
    job.build(env, max_events=None)
    graph = env.get_job_graph(job.JOB_NAME)
    settings = graph.stream_graph.execution_config
    assert [time_mode(v, settings) for v in graph.vertices if v.inputs] == [NO_TIMERS] * 2

    from pyflowkit.cep import CEP

    sorted_env = StreamExecutionEnvironment.get_execution_environment()
    events = sorted_env.from_collection(list(job.generate(4)))
    keyed = events.key_by(lambda e: e.geohash)
    for comparator in (None, lambda a, b: 0):
        # in processing time as the reference job (a user's environment follows 1.20, whose CEP
        # is in event time unless asked: PatternStreamBuilder.forStreamAndPattern)
        matches = CEP.pattern(keyed, job.alarm_pattern(), comparator).in_processing_time()
        matches.select(job.to_alarm).print()
    graph = sorted_env.get_job_graph()
    modes = [time_mode(v, graph.stream_graph.execution_config) for v in graph.vertices]
    assert modes[-2:] == [NO_TIMERS, PROCESSING_TIME]


@pytest.mark.spark
def test_reference_job_endless_on_spark_alarms_equal_the_simulated_cluster(spark, tmp_path) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    conf = Configuration()
    conf.set_string("pyflowkit.spark.streaming.max-records-per-batch", str(EVENTS_PER_BATCH))
    env.configure(conf)
    env.enable_checkpointing(200)  # a micro-batch (and checkpoint) every 200 ms
    job.build(env, max_events=None)
    graph = env.get_job_graph(job.JOB_NAME)
    assert graph.vertices[0].stream_nodes[0].operator_name == "Source: Custom Source"

    client = env.execute_async(job.JOB_NAME, spark=spark)
    streaming = client.job
    deadline = time.monotonic() + TIMEOUT_S
    consumed = 0
    while time.monotonic() < deadline:
        assert streaming.poll(0.2) == "RUNNING", streaming.error
        progress = streaming.query.lastProgress
        if progress and progress.get("sources"):
            consumed = _committed_events(streaming.query)
            if consumed >= AT_LEAST:
                break
    assert consumed >= AT_LEAST, f"only {consumed} events in {TIMEOUT_S} s"
    assert client.get_job_status().result() is JobStatus.RUNNING  # endless: it would go on
    client.stop_with_savepoint(str(tmp_path / "savepoint")).result()
    assert client.get_job_status().result() is JobStatus.FINISHED
    streaming.raise_if_failed()
    consumed = _committed_events(streaming.query)
    assert streaming.batches >= consumed // EVENTS_PER_BATCH >= AT_LEAST // EVENTS_PER_BATCH
    spark_alarms = list(streaming.print_lines)

    local = StreamExecutionEnvironment.get_execution_environment()
    job.build(local, max_events=consumed)
    run = MiniCluster(echo_print=False, seed=7).submit(local.get_job_graph(job.JOB_NAME))
    run.run()
    assert run.job_status is JobStatus.FINISHED
    simulated = list(run.printed())

    assert len(simulated) >= 4
    assert spark_alarms == simulated == job.expected_output(consumed)
