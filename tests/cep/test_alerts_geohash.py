"""The reference job AlertsGeoHashRepSubJob: Java arithmetic, the seeded generator, the graph as
written, and the same ALARMs on the simulated cluster (bounded and endless), the reference driver
and in plain Python."""

from __future__ import annotations

import itertools

import pytest

from pyflowkit.cep.partial_matches import partial_matches
from pyflowkit.common import Configuration
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.examples import alerts_geohash as job
from pyflowkit.examples.alerts_geohash import GeoHashEvent, JavaRandom, java_int, java_int_div
from pyflowkit.reference.local_driver import run_local
from pyflowkit.runtime import JobStatus, MiniCluster


def local_env() -> StreamExecutionEnvironment:
    conf = Configuration()
    conf.set_string("execution.target", "local")
    return StreamExecutionEnvironment.get_execution_environment(conf)


def test_java_random_matches_java() -> None:
    """``new Random(42).nextGaussian()`` in Java is 1.1419053154730547 (then -0.9265...)."""
    rng = JavaRandom(42)
    assert rng.next_gaussian() == pytest.approx(1.1419053154730547, abs=1e-15)
    assert JavaRandom(42).next_double() == pytest.approx(0.7275636800328681, abs=1e-15)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [(151, 167, 0), (15000, 200, 75), (-15001, 200, -75), (7, -2, -3), (-7, -2, 3)],
)
def test_java_int_division_truncates_toward_zero(a: int, b: int, expected: int) -> None:
    assert java_int_div(a, b) == expected


def test_java_int_multiplication_wraps() -> None:
    assert java_int(2**31) == -(2**31)
    assert java_int(30_000_000 * 100) == 3_000_000_000 - 2**32
    # a wrapped product is negative, so not a surge
    assert not job.is_surge(GeoHashEvent("g", 10, 30_000_000))


def test_surge_condition_uses_int_percent() -> None:
    """70.9 % truncates to 70, which is not > 70; 71 % is."""
    assert not job.is_surge(GeoHashEvent("g", 1000, 709))
    assert job.is_surge(GeoHashEvent("g", 1000, 710))


def test_generator_is_seeded_and_has_the_story_parameters() -> None:
    events = list(job.generate(200))
    assert events == list(job.generate(200))
    assert {e.geohash for e in events} == {job.GEOHASHES[0]}  # 1 zone
    mean = sum(e.total_gprs_events for e in events) / len(events)
    assert 150 < mean < 210  # mean 180, std 100 (clamped at 1)
    assert (job.PAUSE_MS, job.EVENTS_STD, job.EVENTS_MEAN, job.ZONES) == (1000, 100, 180, 1)


def test_graph_as_written() -> None:
    env = local_env()
    job.build(env)
    graph = env.get_job_graph(job.JOB_NAME)
    assert [(v.name, v.parallelism) for v in graph.vertices] == [
        ("Source: Custom Source", 1),
        ("Window(GlobalWindows(), CountTrigger, CountEvictor, GprsDelta)", 1),
        ("CepOperator -> Sink: Print to Std. Out", 1),
    ]
    (cep,) = [n for n in graph.stream_graph.nodes.values() if n.operator_name == "CepOperator"]
    params = cep.operator_factory.params
    assert params["is_processing_time"] is True  # Flink 1.11's default time characteristic
    assert params["pattern"].window_time == 15 * 60 * 1000


def test_alarms_on_cluster_and_driver_match_plain_python() -> None:
    env = local_env()
    job.build(env)
    graph = env.get_job_graph(job.JOB_NAME)
    run = MiniCluster(echo_print=False, seed=7).submit(graph)
    run.run()
    assert run.job_status is JobStatus.FINISHED
    assert (
        sorted(run.printed()) == sorted(job.expected_output()) == sorted(run_local(graph).printed)
    )
    assert len(job.expected_output()) == 2


def test_endless_generator_keeps_running_and_partial_matches_are_visible() -> None:
    """``max_events=None``: the job never ends on the simulated cluster; stepping it shows the
    NFA's partial match (a surge waiting for a second one) before the ALARM fires."""
    env = local_env()
    job.build(env, max_events=None)
    graph = env.get_job_graph(job.JOB_NAME)
    run = MiniCluster(echo_print=False, seed=7).submit(graph)
    vertex = graph.vertices[-1].name
    seen_waiting = None
    for _ in itertools.count():
        run.step()
        if run.job_status is JobStatus.RUNNING and seen_waiting is None:
            chain_state = _cep_state(run, vertex)
            rows = partial_matches(chain_state)
            if rows:
                seen_waiting = rows[0]
        if len(run.printed()) >= 3:
            break
    assert run.job_status is JobStatus.RUNNING
    assert seen_waiting is not None and seen_waiting["waiting_in"] == "second"
    (first,) = seen_waiting["events"]["first"]
    assert job.is_surge(first)
    assert run.printed()[:2] == job.expected_output()
    assert run.printed()[0].startswith(f"ALARM> ({first!r}, ")


def _cep_state(run, vertex: str) -> dict:  # noqa: ANN001
    try:
        return run.keyed_state(vertex, 0).get("CepOperator", {})
    except Exception:  # noqa: BLE001 - not deployed yet
        return {}
