"""A submitted job on the simulated cluster: stepping, steering, inspection and replay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pyflowkit.errors import IllegalArgumentException, JobExecutionException
from pyflowkit.graph.job_graph import JobGraph, JobVertex
from pyflowkit.operators.gc_tuning import raised_gc_thresholds
from pyflowkit.runtime.cluster_host import ClusterHost
from pyflowkit.runtime.dispatcher import Dispatcher
from pyflowkit.runtime.environment import EmptySchedule
from pyflowkit.runtime.execution import Execution
from pyflowkit.runtime.execution_state import ExecutionState
from pyflowkit.runtime.job_master import JobMaster
from pyflowkit.runtime.job_run_checkpoints import CheckpointingRun
from pyflowkit.runtime.job_status import JobStatus
from pyflowkit.runtime.resource_manager import ResourceManager
from pyflowkit.runtime.rpc import ClusterConfig, RpcBus
from pyflowkit.runtime.stream_task import ChainFactory
from pyflowkit.runtime.task import Task
from pyflowkit.runtime.task_executor import TaskExecutor
from pyflowkit.runtime.trace import TraceEvent, save_trace, trace_frame, trace_to_json

# fast mode keeps thousands of records alive in buffers; measured: a generation-0 threshold of
# 10k halves the GC cost, 50k leaves almost none, 200k is no better
FAST_MODE_GEN0_THRESHOLD = 50_000


class TaskFailure(Exception):
    """The cause given to ``JobRun.fail_task`` when none is passed."""


class JobRun(CheckpointingRun):
    """One job on a simulated MiniCluster; ``step()`` delivers exactly one message or mail.

    Steering commands (``fail_task``, ``fail_task_manager``, ``cancel``, mode switches) are logged
    with the step they were issued at, so ``rewind(k)`` can rebuild step k by replaying from scratch.
    """

    def __init__(
        self,
        config: ClusterConfig,
        job_graph: JobGraph,
        chain_factory: ChainFactory,
        _replaying: bool = False,
    ) -> None:
        from pyflowkit.graph.execution_graph import ExecutionGraph

        ExecutionGraph.from_job_graph(job_graph)  # Flink's JobException checks, before any step
        self.config = config
        self.job_graph = job_graph
        self.chain_factory = chain_factory
        self._commands: list[tuple[int, str, tuple[Any, ...]]] = []
        self._build(echo=config.echo_print and not _replaying)

    def _build(self, echo: bool) -> None:
        cfg = self.config
        self.bus = RpcBus(cfg)
        self.host = ClusterHost(self.bus, self.job_graph, self.chain_factory)
        self.host.echo = echo
        self.task_executors = [
            TaskExecutor(i, cfg.slots_per_task_manager, self.bus, self.host)
            for i in range(cfg.task_managers)
        ]
        self.resource_manager = ResourceManager(self.bus, self.task_executors)
        self.dispatcher = Dispatcher(self.bus, self.resource_manager)
        jg = self.job_graph
        self.bus.send(
            "Client", "Dispatcher", "Dispatcher.submitJob", lambda: self.dispatcher.submit_job(jg)
        )

    def __repr__(self) -> str:
        return (
            f"JobRun(job='{self.job_graph.job_name}', status={self.job_status.value}, "
            f"step={self.bus.step}, time={self.bus.now} ms, pending={self.bus.env.pending()})"
        )

    # -- components -----------------------------------------------------------------------------
    @property
    def job_master(self) -> JobMaster | None:
        runner = self.dispatcher.runners.get(self.job_graph.job_id)
        return None if runner is None else runner.job_master

    @property
    def job_id(self) -> str:
        return self.job_graph.job_id

    @property
    def job_status(self) -> JobStatus:
        jm = self.job_master
        return JobStatus.CREATED if jm is None else jm.job_status

    @property
    def now(self) -> int:
        """Simulated time in milliseconds."""
        return self.bus.now

    @property
    def steps_taken(self) -> int:
        return self.bus.step

    @property
    def trace(self) -> list[TraceEvent]:
        return self.bus.trace

    # -- stepping -------------------------------------------------------------------------------
    def _step_once(self) -> list[TraceEvent]:
        self._apply_commands_due()
        try:
            ev = self.bus.env.next_event()
        except EmptySchedule:
            return []
        self.bus.step += 1
        start = len(self.bus.trace)
        ev.action()
        return self.bus.trace[start:]

    def _apply_commands_due(self) -> None:
        for at, name, args in self._commands:
            if at == self.bus.step and (at, name, args) not in self._applied:
                self._applied.add((at, name, args))
                getattr(self, "_do_" + name)(*args)

    @property
    def _applied(self) -> set[tuple[int, str, tuple[Any, ...]]]:
        applied = self.__dict__.setdefault("_applied_set", set())
        return applied

    def has_next(self) -> bool:
        return self.bus.env.peek() != float("inf")

    def step(self, n: int = 1) -> list[TraceEvent]:
        """Deliver ``n`` messages/mails (one by default); return the trace events they caused."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise IllegalArgumentException(f"JobRun.step(n): n must be an int >= 1, got {n!r}.")
        self._set_fast(False)
        out: list[TraceEvent] = []
        for _ in range(n):
            if not self.has_next() and not self._commands_pending():
                break
            out.extend(self._step_once())
        return out

    def _commands_pending(self) -> bool:
        return any(
            at >= self.bus.step and (at, nm, a) not in self._applied for at, nm, a in self._commands
        )

    def run_until(self, predicate: Any, max_steps: int = 1_000_000) -> list[TraceEvent]:
        """Step until ``predicate(run)`` holds (see ``pyflowkit.runtime.predicates``)."""
        self._set_fast(False)
        out: list[TraceEvent] = []
        if predicate(self):
            return out
        for _ in range(max_steps):
            if not self.has_next() and not self._commands_pending():
                raise IllegalArgumentException(
                    f"run_until: the simulation ran out of events at step {self.bus.step} "
                    "before the predicate held."
                )
            out.extend(self._step_once())
            if predicate(self):
                return out
        raise IllegalArgumentException(f"run_until: predicate still false after {max_steps} steps.")

    def step_task(self, vertex: str, subtask: int, max_steps: int = 100_000) -> list[TraceEvent]:
        """Step until the task ``vertex`` (``subtask``, 0-based) makes progress."""
        jv = self._vertex(vertex)
        self._check_subtask(jv, subtask)
        out: list[TraceEvent] = []
        for _ in range(max_steps):
            if not self.has_next():
                break
            events = self._step_once()
            out.extend(events)
            if any(e.vertex == jv.name and e.subtask == subtask for e in events):
                break
        return out

    def run(self, max_steps: int | None = None) -> JobRun:
        """Fast mode: the same machinery with whole buffers per step and no data-plane trace."""
        self._set_fast(True)
        steps = 0
        with raised_gc_thresholds(FAST_MODE_GEN0_THRESHOLD):
            while self.has_next() or self._commands_pending():
                self._step_once()
                steps += 1
                if max_steps is not None and steps >= max_steps:
                    break
        return self

    def _set_fast(self, fast: bool) -> None:
        if self.bus.fast != fast:
            self._commands.append((self.bus.step, "mode", (fast,)))
            self._applied.add((self.bus.step, "mode", (fast,)))
            self._do_mode(fast)

    def _do_mode(self, fast: bool) -> None:
        self.bus.fast = fast
        self.host.set_fast(fast)

    def rewind(self, k: int, keep_commands: bool = True) -> JobRun:
        """Rebuild the state at step ``k`` by replaying from the start with the same seed.

        Steering commands issued after step ``k`` are kept (stepping on replays them, like a
        recording) unless ``keep_commands`` is False, which starts a new timeline at ``k``.
        """
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= self.bus.step:
            raise IllegalArgumentException(
                f"rewind(k): k must be between 0 and the current step {self.bus.step}, got {k!r}."
            )
        if not keep_commands:
            self._commands = [c for c in self._commands if c[0] <= k]
        self.__dict__["_applied_set"] = set()
        self._build(echo=False)
        while self.bus.step < k:
            self._step_once()
        self._apply_commands_due()
        self.host.echo = self.config.echo_print
        return self

    # -- steering -------------------------------------------------------------------------------
    def _command(self, name: str, *args: Any) -> None:
        entry = (self.bus.step, name, args)
        self._commands.append(entry)
        self._applied.add(entry)
        getattr(self, "_do_" + name)(*args)

    def fail_task(
        self, vertex: str, subtask: int, cause: BaseException | str | None = None
    ) -> None:
        """Make a running task fail (as if its code threw ``cause``)."""
        jv = self._vertex(vertex)
        self._check_subtask(jv, subtask)
        msg = cause if isinstance(cause, str) else None
        if cause is not None and not isinstance(cause, (str, BaseException)):
            raise IllegalArgumentException(
                f"fail_task: cause must be an exception or a message, got {type(cause).__name__}."
            )
        self._command("fail_task", jv.id, subtask, msg if msg is not None else cause)

    def _do_fail_task(self, vertex_id: str, subtask: int, cause: Any) -> None:
        exc = (
            cause
            if isinstance(cause, BaseException)
            else TaskFailure(cause or f"Injected failure of subtask {subtask}.")
        )
        task = self._task(vertex_id, subtask)
        if task is None or task.state.is_terminal() or not task.process_alive:
            raise IllegalArgumentException(
                f"fail_task: subtask {subtask} of vertex {vertex_id} has no live task to fail "
                "(not deployed yet, already terminal, or its TaskExecutor was killed)."
            )
        task.fail_externally(exc)

    def fail_task_manager(self, index: int) -> None:
        """Kill TaskExecutor ``index``: its tasks and slots are lost (heartbeat timeout)."""
        if (
            isinstance(index, bool)
            or not isinstance(index, int)
            or not 0 <= index < len(self.task_executors)
        ):
            raise IllegalArgumentException(
                f"fail_task_manager: index must be in [0, {len(self.task_executors)}), got {index!r}."
            )
        if not self.task_executors[index].alive:
            raise IllegalArgumentException(
                f"fail_task_manager: TaskExecutor-{index} is already dead."
            )
        self._command("fail_task_manager", index)

    def _do_fail_task_manager(self, index: int) -> None:
        te = self.task_executors[index]
        te.kill()
        self.bus.emit(
            te.name,
            "TaskExecutor.onFatalError",
            f"{te.name} was killed; its tasks stop and its slots are lost.",
        )
        self.bus.call_later(
            0,
            "ResourceManager",
            "ResourceManager.heartbeatTimeout",
            lambda: self.resource_manager.task_executor_lost(index),
        )
        jm = self.job_master
        if jm is not None:
            self.bus.call_later(
                0,
                "JobMaster.heartbeat",
                "JobMaster.heartbeatFromTaskManager timeout",
                lambda: jm.scheduler.task_manager_lost(te),
            )

    def cancel(self) -> None:
        """``JobMaster.cancel``: CANCELLING, every task cancelled, then CANCELED."""
        self._command("cancel")

    def _do_cancel(self) -> None:
        jm = self.job_master
        if jm is None:
            raise IllegalArgumentException(
                "cancel: the job has no JobMaster yet; step further first."
            )
        self.bus.call_later(0, "Client->JobMaster", "JobMaster.cancel", jm.cancel)

    # -- inspection -----------------------------------------------------------------------------
    def _vertex(self, vertex: str | JobVertex) -> JobVertex:
        if isinstance(vertex, JobVertex):
            return vertex
        try:
            return self.job_graph.get_vertex(vertex)
        except KeyError:
            names = [v.name for v in self.job_graph.vertices]
            raise IllegalArgumentException(
                f"No vertex {vertex!r} in job '{self.job_graph.job_name}'; vertices: {names}."
            ) from None

    @staticmethod
    def _check_subtask(jv: JobVertex, subtask: int) -> None:
        if (
            isinstance(subtask, bool)
            or not isinstance(subtask, int)
            or not 0 <= subtask < jv.parallelism
        ):
            raise IllegalArgumentException(
                f"Vertex '{jv.name}' has parallelism {jv.parallelism}; subtask must be in "
                f"[0, {jv.parallelism}), got {subtask!r}."
            )

    def _task(self, vertex_id: str, subtask: int) -> Task | None:
        jm = self.job_master
        if jm is None:
            return None
        ev = jm.scheduler.by_key.get((vertex_id, subtask))
        if ev is None:
            return None
        attempt = ev.current_execution.attempt_id
        for te in self.task_executors:
            if attempt in te.tasks:
                return te.tasks[attempt]
        return None

    def executions(self) -> list[Execution]:
        jm = self.job_master
        return (
            [] if jm is None else [ev.current_execution for ev in jm.scheduler.execution_vertices]
        )

    def execution_state(self, vertex: str, subtask: int) -> ExecutionState | None:
        jv = self._vertex(vertex)
        jm = self.job_master
        if jm is None:
            return None
        return jm.scheduler.by_key[(jv.id, subtask)].current_execution.state

    def state_history(self) -> list[dict[str, Any]]:
        """Every job and task state change, in order (JobMaster and TaskExecutor sides)."""
        return [
            {
                "step": e.step,
                "time": e.time,
                "component": e.component,
                "subject": (
                    f"{e.vertex} ({e.subtask + 1})"
                    if e.vertex is not None and e.subtask is not None
                    else f"job {e.job}"
                ),
                "attempt": e.attempt,
                "from": e.old_state,
                "to": e.new_state,
            }
            for e in self.trace
            if e.new_state is not None
        ]

    def tasks_frame(self) -> Any:
        """One row per subtask: states, attempt, slot, records, queued buffers, back pressure."""
        import pandas as pd

        rows = []
        jm = self.job_master
        for ev in [] if jm is None else jm.scheduler.execution_vertices:
            e = ev.current_execution
            task = self._task(ev.job_vertex.id, ev.subtask_index)
            inv = task.invokable if task is not None else None
            rows.append(
                {
                    "vertex": ev.job_vertex.name,
                    "subtask": ev.subtask_index,
                    "name": ev.name,
                    "state": e.state.value,
                    "task_state": task.state.value if task else None,
                    "attempt": e.attempt_number,
                    "task_executor": e.slot.task_executor.name if e.slot is not None else None,
                    "slot": e.slot.slot_index if e.slot is not None else None,
                    "records_in": inv.records_in if inv else 0,
                    "records_out": inv.records_out if inv else 0,
                    "queued_in": inv.queued_input_buffers() if inv else 0,
                    "queued_out": inv.queued_output_buffers() if inv else 0,
                    "back_pressured": bool(task.back_pressured) if task else False,
                    "watermark": inv.current_watermark if inv else None,
                }
            )
        return pd.DataFrame(
            rows,
            columns=[
                "vertex",
                "subtask",
                "name",
                "state",
                "task_state",
                "attempt",
                "task_executor",
                "slot",
                "records_in",
                "records_out",
                "queued_in",
                "queued_out",
                "back_pressured",
                "watermark",
            ],
        )

    def slots_frame(self) -> Any:
        """One row per TaskExecutor slot: state, allocation, job and the tasks it hosts."""
        import pandas as pd

        rows = []
        for te in self.task_executors:
            for s in te.task_slot_table.slots:
                rows.append(
                    {
                        "task_executor": te.name,
                        "slot": s.index,
                        "alive": te.alive,
                        "state": s.state,
                        "allocation_id": s.allocation_id,
                        "job": s.job_id,
                        "tasks": ", ".join(sorted(t.name for t in s.tasks.values())),
                    }
                )
        return pd.DataFrame(
            rows,
            columns=["task_executor", "slot", "alive", "state", "allocation_id", "job", "tasks"],
        )

    def results(self) -> dict[str, list[Any]]:
        """Per sink (by name), what it received or printed, in order."""
        return {k: list(v) for k, v in self.host.results.items()}

    def printed(self) -> list[str]:
        return list(self.host.printed)

    def keyed_state(self, vertex: str, subtask: int) -> dict[str, Any]:
        """Operator name → state name → {key: value} of the running task."""
        jv = self._vertex(vertex)
        self._check_subtask(jv, subtask)
        task = self._task(jv.id, subtask)
        chain = None if task is None else task.invokable.chain
        if chain is None:
            raise IllegalArgumentException(
                f"keyed_state: {jv.name} ({subtask + 1}/{jv.parallelism}) has no running operator "
                "chain yet; step further first."
            )
        return chain.keyed_state()

    @property
    def failure_cause(self) -> BaseException | None:
        jm = self.job_master
        return None if jm is None else jm.failure_cause

    @property
    def failure_traceback(self) -> str | None:
        jm = self.job_master
        return None if jm is None else jm.failure_traceback

    def raise_if_failed(self) -> None:
        """Raise ``JobExecutionException`` (with the user's traceback) if the job FAILED."""
        if self.job_status is JobStatus.FAILED:
            tb = self.failure_traceback or ""
            raise JobExecutionException(
                self.job_id, f"Job execution failed.\n{tb}".rstrip(), self.failure_cause
            ) from self.failure_cause

    # -- trace ----------------------------------------------------------------------------------
    def trace_frame(self) -> Any:
        return trace_frame(self.trace)

    def trace_json(self) -> str:
        return trace_to_json(self.trace)

    def save_trace(self, path: str | Path) -> Path:
        return save_trace(self.trace, path)
