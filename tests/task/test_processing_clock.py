"""The processing-clock rule both hosts share (``pyflowkit.task.processing_clock``)."""

from __future__ import annotations

from pyflowkit.task.processing_clock import STEP_MILLIS, ProcessingClock, step_millis


def test_a_read_step_costs_its_records_or_the_real_wait_whichever_is_longer() -> None:
    assert STEP_MILLIS == 1
    assert step_millis(4) == 1  # a fast step: one mailbox step's millisecond
    assert step_millis(4, record_cost_ms=2.5) == 10  # --record-cost: records x cost
    assert step_millis(3, record_cost_ms=0.1) == 1  # ceil(0.3), at least one step
    assert step_millis(8, waited_ms=50.2) == 51  # a generator that slept 50 ms really
    assert step_millis(8, record_cost_ms=10, waited_ms=50.2) == 80


def test_a_source_clock_passes_by_steps_pauses_and_waits_never_by_host_gaps() -> None:
    clock = ProcessingClock(1_000)
    assert clock.step(2, waited_ms=0.02) == 1_001  # two records read fast
    assert clock.step(2, waited_ms=0.02, pause_ms=100) == 1_102  # then ctx.sleep(100)
    # a step that read nothing costs only the real time it took (fractions add up)
    for _ in range(10):
        clock.step(0, waited_ms=0.25)
    assert clock.now == 1_104
    assert clock.waited(30.5) == 1_135  # nothing to read for 30.5 ms of real time
    assert clock.waited(-5) == 1_135  # a clock never goes back


def test_a_consumer_clock_follows_its_producers_in_band_and_never_goes_back() -> None:
    clock = ProcessingClock(500)
    assert clock.advance_to(700) == 700
    assert clock.advance_to(650) == 700  # a slower producer's older time
    assert clock.waited(20) == 720  # no input for 20 ms
