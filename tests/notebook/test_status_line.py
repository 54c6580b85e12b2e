"""The Stepper's status line: every id cut to 6 hex digits alike (Flink 1.20's slot lines kept 8),
and the abridged line it shows where the whole log line would take more than two lines (the
subject and what happened kept; the whole line stays the ``message``, the title, the Event log)."""

from __future__ import annotations

import re

import pytest

from pyflowkit.render.short_names import abridge_log_line
from tests.notebook.test_widgets import checkpointed_env, word_count_env

NAMES = ["Source: Collection Source", "Flat Map -> Map", "Keyed Reduce -> Sink: Print to Std. Out"]
#: A hex id that is not cut to 6 digits (and not a whole 32-digit one, that short_ids cuts).
LONG_ID = re.compile(r"\b[0-9a-f]{7,}\b")


def test_a_state_transition_keeps_its_subject_and_its_states():
    line = (
        "Keyed Reduce -> Sink: Print to Std. Out (1/2) (4c1609) switched from DEPLOYING to RUNNING."
    )
    assert abridge_log_line(line, NAMES) == (
        "Keyed Reduce → Print (1/2) (4c1609) switched from DEPLOYING to RUNNING."
    )


def test_the_longest_lines_lose_their_details_only():
    declare = (
        "Declare new resource requirements for job e84e3a. required resources: "
        "[ResourceRequirement{resourceProfile=ResourceProfile{UNKNOWN}, numberOfRequiredSlots=2}],"
        " acquired resources: 0 slots (sent once the ResourceManager is connected)."
    )
    assert len(declare) == 233
    assert abridge_log_line(declare, NAMES) == (
        "Declare new resource requirements for job e84e3a. required resources: "
        "[ResourceRequirement{…, numberOfRequiredSlots=2}], acquired resources: 0 slots."
    )
    chain = (
        "Keyed Reduce -> Sink: Print to Std. Out (2/2): notifyCheckpointComplete 1 reached every "
        "operator of the chain [Keyed Reduce, Sink: Print to Std. Out] and their "
        "CheckpointListener functions."
    )
    assert abridge_log_line(chain, NAMES) == (
        "Keyed Reduce → Print (2/2): notifyCheckpointComplete 1 reached every operator of the "
        "chain [Keyed Reduce, Print] and their CheckpointListener functions."
    )
    assert abridge_log_line(
        "Received acknowledge message for checkpoint 1 from task 20dbfc of job e84e3a at "
        "TaskExecutor-0 @ localhost (dataPort=-1) (1/5).",
        NAMES,
    ) == (
        "Received acknowledge message for checkpoint 1 from task 20dbfc of job e84e3a at "
        "TaskExecutor-0 (1/5)."
    )
    assert (
        abridge_log_line(
            "Starting scheduling with scheduling strategy "
            "[org.apache.flink.runtime.scheduler.strategy.EagerSchedulingStrategy]"
        )
        == "Starting scheduling with [EagerSchedulingStrategy]"
    )
    restart = (  # (its words the class spells left out: the strategy and its figures kept)
        "Using restart back off time strategy FixedDelayRestartBackoffTimeStrategy("
        "maxNumberRestartAttempts=2147483647, backoffTimeMS=1000) for Flink Streaming Job (4c1609)."
    )
    assert len(restart) == 164
    assert abridge_log_line(restart, NAMES) == (
        "Using FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=2147483647, "
        "backoffTimeMS=1000) for Flink Streaming Job (4c1609)."
    )
    assert (
        abridge_log_line(
            "Using failover strategy RestartPipelinedRegionFailoverStrategy for Flink Streaming Job "
            "(4c1609).",
        )
        == "Using RestartPipelinedRegionFailoverStrategy for Flink Streaming Job (4c1609)."
    )
    assert abridge_log_line("Stop the whole job graph of the job.") == (
        "Stop the whole job graph of the job."  # (no class name: every word kept)
    )
    window = "Window(GlobalWindows(), CountTrigger, CountEvictor, GprsDelta)"
    invoke = (
        f"{window} (1/1): OneInputStreamTask.beforeInvoke built the OperatorChain [{window}] and "
        "opened its operators tail to head."
    )
    assert len(invoke) == 229
    assert abridge_log_line(invoke, [window]) == (  # (the chain its subject names: once)
        "Window(…, GprsDelta) (1/1): OneInputStreamTask.beforeInvoke built the OperatorChain and "
        "opened its operators tail to head."
    )
    short = "Offer reserved slots to the leader of job e84e3a."
    assert abridge_log_line(short, NAMES) == short


@pytest.mark.parametrize("version", ["1.11", "1.20"])
@pytest.mark.parametrize(
    "make_env", [word_count_env, checkpointed_env], ids=["plain", "checkpointed"]
)
def test_every_step_shows_six_digit_ids_and_an_abridged_line(version, make_env):
    """Every step of a job to its end, under both profiles: no id longer than 6 hex digits in
    the status line (1.20's ``Reserve slot …: TaskExecutor-0 slot 2 (f2947764)`` kept 8: the
    AllocatedSlot's own text cut the id to 8 digits before ``short_ids`` looked for whole ids),
    and the abridged line at most 160 characters (two lines of the status head at 1280 px)."""
    from pyflowkit.common.flink_version import set_session_version
    from pyflowkit.notebook.stepper import Stepper

    set_session_version(version)
    try:
        stepper = Stepper(make_env(), seed=7, submit=True)
        slot_lines = 0
        while stepper.job_status not in ("FINISHED", "FAILED") and stepper.step_count < 600:
            stepper.step()
            assert not LONG_ID.search(stepper.message), stepper.message
            assert stepper.message_short == abridge_log_line(stepper.message, stepper._task_names)
            assert len(stepper.message_short) <= 160, stepper.message_short
            slot_lines += bool(re.search(r"slot \d \([0-9a-f]{6}\)", stepper.message))
    finally:
        set_session_version("1.11")
    assert stepper.job_status == "FINISHED"
    if version == "1.20":  # Reserve slot … (the slot's own text), with its 6-digit id
        assert slot_lines > 0
