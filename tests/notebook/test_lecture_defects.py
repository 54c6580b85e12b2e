"""The defects a teacher found projecting the classroom notebooks (issue #23): the Stepper's layout
trait, subtasks named as Flink's web UI names them, the restart countdown as time, and the timeline's
checkpoint/restore markers, compressed restart wait and legend."""

from __future__ import annotations

import re

from pyflowkit.common import RestartStrategies
from tests.notebook.test_classroom_panes import all_running
from tests.notebook.test_widgets import checkpointed_env, word_count_env


def test_layout_mode_does_not_shadow_the_ipywidgets_layout():
    import ipywidgets

    from pyflowkit.notebook.stepper import Stepper

    stepper = Stepper(word_count_env())
    assert isinstance(stepper.layout, ipywidgets.Layout)  # ipywidgets' own trait, a widget
    assert stepper.layout_mode == "auto"
    state = stepper.get_state()
    assert state["layout"].startswith("IPY_MODEL_") and state["layout_mode"] == "auto"
    stepper.layout = "projector"  # the old spelling still picks the mode
    assert stepper.layout_mode == "projector" and isinstance(stepper.layout, ipywidgets.Layout)


def test_sim_time_reads_as_time():
    from pyflowkit.render.sim_time import sim_time

    assert [sim_time(v) for v in (0, 850, 1000, 1200, 12_345, 60_000, 125_000)] == [
        "0 ms",
        "850 ms",
        "1 s",
        "1.2 s",
        "12 s",
        "1 min",
        "2 min 5 s",
    ]


def _failed_and_restored(delay_ms: int = 1000):
    from pyflowkit.notebook.stepper import Stepper

    env = checkpointed_env()
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(2, delay_ms))
    stepper = Stepper(env, seed=3, submit=True)
    all_running(stepper)
    stepper.trigger_checkpoint()
    stepper.run_to("checkpoint")
    stepper.selected = next(k for k in sorted(stepper.states) if k.endswith("_1"))
    stepper.fail_selected_task()
    return stepper


def test_exception_names_the_subtask_as_the_graph_does_and_the_countdown_is_time():
    stepper = _failed_and_restored()
    stepper.run_to("job")  # RESTARTING
    assert stepper.job_status == "RESTARTING"
    (root,) = stepper.failures["exceptions"]
    assert "subtask 1" not in root["exception"] and "subtask 1" not in root["traceback"]
    assert re.fullmatch(r"TaskFailure: Injected failure of .+ \(2/2\)\.", root["exception"])
    assert root["exception"].endswith(f"{root['task']}.")  # the same name as the task column
    assert root["at"].endswith(" s") or root["at"].endswith(" ms")
    restart = stepper.failures["restart"]
    assert restart["delay"] == 1000 and 0 < restart["remaining"] <= 1000
    assert re.match(r"restart in \d+(\.\d)? m?s \(waited \d+(\.\d)? m?s of 1 s", restart["text"])
    assert "999" not in restart["text"] or "ms" in restart["text"]
    # the banner: one short line a lecture hall reads without hovering (at most ~80 characters)
    assert re.fullmatch(
        r"RESTARTING in \d+(\.\d)? m?s of 1 s \(simulated clock\) · fixed delay, restart 1 of \d+",
        restart["banner"],
    ), restart["banner"]
    assert len(restart["banner"]) <= 80


def test_timeline_markers_legend_and_the_restart_wait_compressed():
    from pyflowkit.render.timeline_svg import TimeAxis

    stepper = _failed_and_restored(delay_ms=10_000)
    stepper.run_to("job")
    stepper.run_to("job")
    assert stepper.job_status == "RUNNING"
    svg = stepper.timeline
    # markers: checkpoint 1 completed, then restored from it
    assert re.search(r'class="pfk-tl-marker pfk-tl-completed" data-time="\d+"', svg)
    assert re.search(r'class="pfk-tl-marker pfk-tl-restored" data-time="\d+"', svg)
    assert "✓1<" in svg and "⟲1<" in svg
    # the legend lists every state drawn, RESTARTING included, and the marker kinds
    legend = re.findall(r'class="pfk-tl-legend-item" data-state="([A-Z]+)"', svg)
    drawn = set(re.findall(r'class="pfk-tl-bar" data-state="([A-Z]+)"', svg))
    assert "RESTARTING" in legend and set(legend) == drawn
    assert "checkpoint completed" in svg and "restored" in svg
    # the 10 s wait is a compressed stretch with a break mark, not most of the chart
    (wait,) = re.findall(r'class="pfk-tl-wait" data-start="(\d+)" data-end="(\d+)"', svg)
    start, end = map(int, wait)
    assert end - start >= 10_000
    now = stepper.run.now
    axis = TimeAxis([(start, end)], now)
    share = (axis.map(end) - axis.map(start)) / axis.span
    assert share < 0.1 and (end - start) / now > 0.5  # most of the time, a tenth of the chart
    assert axis.map(start) == start and axis.map(now) < now  # identity before, shifted after
    assert {int(s) for s in re.findall(r'font-size="(\d+)"', svg)} == {14}


def test_focus_mode_fits_the_pane_width_with_client_and_dispatcher_pinned():
    from pyflowkit.notebook.stepper import Stepper
    from pyflowkit.render.sequence_svg import LEFT, MIN_COLUMN, ROW

    stepper = Stepper(word_count_env(), submit=True)
    stepper.seq_width = 1100  # what the browser reports for the pane at 1280 x 800
    widths = set()
    for _ in range(40):
        stepper.step()
        body = stepper.seq_body
        ids = [line["id"] for line in stepper.sequence.lifelines]
        assert ids[:2] == ["client", "Dispatcher"]
        widths.add(int(re.search(r'width="(\d+)"', body).group(1)))
        assert len(ids) * MIN_COLUMN + LEFT <= 1100
        for x in re.findall(r'<text x="([\d.]+)" y="\d+" text-anchor="middle"', body):
            assert LEFT <= float(x) <= 1100
        # the current step's arrows are drawn (the newest rows)
        assert f'data-step="{stepper.step_count}"' in body or "pfk-seq-current" not in body
    assert max(widths) <= 1100 and ROW >= 24
    stepper.seq_width = 0  # no width known: every lifeline at full width (the static export)
    assert len(stepper.sequence.lifelines) == len(stepper.sequence.model.lifelines)


def test_step_until_is_a_bounded_wait_that_says_why_it_stopped():
    import pytest

    from pyflowkit.notebook.stepper import Stepper

    stepper = Stepper(word_count_env(), submit=True)
    reason = stepper.step_until(
        lambda s: set(s.states.values()) == {"RUNNING"}, "every subtask RUNNING"
    )
    assert re.fullmatch(r"every subtask RUNNING after \d+ step\(s\) \(now at step \d+\)", reason)
    assert set(stepper.states.values()) == {"RUNNING"}
    with pytest.raises(RuntimeError, match=r"a blocked channel: the job ended \(FINISHED\)"):
        stepper.step_until(lambda s: "blocked" in s.edge_marks.values(), "a blocked channel")
    stepper.reset()
    with pytest.raises(RuntimeError, match="a FAILED job: 3 steps, and it never happened"):
        stepper.step_until(lambda s: s.job_status == "FAILED", "a FAILED job", max_steps=3)


def test_present_asks_the_front_end_for_presenter_mode():
    from pyflowkit.notebook.stepper import Stepper

    stepper = Stepper(word_count_env())
    sent = []
    stepper.send = sent.append  # the comm message the widget's front end handles
    stepper.present()
    stepper.leave_presenter()
    assert sent == [{"event": "present"}, {"event": "leave"}]
