"""Narration of the current step: one plain sentence, a ``sender → receiver`` caption, the Flink
method and one line on why it happens, beside the Flink log line.

No Flink counterpart: a teaching aid derived from the run's trace events (the runtime is not
changed; the same trace gives the same narration). Subtasks are named as Flink's web UI names
them, ``Flat Map (1/2)``. The reasons paraphrase ``/work/shared/reference/flink-runtime.md``.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.render.short_names import short_ids, short_task_name

#: Flink method → (sentence template, why). Templates may use {sender}, {receiver}, {task},
#: {for_task} (`` for Flat Map (1/2)`` when the event names a subtask), {old}, {new}, {checkpoint}.
NARRATION: dict[str, tuple[str, str]] = {
    "Dispatcher.submitJob": (
        "The client hands the JobGraph to the Dispatcher",
        "the Dispatcher is the cluster's entry point for jobs (MiniCluster.submitJob)",
    ),
    "Dispatcher.persistAndRunJob": (
        "The Dispatcher stores the JobGraph and starts running the job",
        "a submitted job is persisted first so that it survives a Dispatcher failover",
    ),
    "JobManagerRunnerImpl.start": (
        "The Dispatcher starts a JobManagerRunner for the job",
        "each job gets its own runner, which runs a leader election for its JobMaster",
    ),
    "JobManagerRunnerImpl.grantLeadership": (
        "The JobManagerRunner is granted leadership for the job",
        "only the leader may start a JobMaster (one JobMaster per job)",
    ),
    "JobMaster.<init>": (
        "The JobManagerRunner creates the JobMaster",
        "the JobMaster runs one job: it builds the ExecutionGraph from the JobGraph",
    ),
    "SchedulerBase.<init>": (
        "The JobMaster builds the ExecutionGraph and its scheduler",
        "the ExecutionGraph has one ExecutionVertex per subtask, grouped in pipelined regions",
    ),
    "JobMaster.start": (
        "The JobManagerRunner starts the JobMaster",
        "starting the JobMaster starts its SlotPool and connects it to the ResourceManager",
    ),
    "DefaultScheduler.startScheduling": (
        "The JobMaster tells its scheduler to start scheduling",
        "streaming jobs are scheduled eagerly: every subtask at once",
    ),
    "AdaptiveBatchScheduler.tryDecideParallelismAndInputInfos": (
        "The scheduler decides the parallelism of a job vertex",
        "Flink 1.17+ BATCH jobs (FLIP-187): a vertex the program gave no parallelism gets one "
        "when its inputs finished, from the bytes they produced",
    ),
    "DefaultVertexParallelismAndInputInfosDecider.decideParallelism": (
        "The decider divides the consumed bytes by the data volume per task",
        "execution.batch.adaptive.auto-parallelism.avg-data-volume-per-task (16 mb): tiny "
        "inputs get parallelism 1",
    ),
    "ExecutionGraph.transitionState": (
        "The job switches from {old} to {new}",
        "the JobStatus follows the ExecutionGraph: RUNNING once scheduling starts",
    ),
    "SlotPool.requestNewAllocatedSlot": (
        "The scheduler asks the SlotPool for a new slot{for_task}",
        "slots are requested lazily, when the scheduler deploys",
    ),
    "ResourceManager.registerJobManager": (
        "The JobMaster registers with the ResourceManager",
        "only a registered JobMaster may ask the ResourceManager for slots",
    ),
    "SlotPool.connectToResourceManager": (
        "The SlotPool connects to the ResourceManager and sends its pending slot requests",
        "requests made before the connection wait in the SlotPool",
    ),
    "SlotManager.registerSlotRequest": (
        "The SlotPool asks the ResourceManager for a slot{for_task}",
        "the SlotPool has no free slot, so it asks the ResourceManager's SlotManager",
    ),
    "TaskExecutor.requestSlot": (
        "The ResourceManager asks {receiver} to give one of its slots to the job",
        "the SlotManager picked a free slot that this TaskExecutor registered",
    ),
    "TaskExecutor.offerSlotsToJobManager": (
        "{sender} offers its reserved slot to the JobMaster",
        "the TaskExecutor, not the ResourceManager, hands the slot to the job's JobMaster",
    ),
    "DeclarativeSlotPoolBridge.requestNewAllocatedSlot": (
        "The scheduler asks the declarative SlotPool for a slot{for_task}",
        "Flink 1.13+ (FLIP-138): the request only raises the number of slots the job needs",
    ),
    "DefaultDeclarativeSlotPool.declareResourceRequirements": (
        "The SlotPool updates the resources the job requires",
        "one number per resource profile, not one request per slot (FLIP-138)",
    ),
    "DeclarativeSlotPoolService.connectToResourceManager": (
        "The SlotPool connects to the ResourceManager",
        "requirements declared before the connection are sent once it stands",
    ),
    "ResourceManager.declareRequiredResources": (
        "The JobMaster declares how many slots the job requires",
        "the ResourceManager, not the JobMaster, decides which slots to allocate (FLIP-138)",
    ),
    "FineGrainedSlotManager.processResourceRequirements": (
        "The ResourceManager's SlotManager compares the requirements with the slots the job has",
        "it allocates only what is missing",
    ),
    "DefaultSlotStatusSyncer.allocateSlot": (
        "The SlotManager allocates a slot on a TaskExecutor",
        "a dynamic slot: its number comes after the TaskExecutor's fixed slots",
    ),
    "FineGrainedSlotManager.clearResourceRequirements": (
        "The ResourceManager clears the job's resource requirements",
        "the job ended: its slots go back to the TaskExecutors",
    ),
    "DefaultDeclarativeSlotPool.offerSlots": (
        "The JobMaster's SlotPool accepts the offered slots",
        "accepted slots fill the job's declared requirements",
    ),
    "DeclarativeSlotPoolBridge.newSlotsAreAvailable": (
        "The SlotPool hands the new slot to the oldest waiting request",
        "then the scheduler can deploy that subtask",
    ),
    "DefaultDeclarativeSlotPool.freeReservedSlot": (
        "The SlotPool frees a reserved slot; the slot stays in the pool",
        "the job keeps a freed slot: its restarted tasks reuse it without asking the "
        "ResourceManager",
    ),
    "DeclarativeSlotPoolBridge.allocateAvailableSlot": (
        "The SlotPool reserves a free slot it already holds for a slot request",
        "a slot the job already holds serves the request without asking the ResourceManager",
    ),
    "TaskExecutor.freeSlot": (
        "{receiver} frees a slot the JobMaster gave back",
        "the JobMaster no longer needs the slot (its job ended, or it did not want the offer); "
        "the ResourceManager then sees it free for another job",
    ),
    "Dispatcher.jobReachedGloballyTerminalState": (
        "The JobMaster tells the Dispatcher that the job reached its final state",
        "FINISHED, FAILED or CANCELED is final: the Dispatcher archives the job and stops its "
        "JobManagerRunner",
    ),
    "SlotPool.offerSlot": (
        "The JobMaster's SlotPool accepts the slot",
        "an offered slot fulfils a pending slot request of the scheduler",
    ),
    "Execution.deploy": (
        "The JobMaster starts deploying {task}: SCHEDULED → DEPLOYING",
        "its slot is assigned, so the JobMaster builds a TaskDeploymentDescriptor for it",
    ),
    "TaskExecutor.submitTask": (
        "The JobMaster deploys {task} to {receiver}",
        "once all slots are there, each Execution is deployed as a Task in its slot",
    ),
    "Task.transitionState": (
        "{task} switches from {old} to {new} on its TaskExecutor",
        "the Task thread changes state first; the JobMaster learns it by RPC",
    ),
    "Execution.transitionState": (
        "The JobMaster learns that {task} is {new}",
        "the TaskExecutor reports it with updateTaskExecutionState; the graph shows this view",
    ),
    "StreamTask.invoke": (
        "{task} builds its operator chain and starts processing",
        "invoke() opens the chained operators and then runs the mailbox loop",
    ),
    "StreamTask.initializeStateAndOpenOperators": (
        "{task} restores the state of its operators and opens them",
        "tail to head: each operator's initializeState() restores its state, then open()",
    ),
    "StreamTask.processInput": (
        "{task} processes its input: records go through its operator chain",
        "the mailbox loop's default action, run whenever no mail is waiting",
    ),
    "MailboxProcessor.runMailboxStep": (
        "{task} runs a mail from its mailbox",
        "checkpoint triggers, timers and notifications run as mails, between records",
    ),
    "StreamTask.endData": (
        "{task} has no more data and sends EndOfData downstream",
        "Flink 1.15+ (FLIP-147): a task whose input ended finishes its operators first, then "
        "waits for a final checkpoint",
    ),
    "StreamTask.performCheckpoint": (
        "{task} takes checkpoint {checkpoint} after its data ended",
        "FLIP-147: the first checkpoint after EndOfData is the task's final one "
        "(finalCheckpointMinId)",
    ),
    "StreamTask.notifyCheckpointComplete": (
        "{task} hears that its final checkpoint {checkpoint} completed: it may finish",
        "FLIP-147: a finished task waits until a checkpoint covers what it emitted, so sinks "
        "can commit",
    ),
    "StreamTask.afterInvoke": (
        "{task} leaves its mailbox loop and closes its operators",
        "afterInvoke closes the operators head to tail and flushes the outputs",
    ),
    "CheckpointCoordinator.createPendingCheckpoint": (
        "The CheckpointCoordinator triggers checkpoint {checkpoint}",
        "a PendingCheckpoint waits for one acknowledgement per subtask",
    ),
    "Execution.triggerCheckpoint": (
        "The JobMaster triggers checkpoint {checkpoint} at the source {task}",
        "only sources are triggered; the RPC goes to the TaskExecutor that runs them",
    ),
    "TaskExecutor.triggerCheckpoint": (
        "The CheckpointCoordinator asks {receiver} to start checkpoint {checkpoint} at a source",
        "only sources are triggered; every other task gets the barrier through its inputs",
    ),
    "Task.triggerCheckpointBarrier": (
        "{task} is told to take checkpoint {checkpoint}",
        "the trigger waits in the task's mailbox, between records",
    ),
    "SubtaskCheckpointCoordinatorImpl.checkpointState": (
        "{task} snapshots its state and sends barrier {checkpoint} downstream",
        "the synchronous part: snapshot, then the barrier goes to every output channel",
    ),
    "AsyncCheckpointRunnable.run": (
        "{task} finishes writing its state for checkpoint {checkpoint}",
        "the asynchronous part runs while the task keeps processing records",
    ),
    "TaskStateManagerImpl.reportTaskStateSnapshots": (
        "{task} reports its state of checkpoint {checkpoint}",
        "the report of the state handles is the acknowledgement the CheckpointResponder sends",
    ),
    "RpcCheckpointResponder.acknowledgeCheckpoint": (
        "{task} acknowledges checkpoint {checkpoint} to the JobMaster",
        "the checkpoint completes when every subtask has acknowledged",
    ),
    "JobMaster.acknowledgeCheckpoint": (
        "The JobMaster receives an acknowledgement of checkpoint {checkpoint}",
        "the JobMaster is the CheckpointCoordinatorGateway: the TaskExecutors ack to it by RPC",
    ),
    "SchedulerBase.acknowledgeCheckpoint": (
        "The JobMaster hands the acknowledgement to the CheckpointCoordinator",
        "the coordinator lives inside the JobMaster",
    ),
    "PendingCheckpoint.acknowledgeTask": (
        "The PendingCheckpoint {checkpoint} records one more acknowledgement",
        "it becomes a CompletedCheckpoint when every subtask has acknowledged",
    ),
    "CheckpointBarrierHandler.processBarrier": (
        "{task} receives barrier {checkpoint} on one input channel",
        "with several inputs, a task blocks a channel until the barrier arrived on all (alignment)",
    ),
    "StandaloneCompletedCheckpointStore.addCheckpoint": (
        "Checkpoint {checkpoint} goes into the CompletedCheckpointStore",
        "a restore takes the latest completed checkpoint from this store",
    ),
    "CheckpointCoordinator.completePendingCheckpoint": (
        "Checkpoint {checkpoint} is complete",
        "every subtask acknowledged: the job can be restored to this point",
    ),
    "Execution.notifyCheckpointComplete": (
        "The JobMaster notifies {task} that checkpoint {checkpoint} completed",
        "once a checkpoint completes, every task is told (sendAcknowledgeMessages)",
    ),
    "TaskExecutor.confirmCheckpoint": (
        "The CheckpointCoordinator tells {receiver} that checkpoint {checkpoint} completed",
        "sinks may now commit what they wrote for this checkpoint",
    ),
    "Task.notifyCheckpointComplete": (
        "{task} is told that checkpoint {checkpoint} completed",
        "the notification goes through the mailbox, ahead of records",
    ),
    "SubtaskCheckpointCoordinatorImpl.notifyCheckpointComplete": (
        "Every operator of {task} hears that checkpoint {checkpoint} completed",
        "operators such as two-phase-commit sinks act on this notification",
    ),
    "Task.failure": (
        "{task} fails: its code threw an exception",
        "the Task thread catches the exception and switches to FAILED",
    ),
    "Task.releaseResources": (
        "{task} frees its resources",
        "a finished or failed Task releases its buffers and memory",
    ),
    "TaskExecutor.unregisterTaskAndNotifyFinalState": (
        "{task} reports its final state to the JobMaster through {receiver}",
        "the JobMaster decides what to do about a failure, not the TaskExecutor",
    ),
    "RestartPipelinedRegionFailoverStrategy.getTasksNeedingRestart": (
        "The scheduler works out which tasks must restart",
        "only the failed task's pipelined region restarts",
    ),
    "CheckpointCoordinator.restoreLatestCheckpointedState": (
        "The job restores its state from the latest completed checkpoint",
        "restarted tasks get the state of the last completed checkpoint",
    ),
    "CheckpointCoordinator.restoreSavepoint": (
        "The job restores its state from a savepoint",
        "a savepoint is a checkpoint the user triggered and keeps",
    ),
    "CheckpointCoordinator.shutdown": (
        "The JobMaster stops the CheckpointCoordinator",
        "the job reached a globally terminal state: no more checkpoints are triggered",
    ),
}
#: Events that are the news of their step, whatever else happened in it.
HEADLINES = (
    "CheckpointCoordinator.completePendingCheckpoint",
    "CheckpointCoordinator.restoreLatestCheckpointedState",
    "CheckpointCoordinator.restoreSavepoint",
    "Task.failure",
    "CheckpointCoordinator.createPendingCheckpoint",
)
#: What a task does between the news: narrated only when nothing else in the step has a sentence.
ROUTINE = ("StreamTask.processInput", "MailboxProcessor.runMailboxStep")
#: Why the scheduler starts as it does, by the SchedulingStrategy its log line names.
STRATEGY_WHY = {
    "PipelinedRegionSchedulingStrategy": (
        "Flink 1.12+ (FLIP-119): region by region in topological order; every region of a "
        "streaming job can be scheduled at once"
    ),
    "VertexwiseSchedulingStrategy": (
        "a BATCH job on Flink 1.17+'s AdaptiveBatchScheduler (FLIP-187): a vertex is deployed "
        "only once its blocking inputs finished, not eagerly"
    ),
}
#: What a step does that has no sentence of its own: the Flink log line is the narration.
FALLBACK_WHY = "see the Flink log line"


def _task(e: Any, parallelism: dict[str, int]) -> str:
    if e.vertex is None or e.subtask is None:
        return "the task"
    p = parallelism.get(e.vertex)
    index = f"{e.subtask + 1}/{p}" if p else str(e.subtask + 1)
    return short_task_name(f"{e.vertex} ({index})")


def subject_id(e: Any, run: Any) -> str:
    """The graph element the step is about: its subtask's ``ev_<JobVertexID>_<i>``, its vertex's
    ``ejv_<JobVertexID>`` (no subtask named), else "" (a job-level step)."""
    ids = {v.name: v.id for v in run.job_graph.vertices}
    if e.vertex not in ids:
        return ""
    if e.subtask is None:
        return f"ejv_{ids[e.vertex]}"
    return f"ev_{ids[e.vertex]}_{e.subtask}"


def current_events(run: Any) -> list[Any]:
    """The trace events of the run's newest step."""
    trace, step = run.trace, run.steps_taken
    k = len(trace)
    while k > 0 and trace[k - 1].step == step:
        k -= 1
    return list(trace[k:]) if step else []


def narrate(run: Any, model: Any) -> dict[str, Any]:
    """``{sentence, caption, sender, receiver, method, why, step, subject}`` of the run's current
    step (``subject``: :func:`subject_id`, the graph element the Stepper keeps in view)
    (``model``: the run's up-to-date ``SequenceModel``); empty before the first step."""
    if run is None:
        return {}
    events = current_events(run)
    if not run.steps_taken:
        return {}
    if not events:
        return {
            "step": run.steps_taken,
            "sentence": "A mail ran that Flink does not log (no component logged at this step).",
            "sender": "",
            "receiver": "",
            "caption": "",
            "method": "",
            "why": "not every mailbox action has a log line",
            "events": 0,
            "subject": "",
        }
    labels = {line.id: line.label for line in model.lifelines} if model is not None else {}
    arrows = {}
    if model is not None:
        for m in reversed(model.messages):
            if m["step"] != run.steps_taken:
                break
            arrows.setdefault(m["method"], m)
    headline = [e for e in events if e.method in HEADLINES]
    headline.sort(key=lambda e: HEADLINES.index(e.method))
    named = sorted((e for e in events if e.method in NARRATION), key=lambda e: e.method in ROUTINE)
    primary = next(
        iter(headline),
        next((e for e in named if e.method in arrows), next(iter(named), events[0])),
    )
    parallelism = {v.name: v.parallelism for v in run.job_graph.vertices}
    arrow = arrows.get(primary.method)
    sender = labels.get(arrow["from"], arrow["from"]) if arrow else primary.component
    receiver = labels.get(arrow["to"], arrow["to"]) if arrow else primary.component
    template, why = NARRATION.get(primary.method, ("", FALLBACK_WHY))
    if primary.method == "DefaultScheduler.startScheduling":
        why = next((w for k, w in STRATEGY_WHY.items() if k in primary.message), why)
    fields = {
        "sender": sender,
        "receiver": receiver,
        "task": _task(primary, parallelism),
        "for_task": f" for {_task(primary, parallelism)}" if primary.vertex is not None else "",
        "old": primary.old_state or "",
        "new": primary.new_state or "",
        "checkpoint": primary.checkpoint if primary.checkpoint is not None else "",
    }
    if template:
        sentence = template.format(**fields) + "."
    else:  # no sentence of its own: the log line, its subtask named as the web UI does
        sentence = short_ids(primary.message)
        if primary.component and primary.component in sentence:
            sentence = sentence.replace(primary.component, short_task_name(primary.component))
    return {
        "step": run.steps_taken,
        "sentence": sentence,
        "sender": sender,
        "receiver": receiver,
        "caption": sender if sender == receiver else f"{sender} → {receiver}",
        "method": primary.method,
        "why": why,
        "events": len(events),
        "subject": subject_id(primary, run),
    }
