"""Narration of each step (issue #23): a plain sentence, ``sender → receiver``, the Flink method and
why, derived from the trace events without changing them."""

from __future__ import annotations

import re

import pytest

from pyflowkit.common import RestartStrategies
from tests.notebook.test_classroom_panes import all_running
from tests.notebook.test_widgets import checkpointed_env, word_count_env


# the classroom's 1.11 submission (SlotPoolImpl's one requestSlot per slot); 1.20's declarative
# slot allocation is narrated in tests/versions/test_declarative_slots.py
@pytest.mark.flink_version("1.11")
def test_every_submission_step_is_narrated_with_its_sender_and_receiver():
    from pyflowkit.notebook.stepper import Stepper

    stepper = Stepper(word_count_env(), submit=True)
    assert stepper.narration == {}
    seen = {}
    for _ in range(32):
        stepper.step()
        n = stepper.narration
        assert n["step"] == stepper.step_count
        assert n["sentence"].endswith(".") and "subtask " not in n["sentence"]
        assert not re.search(r"[0-9a-f]{32}", n["sentence"])
        assert n["why"] and n["method"]
        seen[n["method"]] = n
    first = seen["Dispatcher.submitJob"]
    assert first["caption"] == "client → Dispatcher"
    assert first["sentence"] == "The client hands the JobGraph to the Dispatcher."
    slot = seen["SlotManager.registerSlotRequest"]
    assert slot["caption"] == "SlotPool → ResourceManager"
    assert slot["sentence"].startswith("The SlotPool asks the ResourceManager for a slot")
    deploy = seen["TaskExecutor.submitTask"]
    assert re.fullmatch(
        r"The JobMaster deploys .+ \(\d/\d\) to TaskExecutor-\d\.", deploy["sentence"]
    )
    running = seen["Execution.transitionState"]
    assert re.fullmatch(r"The JobMaster learns that .+ \(\d/\d\) is RUNNING\.", running["sentence"])
    assert "updateTaskExecutionState" in running["why"]
    stepper.back()
    assert stepper.narration["step"] == stepper.step_count == 31


def test_checkpoint_and_failure_steps_are_narrated_and_the_trace_is_unchanged():
    from pyflowkit.notebook.stepper import Stepper
    from pyflowkit.runtime.job_run import JobRun  # noqa: F401 - the runtime the stepper drives

    env = checkpointed_env()
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(2, 100))
    stepper = Stepper(env, seed=3, submit=True)
    all_running(stepper)
    stepper.trigger_checkpoint()
    sentences = []
    while stepper.checkpoints.get("counts", {}).get("COMPLETED", 0) == 0:
        stepper.step()
        sentences.append(stepper.narration["sentence"])
    assert "Checkpoint 1 is complete." in sentences
    pattern = r".+ \(\d/\d\) (acknowledges|finishes writing its state for) checkpoint 1"
    assert any(re.match(pattern, s) for s in sentences), sentences
    stepper.selected = next(k for k in sorted(stepper.states) if k.endswith("_1"))
    stepper.fail_selected_task()
    for extra in range(1, 40):  # noqa: B007 - the count is replayed below
        stepper.step()
        if re.search(
            r"(fails: its code threw an exception|is FAILED)\.$", stepper.narration["sentence"]
        ):
            break
    assert re.search(
        r"\(2/2\) (fails: its code threw an exception|is FAILED)\.$", stepper.narration["sentence"]
    )
    trace = [e.to_dict() for e in stepper.run.trace]
    again = Stepper(env, seed=3, submit=True)  # narration reads the trace, never writes it
    all_running(again)
    again.trigger_checkpoint()
    while again.checkpoints.get("counts", {}).get("COMPLETED", 0) == 0:
        again.step()
    again.selected = stepper.selected
    again.fail_selected_task()
    again.step(extra)
    assert [e.to_dict() for e in again.run.trace] == trace
