"""Fast mode raises CPython's young-generation GC threshold for the run only, then restores it."""

from __future__ import annotations

import gc

import pytest

from pyflowkit.operators.gc_tuning import raised_gc_thresholds
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.runtime.job_run import FAST_MODE_GEN0_THRESHOLD
from tests.runtime.fake_chain import demo_job, fake_chain_factory


@pytest.fixture
def thresholds():
    old = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*old)


def test_threshold_raised_inside_and_restored_after(thresholds) -> None:
    with raised_gc_thresholds(FAST_MODE_GEN0_THRESHOLD):
        assert gc.get_threshold() == (FAST_MODE_GEN0_THRESHOLD, 10, 10)
    assert gc.get_threshold() == (700, 10, 10)


def test_restored_after_an_error(thresholds) -> None:
    with pytest.raises(RuntimeError, match="boom"), raised_gc_thresholds(5000):
        assert gc.get_threshold() == (5000, 10, 10)
        raise RuntimeError("boom")
    assert gc.get_threshold() == (700, 10, 10)


def test_never_lowered_and_zero_left_alone(thresholds) -> None:
    gc.set_threshold(100_000, 10, 10)
    with raised_gc_thresholds(FAST_MODE_GEN0_THRESHOLD):
        assert gc.get_threshold() == (100_000, 10, 10)
    gc.set_threshold(0, 10, 10)
    with raised_gc_thresholds(FAST_MODE_GEN0_THRESHOLD):
        assert gc.get_threshold() == (0, 10, 10)
    assert gc.get_threshold() == (0, 10, 10)


def test_bad_threshold() -> None:
    with (
        pytest.raises(ValueError, match="threshold0 must be positive, got 0"),
        raised_gc_thresholds(0),
    ):
        pass


def test_fast_run_raises_threshold_while_stepping_and_restores_it(thresholds) -> None:
    seen: list[tuple[int, int, int]] = []
    run = MiniCluster(chain_factory=fake_chain_factory, echo_print=False).submit(demo_job(30))
    deliver = run._deliver  # what every step of run() calls

    def spy(ev):
        seen.append(gc.get_threshold())
        return deliver(ev)

    run._deliver = spy  # type: ignore[method-assign]
    run.run()
    assert run.job_status is JobStatus.FINISHED
    assert seen and set(seen) == {(FAST_MODE_GEN0_THRESHOLD, 10, 10)}
    assert gc.get_threshold() == (700, 10, 10)


def test_fast_run_trace_unchanged_by_gc_threshold(thresholds) -> None:
    def trace(gen0: int) -> str:
        gc.set_threshold(gen0, 10, 10)
        run = MiniCluster(seed=2, chain_factory=fake_chain_factory, echo_print=False)
        return run.submit(demo_job(30)).run().trace_json()

    assert trace(700) == trace(FAST_MODE_GEN0_THRESHOLD)  # the second run is not raised further


def test_all_three_generations_raised_per_generation_and_restored(thresholds) -> None:
    gc.set_threshold(700, 80, 10)
    with raised_gc_thresholds(100_000, 50, 100):  # the Spark stage's thresholds
        assert gc.get_threshold() == (100_000, 80, 100)  # generation 1 is already higher
    assert gc.get_threshold() == (700, 80, 10)
    with pytest.raises(ValueError, match="give 1 to 3 thresholds, got 4"):
        with raised_gc_thresholds(1, 2, 3, 4):
            pass
