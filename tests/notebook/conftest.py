"""A real IPython InteractiveShell with ``%load_ext pyflowkit``, fresh pipelines per test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture()
def ip() -> Iterator[Any]:
    from IPython.testing.globalipapp import get_ipython

    shell = get_ipython()
    shell.run_line_magic("load_ext", "pyflowkit")
    yield shell
    shell.run_line_magic("unload_ext", "pyflowkit")
    for name in list(shell.user_ns):
        if not name.startswith("_") and name not in shell.user_ns_hidden:
            del shell.user_ns[name]


def run(shell: Any, source: str, cell_id: str | None = None) -> tuple[Any, Any]:
    """Run a cell, capturing stdout/stderr and rich display outputs."""
    from IPython.utils.capture import capture_output

    with capture_output() as cap:
        result = shell.run_cell(source, cell_id=cell_id)
    return result, cap
