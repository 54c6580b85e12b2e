"""Stepping and replay of a job on a simulated cluster: one message or mail per step, a command log.

No single Flink class: it stands for the client driving a ``MiniCluster`` (``submitJob``) with
the discrete-event scheduler of ``runtime/environment.py`` in place of Flink's threads.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any, TypeVar

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.graph.job_graph import JobGraph, JobVertex
from pyflowkit.operators.gc_tuning import raised_gc_thresholds
from pyflowkit.runtime.cluster_host import ClusterHost
from pyflowkit.runtime.dispatcher import Dispatcher
from pyflowkit.runtime.environment import EmptySchedule, SimEvent
from pyflowkit.runtime.job_master import JobMaster
from pyflowkit.runtime.job_status import JobStatus
from pyflowkit.runtime.resource_manager import ResourceManager
from pyflowkit.runtime.restart_guard import DEFAULT_MAX_RESTARTS, check_max_restarts, keeps_failing
from pyflowkit.runtime.rpc import ClusterConfig, RpcBus
from pyflowkit.runtime.stream_task import ChainFactory
from pyflowkit.runtime.task import Task
from pyflowkit.runtime.task_executor import TaskExecutor
from pyflowkit.runtime.trace import TraceEvent

# fast mode keeps thousands of records alive in buffers; measured: a generation-0 threshold of
# 10k halves the GC cost, 50k leaves almost none, 200k is no better
FAST_MODE_GEN0_THRESHOLD = 50_000

R = TypeVar("R", bound="SteppedRun")

Command = tuple[int, str, tuple[Any, ...]]
"""(step issued at, command name, arguments)."""


class CommandLog:
    """Steering commands with the step they were issued at, replayed by ``rewind``.

    pyflowkit's own (Flink has no replay): a recording of what the user did to the run.
    """

    def __init__(self) -> None:
        self.entries: list[Command] = []
        self.applied: set[Command] = set()
        self.replaying = False  # some logged command is not applied yet (after ``restart``)

    def record(self, entry: Command) -> None:
        """Log ``entry`` as issued and already applied (the caller applies it now)."""
        self.entries.append(entry)
        self.applied.add(entry)

    def due(self, step: int) -> list[Command]:
        """The commands issued at ``step`` that this timeline has not applied yet; marks them."""
        out = []
        waiting = False
        for entry in self.entries:
            if entry not in self.applied:
                if entry[0] == step:
                    self.applied.add(entry)
                    out.append(entry)
                else:
                    waiting = True
        self.replaying = waiting
        return out

    def pending(self, step: int) -> bool:
        """Whether a command at ``step`` or later waits to be replayed."""
        return any(e[0] >= step and e not in self.applied for e in self.entries)

    def restart(self, keep_after: int | None) -> None:
        """A new replay: nothing applied; drop commands after step ``keep_after`` if given."""
        if keep_after is not None:
            self.entries = [e for e in self.entries if e[0] <= keep_after]
        self.applied = set()
        self.replaying = bool(self.entries)


class SteppedRun:
    """A job on a freshly built simulated MiniCluster; ``step()`` delivers exactly one message or mail.

    Commands (``command(name, *args)``, handlers from ``register_command``) are logged with the
    step they were issued at, so ``rewind(k)`` can rebuild step k by replaying from scratch.
    """

    def __init__(
        self,
        config: ClusterConfig,
        job_graph: JobGraph,
        chain_factory: ChainFactory,
        echo: bool,
    ) -> None:
        from pyflowkit.graph.execution_graph import ExecutionGraph

        ExecutionGraph.from_job_graph(job_graph)  # Flink's JobException checks, before any step
        self.config = config
        self.job_graph = job_graph
        self.chain_factory = chain_factory
        self.commands = CommandLog()
        self._handlers: dict[str, Callable[..., Any]] = {"mode": self._do_mode}
        self.bus: RpcBus
        self.host: ClusterHost
        self.task_executors: list[TaskExecutor]
        self.resource_manager: ResourceManager
        self.dispatcher: Dispatcher
        self._build(echo)

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

    # -- lookups --------------------------------------------------------------------------------
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
        """The running ``Task`` of the current attempt of (vertex id, subtask), if deployed."""
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

    # -- commands -------------------------------------------------------------------------------
    def register_command(self, name: str, handler: Callable[..., Any]) -> None:
        """``handler(*args)`` applies command ``name`` (now, and again whenever it is replayed)."""
        if name in self._handlers:
            raise IllegalArgumentException(f"register_command: {name!r} is already registered.")
        self._handlers[name] = handler

    def command(self, name: str, *args: Any) -> Any:
        """Apply command ``name`` and log it at the current step; returns the handler's result.

        A command its handler rejects (raises) is not logged, so ``rewind`` replays only
        accepted commands.
        """
        entry = (self.bus.step, name, args)
        result = self._handlers[name](*args)
        self.commands.record(entry)
        return result

    def _apply_commands_due(self) -> None:
        for _at, name, args in self.commands.due(self.bus.step):
            self._handlers[name](*args)

    def _commands_pending(self) -> bool:
        return self.commands.pending(self.bus.step)

    # -- stepping -------------------------------------------------------------------------------
    def _step_once(self) -> list[TraceEvent]:
        ev = self._next_event()
        if ev is None:
            return []
        start = len(self.bus.trace)
        self._deliver(ev)
        return self.bus.trace[start:]

    def _next_event(self) -> SimEvent | None:
        """A step begins: the commands due at it, then the next message or mail (None: none)."""
        if self.commands.replaying:
            self._apply_commands_due()
        bus = self.bus
        try:
            ev = bus.env.next_event()
        except EmptySchedule:
            return None
        bus.step += 1
        return ev

    def _deliver(self, ev: SimEvent) -> None:
        try:
            ev.action()
        except Exception as exc:  # noqa: BLE001 - a runtime error must not leave the job RUNNING
            if not self._fail_job_on_error(exc):
                raise

    def _fail_job_on_error(self, exc: Exception) -> bool:
        """An exception escaping an event of a RUNNING/RESTARTING job fails the job with it as the
        cause (Flink's ``JobMaster`` failing the job on an error in its main thread)."""
        jm = self.job_master
        if jm is None or jm.job_status not in (JobStatus.RUNNING, JobStatus.RESTARTING):
            return False
        tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        self.bus.emit(
            "JobMaster",
            "JobMaster.handleJobMasterError",
            f"Fatal error in the job's runtime: {type(exc).__name__}: {exc}. Failing the job.",
            job=jm.job_id,
        )
        jm.fail_job(exc, tb)
        return True

    def _advance(self) -> bool:
        """One step in the current mode (fast stays fast); False when nothing is left."""
        if not self.has_next() and not self._commands_pending():
            return False
        self._step_once()
        return True

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

    @property
    def number_of_restarts(self) -> int:
        """Restarts of the job so far (Flink's ``ExecutionGraph.getNumberOfRestarts``, the
        ``numRestarts`` metric); 0 before the JobMaster exists."""
        jm = self.job_master
        return 0 if jm is None else jm.scheduler.number_of_restarts

    def run(
        self: R, max_steps: int | None = None, max_restarts: int | None = DEFAULT_MAX_RESTARTS
    ) -> R:
        """Fast mode: the same machinery with whole buffers per step and no data-plane trace.

        ``max_restarts`` guards the cell: more restarts than that during this call raise a
        ``RestartGuardException`` naming the failing function (the job is left as it is: step
        on, ``run(max_restarts=None)`` or ``cancel()``); None runs without a guard.
        """
        guard = check_max_restarts(max_restarts, "JobRun.run")
        self._set_fast(True)
        steps = 0
        start = self.number_of_restarts
        bus, commands = self.bus, self.commands
        peek, next_event, deliver = bus.env.peek, bus.env.next_event, self._deliver
        infinity = float("inf")
        scheduler = None  # the job's restart counter, once its JobMaster exists
        # the loop of step(), _next_event inlined: one event per iteration
        with raised_gc_thresholds(FAST_MODE_GEN0_THRESHOLD):
            while peek() != infinity or self._commands_pending():
                if commands.replaying:
                    self._apply_commands_due()
                try:
                    ev = next_event()
                except EmptySchedule:
                    pass
                else:
                    bus.step += 1
                    deliver(ev)
                steps += 1
                if max_steps is not None and steps >= max_steps:
                    break
                if guard is not None:
                    if scheduler is None:
                        jm = self.job_master
                        scheduler = None if jm is None else jm.scheduler
                    if scheduler is not None and scheduler.number_of_restarts - start > guard:
                        raise keeps_failing(self, self.number_of_restarts - start)
        return self

    def _set_fast(self, fast: bool) -> None:
        if self.bus.fast != fast:
            self.command("mode", fast)

    def _do_mode(self, fast: bool) -> None:
        self.bus.fast = fast
        self.host.set_fast(fast)

    # -- replay ---------------------------------------------------------------------------------
    def rewind(self: R, k: int, keep_commands: bool = True) -> R:
        """Rebuild the state at step ``k`` by replaying from the start with the same seed.

        Commands issued after step ``k`` are kept (stepping on replays them, like a recording)
        unless ``keep_commands`` is False, which starts a new timeline at ``k``.
        """
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= self.bus.step:
            raise IllegalArgumentException(
                f"rewind(k): k must be between 0 and the current step {self.bus.step}, got {k!r}."
            )
        self.commands.restart(keep_after=None if keep_commands else k)
        self._build(echo=False)
        while self.bus.step < k:
            self._step_once()
        self._apply_commands_due()
        self.host.echo = self.config.echo_print
        return self
