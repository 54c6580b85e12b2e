"""A sequence diagram of the simulated cluster, built from its trace: lifelines and arrows.

No Flink counterpart: it draws what Flink's components say to each other. One lifeline per
component (client, Dispatcher, JobManagerRunner, the JobMaster with its scheduler, SlotPool and
CheckpointCoordinator, ResourceManager, each TaskExecutor, and each Task thread as it appears) and
one arrow per RPC or call, labelled with the Flink method of the trace event that stands for it.
Reads trace events by their attributes only (``step``, ``time``, ``component``, ``method``…).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pyflowkit.render.short_names import short_task_name

CLIENT = "client"
DISPATCHER = "Dispatcher"
RUNNER = "JobManagerRunner"
JOB_MASTER = "JobMaster"
SCHEDULER = "Scheduler"
SLOT_POOL = "SlotPool"
COORDINATOR = "CheckpointCoordinator"
RESOURCE_MANAGER = "ResourceManager"
#: The lifelines of the cluster's processes, left to right; TaskExecutors and Tasks follow.
FIXED_LIFELINES = (
    (CLIENT, "client", ""),
    (DISPATCHER, "Dispatcher", ""),
    (RUNNER, "JobManagerRunner", ""),
    (JOB_MASTER, "JobMaster", JOB_MASTER),
    (SCHEDULER, "Scheduler", JOB_MASTER),
    (SLOT_POOL, "SlotPool", JOB_MASTER),
    (COORDINATOR, "CheckpointCoordinator", JOB_MASTER),
    (RESOURCE_MANAGER, "ResourceManager", ""),
)
#: Arrow kinds, each drawn in its own colour.
KINDS = ("call", "self", "state", "checkpoint", "barrier", "ack", "notify", "failure")

# Symbolic ends, resolved per event: the TaskExecutor hosting the event's task, the task itself,
# and the task upstream of the channel a barrier came from.
TE, TASK, UPSTREAM = "<te>", "<task>", "<upstream>"

#: Flink method → (from, to, kind). Events not listed are drawn as a call of the component on itself.
RULES: dict[str, tuple[str, str, str]] = {
    "Dispatcher.submitJob": (CLIENT, DISPATCHER, "call"),
    "Dispatcher.persistAndRunJob": (DISPATCHER, DISPATCHER, "self"),
    "JobManagerRunnerImpl.start": (DISPATCHER, RUNNER, "call"),
    "JobManagerRunnerImpl.grantLeadership": (RUNNER, RUNNER, "self"),
    "JobMaster.<init>": (RUNNER, JOB_MASTER, "call"),
    "SchedulerBase.<init>": (JOB_MASTER, SCHEDULER, "call"),
    "JobMaster.start": (RUNNER, JOB_MASTER, "call"),
    "DefaultScheduler.startScheduling": (JOB_MASTER, SCHEDULER, "call"),
    "ExecutionGraph.transitionState": (SCHEDULER, SCHEDULER, "state"),
    "SlotPool.requestNewAllocatedSlot": (SCHEDULER, SLOT_POOL, "call"),
    "ResourceManager.registerJobManager": (JOB_MASTER, RESOURCE_MANAGER, "call"),
    "SlotPool.connectToResourceManager": (JOB_MASTER, SLOT_POOL, "call"),
    "SlotManager.registerSlotRequest": (SLOT_POOL, RESOURCE_MANAGER, "call"),
    "TaskExecutor.requestSlot": (RESOURCE_MANAGER, TE, "call"),
    "TaskExecutor.offerSlotsToJobManager": (TE, JOB_MASTER, "call"),
    "SlotPool.offerSlot": (JOB_MASTER, SLOT_POOL, "call"),
    # 1.20's declarative slot allocation (FLIP-138)
    "DeclarativeSlotPoolBridge.requestNewAllocatedSlot": (SCHEDULER, SLOT_POOL, "call"),
    "DeclarativeSlotPoolService.connectToResourceManager": (JOB_MASTER, SLOT_POOL, "call"),
    "ResourceManager.declareRequiredResources": (SLOT_POOL, RESOURCE_MANAGER, "call"),
    "DefaultDeclarativeSlotPool.offerSlots": (JOB_MASTER, SLOT_POOL, "call"),
    "TaskExecutor.submitTask": (SCHEDULER, TE, "call"),
    "Task.transitionState": (TASK, TE, "state"),
    "TaskExecutor.unregisterTaskAndNotifyFinalState": (TASK, TE, "call"),
    "TaskExecutor.cancelTask": (SCHEDULER, TE, "call"),
    "Task.cancelInvokable": (TE, TASK, "call"),
    "TaskExecutor.freeSlot": (JOB_MASTER, TE, "call"),
    "JobMaster.cancel": (CLIENT, JOB_MASTER, "call"),
    "JobMaster.stopWithSavepoint": (CLIENT, JOB_MASTER, "call"),
    "SchedulerBase.stopWithSavepoint": (JOB_MASTER, SCHEDULER, "call"),
    "CheckpointCoordinator.triggerSynchronousSavepoint": (SCHEDULER, COORDINATOR, "checkpoint"),
    "Dispatcher.jobReachedGloballyTerminalState": (RUNNER, DISPATCHER, "call"),
    "DefaultScheduler.restartTasks": (SCHEDULER, SCHEDULER, "failure"),
    "RestartPipelinedRegionFailoverStrategy.getTasksNeedingRestart": (
        SCHEDULER,
        SCHEDULER,
        "failure",
    ),
    "CheckpointCoordinator.restoreLatestCheckpointedState": (SCHEDULER, COORDINATOR, "checkpoint"),
    "CheckpointCoordinator.restoreSavepoint": (SCHEDULER, COORDINATOR, "checkpoint"),
    # the checkpoint protocol
    "CheckpointCoordinator.createPendingCheckpoint": (COORDINATOR, COORDINATOR, "checkpoint"),
    "TaskExecutor.triggerCheckpoint": (COORDINATOR, TE, "checkpoint"),
    "Task.triggerCheckpointBarrier": (TE, TASK, "checkpoint"),
    "SubtaskCheckpointCoordinatorImpl.checkpointState": (TASK, TASK, "checkpoint"),
    "CheckpointBarrierHandler.processBarrier": (UPSTREAM, TASK, "barrier"),
    "AsyncCheckpointRunnable.run": (TASK, TASK, "checkpoint"),
    "RpcCheckpointResponder.acknowledgeCheckpoint": (TASK, JOB_MASTER, "ack"),
    "SchedulerBase.acknowledgeCheckpoint": (JOB_MASTER, SCHEDULER, "ack"),
    "PendingCheckpoint.acknowledgeTask": (SCHEDULER, COORDINATOR, "ack"),
    "CheckpointCoordinator.receiveAcknowledgeMessage": (SCHEDULER, COORDINATOR, "ack"),
    "RpcCheckpointResponder.declineCheckpoint": (TASK, JOB_MASTER, "failure"),
    "CheckpointCoordinator.receiveDeclineMessage": (SCHEDULER, COORDINATOR, "failure"),
    "StandaloneCompletedCheckpointStore.addCheckpoint": (COORDINATOR, COORDINATOR, "checkpoint"),
    "CheckpointCoordinator.completePendingCheckpoint": (COORDINATOR, COORDINATOR, "checkpoint"),
    "TaskExecutor.confirmCheckpoint": (COORDINATOR, TE, "notify"),
    "Task.notifyCheckpointComplete": (TE, TASK, "notify"),
    "SubtaskCheckpointCoordinatorImpl.notifyCheckpointComplete": (TASK, TASK, "notify"),
    "TaskExecutor.abortCheckpoint": (COORDINATOR, TE, "failure"),
    "CheckpointCoordinator.abortPendingCheckpoint": (COORDINATOR, COORDINATOR, "failure"),
    "Task.failure": (TASK, TASK, "failure"),
}
#: Events that are the sending side of an RPC whose receipt is drawn, or a step inside a task that
#: is not a call (records, mail): not drawn.
SKIPPED = frozenset(
    {
        "Execution.deploy",
        "Execution.triggerCheckpoint",
        "Execution.notifyCheckpointComplete",
        "JobMaster.acknowledgeCheckpoint",
        "JobMaster.declineCheckpoint",
        "TaskStateManagerImpl.reportTaskStateSnapshots",
        "MailboxProcessor.runMailboxStep",
        "StreamTask.processInput",
        "ProcessingTimeService.timer",
    }
)
#: Method prefixes of the JobMaster's parts, for events drawn as a call on itself.
OWNER_PREFIXES = (
    ("CheckpointCoordinator.", COORDINATOR),
    ("PendingCheckpoint.", COORDINATOR),
    ("StandaloneCompletedCheckpointStore.", COORDINATOR),
    ("ScheduledTrigger.", COORDINATOR),
    ("CheckpointCanceller.", COORDINATOR),
    ("CheckpointRequestDecider.", COORDINATOR),
    ("SlotPool.", SLOT_POOL),
    ("DeclarativeSlotPoolBridge.", SLOT_POOL),
    ("DeclarativeSlotPoolService.", SLOT_POOL),
    ("DefaultDeclarativeSlotPool.", SLOT_POOL),
    ("DefaultScheduler.", SCHEDULER),
    ("SchedulerBase.", SCHEDULER),
    ("Execution.", SCHEDULER),
    ("ExecutionGraph.", SCHEDULER),
    ("RestartPipelinedRegionFailoverStrategy.", SCHEDULER),
)
_TASK_IN_MESSAGE = re.compile(r"^(?:Received task )?(.+? \(\d+/\d+\))")
_BARRIER_CHANNEL = re.compile(r"barrier from channel (\d+)")
#: Calls that log several lines: consecutive lines of one call are one arrow (its hover text
#: holds them all), where other methods' repeated lines are separate calls (two slot requests).
ONE_CALL_MANY_LINES = frozenset(
    {
        "JobMaster.<init>",
        "RestartPipelinedRegionFailoverStrategy.getTasksNeedingRestart",
        "CheckpointCoordinator.restoreLatestCheckpointedState",
    }
)

#: Short method names that need their class to be understood on an arrow.
_AMBIGUOUS = frozenset(
    {
        "run",
        "<init>",
        "start",
        "invoke",
        "afterInvoke",
        "shutdown",
        "acknowledgeCheckpoint",
        "notifyCheckpointComplete",
        "checkpointState",
    }
)
#: What a barrier handler's log line stands for (``CheckpointBarrierAligner`` methods of 1.11).
_BARRIER_STEPS = (
    ("Received barrier from channel", "CheckpointBarrier"),
    ("Starting stream alignment", "beginNewAlignment"),
    ("Received all barriers", "notifyCheckpoint"),
)
_FROM_TM = ("DEPLOYING", "RUNNING", "CANCELING")  # states a TaskExecutor reports a change from

#: The phases of a job's life a lecture walks through, in the order they first happen; the
#: sequence widget draws each run of one phase as a band that collapses to one row.
PHASES = ("submission", "scheduling", "deployment", "checkpoint", "failover", "cancellation")
#: Method prefixes → phase, the first match wins (else the arrow's kind decides, else the phase
#: of the arrow before it).
_PHASE_OF_METHOD = (
    ("Dispatcher.submitJob", "submission"),
    ("Dispatcher.persistAndRunJob", "submission"),
    ("JobManagerRunner", "submission"),
    ("JobMaster.<init>", "submission"),
    ("SchedulerBase.<init>", "submission"),
    ("JobMaster.start", "submission"),
    ("JobMaster.cancel", "cancellation"),
    ("JobMaster.stopWithSavepoint", "checkpoint"),
    ("SchedulerBase.stopWithSavepoint", "checkpoint"),
    ("DefaultScheduler.startScheduling", "scheduling"),
    ("DefaultScheduler.restartTasks", "failover"),
    ("RestartPipelinedRegionFailoverStrategy.", "failover"),
    ("CheckpointCoordinator.restore", "failover"),
    ("SlotPool", "scheduling"),
    ("DeclarativeSlotPool", "scheduling"),
    ("DefaultDeclarativeSlotPool", "scheduling"),
    ("ResourceManager.", "scheduling"),
    ("SlotManager.", "scheduling"),
    ("TaskExecutor.requestSlot", "scheduling"),
    ("TaskExecutor.offerSlotsToJobManager", "scheduling"),
    ("TaskExecutor.submitTask", "deployment"),
    ("TaskExecutor.cancelTask", "failover"),
    ("Task.cancelInvokable", "failover"),
    ("Task.failure", "failover"),
)
_FAILOVER_STATES = ("FAILED", "FAILING", "CANCELING", "CANCELLING", "CANCELED", "RESTARTING")


def _interrupts(phase: str, method: str) -> bool:
    """A new phase inside a step: a failure, or a checkpoint the teacher triggered (Fail task and
    Checkpoint add their first arrows to the current step)."""
    return phase == "failover" or method == "CheckpointCoordinator.createPendingCheckpoint"


def phase_of(method: str, kind: str, new_state: Any, previous: str | None) -> str:
    """The lecture phase an arrow belongs to (one of :data:`PHASES`)."""
    for prefix, phase in _PHASE_OF_METHOD:
        if method.startswith(prefix):
            return phase
    if new_state in _FAILOVER_STATES or kind == "failure":
        return "cancellation" if previous == "cancellation" else "failover"
    if kind in ("checkpoint", "barrier", "ack", "notify"):
        return "checkpoint"
    if method in ("Task.transitionState", "Execution.transitionState") and previous in (
        None,
        "scheduling",
        "submission",
        "failover",
    ):
        return "deployment"
    return previous or "submission"


@dataclass(frozen=True)
class Lifeline:
    """One column: a component, or a Task thread (one per attempt)."""

    id: str
    label: str
    title: str
    group: str  # "JobMaster" for its parts, the TaskExecutor for a task, else ""
    kind: str  # "process", "component", "task_executor" or "task"

    def to_dict(self) -> dict[str, str]:
        return {
            "id": self.id,
            "label": self.label,
            "title": self.title,
            "group": self.group,
            "kind": self.kind,
        }


def _task_id(vertex: str, subtask: int, attempt: int) -> str:
    return f"task:{vertex}:{subtask}:{attempt}"


class SequenceModel:
    """Lifelines and arrows of one run, extended event by event (``add``), oldest arrow first.

    ``channel_producers`` maps a task (vertex name, subtask) to the producer (vertex name, subtask)
    of each of its input channels in order, so a barrier arrow starts at the task that sent it.
    """

    def __init__(
        self,
        task_executors: int = 0,
        channel_producers: Mapping[tuple[str, int], list[tuple[str, int]]] | None = None,
    ) -> None:
        self.channel_producers = dict(channel_producers or {})
        self.lifelines: list[Lifeline] = []
        self._index: dict[str, int] = {}
        self.messages: list[dict[str, Any]] = []
        self.events_seen = 0
        self._task_te: dict[tuple[str, int, int], str] = {}
        self._attempt: dict[tuple[str, int], int] = {}
        self._names: dict[tuple[str, int], str] = {}
        self._last_call: tuple[Any, ...] | None = None  # the last arrow's call, to merge log lines
        #: Each band (a run of arrows of one phase) by its first arrow's index: its phase, first
        #: and last step, and how many arrows it has.
        self.bands: dict[int, dict[str, Any]] = {}
        for lid, label, group in FIXED_LIFELINES:
            kind = "component" if group else "process"
            self._add_lifeline(Lifeline(lid, label, label, group, kind))
        for i in range(task_executors):
            self._task_executor(f"TaskExecutor-{i}")

    # -- lifelines ------------------------------------------------------------------------------
    def _add_lifeline(self, lifeline: Lifeline, after: str | None = None) -> None:
        if after is None:
            self.lifelines.append(lifeline)
        else:
            at = self._index[after] + 1
            while at < len(self.lifelines) and self.lifelines[at].group == after:
                at += 1
            self.lifelines.insert(at, lifeline)
        self._index = {line.id: i for i, line in enumerate(self.lifelines)}

    def _task_executor(self, name: str) -> str:
        if name not in self._index:
            self._add_lifeline(Lifeline(name, name, name, "", "process"))
        return name

    def _task(self, vertex: str, subtask: int, attempt: int, te: str | None) -> str:
        lid = _task_id(vertex, subtask, attempt)
        if lid not in self._index:
            name = self._names.get((vertex, subtask), f"{vertex} ({subtask + 1}/?)")
            label = short_task_name(name) + (f" #{attempt}" if attempt else "")
            title = f"Task {name}, attempt #{attempt}" + (f", on {te}" if te else "")
            owner = self._task_executor(te) if te else None
            self._add_lifeline(Lifeline(lid, label, title, owner or "", "task"), after=owner)
        self._attempt[(vertex, subtask)] = max(attempt, self._attempt.get((vertex, subtask), 0))
        return lid

    # -- events → arrows ------------------------------------------------------------------------
    def add(self, events: Iterable[Any]) -> int:
        """Turn trace events into arrows; returns how many arrows were added."""
        before = len(self.messages)
        for e in events:
            self.events_seen += 1
            self._add_event(e)
        return len(self.messages) - before

    def _add_event(self, e: Any) -> None:
        method = e.method
        if method in SKIPPED:
            return
        component = e.component
        is_task_event = e.vertex is not None and e.subtask is not None
        if is_task_event:
            found = _TASK_IN_MESSAGE.match(e.message)
            if component.endswith(")") and "/" in component:
                self._names[(e.vertex, e.subtask)] = component
            elif found and method in ("TaskExecutor.submitTask", "Task.transitionState"):
                self._names.setdefault((e.vertex, e.subtask), found.group(1))
        if method == "TaskExecutor.submitTask" and is_task_event:
            self._task_te[(e.vertex, e.subtask, e.attempt or 0)] = component
        rule = RULES.get(method)
        if method == "CheckpointBarrierHandler.processBarrier" and not _BARRIER_CHANNEL.search(
            e.message
        ):
            rule = (TASK, TASK, "barrier")
        if method == "Execution.transitionState":
            rule = self._execution_transition(e)
            if rule is None:
                return
        if rule is None:
            owner = self._owner(e)
            rule = (owner, owner, "state" if e.new_state else "self")
        source = self._resolve(rule[0], e)
        target = self._resolve(rule[1], e)
        if source is None or target is None:
            return
        label = self._label(e)
        call = (e.step, source, target, label, e.vertex, e.subtask, e.attempt)
        if call == self._last_call and method in ONE_CALL_MANY_LINES:
            self.messages[-1]["detail"] += "\n" + e.message  # the same call's next log line
            return
        self._last_call = call
        previous = self.messages[-1] if self.messages else None
        phase = phase_of(method, rule[2], e.new_state, previous["phase"] if previous else None)
        if previous and previous["step"] == e.step and not _interrupts(phase, method):
            phase = previous["phase"]  # a step's arrows stay in one band
        # a band: the consecutive arrows of one phase, named by its first arrow's index
        band = previous["band"] if previous and previous["phase"] == phase else len(self.messages)
        self.messages.append(
            {
                "i": len(self.messages),
                "step": e.step,
                "time": e.time,
                "from": source,
                "to": target,
                "label": label,
                "method": method,
                "detail": e.message,
                "kind": rule[2],
                "checkpoint": e.checkpoint,
                "phase": phase,
                "band": band,
            }
        )
        summary = self.bands.setdefault(
            band, {"phase": phase, "first": e.step, "last": e.step, "count": 0}
        )
        summary["last"] = e.step
        summary["count"] += 1

    def _execution_transition(self, e: Any) -> tuple[str, str, str] | None:
        """A TaskExecutor's report (``updateTaskExecutionState``) or the scheduler's own change."""
        if e.old_state in _FROM_TM and e.new_state != "CANCELING":
            te = self._task_te.get((e.vertex, e.subtask, e.attempt or 0))
            if te is not None:
                kind = "failure" if e.new_state == "FAILED" else "state"
                return (te, SCHEDULER, kind)
        if e.new_state in ("FAILED", "CANCELING", "CANCELED"):
            return (SCHEDULER, SCHEDULER, "failure")
        return None  # CREATED → SCHEDULED → DEPLOYING: the graph shows them, no call

    def _owner(self, e: Any) -> str:
        component = e.component
        if component == JOB_MASTER:
            for prefix, owner in OWNER_PREFIXES:
                if e.method.startswith(prefix):
                    return owner
            return JOB_MASTER
        if component in self._index and not component.startswith("task:"):
            return component
        if component.startswith("TaskExecutor"):
            return self._task_executor(component)
        if e.vertex is not None and e.subtask is not None:
            return TASK
        self._add_lifeline(Lifeline(component, component, component, "", "process"))
        return component

    def _resolve(self, end: str, e: Any) -> str | None:
        if end == TE:
            if e.component.startswith("TaskExecutor"):
                return self._task_executor(e.component)
            te = self._task_te.get((e.vertex, e.subtask, e.attempt or 0))
            return self._task_executor(te) if te else None
        if end == TASK:
            if e.vertex is None or e.subtask is None:
                return None
            attempt = e.attempt or 0
            return self._task(
                e.vertex, e.subtask, attempt, self._task_te.get((e.vertex, e.subtask, attempt))
            )
        if end == UPSTREAM:
            return self._upstream(e)
        return end

    def _upstream(self, e: Any) -> str | None:
        """The task that sent the barrier on the channel named in the event's message."""
        found = _BARRIER_CHANNEL.search(e.message)
        producers = self.channel_producers.get((e.vertex, e.subtask))
        if found is None or not producers or int(found.group(1)) >= len(producers):
            return self._resolve(TASK, e)  # unknown wiring: the barrier shown at the receiver
        vertex, subtask = producers[int(found.group(1))]
        attempt = self._attempt.get((vertex, subtask), 0)
        return self._task(vertex, subtask, attempt, self._task_te.get((vertex, subtask, attempt)))

    @staticmethod
    def _label(e: Any) -> str:
        cls, _, name = e.method.rpartition(".")
        if e.method == "CheckpointBarrierHandler.processBarrier":
            for phrase, flink_method in _BARRIER_STEPS:
                if phrase in e.message:
                    name = flink_method
        elif name in _AMBIGUOUS:
            name = e.method
        if e.method == "Execution.transitionState" and e.old_state in _FROM_TM:
            return f"updateTaskExecutionState {e.new_state}"
        if e.new_state:
            return f"{name} {e.old_state} → {e.new_state}"
        if e.checkpoint is not None:
            return f"{name} ({e.checkpoint})"
        return name

    # -- views ----------------------------------------------------------------------------------
    def to_dict(self, last: int | None = None) -> dict[str, Any]:
        """JSON-safe lifelines and the ``last`` arrows (all when None)."""
        messages = self.messages if last is None else self.messages[-last:]
        return {
            "lifelines": [line.to_dict() for line in self.lifelines],
            "messages": messages,
            "total": len(self.messages),
        }

    def arrows(self) -> list[str]:
        """``from -> to: label`` per arrow, with lifeline labels (for tests and text output)."""
        label = {line.id: line.label for line in self.lifelines}
        return [f"{label[m['from']]} -> {label[m['to']]}: {m['label']}" for m in self.messages]


def sequence_model(
    events: Iterable[Any],
    task_executors: int = 0,
    channel_producers: Mapping[tuple[str, int], list[tuple[str, int]]] | None = None,
) -> SequenceModel:
    """The sequence diagram of a whole trace."""
    model = SequenceModel(task_executors, channel_producers)
    model.add(events)
    return model


def channel_producers_of(execution_graph: Any) -> dict[tuple[str, int], list[tuple[str, int]]]:
    """(vertex name, subtask) → the producer of each input channel, inputs in order (the order of
    a task's input channels: gates by input number, then partitions)."""
    out: dict[tuple[str, int], list[tuple[str, int]]] = {}
    for ejv in execution_graph.job_vertices:
        for ev in ejv.task_vertices:
            out[(ev.task_name, ev.subtask_index)] = [
                (edge.source.producer.task_name, edge.source.producer.subtask_index)
                for group in ev.input_edges
                for edge in group
            ]
    return out


class SequenceDiagram:
    """A run's sequence diagram for display: ``to_svg()``, ``save()``, Jupyter's ``_repr_svg_``."""

    def __init__(self, model: SequenceModel, last: int | None = None) -> None:
        self.model = model
        self.last = last

    def to_svg(self, highlight_step: int | None = None) -> str:
        from pyflowkit.render.sequence_svg import sequence_svg

        return sequence_svg(self.model.to_dict(), highlight_step, self.last)

    def save(self, path: Any) -> Any:
        """Write the SVG to ``path``; returns the path."""
        from pathlib import Path

        target = Path(path)
        target.write_text(self.to_svg(), encoding="utf-8")
        return target

    def _repr_svg_(self) -> str:
        return self.to_svg()

    def _repr_html_(self) -> str:
        """The SVG at its own size (14 px text) in a box that scrolls sideways if it is wide,
        in the notebook's theme (``pyflowkit.render.themed_html``)."""
        from pyflowkit.render.themed_html import sequence_html

        return sequence_html(self.to_svg())

    def __repr__(self) -> str:
        return (
            f"SequenceDiagram({len(self.model.lifelines)} lifelines, "
            f"{len(self.model.messages)} arrows)"
        )


def sequence_diagram(
    run_or_events: Any, last: int | None = None, execution_graph: Any = None
) -> SequenceDiagram:
    """The sequence diagram of a ``JobRun`` (its trace, TaskExecutors and wiring) or of events."""
    events = getattr(run_or_events, "trace", run_or_events)
    task_executors = len(getattr(run_or_events, "task_executors", ()) or ())
    if execution_graph is None and hasattr(run_or_events, "job_graph"):
        execution_graph = run_or_events.job_graph.to_execution_graph()
    producers = channel_producers_of(execution_graph) if execution_graph is not None else None
    return SequenceDiagram(sequence_model(events, task_executors, producers), last)
