"""Lesson scripts (issue #23): a session's actions, bookmarks and narration overrides saved to JSON
and replayed to a byte-identical trace."""

from __future__ import annotations

import json

import pytest

from pyflowkit.common import RestartStrategies
from tests.notebook.test_classroom_panes import all_running
from tests.notebook.test_widgets import checkpointed_env


def _trace_bytes(stepper) -> bytes:
    return json.dumps([e.to_dict() for e in stepper.run.trace], sort_keys=True).encode()


def _env():
    env = checkpointed_env()
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(2, 100))
    return env


def test_a_lesson_replays_to_a_byte_identical_trace(tmp_path):
    from pyflowkit.notebook.stepper import Stepper

    stepper = Stepper(_env(), seed=3, submit=True)
    all_running(stepper)
    stepper.bookmark("all RUNNING")
    stepper.trigger_checkpoint()
    stepper.step(12)
    stepper.back()
    stepper.run_to("checkpoint")
    stepper.bookmark("checkpoint 1 complete")
    stepper.selected = next(k for k in sorted(stepper.states) if k.endswith("_1"))
    stepper.fail_selected_task()
    stepper.run_to("job")
    stepper.run_to("job")
    stepper.narrate_step(stepper.step_count, "Back to RUNNING, with the state of checkpoint 1.")
    assert stepper.narration["sentence"] == "Back to RUNNING, with the state of checkpoint 1."
    path = stepper.save_lesson(str(tmp_path / "lesson.json"))
    text = (tmp_path / "lesson.json").read_text()
    lesson = json.loads(text)
    assert lesson["format"] == "pyflowkit-lesson/1" and lesson["seed"] == 3
    assert [a["do"] for a in lesson["actions"]][:2] == ["submit", "step"]
    assert {"do": "back"} in lesson["actions"] and {"do": "checkpoint"} in lesson["actions"]
    assert set(lesson["bookmarks"]) == {"all RUNNING", "checkpoint 1 complete"}
    assert len(text) < 2000  # small: one action per line

    replayed = Stepper(_env(), seed=0).play_lesson(path)
    assert _trace_bytes(replayed) == _trace_bytes(stepper)
    assert replayed.step_count == stepper.step_count and replayed.job_status == "RUNNING"
    assert replayed.narration["sentence"] == "Back to RUNNING, with the state of checkpoint 1."
    assert replayed.save_lesson(str(tmp_path / "again.json"))
    assert (tmp_path / "again.json").read_text() == text  # the replay records the same lesson
    replayed.go_to("all RUNNING")
    assert replayed.step_count == lesson["bookmarks"]["all RUNNING"]
    assert set(replayed.states.values()) == {"RUNNING"}


def test_a_lesson_is_checked_before_it_runs(tmp_path):
    from pyflowkit.notebook.stepper import Stepper
    from tests.notebook.test_widgets import word_count_env

    stepper = Stepper(_env(), seed=3, submit=True)
    stepper.step(3)
    lesson = stepper.lesson()
    with pytest.raises(ValueError, match="not a pyflowkit lesson"):
        Stepper(_env()).play_lesson({**lesson, "format": "x"})
    with pytest.raises(ValueError, match="unknown lesson action"):
        Stepper(_env()).play_lesson({**lesson, "actions": [{"do": "explode"}]})
    other = Stepper(word_count_env())
    other.job_graph.job_name = "Word Count"
    with pytest.raises(ValueError, match="the lesson is for job 'Flink Streaming Job'"):
        other.play_lesson(lesson)
    with pytest.raises(KeyError, match="no bookmark 'nope'"):
        stepper.go_to("nope")
