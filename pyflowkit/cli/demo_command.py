"""``pyflowkit demo``: compile the bundled examples and write their graphs and explanations."""

from __future__ import annotations

import argparse

from pyflowkit.cli.errors import CliError
from pyflowkit.cli.output_path import check_output_directory
from pyflowkit.cli.program import describe_error

NAME = "demo"
HELP = "Compile the bundled examples (GPRS alerts, word count); write graphs and plans to --out."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from pyflowkit.examples import EXAMPLES

    parser.add_argument(
        "--out", default="build/demo", help="output directory (default: build/demo)"
    )
    parser.add_argument(
        "--example",
        action="append",
        choices=EXAMPLES,
        help="only this example (repeatable; default: all)",
    )


def run(args: argparse.Namespace) -> int:
    from pyflowkit.errors import PipelineError
    from pyflowkit.examples import EXAMPLES
    from pyflowkit.examples.demo import run_demo
    from pyflowkit.render.graphviz_backend import GraphvizNotFoundError, GraphvizRenderError

    out = check_output_directory(args.out, "--out")
    try:
        written = run_demo(out, args.example or EXAMPLES)
    except (PipelineError, GraphvizNotFoundError, GraphvizRenderError) as exc:
        raise CliError(describe_error(exc)) from None
    total = sum(len(files) for files in written.values())
    print(f"Done: {total} files in {out}/ — open the .svg files in a browser.")
    return 0
