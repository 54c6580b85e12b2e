"""A source's pause (``ctx.sleep``) is simulated processing time on the MiniCluster: it moves the
clock the CEP operator's ``within`` and the checkpoint interval see; the reader skips pauses on a
restore (they are not records); the reference job's generator sleeps 1000 ms per event."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pyflowkit.cep import CEP, Pattern
from pyflowkit.common import Configuration, Time
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import SourceFunction
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.examples import alerts_geohash as job
from pyflowkit.operators.sources import SourceFunctionReader
from pyflowkit.runtime import JobStatus, MiniCluster


class Sleepy(SourceFunction):
    """Emits ``(key, level)`` records, sleeping ``pause`` ms after each one."""

    def __init__(self, records: list[tuple[str, int]], pause: int) -> None:
        self.records = records
        self.pause = pause

    def run(self, ctx: Any) -> Iterator[None]:
        for r in self.records:
            ctx.collect(r)
            ctx.sleep(self.pause)
            yield None


def run_pairs(pause: int, within: Any, processing_time: bool = True) -> tuple[list[str], int]:
    """Two consecutive high levels of a key within ``within`` (processing time, asked for with
    ``in_processing_time()``: since Flink 1.12 CEP follows the environment's EventTime default):
    the printed matches and the simulated clock at the end."""
    conf = Configuration()
    conf.set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(1)
    records = [("a", 90), ("a", 95), ("b", 10), ("a", 99)]
    high = Pattern.begin("first").where(lambda e: e[1] > 70)
    pattern = high.next("second").where(lambda e: e[1] > 70).within(within)
    stream = env.add_source(Sleepy(records, pause))
    t = stream.get_transformation()
    t.boundedness = type(t.boundedness).BOUNDED
    matches = CEP.pattern(stream.key_by(lambda e: e[0]), pattern)
    if processing_time:
        matches = matches.in_processing_time()
    matches.select(lambda m: f"{m['first'][0][1]}->{m['second'][0][1]}").print()
    run = MiniCluster(echo_print=False).submit(env)
    run.run()
    assert run.job_status is JobStatus.FINISHED, run.failure_traceback
    return sorted(run.printed()), run.bus.now


def test_pauses_within_the_window_keep_the_matches() -> None:
    printed, now = run_pairs(pause=1000, within=Time.seconds(5))
    assert printed == ["90->95", "95->99"]
    assert now >= 3 * 1000  # three pauses passed on the simulated clock


def test_a_pause_longer_than_within_times_out_the_partial_match() -> None:
    """The pause (2 s) passes between the events: ``within(1.5 s)`` prunes every partial match,
    as in the Java job where the source's Thread.sleep passes between the records."""
    printed, now = run_pairs(pause=2000, within=Time.milliseconds(1500))
    assert printed == []
    assert now >= 3 * 2000


@pytest.mark.flink_version("1.20")
def test_under_1_20_records_without_timestamps_are_late_for_event_time_cep() -> None:
    """A 1.11-style program (no ``in_processing_time()``) under 1.20: the environment is in
    EventTime (FLINK-19317), the CepOperator buffers a record only if its timestamp is above the
    current watermark; a record without a timestamp (Long.MIN_VALUE) is late and dropped."""
    printed, _ = run_pairs(pause=1000, within=Time.seconds(5), processing_time=False)
    assert printed == []


@pytest.mark.flink_version("1.11")
def test_under_1_11_the_environment_s_processing_time_matches() -> None:
    printed, _ = run_pairs(pause=1000, within=Time.seconds(5), processing_time=False)
    assert printed == ["90->95", "95->99"]


def test_without_pauses_the_clock_stays_short() -> None:
    printed, now = run_pairs(pause=0, within=Time.milliseconds(1500))
    assert printed == ["90->95", "95->99"]
    assert now < 1000


def test_reader_stops_a_batch_at_a_pause_and_restores_past_pauses() -> None:
    reader = SourceFunctionReader(Sleepy([("a", 1), ("b", 2), ("c", 3)], 500))
    assert [v for v, _ in reader.poll(10)] == [("a", 1)]
    assert reader.take_pause() == 500 and reader.take_pause() == 0
    assert [v for v, _ in reader.poll(10)] == [("b", 2)]
    assert reader.snapshot_position() == 2  # pauses have no position
    restored = SourceFunctionReader(Sleepy([("a", 1), ("b", 2), ("c", 3)], 500))
    restored.restore_position(2)
    assert [v for v, _ in restored.poll(10)] == [("c", 3)]
    assert restored.snapshot_position() == 3


def test_sleep_refuses_a_negative_pause() -> None:
    class Bad(SourceFunction):
        def run(self, ctx: Any) -> None:
            ctx.sleep(-1)

    with pytest.raises(IllegalArgumentException, match=r"SourceContext.sleep\(\) needs"):
        SourceFunctionReader(Bad()).poll(1)


def test_reference_generator_sleeps_its_pause_per_event() -> None:
    conf = Configuration()
    conf.set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    job.build(env, max_events=10)
    run = MiniCluster(echo_print=False).submit(env)
    run.run()
    assert run.job_status is JobStatus.FINISHED
    assert sorted(run.printed()) == sorted(job.expected_output(10))
    assert 9 * job.PAUSE_MS <= run.bus.now < 10 * job.PAUSE_MS + 1000
