"""``env.execute()`` on Spark: compile, run every vertex as a Spark stage, gather the sinks.

Stands for Flink's ``PipelineExecutor`` (``LocalExecutor``/``RemoteExecutor``) + the job's
lifecycle up to ``JobExecutionResult``. A failure raises Flink's ``JobExecutionException`` whose
message starts with the user's own traceback; no partial result is ever returned.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import time
import uuid
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from pyflowkit.errors import JobExecutionException
from pyflowkit.spark import python_dependencies as python_deps
from pyflowkit.spark.interrupt import CancelOnInterrupt, cancel_job_group
from pyflowkit.spark.service import SparkServiceGone, gone_error_of
from pyflowkit.spark.session import get_session

if TYPE_CHECKING:
    from pyflowkit.spark.plan import SparkPlan
    from pyflowkit.spark.progress import SparkProgress

# The plan, its stage code and the record codec are imported when a job runs on a session here:
# a job submitted to the local Spark service (``job_submission``) needs none of them.


@cache
def _error_re() -> re.Pattern[str]:
    from pyflowkit.spark.stage import ERROR_BEGIN, ERROR_END

    return re.compile(
        re.escape(ERROR_BEGIN) + r"(.*?)" + re.escape(ERROR_END) + r"(.*?)" + re.escape(ERROR_END),
        re.S,
    )


def _configuration(env: Any) -> dict[str, str]:
    conf = None
    for getter in ("get_configuration", "_get_configuration"):
        if hasattr(env, getter):
            conf = getattr(env, getter)()
            break
    if conf is None:
        return {}
    return dict(conf.to_dict() if hasattr(conf, "to_dict") else conf)


def _job_graph(env: Any, job_name: str | None) -> Any:
    if hasattr(env, "get_job_graph"):
        return env.get_job_graph(job_name) if job_name else env.get_job_graph()
    return env  # a JobGraph given directly


def _settings(job_graph: Any) -> Any:
    return getattr(job_graph.stream_graph, "execution_config", None)


def physical_plan_text(df: Any) -> str:
    """Spark's formatted physical plan of a DataFrame (classic and Connect)."""
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            df.explain(mode="formatted")
    except Exception as exc:  # explaining must never fail a run
        return f"(physical plan unavailable: {exc})"
    return buffer.getvalue().rstrip()


def explain_spark(env: Any, job_name: str | None = None, spark: Any = None) -> SparkPlan:
    """Which JobVertex becomes which Spark stage, the partitioning per edge, Spark's plan text."""
    job_graph = _job_graph(env, job_name)
    configuration = _configuration(env)
    session = get_session(configuration, spark)
    if runs_as_streaming_query(job_graph, configuration):
        from pyflowkit.spark.streaming_job import settings_from
        from pyflowkit.spark.streaming_plan import build_streaming_frame

        settings = settings_from(_settings(job_graph), configuration, "")
        df, splan = build_streaming_frame(
            session, job_graph, _settings(job_graph), settings.options
        )
        splan.trigger = (
            "back to back until every source has ended (available now)"
            if settings.available_now
            else f"processingTime {settings.trigger_ms} ms (the checkpoint interval)"
        )
        splan.checkpoint_location = configuration.get("state.checkpoints.dir", "") or (
            "a temporary directory (state.checkpoints.dir is not set)"
        )
        splan.physical_plan = physical_plan_text(df)
        return splan  # type: ignore[return-value]
    from pyflowkit.spark.plan import build_plan

    df, plan = build_plan(session, job_graph, _settings(job_graph), materialize=False)
    plan.physical_plan = physical_plan_text(df)
    return plan


def user_error_message(exc: BaseException) -> tuple[str, str] | None:
    """(user traceback, failing subtask) carried by a Spark failure, JVM noise stripped."""
    text = str(exc)
    match = _error_re().search(text)
    if match is None:
        desc = getattr(exc, "desc", None) or getattr(exc, "getMessage", lambda: None)()
        match = _error_re().search(str(desc)) if desc else None
    if match is None:
        return None
    return match.group(1), match.group(2)


def _set_job_group(session: Any, group: str, description: str) -> Callable[[], None]:
    try:
        sc = session.sparkContext
        sc.setJobGroup(group, description)
        return sc.clearJobGroup
    except Exception:  # Spark Connect: tag the operations instead
        try:
            session.addTag(group)
            return lambda: session.removeTag(group)
        except Exception:
            return lambda: None


def execute(
    env: Any,
    job_name: str | None = None,
    spark: Any = None,
    progress: Callable[[SparkProgress], None] | None = None,
    print_output: bool = True,
):
    """Run the environment's pipeline on Spark and return a ``SparkJobExecutionResult``."""
    from pyflowkit.spark.result import SparkJobExecutionResult

    job_graph = _job_graph(env, job_name)
    configuration = _configuration(env)
    if spark is None and progress is None:  # a program run from the shell: the local service
        from pyflowkit.spark import job_submission

        submitted = job_submission.submit(job_graph, configuration, print_output)
        if submitted is not None:
            return submitted
    from pyflowkit.spark.plan import build_plan
    from pyflowkit.spark.progress import ProgressTracker

    if runs_as_streaming_query(job_graph, configuration):
        job = start_streaming(job_graph, configuration, spark, print_output)
        if progress is not None:
            job.listeners.append(progress)
        elif configuration.get("pyflowkit.spark.progress") == "text":
            job.listeners.append(TextProgressLine())
        with CancelOnInterrupt(job.cancel) as ctrl_c:
            job.wait()
        ctrl_c.raise_if_pressed(f"Job '{job.job_name}' ({job.job_id})")
        return job.result()
    session = get_session({**python_deps.session_settings(configuration), **configuration}, spark)
    python_deps.ship(session, configuration)
    job_id = getattr(job_graph, "job_id", None) or uuid.uuid4().hex
    name = job_graph.job_name
    listeners = [progress] if progress is not None else []
    if progress is None and configuration.get("pyflowkit.spark.progress") == "text":
        listeners.append(TextProgressLine())
    group = f"pyflowkit-{job_id}"
    clear_group = _set_job_group(session, group, f"pyflowkit job {name}")
    tracker = ProgressTracker(session, group, listeners).start()
    started = time.perf_counter()
    ctrl_c = CancelOnInterrupt(lambda: cancel_job_group(session, group))
    try:
        with ctrl_c:
            df, plan = build_plan(session, job_graph, _settings(job_graph))
            table = df.toArrow()
    except Exception as exc:
        if ctrl_c.pressed.is_set():  # the job group was cancelled: Spark's error says so
            tracker.finish("CANCELED")
            ctrl_c.raise_if_pressed(f"Job '{name}' ({job_id})")
        tracker.finish("FAILED")
        gone = exc if isinstance(exc, SparkServiceGone) else gone_error_of(session)
        if gone is not None:  # the local Spark service died under the job
            raise JobExecutionException(
                job_id, f"Job '{name}' ({job_id}) failed on Spark: {gone}", gone
            ) from exc
        carried = user_error_message(exc)
        if carried is None:
            if not _is_spark_error(exc):  # a pipeline error raised before Spark ran
                raise
            raise JobExecutionException(
                job_id, f"Job '{name}' ({job_id}) failed on Spark: {exc}", exc
            ) from exc
        tb, where = carried
        raise JobExecutionException(
            job_id, f"{tb.rstrip()}\n\nJob '{name}' ({job_id}) failed in {where} on Spark.", exc
        ) from None
    finally:
        clear_group()
    if ctrl_c.pressed.is_set():  # pressed as the last stage ended: still the user's interrupt
        tracker.finish("CANCELED")
        ctrl_c.raise_if_pressed(f"Job '{name}' ({job_id})")
    net_runtime = int((time.perf_counter() - started) * 1000)
    # the final snapshot costs a round of Spark status calls: taken now for listeners, else
    # when ``result.progress`` is first read
    final = tracker.finish("FINISHED") if listeners else lambda: tracker.finish("FINISHED")
    plan.explain_later(lambda: physical_plan_text(df))
    results, printed, types, by_node, metrics = _gather(job_graph, table)
    if print_output:  # one write per chunk of lines a subtask flushed
        for to_err, chunk in printed:
            (sys.stderr if to_err else sys.stdout).write("\n".join(chunk) + "\n")
    result = SparkJobExecutionResult(
        job_id,
        net_runtime,
        results,
        job_name=name,
        print_lines=[line for _, chunk in printed for line in chunk],
        spark_plan=plan,
        sink_types=types,
        progress=final,
        metrics=metrics,
    )
    result.results_by_node = by_node
    result._printed = printed  # noqa: SLF001 — what the local service sends its program
    return result


SAVEPOINT_PATH = "execution.savepoint.path"


def runs_as_streaming_query(job_graph: Any, configuration: dict[str, str]) -> bool:
    """Unbounded jobs (and, with ``pyflowkit.spark.streaming-query=always`` or a savepoint to
    resume from, any STREAMING job) run as a Structured Streaming query; an unbounded source in
    BATCH mode gets Flink's error, a savepoint in BATCH mode a clear one."""
    from pyflowkit.spark.plan import check_bounded, unbounded_sources

    mode = str(getattr(job_graph, "runtime_mode", "STREAMING")).upper().split(".")[-1]
    if unbounded_sources(job_graph):
        if mode == "BATCH":
            check_bounded(job_graph, "BATCH")
        return True
    savepoint = configuration.get(SAVEPOINT_PATH)
    if savepoint and mode == "BATCH":
        raise ValueError(
            f"Cannot restore savepoint {savepoint!r} ({SAVEPOINT_PATH}) into job "
            f"'{job_graph.job_name}': it runs with 'execution.runtime-mode' BATCH, and BATCH "
            "execution supports neither checkpointing nor anything that depends on it "
            "(savepoints included). Run it in STREAMING mode to resume from the savepoint, or "
            f"remove {SAVEPOINT_PATH}."
        )
    # a bounded STREAMING job resumes from a savepoint as Flink's does: it runs as a streaming
    # query, whose checkpoint location the savepoint is restored into (a batch plan has none)
    return mode == "STREAMING" and (
        configuration.get("pyflowkit.spark.streaming-query") == "always" or bool(savepoint)
    )


def start_streaming(
    job_graph: Any, configuration: dict[str, str], spark: Any = None, print_output: bool = True
) -> Any:
    """Start the job's Structured Streaming query; returns the running ``StreamingJob``."""
    from pyflowkit.spark.streaming_job import StreamingJob, settings_from

    session = get_session(
        {**python_deps.session_settings(configuration), **configuration}, spark, use_service=False
    )
    python_deps.ship(session, configuration)
    job_id = getattr(job_graph, "job_id", None) or uuid.uuid4().hex
    settings = settings_from(_settings(job_graph), configuration, job_id)
    return StreamingJob(session, job_graph, configuration, settings, print_output).start()


def start_if_streaming(env: Any, job_name: str | None = None, spark: Any = None) -> Any:
    """Start ``env``'s job if it runs as a streaming query (its transformations are then used
    up, as by ``execute``); None for a bounded job, which the caller executes as usual."""
    configuration = _configuration(env)
    if not runs_as_streaming_query(env.get_job_graph(job_name), configuration):
        return None
    graph = env.get_stream_graph(job_name, True)
    from pyflowkit.graph.streaming_job_graph_generator import create_job_graph

    return start_streaming(create_job_graph(graph), configuration, spark, print_output=True)


def execute_async(env: Any, job_name: str | None = None, spark: Any = None) -> Any:
    """``env.execute_async()``: an unbounded job starts and a ``SparkJobClient`` is returned at
    once; a bounded one runs to its end first (Flink's ``JobClient`` of a finished job)."""
    from pyflowkit.common.job_client import JobClient
    from pyflowkit.spark.job_client import SparkJobClient

    job_graph = _job_graph(env, job_name)
    configuration = _configuration(env)
    if runs_as_streaming_query(job_graph, configuration):
        return SparkJobClient(start_streaming(job_graph, configuration, spark))
    try:
        result = execute(env, job_name, spark=spark)
    except JobExecutionException as exc:
        return JobClient(exc.job_id, None, exc)
    return JobClient(result.get_job_id(), result)


def _is_spark_error(exc: BaseException) -> bool:
    module = type(exc).__module__
    return module.startswith(("pyspark", "py4j", "grpc"))


class TextProgressLine:
    """The CLI's progress line on stderr: rewritten in place on a terminal; elsewhere (a log, a
    pipe) only the final FINISHED/FAILED line is written."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream
        self.width = 0

    def __call__(self, p: SparkProgress) -> None:
        stream = self.stream or sys.stderr
        tty = getattr(stream, "isatty", lambda: False)()
        line = p.line()
        if p.status == "RUNNING":
            if tty:
                stream.write("\r" + line.ljust(self.width))
                self.width = max(self.width, len(line))
                stream.flush()
            return
        stream.write(("\r" if tty and self.width else "") + line.ljust(self.width) + "\n")
        stream.flush()
        self.width = 0


def _gather(
    job_graph: Any, table: Any
) -> tuple[dict, list[tuple[bool, list[str]]], dict, dict, dict]:
    """Decode sink rows (stage order, subtask, emission order) into per-sink results, the
    printed chunks ``(to_err, lines)`` and each subtask's metrics."""
    from pyflowkit.spark import records

    nodes = {n.id: n for v in job_graph.vertices for n in v.stream_nodes}
    results: dict[str, list[Any]] = {}
    by_node: dict[int, list[Any]] = {}
    types: dict[str, Any] = {}
    printed: list[tuple[bool, list[str]]] = []
    metrics: dict[str, dict[str, Any]] = {}
    print_sinks = [
        n
        for n in nodes.values()
        if n.operator_factory.params.get("print_to_err") is not None
        or n.operator_name.startswith("Sink: Print")
    ]
    edges, targets, payloads = (
        table.column(f).to_pylist() if table.num_rows else [] for f in ("edge", "target", "payload")
    )
    for edge, target, payload in zip(edges, targets, payloads, strict=True):
        if edge == records.RESULT_BYTES:  # read by the plan (adaptive batch parallelism)
            continue
        values = records.loads(payload)
        if edge == records.METRICS:
            task, task_metrics = values
            metrics[task] = task_metrics
        elif edge == records.COLLECT:
            node = nodes.get(target)
            name = node.operator_name if node is not None else f"Sink {target}"
            results.setdefault(name, []).extend(values)
            by_node.setdefault(target, []).extend(values)
            if node is not None and node.in_edges:
                types.setdefault(name, node.in_edges[0].source.output_type)
        elif values:
            printed.append((edge == records.PRINT_ERR, values))
    for node in print_sinks:
        results.setdefault(node.operator_name, [])
    if print_sinks:
        name = print_sinks[0].operator_name
        results[name] = [line for _, chunk in printed for line in chunk]
    return results, printed, types, by_node, dict(sorted(metrics.items()))
