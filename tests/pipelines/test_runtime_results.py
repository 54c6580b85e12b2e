"""Every catalog pipeline on the simulated MiniCluster equals its ``expected()``: fast mode for all,
step mode for a subset (same records per sink subtask as fast mode); print lines byte-exact."""

from __future__ import annotations

from collections import Counter

import pytest

from pyflowkit.runtime import JobStatus, MiniCluster
from tests.pipelines.catalog import BY_NAME, build_env, cases
from tests.pipelines.known_bugs import params
from tests.pipelines.spec import BATCH, STREAMING, assert_results, split_lines

# The catalog's expected() follows the profile the test runs under (key routing, Row text, count
# windows); these tests study 1.11's runtime (§1.5 prefixes, §9's windows, ProcessingTime
# defaults), one runs the streaming catalog under 1.20, and tests/goldens compares the same
# pipelines under 1.20 with what real PyFlink 1.20.3 printed.
pytestmark = pytest.mark.flink_version("1.11")

STEP_SUBSET = [
    "map_filter_chain",
    "keyed_reduce_p2",
    "count_window_2_1_sum_reference_run",
    "tumbling_allowed_lateness_late_side_output",
    "keyed_process_value_list_map_state_event_timers_p2",
    "connect_keyed_co_process_p2",
    "union_three_sources",
    "partition_rescale_p2_to_p4",
    "partition_broadcast_p3",
    "process_side_outputs_two_tags",
]


def run_fast(pipeline, mode: str, seed: int = 0) -> list[str]:
    run = MiniCluster(seed=seed, echo_print=False).submit(build_env(pipeline, mode)).run()
    run.raise_if_failed()
    assert run.job_status is JobStatus.FINISHED
    return run.printed()


def run_steps(pipeline, mode: str, seed: int = 0) -> list[str]:
    run = MiniCluster(seed=seed, echo_print=False).submit(build_env(pipeline, mode))
    steps = 0
    while run.has_next():
        run.step()
        steps += 1
        assert steps < 200_000, "step mode did not finish"
    run.raise_if_failed()
    assert run.job_status is JobStatus.FINISHED
    return run.printed()


@pytest.mark.parametrize(("pipeline", "mode"), params("runtime", cases((STREAMING,))))
def test_fast_mode_streaming(pipeline, mode) -> None:
    assert_results(pipeline, mode, run_fast(pipeline, mode))


@pytest.mark.flink_version("1.20")  # users' default: expected() follows the active profile
@pytest.mark.parametrize(("pipeline", "mode"), params("runtime", cases((STREAMING,))))
def test_fast_mode_streaming_under_1_20(pipeline, mode) -> None:
    """Under 1.20 keys land where PyFlink's ``key_by`` puts them, Rows print ``+I[…]`` and
    ``count_window(size, slide)`` is ``CountSlidingWindowAssigner``: the catalog's expectations
    follow the profile the test runs under, placement checks included."""
    assert_results(pipeline, mode, run_fast(pipeline, mode))


@pytest.mark.parametrize(("pipeline", "mode"), params("runtime", cases((BATCH,))))
def test_fast_mode_batch(pipeline, mode) -> None:
    assert_results(pipeline, mode, run_fast(pipeline, mode))


@pytest.mark.parametrize(
    ("pipeline", "mode"), params("runtime-step", [(BY_NAME[n], STREAMING) for n in STEP_SUBSET])
)
def test_step_mode_equals_fast_mode(pipeline, mode) -> None:
    stepped = run_steps(pipeline, mode)
    assert_results(pipeline, mode, stepped)
    sinks = pipeline.expected(mode)

    def per_subtask(lines: list[str]) -> dict:
        return {
            (sink, k): Counter(bodies)
            for sink, subs in split_lines(lines, sinks).items()
            for k, bodies in subs.items()
        }

    assert per_subtask(stepped) == per_subtask(run_fast(pipeline, mode))


def test_fast_mode_is_deterministic_per_seed() -> None:
    pipeline = BY_NAME["partition_shuffle_p3"]
    assert run_fast(pipeline, STREAMING, seed=3) == run_fast(pipeline, STREAMING, seed=3)


def test_print_lines_byte_equal_flink_format_p1() -> None:
    assert run_fast(BY_NAME["print_no_identifier_p1"], STREAMING) == ["(a,1)", "(b,2)"]


def test_print_lines_byte_equal_flink_format_p2() -> None:
    lines = run_fast(BY_NAME["print_no_identifier_p2_keyed_prefixes"], STREAMING)
    # reference §1.5 demo: key "a" printed with prefix 2>, "b" with 1>
    assert [x for x in lines if x.startswith("2> ")] == ["2> (a,1)", "2> (a,3)"]
    assert [x for x in lines if x.startswith("1> ")] == ["1> (b,2)"]
    assert len(lines) == 3


def test_print_lines_byte_equal_with_identifier() -> None:
    lines = run_fast(BY_NAME["count_window_2_1_sum_reference_run"], STREAMING)
    assert [x for x in lines if x.startswith("cw:2> ")] == [
        "cw:2> (a,0)",
        "cw:2> (a,2)",
        "cw:2> (a,6)",
        "cw:2> (a,10)",
    ]
    assert [x for x in lines if x.startswith("cw:1> ")] == [
        "cw:1> (b,1)",
        "cw:1> (b,4)",
        "cw:1> (b,8)",
    ]
    single = run_fast(BY_NAME["map_filter_chain"], STREAMING)
    assert single[:3] == ["out> 10", "out> 20", "out> 40"]


def test_untyped_stream_prints_python_str() -> None:
    lines = run_fast(BY_NAME["flat_map_untyped_pickled"], STREAMING)
    assert lines[:2] == ["words> ('to', 2)", "words> ('be', 2)"]
