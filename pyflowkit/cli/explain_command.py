"""``pyflowkit explain FILE.py``: why each StreamEdge is chained or not (1.11's isChainable)."""

from __future__ import annotations

import argparse

from pyflowkit.cli.program import compile_graph, load_program

NAME = "explain"
HELP = "Explain operator chaining of a pipeline file: one row per StreamEdge and the rule it fails."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE.py", help="a Python file that builds a pipeline")


def run(args: argparse.Namespace) -> int:
    from pyflowkit.render.chaining_text import chaining_table

    job_graph = compile_graph(load_program(args.file), "job")
    print(chaining_table(job_graph))
    return 0
