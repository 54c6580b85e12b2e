"""The Stepper's lecture tools (issue #23): font scale and theme traits, the step scrubber's
commands and bookmarks, and the sequence diagram's phases as collapsible bands."""

from __future__ import annotations

import re

import pytest
import traitlets

from pyflowkit.common import RestartStrategies
from pyflowkit.render.sequence_model import PHASES
from tests.notebook.test_classroom_panes import all_running
from tests.notebook.test_widgets import checkpointed_env


@pytest.fixture(scope="module")
def lectured():
    """A Stepper through submission, a completed checkpoint, a failure and the restore."""
    from pyflowkit.notebook.stepper import Stepper

    env = checkpointed_env()
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(2, 100))
    stepper = Stepper(env, seed=3, submit=True)
    all_running(stepper)
    stepper.bookmark("all RUNNING")
    stepper.trigger_checkpoint()
    stepper.run_to("checkpoint")
    stepper.selected = next(k for k in sorted(stepper.states) if k.endswith("_1"))
    stepper.fail_selected_task()
    stepper.run_to("job")
    stepper.run_to("job")
    return stepper


def test_font_scale_and_theme_are_synced_traits_with_their_ranges():
    from pyflowkit.notebook.stepper import THEMES, Stepper

    stepper = Stepper(checkpointed_env())
    assert stepper.font_scale == 1.0 and stepper.theme == "auto"
    assert {"font_scale", "theme", "bookmarks", "furthest_step", "seq_collapsed"} <= set(
        stepper.keys
    )
    stepper.font_scale = 1.25
    assert stepper.font_scale == 1.25
    stepper.font_scale = 0.5  # under 14 px text: held at 1
    assert stepper.font_scale == 1.0
    stepper.font_scale = 3
    assert stepper.font_scale == 2.0
    stepper.font_scale = 1.3  # eighths, as the A− / A+ buttons step
    assert stepper.font_scale == 1.25
    for theme in THEMES:
        stepper.theme = theme
    with pytest.raises(traitlets.TraitError):
        stepper.theme = "sepia"
    stepper.step(3)  # the settings persist across steps
    assert (stepper.font_scale, stepper.theme) == (1.25, "high-contrast")


def test_the_sequence_header_is_compact_from_font_scale_one_and_a_half():
    """A+ to 1.5 and up redraws the sequence header compact (no group band row: 38 units for
    two-line names instead of 64; zoomed twice at 2 it was 128 px of a 1280 x 800 projector),
    A− under 1.5 brings the full header back; the rows stay the same."""
    from pyflowkit.notebook.stepper import Stepper

    stepper = Stepper(checkpointed_env(), seed=3, submit=True)
    stepper.seq_width = 545  # a 1,090 px pane at font scale 2
    all_running(stepper)
    height = lambda: int(re.search(r'height="(\d+)"', stepper.seq_head).group(1))  # noqa: E731
    full, body = height(), stepper.seq_body
    assert full == 64 and ">JobMaster</text>" in stepper.seq_head
    for scale, compact in ((1.375, False), (1.5, True), (2.0, True), (1.25, False)):
        stepper.font_scale = scale
        assert stepper.compact_header is compact
        assert (height() < full) is compact, (scale, height())
    stepper.font_scale = 2.0
    assert height() in (22, 38)
    assert 'class="pfk-seq-group-name"' not in stepper.seq_head.split("<g ")[0]  # no band label
    stepper.font_scale = 1.0
    assert (height(), stepper.seq_body) == (full, body)


def test_the_scrubber_goes_to_a_step_and_a_bookmark_with_the_back_machinery(lectured):
    stepper = lectured
    end = stepper.step_count
    assert stepper.furthest_step == end
    assert stepper.bookmarks == {"all RUNNING": stepper.lesson_recorder.bookmarks["all RUNNING"]}
    stepper._on_command(stepper, {"cmd": "go_to", "step": 5}, None)
    assert stepper.step_count == 5 and stepper.furthest_step == end  # the scrubber keeps its end
    assert stepper.message == "rewound to step 5"
    stepper._on_command(stepper, {"cmd": "go_to", "step": "all RUNNING"}, None)
    assert stepper.step_count == stepper.bookmarks["all RUNNING"]
    assert set(stepper.states.values()) == {"RUNNING"}
    stepper._on_command(stepper, {"cmd": "go_to", "step": end}, None)
    assert stepper.step_count == end and stepper.job_status == "RUNNING"
    stepper._on_command(stepper, {"cmd": "bookmark"}, None)
    assert stepper.bookmarks[f"RUNNING at step {end}"] == end
    assert stepper.message == f"bookmarked step {end} as 'RUNNING at step {end}'"
    stepper._on_command(stepper, {"cmd": "go_to", "step": "nowhere"}, None)
    assert stepper.message.startswith("go_to: \"no bookmark 'nowhere'")
    assert stepper.lesson()["bookmarks"] == stepper.bookmarks  # saved with the lesson


def test_every_arrow_has_a_phase_and_the_lecture_passes_through_all_of_them(lectured):
    model = lectured.sequence.model
    runs = []
    for m in model.messages:
        assert m["phase"] in PHASES
        if not runs or runs[-1] != (m["band"], m["phase"]):
            runs.append((m["band"], m["phase"]))
    phases = [phase for _, phase in runs]
    assert phases[:4] == ["submission", "scheduling", "deployment", "checkpoint"]
    assert "failover" in phases
    first = {m["band"]: m for m in reversed(model.messages)}
    assert first[0]["method"] == "Dispatcher.submitJob"
    for band, summary in model.bands.items():
        arrows = [m for m in model.messages if m["band"] == band]
        assert summary["count"] == len(arrows) and summary["phase"] == arrows[0]["phase"]
        assert (summary["first"], summary["last"]) == (arrows[0]["step"], arrows[-1]["step"])


def _bands(body: str) -> list[tuple[str, str, str]]:
    """(band key, collapsed, text) of each band header in a body SVG."""
    found = re.findall(
        r'data-band="(\d+)" data-phase="[\w]+" data-collapsed="(\d)" data-current="\d">'
        r".*?<text[^>]*>([^<]*)</text>",
        body,
    )
    return [(k, c, t) for k, c, t in found]


def test_a_band_collapses_to_one_row_and_the_current_steps_band_stays_open(lectured):
    from pyflowkit.notebook.sequence_view import SequencePane

    stepper = lectured
    stepper.go_to(20)  # deployment: submission, scheduling and deployment drawn on all lifelines
    pane = SequencePane(stepper.job_graph.to_execution_graph())
    _, body = pane.update(stepper.run)
    bands = _bands(body)
    assert [t.split(" · ")[0] for _, _, t in bands] == [
        "▾ submission",
        "▾ scheduling",
        "▾ deployment",
    ]
    submission = next(k for k, _, t in bands if "submission" in t)
    summary = stepper.sequence.model.bands[int(submission)]
    assert bands[0][2] == (
        f"▾ submission · steps {summary['first']}–{summary['last']} · {summary['count']} arrows"
    )
    rows = body.count('class="pfk-seq-msg ')
    deployment = bands[2][0]
    _, folded = pane.update(stepper.run, None, [int(submission), int(deployment)])
    # the submission's arrows fold into its header; deployment holds step 20: it stays open
    assert folded.count('class="pfk-seq-msg ') == rows - summary["count"]
    after = _bands(folded)
    assert after[0][1] == "1" and after[0][2].startswith("▸ submission")
    assert after[2][1] == "0" and after[2][2].startswith("▾ deployment")
    assert 'data-current="1"' in folded.split(f'data-band="{deployment}"')[1][:80]
    assert 'class="pfk-seq-current"' in folded
    # the Stepper's own pane: seq_collapsed redraws the body
    stepper.seq_collapsed = [int(submission)]
    assert 'data-collapsed="1"' in stepper.seq_body
    stepper.seq_collapsed = []
    assert 'data-collapsed="1"' not in stepper.seq_body
    stepper.go_to(stepper.furthest_step)


def test_the_exported_diagram_has_no_bands(lectured):
    svg = lectured.sequence_diagram().to_svg()
    assert "pfk-seq-band" not in svg and svg.count('class="pfk-seq-msg ') == len(
        lectured.sequence.model.messages
    )


def test_a_command_carries_the_sequence_panes_width_and_is_laid_out_to_it():
    """The browser sends the sequence pane's width with every command (its state update can be
    held back by ipywidgets' message throttle): the answer is laid out to that width, never to
    every lifeline's full width (1,852 px in notebook 05 once)."""
    from pyflowkit.notebook.stepper import Stepper

    def width(svg: str) -> int:
        return int(re.search(r'<svg [^>]*width="(\d+)"', svg).group(1))

    unknown = Stepper(checkpointed_env(), seed=3, submit=True)
    unknown._on_command(unknown, {"cmd": "step", "n": 12}, None)
    told = Stepper(checkpointed_env(), seed=3, submit=True)
    told._on_command(told, {"cmd": "step", "n": 12, "seq_width": 600}, None)
    assert told.seq_width == 600
    assert told.step_count == unknown.step_count == 12
    assert width(told.seq_body) <= 600 and width(told.seq_head) <= 600
    assert width(unknown.seq_body) > 600  # without it: every lifeline at full width
    # a hidden pane sends none (0 or absent): the last width known stays
    told._on_command(told, {"cmd": "step", "n": 1, "seq_width": 0}, None)
    assert told.seq_width == 600 and width(told.seq_body) <= 600
