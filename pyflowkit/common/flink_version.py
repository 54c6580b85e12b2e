"""The Flink version profile: ``pyflowkit.flink-version`` (``1.11`` or ``1.20``) and its rules.

pyflowkit's runtime is Flink 1.11's (the version the classroom studies); its API is PyFlink 1.20's.
Where the two versions behave differently, ONE rule object here names the change (its FLIP/JIRA,
the version that made it) and the behaviour on each side. A ``FlinkVersionProfile`` hands each
layer the rule it needs, already resolved for its version: the environment asks for
``profile.time_defaults``, the print sink for ``profile.row_print``; no layer tests a version.

Defaults per entry point: a program loaded by the CLI (``pyflowkit run/graph/explain FILE.py``)
follows 1.20 (``entry_point_version``); a kernel that ran ``%load_ext pyflowkit`` (the classroom
notebooks, ``%%pipeline``) follows 1.11 (``set_session_version``); the seed job pins 1.11 in its
code (``pyflowkit.examples.alerts_geohash.build``); anything else (an environment made in
Python: ``python prog.py``, ``env.execute()``, a test) follows ``DEFAULT_VERSION``, 1.20, the
API its author wrote for; tests that study 1.11 say so with ``@pytest.mark.flink_version("1.11")``.
Any program chooses with ``Configuration().set_string("pyflowkit.flink-version", "1.20")`` or
``env.configure(...)``.

This module lives in ``common`` (it imports nothing of pyflowkit), so every layer may read it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

FLINK_VERSION_KEY = "pyflowkit.flink-version"
V1_11 = "1.11"
V1_20 = "1.20"
SUPPORTED_VERSIONS = (V1_11, V1_20)
# the default of an environment made in Python (python prog.py, env.execute()): the API its author
# wrote for (issue 24); the seed job and the classroom notebooks pin 1.11
DEFAULT_VERSION = V1_20
FINISHED_TASKS_KEY = "execution.checkpointing.checkpoints-after-tasks-finish.enabled"


@dataclass(frozen=True)
class VersionedRule:
    """One behaviour that changed between Flink 1.11 and 1.20: where, why, and both sides."""

    name: str
    changed_in: str  # the first Flink release with the new behaviour
    issue: str  # FLIP / JIRA that changed it
    behaviour_1_11: str
    behaviour_1_20: str

    def row(self) -> tuple[str, str, str, str, str]:
        """(rule, FLIP/JIRA, since, 1.11, 1.20): one line of the README table."""
        return (self.name, self.issue, self.changed_in, self.behaviour_1_11, self.behaviour_1_20)


@dataclass(frozen=True)
class TimeDefaults:
    """The environment's time defaults under one version (``StreamExecutionEnvironment``)."""

    rule: VersionedRule
    time_characteristic: str  # TimeCharacteristic name
    auto_watermark_interval: int  # ms (``pipeline.auto-watermark-interval``)


@dataclass(frozen=True)
class RowPrint:
    """How ``Row.toString`` renders a typed ``Row`` (Flink's ``Row`` / ``RowUtils``)."""

    rule: VersionedRule
    # 1.20: PyFlink's ``DataStream._align_output_type`` maps a Row stream to
    # '{kind}[{",".join(str(f))}]' before Java's print sink (``+I[a,1]``, ``None`` as ``None``,
    # fields as Python's ``str``); 1.11: Java's ``Row.toString`` ``a,1`` (``null``)
    kind_prefixed: bool

    def text(self, kind: str, fields: list[str]) -> str:
        """The row's text from its ``RowKind`` short string and its fields' texts."""
        if self.kind_prefixed:
            return kind + "[" + ",".join(fields) + "]"
        return ",".join(fields)


@dataclass(frozen=True)
class ContinuousTriggerFire:
    """Where a continuous trigger registers its next fire (``ContinuousEventTimeTrigger``)."""

    rule: VersionedRule
    capped_at_window_end: bool  # FLINK-20443: min(next fire, window.maxTimestamp())

    def next_fire(self, next_fire: int, window_max_timestamp: int) -> int:
        """``registerNextFireTimestamp``: 1.15+ never registers past the window's end."""
        if self.capped_at_window_end:
            return min(next_fire, window_max_timestamp)
        return next_fire


TIME_DEFAULTS = VersionedRule(
    "Default time characteristic and auto-watermark interval",
    "1.12",
    "FLINK-19317 (FLIP-134)",
    "ProcessingTime; pipeline.auto-watermark-interval 0 (no periodic watermarks unless the "
    "program calls set_stream_time_characteristic(EventTime))",
    "EventTime; pipeline.auto-watermark-interval 200 ms (periodic watermarks without any call; "
    "set_stream_time_characteristic is deprecated)",
)
ROW_TO_STRING = VersionedRule(
    "Printed Row (print sink of a Types.ROW stream)",
    "1.13",
    "FLINK-18090; PyFlink DataStream._align_output_type",
    "a,1 (Java Row.toString: fields joined by ',', None as null)",
    "+I[a,1] (PyFlink maps the Row to '{kind}[' + ','.join(str(field)) + ']' before Java's "
    "print sink: no space, None as None, fields as Python str)",
)
CONTINUOUS_TRIGGER = VersionedRule(
    "Continuous triggers' next fire",
    "1.15",
    "FLINK-20443",
    "registers its next fire at the next interval even past the window end",
    "registerNextFireTimestamp caps the next fire at window.maxTimestamp()",
)
CHECKPOINT_KEYS = VersionedRule(
    "Retained checkpoints key",
    "1.20",
    "FLIP-406",
    "state.checkpoints.num-retained",
    "execution.checkpointing.num-retained (CheckpointingOptions.MAX_RETAINED_CHECKPOINTS; "
    "state.checkpoints.num-retained still read as its deprecated key)",
)


@dataclass(frozen=True)
class CheckpointKeys:
    """The configuration keys a checkpoint setting is read from, first match wins."""

    rule: VersionedRule
    num_retained: tuple[str, ...]


KEY_BY_ROW = VersionedRule(
    "The key a keyed stream is partitioned and its state scoped by",
    "1.12",
    "FLIP-130 (PyFlink DataStream key_by: AddKey + KeyByKeySelector)",
    "murmur(key.hashCode()) of the key itself (Java DataStream keyBy)",
    "murmur(Row.of(key).hashCode()) = murmur(62 + hashCode(key)) (RowUtils.deepHashCodeRow); "
    "the key's Java value is its declared key_type, else its pickled bytes (PICKLED_BYTE_ARRAY)",
)


COUNT_WINDOW = VersionedRule(
    "KeyedStream.count_window(size, slide)",
    "1.16",
    "FLINK-26444 (PyFlink's count window assigners)",
    "Java countWindow: GlobalWindows + CountTrigger(slide) + CountEvictor(size), a window of the "
    "last size elements every slide elements (slide 0: PurgingTrigger(CountTrigger(size)))",
    "CountSlidingWindowAssigner(size, slide): window i holds elements [i*slide, i*slide+size) "
    "and fires once, when full (slide 0: CountTumblingWindowAssigner(size))",
)


@dataclass(frozen=True)
class CountWindowShape:
    """What ``KeyedStream.count_window`` builds (``KeyedStream.countWindow`` / PyFlink's)."""

    rule: VersionedRule
    pyflink_assigners: bool  # 1.20: CountTumbling/CountSlidingWindowAssigner


@dataclass(frozen=True)
class KeyByKey:
    """What the Java keyed stream is keyed by (``KeyGroupStreamPartitioner``, the state backend)."""

    rule: VersionedRule
    # 1.20: PyFlink's key_by emits Row(key, value) and keys by Row.of(key) (KeyByKeySelector)
    keys_by_row: bool


CHECKPOINTS_AFTER_TASKS_FINISH = VersionedRule(
    "Checkpoints after tasks finish",
    "1.15 (1.14 opt-in)",
    "FLIP-147 (FLINK-2491)",
    "a FINISHED source stops checkpointing: CheckpointCoordinator declines every trigger ('Checkpoint "
    "triggering task ... is not in state RUNNING but FINISHED instead')",
    "DefaultCheckpointPlanCalculator triggers the running tasks without running predecessors, waits "
    "for the running ones only and reports finished tasks finished; a task that ended its input "
    "waits for its final checkpoint before FINISHED, where a two-phase-commit sink commits its "
    f"last transaction ({FINISHED_TASKS_KEY}, default true)",
)


@dataclass(frozen=True)
class FinishedTasksCheckpointing:
    """Whether the coordinator checkpoints a job some of whose tasks FINISHED (FLIP-147)."""

    rule: VersionedRule
    supported: bool  # 1.20: DefaultCheckpointPlanCalculator; 1.11: all sources must be RUNNING

    def enabled(self, configuration: Mapping[str, Any] | None) -> bool:
        """``ExecutionCheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH`` (default true
        since 1.15); always False under 1.11, which has no such option."""
        if not self.supported:
            return False
        raw = (configuration or {}).get(FINISHED_TASKS_KEY, True)
        return str(raw).strip().lower() != "false"


UNION_STATE_PARTLY_FINISHED = VersionedRule(
    "Union list state in a partly finished vertex",
    "1.14",
    "FLIP-147 (FLINK-21080)",
    "cannot arise: no checkpoint completes once a task FINISHED",
    "DefaultCheckpointPlan.fulfillFinishedTaskStatus refuses the checkpoint "
    "(PartialFinishingNotSupportedByStateException; CheckpointCoordinator.finalizeCheckpoint "
    "aborts it with CHECKPOINT_DECLINED_TASK_CLOSING): 'The vertex … has used UnionListState, but "
    "part of its tasks are FINISHED.' / '… has called operators' finish method.', so the "
    "vertex's fast subtasks wait for the slow ones and all take one final checkpoint",
)


@dataclass(frozen=True)
class UnionStatePartlyFinished:
    """Whether finalizing a checkpoint checks union list state of partly finished vertices
    (``DefaultCheckpointPlan.checkNoPartlyFinishedVertexUsedUnionListState``)."""

    rule: VersionedRule
    checked: bool  # 1.20: with checkpoints after tasks finish; 1.11 has no such checkpoints

    def refused(self, checkpoints_after_tasks_finish: bool) -> bool:
        """``mayHaveFinishedTasks``: the checks run when checkpoints go on after tasks finish."""
        return self.checked and checkpoints_after_tasks_finish


FINISHED_ON_RESTORE = VersionedRule(
    "Restoring a checkpoint taken after tasks finished",
    "1.14",
    "FLIP-147 (FLINK-21088, FLINK-21089, FLINK-23708)",
    "no checkpoint completes once a task FINISHED, so a failover restores an earlier checkpoint "
    "(or none) and every subtask runs again: a finished source replays its records",
    "PendingCheckpoint.fulfillFinishedTaskStatus records a finished vertex's operators as "
    "FullyFinishedOperatorState; StateAssignmentOperation deploys its subtasks with "
    "TaskStateSnapshot.FINISHED_ON_RESTORE: a FinishedOperatorChain never opens the operators "
    "(a source skips its run), re-emits MAX_WATERMARK and ends its partitions; a finished "
    "subtask of a vertex that still runs is recorded FinishedOperatorSubtaskState and restores "
    "with empty state (it runs again), and VertexFinishedStateChecker refuses a partially "
    "finished vertex that reads a not fully finished one over an ALL_TO_ALL edge",
)


END_OF_DATA = VersionedRule(
    "How a task ends its output",
    "1.14",
    "FLIP-147 (EndOfData, StopMode)",
    "EndOfPartitionEvent only, once the task closed its operators",
    "StreamTask.endData sends EndOfData(StopMode.DRAIN; NO_DRAIN after stop-with-savepoint "
    "without --drain) into every result partition when the input ended, ahead of the final "
    "checkpoint and EndOfPartitionEvent; a consumer whose inputs all read EndOfData(DRAIN) ends "
    "its data then (DataInputStatus.END_OF_DATA: endInput, endData), so the first checkpoint "
    "after the sources ended is every task's final checkpoint (finalCheckpointMinId)",
)


@dataclass(frozen=True)
class EndOfDataEvent:
    """Whether a task sends ``EndOfData`` before ``EndOfPartitionEvent`` (``StreamTask.endData``)."""

    rule: VersionedRule
    sends_end_of_data: bool


DECLARATIVE_SLOTS = VersionedRule(
    "How the JobMaster gets slots",
    "1.13",
    "FLIP-138",
    "SlotPoolImpl.requestNewAllocatedSlot sends one ResourceManager.requestSlot per slot, each "
    "with its AllocationID; SlotManagerImpl.registerSlotRequest picks a free slot for it",
    "DeclarativeSlotPoolBridge raises DefaultDeclarativeSlotPool's requirements; once connected, "
    "one ResourceManager.declareRequiredResources carries the total (ResourceRequirement "
    "numberOfRequiredSlots=N); the FineGrainedSlotManager (default since 1.18, FLINK-31448) "
    "allocates what is missing on dynamic slot ids; offered slots fulfil requests in "
    "newSlotsAreAvailable; on failover the slots stay in the pool and "
    "are re-reserved (requirements re-declared), no new TaskExecutor.requestSlot",
)
SCHEDULING_STRATEGY = VersionedRule(
    "Scheduling strategy of a streaming job",
    "1.12",
    "FLIP-119",
    "EagerSchedulingStrategy: every vertex at once",
    "PipelinedRegionSchedulingStrategy: region by region in topological order (every region of "
    "a streaming job is schedulable at once)",
)


@dataclass(frozen=True)
class SlotAllocation:
    """How a JobMaster asks for slots (``SlotPoolImpl`` vs ``DeclarativeSlotPoolBridge``) and
    which ``SchedulingStrategy`` its scheduler names."""

    rule: VersionedRule
    declarative: bool  # 1.20: DeclarativeSlotPoolBridge + FineGrainedSlotManager
    scheduling_strategy: str  # the strategy class DefaultScheduler.startScheduling logs


ADAPTIVE_BATCH_SCHEDULER = VersionedRule(
    "Scheduler and parallelism of a BATCH job",
    "1.17 (1.15 opt-in)",
    "FLIP-187 (FLINK-30682, FLINK-30683)",
    "DefaultScheduler: every vertex at the parallelism it was compiled with (the environment's "
    "unless set_parallelism), all deployed at once",
    "AdaptiveBatchScheduler (jobmanager.scheduler: AdaptiveBatch): a vertex whose parallelism the "
    "program did not set (env.set_parallelism is only the upper bound) is initialized once its "
    "blocking inputs FINISHED; DefaultVertexParallelismAndInputInfosDecider gives it "
    "ceil(consumed non-broadcast bytes / execution.batch.adaptive.auto-parallelism."
    "avg-data-volume-per-task, 16 MiB) within [min-parallelism 1, max-parallelism "
    "(parallelism.default)] (tiny inputs: 1; only broadcast inputs: min-parallelism); a source "
    "takes default-source-parallelism (max-parallelism); VertexwiseSchedulingStrategy deploys "
    "each vertex when its inputs are consumable",
)


@dataclass(frozen=True)
class BatchScheduling:
    """Which scheduler a BATCH job gets (``DefaultSlotPoolServiceSchedulerFactory``)."""

    rule: VersionedRule
    adaptive: bool  # 1.20: AdaptiveBatchScheduler; 1.11: DefaultScheduler


BATCH_SHUFFLE_MODE = VersionedRule(
    "Exchanges of a BATCH job",
    "1.14 (BATCH mode: 1.12)",
    "FLINK-23402 (FLIP-134)",
    "no BATCH execution mode for the DataStream API (FLIP-134 came in 1.12): pyflowkit compiles "
    "a BATCH job's exchanges as a streaming job's (ALL_EDGES_PIPELINED: PIPELINED_BOUNDED "
    "results, connected vertices share one pipelined region)",
    "StreamGraphGenerator.configureStreamGraphBatch sets the GlobalStreamExchangeMode from "
    "execution.batch-shuffle-mode (default ALL_EXCHANGES_BLOCKING): every JobEdge's result is "
    "BLOCKING (ResultPartitionType.BLOCKING, BoundedBlockingSubpartition), each vertex is a "
    "pipelined region of its own, and a consumer is deployed once its producers FINISHED; "
    "ALL_EXCHANGES_PIPELINED gives 1.11's PIPELINED_BOUNDED edges",
)
BATCH_SHUFFLE_MODE_KEY = "execution.batch-shuffle-mode"
_BATCH_EXCHANGE_MODES = {  # BatchShuffleMode → GlobalStreamExchangeMode
    "ALL_EXCHANGES_BLOCKING": "ALL_EDGES_BLOCKING",
    "ALL_EXCHANGES_PIPELINED": "ALL_EDGES_PIPELINED",
}


@dataclass(frozen=True)
class BatchShuffle:
    """The exchanges of a BATCH job (``deriveGlobalStreamExchangeModeBatch``)."""

    rule: VersionedRule
    configurable: bool  # 1.20: execution.batch-shuffle-mode; 1.11: always pipelined

    def exchange_mode(self, configuration: Mapping[str, Any] | None) -> str:
        """The GlobalStreamExchangeMode name of a BATCH job's StreamGraph."""
        if not self.configurable:
            return "ALL_EDGES_PIPELINED"
        mode = str((configuration or {}).get(BATCH_SHUFFLE_MODE_KEY, "ALL_EXCHANGES_BLOCKING"))
        mode = mode.strip().upper()
        if mode not in _BATCH_EXCHANGE_MODES:
            from pyflowkit.errors import IllegalArgumentException

            raise IllegalArgumentException(
                f"Unsupported shuffle mode '{mode}' in BATCH runtime mode. pyflowkit models "
                f"{', '.join(_BATCH_EXCHANGE_MODES)} (the hybrid shuffles of FLIP-235 are not "
                f"modelled); set '{BATCH_SHUFFLE_MODE_KEY}' to one of them."
            )
        return _BATCH_EXCHANGE_MODES[mode]


BATCH_BROADCAST_FIRST = VersionedRule(
    "Input order of a broadcast connect in BATCH",
    "1.13",
    "FLINK-20491",
    "no BATCH execution mode for the DataStream API: pyflowkit runs the connect as a streaming "
    "job does (CoBroadcastWith[Non]KeyedOperator: both inputs read as their records arrive)",
    "the BATCH translator picks BatchCoBroadcastWithNonKeyedOperator / "
    "BatchCoBroadcastWithKeyedOperator (PyFlink: ExternalPythonBatchCoBroadcastProcessOperator / "
    "ExternalPythonBatchKeyedCoBroadcastProcessOperator), InputSelectable: nextSelection() is "
    "SECOND until endInput(2), so the broadcast side is read to its end before any record of "
    "the regular side",
)


@dataclass(frozen=True)
class BatchBroadcastInput:
    """Whether a BATCH job's broadcast connect reads the broadcast side first
    (``BroadcastStateTransformationTranslator.translateForBatchInternal``)."""

    rule: VersionedRule
    broadcast_side_first: bool  # 1.20: BatchCoBroadcastWith[Non]KeyedOperator


CEP_TIME_BEHAVIOUR = VersionedRule(
    "Time of a CEP pattern",
    "1.12",
    "FLINK-19326 (FLIP-134)",
    "PatternStreamBuilder matches in processing time when the environment's time characteristic "
    "is ProcessingTime (the 1.11 default), else in event time",
    "PatternStreamBuilder.forStreamAndPattern: TimeBehaviour.EventTime unless the program calls "
    "in_processing_time(); the deprecated set_stream_time_characteristic no longer decides it",
)


@dataclass(frozen=True)
class CepTimeBehaviour:
    """Whether a ``PatternStream`` without ``in_processing_time``/``in_event_time`` matches in
    processing time (``PatternStreamBuilder``)."""

    rule: VersionedRule
    follows_environment: bool  # 1.11: the time characteristic decides; 1.20: event time

    def is_processing_time(self, environment_in_processing_time: bool) -> bool:
        """Given whether the environment's time characteristic is ProcessingTime."""
        return self.follows_environment and environment_in_processing_time


JOB_NAME = VersionedRule(
    "Default name of a job",
    "1.12",
    "FLIP-134 (FLINK-18545: pipeline.name)",
    "StreamExecutionEnvironment.DEFAULT_JOB_NAME: 'Flink Streaming Job' for every job",
    "StreamGraphGenerator.deriveJobName: pipeline.name if set, else DEFAULT_BATCH_JOB_NAME "
    "'Flink Batch Job' in BATCH (configureStreamGraphBatch) and DEFAULT_STREAMING_JOB_NAME "
    "'Flink Streaming Job' in STREAMING; execute(job_name) overrides both",
)
STREAMING_JOB_NAME = "Flink Streaming Job"
BATCH_JOB_NAME = "Flink Batch Job"
PIPELINE_NAME_KEY = "pipeline.name"


@dataclass(frozen=True)
class JobName:
    """The name a job gets when ``execute`` names none (``StreamGraphGenerator``)."""

    rule: VersionedRule
    by_mode: bool  # 1.20: BATCH jobs are "Flink Batch Job", pipeline.name is read

    def default(self, batch: bool, configuration: Mapping[str, Any] | None) -> str:
        """The StreamGraph's job name when the program gave none."""
        if not self.by_mode:
            return STREAMING_JOB_NAME
        name = (configuration or {}).get(PIPELINE_NAME_KEY)
        if name:
            return str(name)
        return BATCH_JOB_NAME if batch else STREAMING_JOB_NAME


ALL_RULES: tuple[VersionedRule, ...] = (
    TIME_DEFAULTS,
    ROW_TO_STRING,
    CONTINUOUS_TRIGGER,
    CHECKPOINT_KEYS,
    KEY_BY_ROW,
    COUNT_WINDOW,
    CHECKPOINTS_AFTER_TASKS_FINISH,
    FINISHED_ON_RESTORE,
    UNION_STATE_PARTLY_FINISHED,
    END_OF_DATA,
    DECLARATIVE_SLOTS,
    SCHEDULING_STRATEGY,
    ADAPTIVE_BATCH_SCHEDULER,
    BATCH_SHUFFLE_MODE,
    BATCH_BROADCAST_FIRST,
    CEP_TIME_BEHAVIOUR,
    JOB_NAME,
)


class FlinkVersionProfile:
    """The rules of one Flink version, handed to the layers that apply them."""

    __slots__ = (
        "version",
        "time_defaults",
        "row_print",
        "continuous_trigger",
        "checkpoint_keys",
        "key_by",
        "count_window",
        "finished_tasks",
        "union_state_partly_finished",
        "end_of_data",
        "slot_allocation",
        "batch_scheduling",
        "batch_shuffle",
        "batch_broadcast",
        "cep_time",
        "job_name",
    )

    def __init__(self, version: str) -> None:
        check_version(version)
        new = version == V1_20
        self.version = version
        self.time_defaults = TimeDefaults(
            TIME_DEFAULTS, "EventTime" if new else "ProcessingTime", 200 if new else 0
        )
        self.row_print = RowPrint(ROW_TO_STRING, kind_prefixed=new)
        self.continuous_trigger = ContinuousTriggerFire(CONTINUOUS_TRIGGER, new)
        legacy = "state.checkpoints.num-retained"
        self.checkpoint_keys = CheckpointKeys(
            CHECKPOINT_KEYS,
            ("execution.checkpointing.num-retained", legacy) if new else (legacy,),
        )
        self.key_by = KeyByKey(KEY_BY_ROW, keys_by_row=new)
        self.count_window = CountWindowShape(COUNT_WINDOW, pyflink_assigners=new)
        self.finished_tasks = FinishedTasksCheckpointing(CHECKPOINTS_AFTER_TASKS_FINISH, new)
        self.union_state_partly_finished = UnionStatePartlyFinished(
            UNION_STATE_PARTLY_FINISHED, checked=new
        )
        self.end_of_data = EndOfDataEvent(END_OF_DATA, sends_end_of_data=new)
        strategy = "PipelinedRegionSchedulingStrategy" if new else "EagerSchedulingStrategy"
        self.slot_allocation = SlotAllocation(
            DECLARATIVE_SLOTS, new, "org.apache.flink.runtime.scheduler.strategy." + strategy
        )
        self.batch_scheduling = BatchScheduling(ADAPTIVE_BATCH_SCHEDULER, adaptive=new)
        self.batch_shuffle = BatchShuffle(BATCH_SHUFFLE_MODE, configurable=new)
        self.batch_broadcast = BatchBroadcastInput(BATCH_BROADCAST_FIRST, broadcast_side_first=new)
        self.cep_time = CepTimeBehaviour(CEP_TIME_BEHAVIOUR, follows_environment=not new)
        self.job_name = JobName(JOB_NAME, by_mode=new)

    @property
    def rules(self) -> tuple[VersionedRule, ...]:
        return ALL_RULES

    def __repr__(self) -> str:
        return f"FlinkVersionProfile({self.version!r})"


def check_version(version: Any) -> str:
    """``version`` if it is a supported profile, else the error naming the option."""
    if version not in SUPPORTED_VERSIONS:
        from pyflowkit.errors import IllegalArgumentException

        raise IllegalArgumentException(
            f"Configuration '{FLINK_VERSION_KEY}' must be one of {list(SUPPORTED_VERSIONS)}, "
            f"got {version!r}."
        )
    return version


_PROFILES = {v: FlinkVersionProfile(v) for v in SUPPORTED_VERSIONS}


def profile_for(version: str) -> FlinkVersionProfile:
    """The (shared, immutable) profile of ``version``."""
    try:
        return _PROFILES[version]
    except (KeyError, TypeError):  # not a supported version: check_version says which
        pass
    return _PROFILES[check_version(version)]


# The entry point's default (issue #24): a program the CLI loads (``pyflowkit run/graph/explain``)
# is written for 1.20; None: DEFAULT_VERSION.
_ENTRY_POINT_VERSION: ContextVar[str | None] = ContextVar("pyflowkit_flink_version", default=None)


# The session's default: ``%load_ext pyflowkit`` pins the classroom notebooks' kernel to 1.11.
_SESSION_VERSION: str | None = None


def set_session_version(version: str | None) -> None:
    """Every later environment of this process follows ``version`` (None: ``DEFAULT_VERSION``)
    unless an entry point (``entry_point_version``) or its configuration says otherwise. A plain
    global, not a context variable: an IPython kernel runs each cell in its own asyncio task."""
    global _SESSION_VERSION
    _SESSION_VERSION = None if version is None else check_version(version)


def default_version() -> str:
    """The version a new environment follows unless its configuration names one: the entry
    point's, else the session's, else ``DEFAULT_VERSION``."""
    return _ENTRY_POINT_VERSION.get() or _SESSION_VERSION or DEFAULT_VERSION


@contextmanager
def entry_point_version(version: str) -> Iterator[None]:
    """Environments created inside follow ``version`` unless their configuration says otherwise
    (how ``pyflowkit run`` gives a user's program the 1.20 API semantics its author expected)."""
    token = _ENTRY_POINT_VERSION.set(check_version(version))
    try:
        yield
    finally:
        _ENTRY_POINT_VERSION.reset(token)


def version_of(configuration: Mapping[str, Any] | None, default: str = DEFAULT_VERSION) -> str:
    """The version a configuration dict selects (``pyflowkit.flink-version``), else ``default``."""
    if configuration and FLINK_VERSION_KEY in configuration:
        return check_version(str(configuration[FLINK_VERSION_KEY]))
    return default


def rules_table() -> str:
    """Every versioned rule as a Markdown table (the README's)."""
    lines = [
        "| Rule | FLIP/JIRA | Since | Flink 1.11 | Flink 1.20 |",
        "| --- | --- | --- | --- | --- |",
    ]
    lines += ["| " + " | ".join(r.row()) + " |" for r in ALL_RULES]
    return "\n".join(lines)


if __name__ == "__main__":  # python -m pyflowkit.common.flink_version: the README's table
    print(rules_table())
