"""``%pipeline run``: execute a pipeline on Spark (with a progress widget) or on the MiniCluster.

No Flink counterpart beyond ``env.execute()``; results come back per sink as pandas DataFrames.
"""

from __future__ import annotations

from html import escape
from typing import Any

from IPython.display import display

TARGETS = ("spark", "local")


class RunResults:
    """Per-sink results of a run, shown as one DataFrame per sink (``frames[sink name]``)."""

    def __init__(
        self, target: str, job_name: str, results: dict[str, list[Any]], extra: Any = None
    ):
        import pandas as pd

        self.target = target
        self.job_name = job_name
        self.results = results
        self.execution_result = extra
        self.frames = {name: _frame(pd, values) for name, values in results.items()}

    def _repr_html_(self) -> str:
        parts = [f"<b>{escape(self.job_name)}</b> on {escape(self.target)}"]
        for name, frame in self.frames.items():
            parts.append(f"<h4>{escape(name)} ({len(frame)} records)</h4>{frame.to_html()}")
        return "".join(parts)

    def __repr__(self) -> str:
        sinks = ", ".join(f"{k}: {len(v)} records" for k, v in self.results.items())
        return f"RunResults({self.job_name!r} on {self.target}: {sinks})"


def _frame(pd: Any, values: list[Any]) -> Any:
    if values and all(isinstance(v, tuple) for v in values):
        return pd.DataFrame([list(v) for v in values])
    return pd.DataFrame({"value": values})


def start_unbounded(env: Any, job_name: str) -> Any:
    """An unbounded pipeline starts as a Structured Streaming query shown live (Stop button);
    the cell returns at once with its ``SparkJobClient``. None for a bounded pipeline."""
    from pyflowkit.notebook.streaming_view import StreamingJobView
    from pyflowkit.spark.executor import _configuration, execute_async, runs_as_streaming_query

    if not runs_as_streaming_query(env.get_job_graph(job_name), _configuration(env)):
        return None
    client = execute_async(env, job_name)  # the pipeline keeps its transformations
    view = StreamingJobView(client)
    display(view)
    view.follow()
    return client


def run_pipeline(env: Any, job_name: str, target: str, master: str | None = None) -> RunResults:
    """Run on ``local`` (MiniCluster, fast mode) or ``spark`` (progress bars, then the stage table)."""
    if target not in TARGETS:
        raise ValueError(f"%pipeline run: target must be one of {TARGETS}, not {target!r}")
    if target == "local":
        if master is not None:
            raise ValueError("%pipeline run: --master only applies to --target spark")
        from pyflowkit.runtime.mini_cluster import MiniCluster

        # print-sink lines are written as they are printed (run.printed() keeps a window only)
        run = MiniCluster(echo_print=True).submit(env, job_name).run()
        run.raise_if_failed()
        return RunResults("local", job_name, run.results(), run)
    from pyflowkit.notebook.spark_progress import SparkProgressView
    from pyflowkit.spark.executor import execute

    if master is not None:
        env.get_configuration().set_string("spark.master", master)
    client = start_unbounded(env, job_name)
    if client is not None:
        return client
    view = SparkProgressView()
    display(view)
    result = execute(env, job_name, progress=view.update)
    view.show_plan(result.spark_plan)
    return RunResults(f"spark ({master or 'embedded session'})", job_name, result.results, result)
