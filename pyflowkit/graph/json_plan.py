"""Flink 1.11's JSON plans: ``env.getExecutionPlan()`` and the REST ``/jobs/:id/plan`` object.

``stream_graph_to_execution_plan`` stands for ``JSONGenerator`` (pretty-printed like Jackson);
``job_graph_to_plan_json`` stands for ``JsonPlanGenerator.generatePlan`` (compact).
"""

from __future__ import annotations

import json
from html.entities import codepoint2name
from typing import Any

from pyflowkit.graph.job_graph import JobGraph
from pyflowkit.graph.stream_graph import StreamGraph


# -- StreamGraph: JSONGenerator ----------------------------------------------------------------
def stream_graph_to_plan(stream_graph: StreamGraph) -> dict[str, Any]:
    """The ``getExecutionPlan`` object: non-sinks by id, then sinks by id; virtual ids never."""
    sources, sinks = set(stream_graph.sources), set(stream_graph.sinks)
    order = sorted(stream_graph.nodes, key=lambda node_id: (node_id in sinks, node_id))
    nodes = []
    for node_id in order:
        node = stream_graph.nodes[node_id]
        if node_id in sources:
            pact = "Data Source"
        elif node_id in sinks:
            pact = "Data Sink"
        else:
            pact = "Operator"
        entry: dict[str, Any] = {
            "id": node_id,
            "type": node.operator_name,
            "pact": pact,
            "contents": node.operator_name,
            "parallelism": node.parallelism,
        }
        if node_id not in sources:
            # JSONGenerator computes `side` after appending the entry: always "second".
            entry["predecessors"] = [
                {"id": e.source.id, "ship_strategy": str(e.partitioner), "side": "second"}
                for e in node.in_edges
            ]
        nodes.append(entry)
    return {"nodes": nodes}


def stream_graph_to_execution_plan(stream_graph: StreamGraph) -> str:
    """``StreamExecutionEnvironment.getExecutionPlan()``: Jackson's ``toPrettyString`` layout."""
    return jackson_pretty(stream_graph_to_plan(stream_graph))


def jackson_pretty(value: Any, indent: int = 0) -> str:
    """Jackson's ``DefaultPrettyPrinter``: ``"key" : value``, arrays as ``[ a, b ]``."""
    if isinstance(value, dict):
        if not value:
            return "{ }"
        pad = "  " * (indent + 1)
        items = [
            f"{pad}{json.dumps(k, ensure_ascii=False)} : {jackson_pretty(v, indent + 1)}"
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    if isinstance(value, list):
        if not value:
            return "[ ]"
        return "[ " + ", ".join(jackson_pretty(v, indent) for v in value) + " ]"
    return json.dumps(value, ensure_ascii=False)


# -- JobGraph: JsonPlanGenerator ---------------------------------------------------------------
def escape_html4(text: str) -> str:
    """Commons-text ``StringEscapeUtils.escapeHtml4`` (``&<>"`` and HTML 4 named entities)."""
    out = []
    for ch in text:
        if ch == "&":
            out.append("&amp;")
        elif ch == "<":
            out.append("&lt;")
        elif ch == ">":
            out.append("&gt;")
        elif ch == '"':
            out.append("&quot;")
        elif ord(ch) > 127 and ord(ch) in codepoint2name:
            out.append(f"&{codepoint2name[ord(ch)]};")
        else:
            out.append(ch)
    return "".join(out)


def _description(name: str) -> str:
    return escape_html4(name).replace("\n", "<br/>").replace("\\", "&#92;")


def job_graph_to_plan(job_graph: JobGraph) -> dict[str, Any]:
    """The REST plan object: ``jid``, ``name``, ``nodes`` in JobGraph insertion order."""
    nodes = []
    for vertex in job_graph.vertices_in_flink_order:
        entry: dict[str, Any] = {
            "id": vertex.id,
            "parallelism": vertex.parallelism,
            "operator": "",
            "operator_strategy": "",
            "description": _description(vertex.name),
        }
        if vertex.inputs:
            entry["inputs"] = [
                {
                    "num": num,
                    "id": edge.source.id,
                    "ship_strategy": edge.ship_strategy.name,
                    "exchange": edge.result_partition_type.name.lower(),
                }
                for num, edge in enumerate(vertex.inputs)
            ]
        entry["optimizer_properties"] = {}
        nodes.append(entry)
    return {"jid": job_graph.job_id, "name": job_graph.job_name, "nodes": nodes}


def job_graph_to_plan_json(job_graph: JobGraph) -> str:
    """``JsonPlanGenerator.generatePlan``: compact JSON as the REST API returns it."""
    return json.dumps(job_graph_to_plan(job_graph), ensure_ascii=False, separators=(",", ":"))
