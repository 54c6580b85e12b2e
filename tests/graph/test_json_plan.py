"""Flink 1.11 JSON plans: getExecutionPlan (JSONGenerator) and REST /jobs/:id/plan."""

from __future__ import annotations

import json

from pyflowkit.graph.json_plan import (
    escape_html4,
    jackson_pretty,
    stream_graph_to_execution_plan,
)
from pyflowkit.graph.streaming_job_graph_generator import create_job_graph

from .builders import collection_source, keyed_reduce, map_, print_sink, stream_graph


def worked_example():
    src = collection_source()
    m = map_(src)
    red = keyed_reduce(m)
    sink = print_sink(red)
    return src, m, red, sink, stream_graph([sink])


def test_execution_plan_matches_reference_shape() -> None:
    src, m, red, sink, sg = worked_example()
    plan = json.loads(stream_graph_to_execution_plan(sg))
    assert plan == {
        "nodes": [
            {
                "id": src.id,
                "type": "Source: Collection Source",
                "pact": "Data Source",
                "contents": "Source: Collection Source",
                "parallelism": 1,
            },
            {
                "id": m.id,
                "type": "Map",
                "pact": "Operator",
                "contents": "Map",
                "parallelism": 2,
                "predecessors": [{"id": src.id, "ship_strategy": "REBALANCE", "side": "second"}],
            },
            {
                "id": red.id,
                "type": "Keyed Reduce",
                "pact": "Operator",
                "contents": "Keyed Reduce",
                "parallelism": 2,
                "predecessors": [{"id": m.id, "ship_strategy": "HASH", "side": "second"}],
            },
            {
                "id": sink.id,
                "type": "Sink: Print to Std. Out",
                "pact": "Data Sink",
                "contents": "Sink: Print to Std. Out",
                "parallelism": 2,
                "predecessors": [{"id": red.id, "ship_strategy": "FORWARD", "side": "second"}],
            },
        ]
    }
    assert red.input.id not in [n["id"] for n in plan["nodes"]]  # virtual keyBy id


def test_execution_plan_is_jackson_pretty_printed() -> None:
    src, *_, sg = worked_example()
    text = stream_graph_to_execution_plan(sg)
    assert text.startswith('{\n  "nodes" : [ {\n    "id" : ' + str(src.id) + ",\n")
    assert '"predecessors" : [ {\n' in text
    assert text.endswith("} ]\n}")
    assert jackson_pretty({"a": [], "b": {}}) == '{\n  "a" : [ ],\n  "b" : { }\n}'


def test_sinks_come_last_and_side_is_always_second() -> None:
    src = collection_source()
    early_sink = print_sink(src)
    a, b = map_(src, parallelism=1), map_(src, parallelism=1)
    late = map_(a, parallelism=1)
    sg = stream_graph([early_sink, a, b, late])
    nodes = json.loads(stream_graph_to_execution_plan(sg))["nodes"]
    assert [n["id"] for n in nodes] == [src.id, a.id, b.id, late.id, early_sink.id]
    sides = {p["side"] for n in nodes for p in n.get("predecessors", [])}
    assert sides == {"second"}


def test_rest_plan_sinks_first_escaped_arrows() -> None:
    *_, sg = worked_example()
    jg = create_job_graph(sg, "c" * 32)
    plan = json.loads(jg.to_plan_json())
    assert list(plan) == ["jid", "name", "nodes"]
    assert plan["jid"] == "c" * 32 and plan["name"] == "Flink Streaming Job"
    first, second, third = plan["nodes"]
    assert first == {
        "id": "e70bbd798b564e0a50e10e343f1ac56b",
        "parallelism": 2,
        "operator": "",
        "operator_strategy": "",
        "description": "Keyed Reduce -&gt; Sink: Print to Std. Out",
        "inputs": [
            {
                "num": 0,
                "id": "0a448493b4782967b150582570326227",
                "ship_strategy": "HASH",
                "exchange": "pipelined_bounded",
            }
        ],
        "optimizer_properties": {},
    }
    assert second["description"] == "Map"
    assert second["inputs"][0]["ship_strategy"] == "REBALANCE"
    assert "inputs" not in third and third["description"] == "Source: Collection Source"
    assert list(third) == [
        "id",
        "parallelism",
        "operator",
        "operator_strategy",
        "description",
        "optimizer_properties",
    ]
    assert jg.to_plan_json().startswith('{"jid":"' + "c" * 32 + '","name":"Flink Streaming Job"')


def test_html4_escaping_of_descriptions() -> None:
    assert escape_html4('a -> "b" & <c> é') == "a -&gt; &quot;b&quot; &amp; &lt;c&gt; &eacute;"
    assert escape_html4("it's ✓") == "it's ✓"
