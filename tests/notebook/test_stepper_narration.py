"""Narration of each step (issue #23): a plain sentence, ``sender → receiver``, the Flink method and
why, derived from the trace events without changing them."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import pytest

from pyflowkit.common import RestartStrategies
from pyflowkit.notebook.stepper_narration import subject_id
from tests.notebook.test_classroom_panes import all_running
from tests.notebook.test_lessons_shipped import LESSONS, SHIPPED, _open_stepper
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


def test_a_step_names_its_subject_the_graph_element_it_is_about():
    """``subject``: the subtask (``ev_…``) a deployment or state change is about, an element of the
    drawn ExecutionGraph (the Stepper keeps it in view); "" for a job-level step."""
    from pyflowkit.notebook.stepper import Stepper

    stepper = Stepper(word_count_env(), seed=7, submit=True)
    subjects = {}
    for _ in range(40):
        stepper.step()
        n = stepper.narration
        subjects.setdefault(n["method"], []).append(n["subject"])
        if n["subject"]:
            assert n["subject"] in stepper.states  # a subtask box of the graph
            assert f'id="{n["subject"]}"' in stepper.svg
    assert subjects["Dispatcher.submitJob"] == [""]
    deployed = subjects["TaskExecutor.submitTask"]  # each of the 5 subtasks once
    assert len(deployed) == len(set(deployed)) == len(stepper.states) == 5
    event = next(e for e in stepper.run.trace if e.method == "TaskExecutor.submitTask")
    vertex = next(v for v in stepper.run.job_graph.vertices if v.name == event.vertex)
    assert subject_id(event, stepper.run) == f"ev_{vertex.id}_{event.subtask}"
    assert subject_id(SimpleNamespace(vertex=vertex.name, subtask=None), stepper.run) == (
        f"ejv_{vertex.id}"
    )


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


def _narrations(stepper: Any) -> dict[int, dict[str, Any]]:
    """Step → the narration ``narrate`` gives that step (its trace events, no sequence model:
    the primary event, hence a fallback, does not depend on the arrows)."""
    from pyflowkit.notebook.stepper_narration import narrate

    by_step: dict[int, list[Any]] = {}
    for e in stepper.run.trace:
        by_step.setdefault(e.step, []).append(e)
    return {
        step: narrate(
            SimpleNamespace(trace=events, steps_taken=step, job_graph=stepper.job_graph), None
        )
        for step, events in by_step.items()
    }


def _assert_every_step_has_its_own_sentence(stepper: Any) -> dict[int, dict[str, Any]]:
    from pyflowkit.notebook.stepper_narration import FALLBACK_WHY

    narrations = _narrations(stepper)
    fallback = {s: n["method"] for s, n in narrations.items() if n["why"] == FALLBACK_WHY}
    assert fallback == {}, f"{len(fallback)} steps fall back: {sorted(set(fallback.values()))}"
    for n in narrations.values():
        assert n["sentence"].endswith(".") and "subtask " not in n["sentence"], n
        assert "{" not in n["sentence"] and not re.search(r"[0-9a-f]{32}", n["sentence"]), n
    return narrations


@pytest.mark.parametrize("version", ["1.11", "1.20"])
@pytest.mark.parametrize("lesson", sorted(SHIPPED))
def test_every_step_of_a_classroom_lesson_has_a_sentence_and_a_why(ip, lesson, version):
    """The lessons of notebooks 03, 04, 05, 07, 09 and 10 replayed to the end (checkpoints,
    failures, restores) under both profiles: 1.20's declarative slots, FLIP-147's EndOfData and
    final checkpoints included. No step shows the fallback "see the Flink log line"."""
    from pyflowkit.common.flink_version import set_session_version

    set_session_version(version)  # the notebook's %load_ext pins 1.11; the cells follow this
    try:
        stepper = _open_stepper(ip, lesson).play_lesson(str(LESSONS / lesson))
    finally:
        set_session_version("1.11")
    assert stepper.job_status == "FINISHED"
    narrations = _assert_every_step_has_its_own_sentence(stepper)
    methods = {n["method"] for n in narrations.values()}
    if version == "1.20" and not lesson.startswith("03"):
        assert "StreamTask.endData" in {e.method for e in stepper.run.trace}
    assert "StreamTask.processInput" in methods
    processing = next(n for n in narrations.values() if n["method"] == "StreamTask.processInput")
    assert re.fullmatch(
        r".+ \(\d/\d\) processes its input: records go through its operator chain\.",
        processing["sentence"],
    )
    assert processing["why"] == "the mailbox loop's default action, run whenever no mail is waiting"


def test_every_step_of_the_seed_job_has_a_sentence_and_a_why():
    from pyflowkit import StreamExecutionEnvironment
    from pyflowkit.examples.alerts_geohash import build
    from pyflowkit.notebook.stepper import Stepper

    env = StreamExecutionEnvironment.get_execution_environment()
    build(env, max_events=200)
    stepper = Stepper(env, seed=7, submit=True)
    stepper.run_to("end")
    assert stepper.job_status == "FINISHED"
    _assert_every_step_has_its_own_sentence(stepper)


@pytest.mark.flink_version("1.20")
def test_final_checkpoint_and_failover_sentences_name_the_task_and_the_checkpoint(ip):
    from pyflowkit.common.flink_version import set_session_version

    set_session_version("1.20")
    try:
        lesson = "05_failure_and_recovery.json"
        stepper = _open_stepper(ip, lesson).play_lesson(str(LESSONS / lesson))
    finally:
        set_session_version("1.11")
    by_method: dict[str, list[dict[str, Any]]] = {}
    for n in _narrations(stepper).values():
        by_method.setdefault(n["method"], []).append(n)
    sentences = {m: [n["sentence"] for n in ns] for m, ns in by_method.items()}
    assert any(
        re.fullmatch(r".+ \(\d/\d\) takes checkpoint \d+ after its data ended\.", s)
        for s in sentences["StreamTask.performCheckpoint"]
    )
    assert any(
        re.fullmatch(r".+ \(\d/\d\) has no more data and sends EndOfData downstream\.", s)
        for s in sentences["StreamTask.endData"]
    )
    assert "FLIP-147" in by_method["StreamTask.endData"][0]["why"]
    assert any(
        re.fullmatch(r".+ \(\d/\d\) restores the state of its operators and opens them\.", s)
        for s in sentences["StreamTask.initializeStateAndOpenOperators"]
    )
