"""Rendering graphs compiled by the real API: side outputs, POINTWISE wiring, ids across levels."""

from __future__ import annotations

import re

from pyflowkit.datastream import OutputTag, StreamExecutionEnvironment
from pyflowkit.datastream.functions import ProcessFunction

LATE = OutputTag("late")


class SplitLate(ProcessFunction):
    def process_element(self, value, ctx):
        yield (LATE, value) if value < 0 else value


def side_output_env() -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    main = env.from_collection([1, -2, 3]).rebalance().process(SplitLate())
    main.print()
    main.get_side_output(LATE).map(lambda v: -v).print()
    return env


def test_side_output_edge_is_labelled_with_its_tag():
    sg = side_output_env().get_stream_graph("side outputs")
    dot = sg.to_dot()
    process = next(n for n in sg.nodes.values() if n.operator_name == "Process")
    side_map = next(n for n in sg.nodes.values() if n.operator_name == "Map")
    edge = next(
        line for line in dot.splitlines() if f'"sn_{process.id}" -> "sn_{side_map.id}"' in line
    )
    assert 'label="FORWARD\\nside output: late"' in edge and "side-output" in edge


def test_pointwise_rescale_wiring_2_to_4():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.from_collection([1, 2]).map(lambda x: x).set_parallelism(2).rescale().map(
        lambda x: x
    ).set_parallelism(4).print().set_parallelism(4)
    eg = env.get_execution_graph("rescale")
    dot = eg.to_dot()
    first, second = (v.id for v in eg.job_vertices[1:3])
    edges = re.findall(r'"ev_(\w+)" -> "ev_(\w+)" \[id="ee_', dot)
    rescale = sorted((a, b) for a, b in edges if a.startswith(first))
    assert rescale == [  # Flink 1.11 connectPointwise, s=2 < t=4: consumer i reads i / 2
        (f"{first}_0", f"{second}_0"),
        (f"{first}_0", f"{second}_1"),
        (f"{first}_1", f"{second}_2"),
        (f"{first}_1", f"{second}_3"),
    ]
    assert 'label="RESCALE\\nPOINTWISE"' in dot


def test_ids_of_one_compilation_line_up_across_levels():
    jg = side_output_env().get_job_graph("side outputs")
    eg = jg.to_execution_graph()
    stream_ids = set(re.findall(r'id="(sn_\d+)"', jg.stream_graph.to_dot()))
    assert stream_ids == {f"sn_{n}" for n in jg.stream_graph.nodes}
    job_ids = re.findall(r'subgraph "cluster_jv_(\w+)"', jg.to_dot())
    exec_ids = re.findall(r'subgraph "cluster_ejv_(\w+)"', eg.to_dot())
    assert job_ids == exec_ids == [v.id for v in jg.vertices]
