"""IPython magics: ``%%pipeline NAME`` grows a pipeline cell by cell, ``%pipeline`` inspects it.

No Flink counterpart: the notebook front door to the compiler, the MiniCluster and Spark.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import traceback
from typing import Any

from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.display import display

from pyflowkit.notebook.pipeline import Pipeline, PipelineRegistry
from pyflowkit.notebook.pipeline_view import LEVELS, PipelineView, build_graph

USAGE = """\
%%pipeline NAME [--show stream|job|execution|none]
    run the cell with `env` (pipeline NAME's StreamExecutionEnvironment) and the pyflowkit API in
    scope; the pipeline grows across cells, the graph is shown with the cell's additions marked.
    A cell that raises changes nothing; re-running a cell replaces what it added before.

%pipeline list
%pipeline show NAME [--level stream|job|execution]
%pipeline explain NAME                       why each edge chained or not
%pipeline plan NAME [--json] [--level stream|job]
%pipeline step NAME [--task-managers N] [--slots M] [--seed S]
                   [--savepoint PATH [--allow-non-restored-state]]   open the Stepper
%pipeline run NAME [--target spark|local] [--master URL]
%pipeline reset NAME
%pipeline export NAME --format svg|png|dot|json -o PATH [--level stream|job|execution]"""


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so a bad line prints usage, not a traceback."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(message)


class _UsageError(Exception):
    pass


def _cell_parser() -> _Parser:
    p = _Parser(prog="%%pipeline", add_help=False)
    p.add_argument("name")
    p.add_argument("--show", choices=[*LEVELS, "none"], default="stream")
    return p


def _line_parser() -> _Parser:
    p = _Parser(prog="%pipeline", add_help=False)
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("list")
    show = sub.add_parser("show")
    show.add_argument("name")
    show.add_argument("--level", choices=LEVELS, default="job")
    sub.add_parser("explain").add_argument("name")
    plan = sub.add_parser("plan")
    plan.add_argument("name")
    plan.add_argument("--json", action="store_true")
    plan.add_argument("--level", choices=("stream", "job"), default="job")
    step = sub.add_parser("step")
    step.add_argument("name")
    # unset: sized to the job (2 x 2, or 2 x the slots the job needs when it needs more)
    step.add_argument("--task-managers", type=int, default=None)
    step.add_argument("--slots", type=int, default=None)
    step.add_argument("--seed", type=int, default=0)
    step.add_argument("--savepoint", default=None)
    step.add_argument("--allow-non-restored-state", action="store_true")
    step.add_argument(
        "--record-cost",
        action="append",
        default=[],
        metavar="OPERATOR=MS",
        help="simulated ms each record costs the task of OPERATOR (a slow sink)",
    )
    step.add_argument("--metrics", action="store_true", help="show the metrics strip")
    run = sub.add_parser("run")
    run.add_argument("name")
    run.add_argument("--target", choices=("spark", "local"), default="spark")
    run.add_argument("--master", default=None)
    sub.add_parser("reset").add_argument("name")
    export = sub.add_parser("export")
    export.add_argument("name")
    export.add_argument("--format", choices=("svg", "png", "dot", "json"), required=True)
    export.add_argument("-o", "--output", required=True)
    export.add_argument("--level", choices=LEVELS, default="job")
    return p


def offending_line(exc: BaseException, filename: str) -> tuple[int, str] | None:
    """(line number, text) of the deepest frame in the cell's code, or of a SyntaxError."""
    if isinstance(exc, SyntaxError) and exc.filename == filename and exc.lineno:
        return exc.lineno, (exc.text or "").strip()
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    if not frames:
        return None
    return frames[-1].lineno or 0, (frames[-1].line or "").strip()


@magics_class
class PipelineMagics(Magics):
    """``%%pipeline`` / ``%pipeline``; one registry of pipelines per IPython shell."""

    def __init__(self, shell: Any) -> None:
        super().__init__(shell)
        self.registry = PipelineRegistry()
        self._cell_info: tuple[str | None, str] | None = None

    def pre_run_cell(self, info: Any) -> None:
        """IPython ``pre_run_cell`` event: remember the cell id Jupyter sends with the code."""
        self._cell_info = (getattr(info, "cell_id", None), getattr(info, "raw_cell", "") or "")

    def _cell_key(self, line: str, cell: str) -> str:
        info, self._cell_info = self._cell_info, None
        if info is not None and info[0] and cell.strip() in info[1]:
            return f"id:{info[0]}"
        return "text:" + hashlib.sha1(f"{line}\n{cell}".encode()).hexdigest()

    @line_cell_magic
    def pipeline(self, line: str, cell: str | None = None) -> Any:
        __tracebackhide__ = True
        if cell is None:
            return self._line(line)
        try:
            args = _cell_parser().parse_args(shlex.split(line))
        except _UsageError as exc:
            print(f"%%pipeline: {exc}\n\n{USAGE}")
            return None
        pipeline = self.registry.get_or_create(args.name)
        key = self._cell_key(line, cell)
        before = pipeline.summary()
        try:
            outcome = pipeline.run_cell(key, cell, self.shell.user_ns)
        except BaseException as exc:
            if not isinstance(exc, Exception):
                raise
            number = self._number_for(pipeline, key)
            where = offending_line(exc, f"<%%pipeline {pipeline.name} cell {number}>")
            at = f" at line {where[0]}: {where[1]}" if where else ""
            exc.add_note(
                f"%%pipeline {pipeline.name}: the cell raised {type(exc).__name__}{at}\n"
                f"Nothing changed: {before}, exactly as before this cell."
            )
            if not pipeline.cells and pipeline.name in self.registry.pipelines:
                del self.registry.pipelines[pipeline.name]  # a failed first cell creates nothing
            raise
        self.shell.user_ns.update(pipeline.exported_names())
        if args.show != "none":
            self._show_after_cell(pipeline, outcome, args.show)
        return None

    @staticmethod
    def _number_for(pipeline: Pipeline, key: str) -> int:
        index = pipeline.index_of(key)
        return pipeline.cells[index].number if index is not None else pipeline._next_number

    def _show_after_cell(self, pipeline: Pipeline, outcome: Any, level: str) -> None:
        verb = "replaced its earlier version and added" if outcome.replaced else "added"
        try:
            graph = build_graph(pipeline.env, level)
        except Exception as exc:  # e.g. no operators yet: say so instead of drawing
            print(f"{pipeline.summary()}; nothing to draw yet ({exc})")
            return
        names = [
            graph_node_name(graph, level, i)
            for i in sorted(outcome.added_ids)
            if i in node_ids(graph, level)
        ]
        added = ", ".join(n for n in names if n) or "no operators"
        caption = f"{pipeline.summary()}; cell {outcome.cell.number} {verb}: {added}"
        display(PipelineView(graph, level, outcome.added_ids, caption))

    # -- %pipeline subcommands ------------------------------------------------------------------
    def _line(self, line: str) -> Any:
        try:
            args = _line_parser().parse_args(shlex.split(line))
        except _UsageError as exc:
            print(f"%pipeline: {exc}\n\nusage:\n{USAGE}")
            return None
        try:
            return getattr(self, f"_cmd_{args.command}")(args)
        except (KeyError, ValueError) as exc:  # unknown pipeline name, bad option combination
            print(f"%pipeline {args.command}: {exc.args[0]}")
            return None

    def _cmd_list(self, args: argparse.Namespace) -> Any:
        import pandas as pd

        rows = [
            {
                "pipeline": p.name,
                "cells": len(p.cells),
                "transformations": len(p.state.transformation_ids()),
                "parallelism": p.env.get_parallelism(),
            }
            for p in self.registry.pipelines.values()
        ]
        return pd.DataFrame(rows, columns=["pipeline", "cells", "transformations", "parallelism"])

    def _cmd_show(self, args: argparse.Namespace) -> Any:
        pipeline = self.registry.get(args.name)
        return PipelineView(
            build_graph(pipeline.env, args.level), args.level, (), pipeline.summary()
        )

    def _cmd_explain(self, args: argparse.Namespace) -> Any:
        return self.registry.get(args.name).env.get_job_graph().explain_chaining_frame()

    def _cmd_plan(self, args: argparse.Namespace) -> None:
        env = self.registry.get(args.name).env
        if args.json:
            text = (
                env.get_execution_plan()
                if args.level == "stream"
                else env.get_job_graph().to_plan_json()
            )
            print(json.dumps(json.loads(text), indent=2, ensure_ascii=False))
            return
        from pyflowkit.render.export import describe

        print(describe(build_graph(env, args.level)))

    def _cmd_step(self, args: argparse.Namespace) -> Any:
        from pyflowkit.notebook.stepper import Stepper

        env = self.registry.get(args.name).env
        return Stepper(
            env,
            task_managers=args.task_managers,
            slots=args.slots,
            seed=args.seed,
            savepoint_path=args.savepoint,
            allow_non_restored_state=args.allow_non_restored_state,
            record_cost_ms=record_costs(args.record_cost),
            show_metrics=args.metrics,
        )

    def _cmd_run(self, args: argparse.Namespace) -> Any:
        from pyflowkit.notebook.run import run_pipeline

        pipeline = self.registry.get(args.name)
        result = run_pipeline(pipeline.env, pipeline.name, args.target, args.master)
        self.shell.user_ns[f"{pipeline.name}_result"] = result
        return result

    def _cmd_reset(self, args: argparse.Namespace) -> None:
        pipeline = self.registry.reset(args.name)
        for name, value in pipeline.exported_names().items():
            if self.shell.user_ns.get(name) is value:
                del self.shell.user_ns[name]
        print(f"pipeline {args.name!r} reset: its cells and names are gone")

    def _cmd_export(self, args: argparse.Namespace) -> None:
        env = self.registry.get(args.name).env
        path = build_graph(env, args.level).save(args.output, format=args.format)
        print(f"wrote {args.level} graph of {args.name!r} as {args.format} to {path}")


def record_costs(items: list[str]) -> dict[str, float]:
    """``["Sink: slow sink=3"]`` → ``{"Sink: slow sink": 3.0}`` (``--record-cost``)."""
    costs: dict[str, float] = {}
    for item in items:
        name, sep, ms = item.rpartition("=")
        try:
            costs[name.strip()] = float(ms)
        except ValueError:
            sep = ""
        if not sep or not name.strip():
            raise ValueError(f"--record-cost expects OPERATOR=MS, got {item!r}")
    return costs


def node_ids(graph: Any, level: str) -> set[int]:
    """StreamNode ids present in a graph of any level."""
    if level == "stream":
        return set(graph.nodes)
    vertices = graph.vertices if level == "job" else [v.job_vertex for v in graph.job_vertices]
    return {n.id for v in vertices for n in v.stream_nodes}


def graph_node_name(graph: Any, level: str, node_id: int) -> str:
    """The operator name of a StreamNode, found at any level."""
    if level == "stream":
        return graph.nodes[node_id].operator_name
    vertices = graph.vertices if level == "job" else [v.job_vertex for v in graph.job_vertices]
    for v in vertices:
        for n in v.stream_nodes:
            if n.id == node_id:
                return n.operator_name
    return ""


PipelineMagics.pipeline.__doc__ = f"""Build, inspect, step and run pyflowkit pipelines.

{USAGE}
"""
