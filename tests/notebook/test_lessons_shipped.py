"""The lesson scripts shipped beside the classroom notebooks (notebooks/lessons/*.json, issue #23):
each replays, on the notebook's own ``%%pipeline`` cells, to a byte-identical trace twice over, lands
its bookmarks where their names say, and records itself again unchanged.

Regenerate a lesson after a deliberate change to the simulated cluster's order of events with
``python -m tests.notebook.test_lessons_shipped`` (the only code here that writes the files)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.notebook.conftest import run

LESSONS = Path(__file__).resolve().parents[2] / "notebooks" / "lessons"
NOTEBOOKS = LESSONS.parent

#: lesson file → (notebook, the code cells (indices among code cells) that build its pipeline, the
#: ``%pipeline step`` line of the notebook's Stepper).
SHIPPED = {
    "03_job_submission.json": (
        "03_job_submission_step_by_step.ipynb",
        [0, 1],
        "step job --task-managers 2 --slots 2",
    ),
    "04_checkpoints.json": ("04_checkpoints.ipynb", [0, 1], "step counts --seed 3"),
    "05_failure_and_recovery.json": (
        "05_failure_and_recovery.ipynb",
        [0, 1, 17],
        "step recovery --seed 1",
    ),
    "09_back_pressure.json": (
        "09_back_pressure.ipynb",
        [0, 1],
        'step slow --seed 3 --record-cost "Sink: slow sink=3" --metrics',
    ),
    "10_unaligned_checkpoints.json": (
        "10_unaligned_checkpoints.ipynb",
        [0, 2],
        'step unaligned --seed 3 --record-cost "Sink: slow sink=3" --metrics',
    ),
    "07_geohash_alerts.json": (
        "07_geohash_alerts_end_to_end.ipynb",
        [0, 1, 2, 3, 4],
        "step alerts --seed 7",
    ),
}


def _trace_bytes(stepper: Any) -> bytes:
    return json.dumps([e.to_dict() for e in stepper.run.trace], sort_keys=True).encode()


def _open_stepper(ip: Any, lesson: str) -> Any:
    """Run the notebook's pipeline cells in ``ip``; a fresh Stepper of its ``%pipeline step``."""
    nb, cells, line = SHIPPED[lesson]
    data = json.loads((NOTEBOOKS / nb).read_text())
    code = ["".join(c["source"]) for c in data["cells"] if c["cell_type"] == "code"]
    for i in cells:
        result, _ = run(ip, code[i])
        assert result.success, (nb, i, result.error_in_exec or result.error_before_exec)
    return ip.run_line_magic("pipeline", line)


def _all_running(s: Any) -> bool:
    return set(s.states.values()) == {"RUNNING"}


def _high_at_map(s: Any) -> bool:
    rows = s.subtask_metrics()
    rows = rows[rows.subtask.str.startswith("Map")]
    return len(rows) > 0 and set(rows.backPressureLevel) == {"HIGH"}


def _vertex(stepper: Any, prefix: str) -> str:
    return next(f"ev_{v.id}" for v in stepper.job_graph.vertices if v.name.startswith(prefix))


def _record(stepper: Any, lesson: str) -> None:
    """The session a teacher gives with the notebook (what the lesson file records)."""
    stepper.submit()
    if lesson.startswith("03"):
        stepper.step(6)
        stepper.run_to("state")
        stepper.bookmark("JobMaster started")
        stepper.step_until(lambda s: "RUNNING" in s.states.values(), "a subtask RUNNING")
        stepper.bookmark("a subtask RUNNING")
        stepper.step_until(_all_running, "every subtask RUNNING")
        stepper.bookmark("all RUNNING")
        stepper.back()
        stepper.run_to("end")
        stepper.bookmark("FINISHED")
        return
    stepper.step_until(_all_running, "every subtask RUNNING")
    stepper.bookmark("all RUNNING")
    if lesson.startswith(("09", "10")):
        stepper.step_until(_high_at_map, "HIGH back pressure at Map")
        stepper.bookmark("HIGH back pressure")
        stepper.trigger_checkpoint()
        stepper.run_to("checkpoint")
        stepper.bookmark("checkpoint complete")
        stepper.run_to("end")
        stepper.bookmark("FINISHED")
        return
    stepper.step(20 if lesson.startswith("04") else 40)
    stepper.trigger_checkpoint()
    if lesson.startswith("04"):
        stepper.step_until(lambda s: s.edge_tokens, "a barrier on a channel")
        stepper.bookmark("barrier on a channel")
        stepper.step_until(lambda s: "blocked" in s.edge_marks.values(), "a blocked channel")
        stepper.bookmark("blocked channel")
    stepper.run_to("checkpoint")
    stepper.bookmark("checkpoint complete")
    stepper.step(15)
    stepper.back()
    if lesson.startswith("04"):
        stepper.run_to("end")
        stepper.bookmark("FINISHED")
        return
    failing = "Keyed Aggregation" if lesson.startswith("05") else "CepOperator"
    stepper.selected = f"{_vertex(stepper, failing)}_0"
    stepper.fail_selected_task()
    stepper.run_to("job")
    stepper.run_to("job")
    stepper.bookmark("restored")
    stepper.narrate_step(
        stepper.step_count, "Back to RUNNING: every subtask starts from the last checkpoint."
    )
    stepper.run_to("end")
    stepper.bookmark("FINISHED")


#: What each bookmark's name promises, checked on the replayed Stepper.
PROMISES = {
    "all RUNNING": _all_running,
    "a subtask RUNNING": lambda s: "RUNNING" in s.states.values(),
    "FINISHED": lambda s: s.job_status == "FINISHED",
    "barrier on a channel": lambda s: bool(s.edge_tokens),
    "blocked channel": lambda s: "blocked" in s.edge_marks.values(),
    "checkpoint complete": lambda s: s.checkpoints["counts"]["COMPLETED"] >= 1,
    "restored": lambda s: (s.failures["restored"] or {}).get("checkpoint") is not None,
    "JobMaster started": lambda s: s.step_count > 0,
    "HIGH back pressure": _high_at_map,
}


@pytest.mark.parametrize("lesson", sorted(SHIPPED))
def test_a_shipped_lesson_replays_to_a_byte_identical_trace(ip, lesson):
    path = LESSONS / lesson
    text = path.read_text()
    first = _open_stepper(ip, lesson).play_lesson(str(path))
    again = ip.run_line_magic("pipeline", SHIPPED[lesson][2]).play_lesson(str(path))
    assert _trace_bytes(first) == _trace_bytes(again)
    assert first.step_count == again.step_count and first.job_status == "FINISHED"
    saved = json.loads(text)
    relessoned = first.lesson()  # the replay records the same lesson
    assert relessoned["actions"] == saved["actions"]
    assert relessoned["bookmarks"] == saved["bookmarks"]
    for name in saved["bookmarks"]:
        first.go_to(name)
        assert PROMISES[name](first), (lesson, name, first.step_count)


def _write_lessons() -> None:  # pragma: no cover - run by hand (see the module's docstring)
    from IPython.testing.globalipapp import get_ipython

    shell = get_ipython()
    shell.run_line_magic("load_ext", "pyflowkit")
    LESSONS.mkdir(exist_ok=True)
    for lesson in sorted(SHIPPED):
        stepper = _open_stepper(shell, lesson)
        _record(stepper, lesson)
        stepper.save_lesson(str(LESSONS / lesson))
        print(lesson, stepper.step_count, "steps,", stepper.job_status)


if __name__ == "__main__":
    _write_lessons()
