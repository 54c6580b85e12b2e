"""Lesson scripts: the actions of a Stepper session (steps, Back, Run to, checkpoints, failures),
bookmarks and narration overrides, saved to a small JSON file and replayed in the next lecture to
the same trace (the seed makes the simulated cluster deterministic).

No Flink counterpart: a teaching aid around ``Stepper``. The format is
``{"format": "pyflowkit-lesson/1", "job": …, "seed": …, "task_managers": …, "slots": …,
"actions": [{"do": "step", "n": 5}, {"do": "checkpoint"}, {"do": "back", "to": 3}, {"do": "fail_task", "vertex": …,
"subtask": 1}, …], "bookmarks": {"all RUNNING": 32, …}, "narration": {"7": "…"}}``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FORMAT = "pyflowkit-lesson/1"
#: Actions and the Stepper method each replays with.
ACTIONS = (
    "submit",
    "step",
    "back",
    "run_to",
    "checkpoint",
    "savepoint",
    "fail_task",
    "fail_tm",
    "cancel",
    "reset",
)


class LessonRecorder:
    """The actions of one session, in order (consecutive single steps merged into one ``step``)."""

    def __init__(self) -> None:
        self.actions: list[dict[str, Any]] = []
        self.bookmarks: dict[str, int] = {}
        self.narration: dict[int, str] = {}
        self.paused = False

    def record(self, do: str, **args: Any) -> None:
        if self.paused:
            return
        if do not in ACTIONS:
            raise ValueError(f"unknown lesson action {do!r} (known: {', '.join(ACTIONS)})")
        last = self.actions[-1] if self.actions else None
        if do == "step" and last is not None and last["do"] == "step":
            last["n"] += args["n"]
            return
        self.actions.append({"do": do, **args})

    def to_dict(self, stepper: Any) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "job": stepper.job_graph.job_name,
            "seed": stepper.controller.seed,
            "task_managers": stepper.controller.task_managers,
            "slots": stepper.slots_per_task_manager,
            "actions": [dict(a) for a in self.actions],
            "bookmarks": dict(self.bookmarks),
            "narration": {str(k): v for k, v in sorted(self.narration.items())},
        }


def dumps(lesson: dict[str, Any]) -> str:
    """The lesson as JSON text: stable key order, one action per line."""
    head = {k: v for k, v in lesson.items() if k != "actions"}
    lines = ",\n".join("  " + json.dumps(a, sort_keys=True) for a in lesson["actions"])
    body = json.dumps(head, sort_keys=True, indent=1)[:-2]
    return f'{body},\n "actions": [\n{lines}\n ]\n}}\n'


def load(source: Any) -> dict[str, Any]:
    """A lesson from a dict, a JSON file path or JSON text; checks its format."""
    if isinstance(source, dict):
        lesson = source
    else:
        text = str(source)
        path = Path(text)
        lesson = json.loads(path.read_text() if not text.lstrip().startswith("{") else text)
    if lesson.get("format") != FORMAT:
        raise ValueError(
            f"not a pyflowkit lesson: format {lesson.get('format')!r}, want {FORMAT!r}"
        )
    for action in lesson["actions"]:
        if action.get("do") not in ACTIONS:
            raise ValueError(f"unknown lesson action {action!r} (known: {', '.join(ACTIONS)})")
    return lesson


def replay(stepper: Any, lesson: dict[str, Any]) -> None:
    """Run the lesson's actions on ``stepper`` (which records them again as it goes)."""
    stepper.controller.task_managers = stepper.task_managers = lesson["task_managers"]
    stepper.seed = lesson["seed"]
    for action in lesson["actions"]:
        do = action["do"]
        if do == "submit":
            stepper.submit()
        elif do == "step":
            stepper.step(action["n"])
        elif do == "back" and "to" in action:  # go_to a bookmark: rewind in one replay
            stepper.go_to(int(action["to"]))
        elif do == "back":
            stepper.back()
        elif do == "run_to":
            stepper.run_to(action["target"])
        elif do == "checkpoint":
            stepper.trigger_checkpoint()
        elif do == "savepoint":
            stepper.trigger_savepoint()
        elif do == "fail_task":
            stepper.selected = f"ev_{action['vertex']}_{action['subtask']}"
            stepper.fail_selected_task()
        elif do == "fail_tm":
            stepper.fail_task_manager(action["index"])
        elif do == "cancel":
            stepper.cancel()
        elif do == "reset":
            stepper.reset(action["seed"])
    stepper.lesson_recorder.bookmarks.update(lesson.get("bookmarks", {}))
    stepper.lesson_recorder.narration.update(
        {int(k): v for k, v in lesson.get("narration", {}).items()}
    )
