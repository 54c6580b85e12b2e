"""``%load_ext pyflowkit``: registers the ``%%pipeline``/``%pipeline`` magics on the shell.

No Flink counterpart: IPython's extension hooks.
"""

from __future__ import annotations

from typing import Any

_LOADED: dict[int, Any] = {}


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics and the ``pre_run_cell`` hook that tells cells apart by id.

    The kernel's environments then follow Flink 1.11 (the runtime the classroom notebooks
    study, issue #24) unless a cell configures ``pyflowkit.flink-version``."""
    from pyflowkit.common.flink_version import V1_11, set_session_version
    from pyflowkit.notebook.magics import PipelineMagics

    if id(ipython) in _LOADED:
        return
    set_session_version(V1_11)
    magics = PipelineMagics(ipython)
    ipython.register_magics(magics)
    ipython.events.register("pre_run_cell", magics.pre_run_cell)
    _LOADED[id(ipython)] = magics
    _prewarm_spark()


def _prewarm_spark() -> None:
    """A notebook that loads pyflowkit is likely to run on Spark: start it in the background."""
    from pyflowkit.examples.warm_up import warm_up_job_graph
    from pyflowkit.spark.warmup import prewarm

    prewarm(reason="%load_ext pyflowkit", job=warm_up_job_graph)


def unload_ipython_extension(ipython: Any) -> None:
    """Remove the magics and the hook again (``%unload_ext pyflowkit``)."""
    magics = _LOADED.pop(id(ipython), None)
    if magics is None:
        return
    from pyflowkit.common.flink_version import set_session_version

    set_session_version(None)
    ipython.events.unregister("pre_run_cell", magics.pre_run_cell)
    for kind in ("line", "cell"):
        ipython.magics_manager.magics[kind].pop("pipeline", None)


def loaded_magics(ipython: Any) -> Any:
    """The ``PipelineMagics`` registered on this shell (for tests and widgets), or None."""
    return _LOADED.get(id(ipython))
