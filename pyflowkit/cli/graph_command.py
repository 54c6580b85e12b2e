"""``pyflowkit graph FILE.py``: draw or export one graph level of a pipeline file."""

from __future__ import annotations

import argparse
import sys

from pyflowkit.cli.errors import CliError
from pyflowkit.cli.output_path import check_output_file
from pyflowkit.cli.program import compile_graph, load_program

NAME = "graph"
HELP = "Draw a pipeline file's StreamGraph, JobGraph or ExecutionGraph (svg, png, dot or json)."
LEVELS = ("stream", "job", "execution")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE.py", help="a Python file that builds a pipeline")
    parser.add_argument("--level", choices=LEVELS, default="job", help="graph level (default: job)")
    parser.add_argument(
        "--format",
        choices=("svg", "png", "dot", "json"),
        help="output format (default: from -o's suffix, else svg)",
    )
    parser.add_argument("-o", "--output", metavar="OUT", help="output file (default: stdout)")


def run(args: argparse.Namespace) -> int:
    from pyflowkit.render import export
    from pyflowkit.render.graphviz_backend import GraphvizNotFoundError, GraphvizRenderError

    to_stdout = args.output in (None, "-")
    if to_stdout:
        fmt = args.format or "svg"
        if fmt == "png":
            raise CliError("png output is binary: give -o OUT.png")
    else:
        out = check_output_file(args.output)
        try:
            fmt = export.resolve_format(out, args.format)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    graph = compile_graph(load_program(args.file), args.level)
    try:
        data = export.render_bytes(graph, fmt)
    except (GraphvizNotFoundError, GraphvizRenderError) as exc:
        raise CliError(str(exc)) from None
    if to_stdout:
        sys.stdout.write(data.decode("utf-8"))
        if not data.endswith(b"\n"):
            sys.stdout.write("\n")
        sys.stdout.flush()
    else:
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)
        except OSError as exc:
            raise CliError(f"-o {args.output}: cannot be written ({exc.strerror or exc})") from None
        print(f"wrote {out} ({args.level} graph, {fmt})", file=sys.stderr)
    return 0
