"""The error CLI subcommands raise: printed as ``pyflowkit <cmd>: error: <msg>``, exit 1."""

from __future__ import annotations


class CliError(Exception):
    """A user-facing CLI failure (missing file, no pipeline, pipeline error); no traceback shown."""
