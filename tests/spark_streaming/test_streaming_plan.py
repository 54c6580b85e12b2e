"""Which Spark ``TimeMode`` each vertex's transformWithState gets: ProcessingTime only where an
operator may use processing time (Spark then runs a micro-batch per trigger for its timers)."""

from __future__ import annotations

import pytest

from pyflowkit.spark.streaming_plan import NO_TIMERS, PROCESSING_TIME, time_mode
from tests.pipelines.catalog import BY_NAME, build_env


@pytest.mark.parametrize(
    ("name", "modes"),
    [
        ("keyed_reduce_p2", [NO_TIMERS]),
        ("tumbling_event_time_reduce_out_of_order_p2", [NO_TIMERS, NO_TIMERS]),
        ("count_window_3_2_sliding_evictor", [NO_TIMERS]),
        ("keyed_process_processing_time_timer_far_future", [PROCESSING_TIME]),
        ("connect_keyed_co_process_p2", [PROCESSING_TIME]),
    ],
)
def test_time_mode_per_vertex(name: str, modes: list[str]) -> None:
    graph = build_env(BY_NAME[name]).get_job_graph()
    settings = graph.stream_graph.execution_config
    got = [time_mode(v, settings) for v in graph.vertices if v.inputs]
    assert got == modes
