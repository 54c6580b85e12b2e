"""``StepperController``: the commands of the Stepper (submit, step, back, run to, trigger, fail, cancel).

No Flink counterpart: a teaching console over ``MiniCluster.submitJob`` and a ``JobRun``. It owns the
run, the event log and the status message; it knows nothing of widgets or HTML.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.render.short_names import short_ids

RUN_TO_TARGETS = ("state", "job", "checkpoint", "end")
RUN_TO_LABELS = {
    "state": "next state change",
    "job": "next JobStatus change",
    "checkpoint": "next completed checkpoint",
    "end": "job end",
}
NO_CHECKPOINTS = (
    "checkpoints are not available in this runtime yet (JobRun has no trigger_checkpoint); "
    "nothing was triggered"
)

#: The event that ends a "Run to" (shown in the status line), per target.
_STOPPED_BY = {
    "state": lambda e: e.new_state is not None,
    "job": lambda e: e.method == "ExecutionGraph.transitionState",
    "checkpoint": lambda e: e.method == "CheckpointCoordinator.completePendingCheckpoint",
    "end": lambda e: e.method == "ExecutionGraph.transitionState",
}


def event_row(e: Any) -> dict[str, Any]:
    """One event log row (JSON-safe) of a ``TraceEvent``, its ids cut to 6 hex digits."""
    return {
        "step": e.step,
        "time": e.time,
        "component": e.component,
        "method": e.method,
        "message": short_ids(e.message),
    }


class StepperController:
    """Drives one ``JobRun`` on a fresh ``MiniCluster`` per submit; every command sets ``message``."""

    def __init__(
        self,
        job_graph: Any,
        task_managers: int = 2,
        slots: int = 2,
        seed: int = 0,
        savepoint_path: str | None = None,
        allow_non_restored_state: bool = False,
        record_cost_ms: dict[str, float] | None = None,
    ) -> None:
        self.job_graph = job_graph
        self.record_cost_ms = dict(record_cost_ms or {})
        self.task_managers = task_managers
        self.slots_per_task_manager = slots
        self.seed = seed
        self.savepoint_path = None if savepoint_path is None else str(savepoint_path)
        self.allow_non_restored_state = allow_non_restored_state
        self.run: Any = None
        self.log: list[dict[str, Any]] = []
        self.message = ""

    def submit(self) -> None:
        """``MiniCluster.submitJob``: a fresh run with the current seed (nothing stepped yet),
        restoring ``savepoint_path`` if one was given."""
        from pyflowkit.runtime.mini_cluster import MiniCluster

        cluster = MiniCluster(
            self.task_managers,
            self.slots_per_task_manager,
            seed=self.seed,
            echo_print=False,
            record_cost_ms=self.record_cost_ms,
        )
        if self.savepoint_path is None:
            self.run = cluster.submit(self.job_graph)
        else:
            self.run = cluster.submit(
                self.job_graph,
                savepoint_path=self.savepoint_path,
                allow_non_restored_state=self.allow_non_restored_state,
            )
        self.log = []
        restored = f", restoring {self.savepoint_path}" if self.savepoint_path else ""
        self.message = f"submitted {self.job_graph.job_name!r} with seed {self.seed}{restored}"

    def need_run(self) -> None:
        """Submit first if nothing was submitted yet."""
        if self.run is None:
            self.submit()

    def step(self, n: int = 1) -> list[Any]:
        """Deliver ``n`` messages/mails (``JobRun.step``)."""
        self.need_run()
        events = self.run.step(n)
        self.log.extend(event_row(e) for e in events)
        self.message = events[-1].message if events else "nothing left to step: the run is idle"
        return events

    def back(self) -> None:
        """Rewind one step (``JobRun.rewind``: a deterministic replay from the seed)."""
        self.need_run()
        if self.run.steps_taken == 0:
            self.message = "already at step 0"
            return
        self.run.rewind(self.run.steps_taken - 1)
        self.log = [event_row(e) for e in self.run.trace]
        self.message = f"rewound to step {self.run.steps_taken}"

    def rewind_to(self, step: int) -> None:
        """Rewind to ``step`` in one deterministic replay from the seed (not one per step)."""
        self.need_run()
        if self.run.steps_taken <= step:
            return
        self.run.rewind(max(0, step))
        self.log = [event_row(e) for e in self.run.trace]
        self.message = f"rewound to step {self.run.steps_taken}"

    def run_to(self, target: str) -> None:
        """Step until the next state change (task or job), the next JobStatus change, the next
        completed checkpoint, or the job's end."""
        from pyflowkit.errors import IllegalArgumentException
        from pyflowkit.runtime import predicates

        self.need_run()
        if target not in RUN_TO_TARGETS:
            raise ValueError(
                f"Stepper.run_to: target must be one of {RUN_TO_TARGETS}, not {target!r}"
            )
        if target == "checkpoint":
            if not hasattr(self.run, "checkpoints_frame"):
                self.message = NO_CHECKPOINTS
                return
            predicate = self._next_completed_checkpoint()
        elif target == "state":
            predicate = predicates.next_state_change()
        elif target == "job":
            status = self.run.job_status
            predicate = lambda run: run.job_status is not status  # noqa: E731
        else:
            predicate = predicates.job_finished()
        start = len(self.run.trace)
        try:
            self.run.run_until(predicate)
            freed = self._run_to_slots_freed() if target == "end" else 0
        except IllegalArgumentException as exc:  # the simulation ran out of events first
            self.message = f"no {RUN_TO_LABELS[target]}: {exc}"
            return
        finally:
            self.log_since(start)
        new = self.run.trace[start:]
        wanted = _STOPPED_BY[target]
        stop = next((e for e in reversed(new) if wanted(e)), new[-1] if new else None)
        self.message = (
            f"ran to {target} ({RUN_TO_LABELS[target]}), {len(new)} events, now at step "
            f"{self.run.steps_taken}: {stop.message if stop is not None else ''}"
        )
        if freed:
            self.message += f" Then {freed} slots freed (TaskExecutor.freeSlot)."

    def _run_to_slots_freed(self) -> int:
        """The job's end as the cluster has it: once the job is globally terminal the JobMaster
        gives its slots back (``TaskExecutor.freeSlot``, then the ResourceManager sees them free);
        step until no live TaskExecutor holds a slot of this job, or nothing is left to deliver;
        the number of slots freed."""
        run = self.run
        job = run.job_master.job_id if run.job_master is not None else None

        def held(r: Any) -> bool:
            return any(
                s.job_id == job and s.allocation_id is not None
                for te in r.task_executors
                if te.alive
                for s in te.task_slot_table.slots
            )

        freed = 0
        while held(run):
            events = run.step(1)
            if not events:
                break
            freed += sum(e.method == "TaskExecutor.freeSlot" for e in events)
        return freed

    def trigger_checkpoint(self) -> None:
        """``CheckpointCoordinator.triggerCheckpoint`` (when the runtime has checkpoints)."""
        self.need_run()
        if not hasattr(self.run, "trigger_checkpoint"):
            self.message = NO_CHECKPOINTS
            return
        start = len(self.run.trace)
        checkpoint_id = self.run.trigger_checkpoint()
        self.log_since(start)
        self.message = (
            f"checkpoint {checkpoint_id} triggered"
            if checkpoint_id is not None
            else "checkpoint request queued behind the checkpoints in progress"
        )

    def trigger_savepoint(self) -> None:
        """``JobMaster.triggerSavepoint`` (when the runtime has savepoints)."""
        self.need_run()
        if not hasattr(self.run, "trigger_savepoint"):
            self.message = NO_CHECKPOINTS.replace("checkpoint", "savepoint")
            return
        start = len(self.run.trace)
        checkpoint_id = self.run.trigger_savepoint()
        self.log_since(start)
        self.message = f"savepoint {checkpoint_id} triggered"

    def fail_task(self, vertex: str, subtask: int) -> None:
        """``JobRun.fail_task`` on one subtask (refused unless it is deployed and not terminal)."""
        self.need_run()
        jv = self.job_graph.get_vertex(vertex)
        name = f"{jv.name} ({subtask + 1}/{jv.parallelism})"
        state = self.run.execution_state(vertex, subtask)
        if state is None or state.value not in ("DEPLOYING", "RUNNING"):
            where = "not deployed yet" if state is None else state.value
            self.message = f"cannot fail {name}: it is {where}; only a deployed task can fail"
            return
        self.run.fail_task(vertex, subtask)
        self.message = (
            f"{name} will throw at the next step; its TaskExecutor then reports FAILED and the "
            "JobMaster asks the restart strategy (a few steps later: see the Exceptions pane)"
        )

    def fail_task_manager(self, index: int) -> None:
        """``JobRun.fail_task_manager``: kill TaskExecutor ``index``."""
        self.need_run()
        self.run.fail_task_manager(index)
        self.message = (
            f"TaskExecutor-{index} will be killed at the next step; the JobMaster and the "
            "ResourceManager learn of it when its heartbeats time out"
        )

    def cancel(self) -> None:
        """``JobMaster.cancel``."""
        self.need_run()
        status = self.run.job_status
        if status.is_globally_terminal_state():
            self.message = f"the job is already {status.value}: there is nothing to cancel"
            return
        if self.run.job_master is None:
            self.message = "cancel: the job has no JobMaster yet; step further first (the Dispatcher starts it)"
            return
        self.run.cancel()
        self.message = (
            "cancel requested: JobMaster.cancel arrives at the next step, then the job goes "
            "CANCELLING → CANCELED as its tasks stop (step to watch)"
        )

    def log_since(self, start: int) -> None:
        """Add the trace events a command caused outside ``step`` (e.g. a trigger) to the log."""
        self.log.extend(event_row(e) for e in self.run.trace[start:])

    def _next_completed_checkpoint(self) -> Any:
        """Predicate: one more checkpoint COMPLETED than now (the runtime's, else from the frame)."""
        from pyflowkit.runtime import predicates

        ready_made = getattr(predicates, "checkpoint_completed", None)
        if ready_made is not None:
            return ready_made()

        def completed(run: Any) -> int:
            frame = run.checkpoints_frame()
            return int((frame["status"] == "COMPLETED").sum()) if "status" in frame else 0

        done = completed(self.run)
        return lambda run: completed(run) > done
