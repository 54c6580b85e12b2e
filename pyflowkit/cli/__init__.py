"""The ``pyflowkit`` command: the notebook's graph views without Jupyter.

Flink's counterpart in spirit: ``flink info`` (print a program's plan without running it).
Each subcommand is a small module with ``NAME``, ``HELP``, ``add_arguments(parser)`` and
``run(args)``; later subcommands (``run``, ``trace``) are added to ``SUBCOMMANDS``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from types import ModuleType

from pyflowkit.cli.errors import CliError

#: Subcommand modules, in the order ``pyflowkit --help`` lists them.
SUBCOMMANDS: tuple[str, ...] = ("graph", "explain", "run", "demo", "spark")


def _subcommand_modules() -> list[ModuleType]:
    import importlib

    return [importlib.import_module(f"pyflowkit.cli.{name}_command") for name in SUBCOMMANDS]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pyflowkit")
    except PackageNotFoundError:  # running from a source tree that is not installed
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pyflowkit",
        description="Compile, draw and explain Flink-style DataStream pipelines.",
    )
    parser.add_argument("--version", action="version", version=f"pyflowkit {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in _subcommand_modules():
        sub_parser = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(sub_parser)
        sub_parser.set_defaults(handler=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code (0 ok, 1 error, 2 usage)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except CliError as exc:
        print(f"pyflowkit {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. `pyflowkit graph x.py --format dot | head`
        return 1


if __name__ == "__main__":
    sys.exit(main())
