"""The Stepper's classroom panes on the Python side: exceptions with the user's traceback, the
restart countdown, the restore banner, checkpoint progress (badges, PendingCheckpoint box, per-subtask
table), barrier tokens, the timeline, the messages that used to mislead, palette and short names."""

from __future__ import annotations

import re

from pyflowkit.common import RestartStrategies
from pyflowkit.datastream import StreamExecutionEnvironment
from tests.notebook.test_widgets import checkpointed_env, word_count_env


def all_running(stepper) -> None:
    while not stepper.states or set(stepper.states.values()) != {"RUNNING"}:
        stepper.step()


def explode(line: str) -> list[str]:
    if line == "boom":
        raise ZeroDivisionError("the user's code divided by zero")
    return line.split()


def test_exceptions_pane_has_the_users_traceback_and_the_restart_countdown():
    from pyflowkit.notebook.stepper import Stepper

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(1, 500))
    env.from_collection(["a b", "boom", "c"]).flat_map(explode).print()
    stepper = Stepper(env, submit=True)
    assert stepper.failures["exceptions"] == [] and stepper.failures["restart"] is None
    stepper.run_to("job")  # RUNNING
    stepper.run_to("job")  # RESTARTING: the user's function threw
    assert stepper.job_status == "RESTARTING"
    (first,) = stepper.failures["exceptions"]
    assert first["exception"] == "ZeroDivisionError: the user's code divided by zero"
    assert "in explode" in first["traceback"] and "test_classroom_panes.py" in first["traceback"]
    assert first["attempt"] == 0 and first["task"].startswith("Collection Source → ")
    restart = stepper.failures["restart"]
    assert restart["remaining"] == 500 - (stepper.run.now - first["time"])
    assert restart["due"] == first["time"] + 500 and "500" in restart["strategy"]
    stepper.step()  # the simulated clock jumps to the next event: the restart, or sooner
    later = stepper.failures["restart"]
    assert (later is None and stepper.job_status == "RUNNING") or (
        later["remaining"] < restart["remaining"]
    )
    stepper.run_to("end")  # the retry throws again: no restart left, the job FAILED
    assert stepper.job_status == "FAILED"
    exceptions = stepper.failures["exceptions"]
    assert [x["task"] for x in exceptions][0] == "the job"
    assert "Recovery is suppressed" in exceptions[0]["exception"]
    assert [x["attempt"] for x in exceptions[1:]] == [1, 0]  # newest first
    assert stepper.failures["restart"] is None


def test_restored_banner_names_the_checkpoint():
    from pyflowkit.notebook.stepper import Stepper

    env = checkpointed_env()
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(2, 100))
    stepper = Stepper(env, seed=3, submit=True)
    all_running(stepper)
    stepper.trigger_checkpoint()
    stepper.run_to("checkpoint")
    stepper.selected = next(k for k in sorted(stepper.states) if k.endswith("_1"))
    stepper.fail_selected_task()
    assert "will throw at the next step" in stepper.message
    assert stepper.failures["restored"] is None
    stepper.run_to("job")
    stepper.run_to("job")
    assert stepper.job_status == "RUNNING"
    restored = stepper.failures["restored"]
    assert restored["checkpoint"] == 1 and "from latest valid checkpoint" in restored["message"]
    assert not re.search(r"[0-9a-f]{32}", restored["message"])  # ids cut to 6 hex digits


def test_checkpoint_progress_badges_box_and_subtask_table():
    from pyflowkit.notebook.stepper import Stepper

    stepper = Stepper(checkpointed_env(), seed=3, submit=True)
    all_running(stepper)
    assert stepper.checkpoints["box"] is None and stepper.badges == {}
    stepper.trigger_checkpoint()
    seen_phases: set[str] = set()
    acks = []
    while stepper.checkpoints["counts"]["COMPLETED"] == 0:
        stepper.step()
        seen_phases |= set(stepper.badges.values())
        box = stepper.checkpoints["box"]
        acks.append(box["acks"] if box else 0)
        assert set(stepper.badges) <= set(stepper.states)
    assert {"async", "acknowledged"} <= seen_phases
    assert "aligning" in seen_phases  # Keyed Reduce has two input channels
    assert acks == sorted(acks) and acks[-1] == 5
    box = stepper.checkpoints["box"]
    assert box["status"] == "COMPLETED" and box["total"] == 5
    assert {c["phase"] for c in box["cells"]} == {"acknowledged"}
    assert stepper.badges == {}  # nothing pending any more
    rows = stepper.checkpoints["subtasks"]
    assert len(rows) == 5 and {r["status"] for r in rows} == {"acknowledged"}
    assert all(r["state_bytes"] > 0 and r["sync_ms"] is not None for r in rows)
    assert {r["subtask"] for r in rows} >= {"Keyed Reduce → Print (1/2)", "Collection Source (1/1)"}


def test_barrier_tokens_travel_towards_the_consumer():
    from pyflowkit.notebook.stepper import Stepper

    stepper = Stepper(checkpointed_env(), seed=3, submit=True)
    all_running(stepper)
    stepper.step(20)
    assert stepper.edge_tokens == {}
    stepper.trigger_checkpoint()
    history = []
    for _ in range(60):
        stepper.step()
        history.append(stepper.edge_tokens)
    edges = set(re.findall(r'<g id="(ee_[^"]+)" class="edge', stepper.svg))
    tokens = [(edge, t) for step in history for edge, ts in step.items() for t in ts]
    assert tokens and {edge for edge, _ in tokens} <= edges
    assert all(0 < t["pos"] < 1 and t["ahead"] >= 0 and t["id"] == 1 for _, t in tokens)
    moved = [
        (a[edge][0]["pos"], b[edge][0]["pos"])
        for a, b in zip(history, history[1:], strict=False)
        for edge in set(a) & set(b)
        if a[edge][0]["pos"] != b[edge][0]["pos"]
    ]
    assert moved and all(after > before for before, after in moved)


def test_timeline_rows_bars_and_current_state():
    from pyflowkit.notebook.stepper import Stepper
    from pyflowkit.render.timeline_svg import timeline_rows, timeline_svg

    stepper = Stepper(word_count_env(), submit=True)
    stepper.run_to("end")
    svg = stepper.timeline
    labels = re.findall(r'class="pfk-tl-label" x="4" y="\d+">([^<]+)<', svg)
    assert labels[0] == "JobStatus" and len(labels) == 6
    assert "Keyed Reduce → Print (2/2)" in labels  # as Flink's web UI names subtasks
    states = re.findall(r'class="pfk-tl-state"[^>]*>([A-Z]+)<', svg)
    assert states == ["FINISHED"] * 6
    assert set(re.findall(r'data-state="([A-Z]+)"', svg)) == {
        "CREATED",
        "SCHEDULED",
        "DEPLOYING",
        "RUNNING",
        "FINISHED",
    }
    assert {int(s) for s in re.findall(r'font-size="(\d+)"', svg)} == {14}
    rows = timeline_rows(stepper.run.state_history())
    assert rows[0][1] == "JobStatus" and len(rows) == 6
    assert timeline_svg(rows, stepper.run.now).count('class="pfk-tl-label"') == 6


def test_messages_that_used_to_mislead():
    from pyflowkit.notebook.stepper import Stepper

    stepper = Stepper(word_count_env(), submit=True)
    stepper.run_to("job")
    assert stepper.message.startswith("ran to job (next JobStatus change)")
    assert stepper.message.endswith("switched from state CREATED to RUNNING.")
    stepper.run_to("end")
    stepper.cancel()
    assert stepper.message == "the job is already FINISHED: there is nothing to cancel"
    stepper.selected = next(iter(stepper.states))
    stepper.fail_selected_task()
    assert stepper.message.startswith("cannot fail ") and stepper.message.endswith(
        "it is FINISHED; only a deployed task can fail"
    )
    assert all(not re.search(r"[0-9a-f]{32}", e["message"]) for e in stepper.events)
    stepper.reset()
    stepper.cancel()
    assert stepper.message == (
        "cancel: the job has no JobMaster yet; step further first (the Dispatcher starts it)"
    )
    stepper.step(5)
    stepper.cancel()
    assert "CANCELLING → CANCELED" in stepper.message
    stepper.run_to("end")
    assert stepper.job_status == "CANCELED"


def test_the_tasks_table_says_what_the_task_executor_already_knows():
    from pyflowkit.notebook.stepper import Stepper

    stepper = Stepper(word_count_env(), submit=True)
    ahead = []
    while not stepper.finished:
        stepper.step()
        ahead += [r for r in stepper.tasks if r["task_executor_says"]]
    assert ahead, "the TaskExecutor never ran ahead of the JobMaster"
    assert any(r["state"] == "DEPLOYING" and r["task_executor_says"] == "RUNNING" for r in ahead)
    assert all(r["task"] and "->" not in r["task"] for r in stepper.tasks)


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def test_state_palette_is_distinct_and_its_text_readable():
    from pyflowkit.render.palette import STATE_PALETTE, STATE_TEXT

    execution_states = [
        "CREATED",
        "SCHEDULED",
        "DEPLOYING",
        "RUNNING",
        "FINISHED",
        "CANCELING",
        "CANCELED",
        "FAILED",
        "RESTARTING",
    ]
    colours = [STATE_PALETTE[s] for s in execution_states]
    assert len(set(colours)) == len(colours)
    lum = sorted(_luminance(c) for c in colours)
    for state in STATE_PALETTE:
        bright = sorted([_luminance(STATE_PALETTE[state]), _luminance(STATE_TEXT[state])])
        assert (bright[1] + 0.05) / (bright[0] + 0.05) >= 4.5, state
    assert len(lum) == len(set(round(v, 3) for v in lum))


def test_short_names_and_ids():
    from pyflowkit.render.short_names import short_ids, short_task_name

    assert short_task_name("Keyed Reduce -> Sink: Print to Std. Out (1/2)") == (
        "Keyed Reduce → Print (1/2)"
    )
    assert short_task_name("Source: Collection Source -> Map -> Filter (3/4)") == (
        "Collection Source → … → Filter (3/4)"
    )
    assert short_task_name("Keyed Aggregation (2)") == "Keyed Aggregation (2)"
    assert short_task_name(
        "Window(GlobalWindows(), CountTrigger, CountEvictor, UsageDelta) (1/2)"
    ) == ("Window(…, UsageDelta) (1/2)")
    assert short_task_name("Window(TumblingEventTimeWindows(5), EventTimeTrigger, sum) (2/2)") == (
        "Window(…, sum) (2/2)"
    )
    assert short_ids("job 4c1609c3f143dab331f7076fb7a97297.") == "job 4c1609."


def test_channels_by_name_and_readable_tables():
    from pyflowkit.notebook.stepper import Stepper
    from pyflowkit.notebook.tables import readable

    stepper = Stepper(checkpointed_env(), seed=3, submit=True)
    all_running(stepper)
    assert stepper.channels().empty
    stepper.trigger_checkpoint()
    while stepper.channels().empty:
        stepper.step()
    frame = stepper.channels()
    assert list(frame.columns) == ["channel", "blocked (aligning)", "barriers", "records ahead"]
    assert frame["channel"].iloc[0] == "Collection Source (1/1) → Flat Map → Map (1/2)" or (
        frame["channel"].str.contains(" → Flat Map → Map ").all()
    )
    assert not frame["channel"].str.contains("ee_").any()
    assert "CheckpointBarrier 1" in frame["barriers"].iloc[0]
    html = readable(frame).to_html()
    assert "text-align: left" in html and "…" not in html


def test_pipeline_graphs_show_at_their_own_size():
    from pyflowkit.notebook.pipeline_view import PipelineView

    graph = word_count_env().get_job_graph()
    bundle = PipelineView(graph, "job")._repr_mimebundle_()
    html = bundle["text/html"]
    assert '<div class="pfk-graph-output" style="overflow-x: auto;' in html
    assert "<?xml" not in html and html.count("<svg") == 1
    assert re.search(r'<svg style="max-width: none" width="\d+pt"', html)  # not fit to the cell
    sizes = {float(s) for s in re.findall(r'font-size="([0-9.]+)"', bundle["image/svg+xml"])}
    assert min(sizes) * 4 / 3 >= 14  # pt → px


def test_static_fallback_uses_the_widgets_palette():
    from pyflowkit.notebook.stepper import Stepper
    from pyflowkit.render.palette import STATE_PALETTE

    stepper = Stepper(word_count_env(), submit=True)
    stepper.run_to("end")
    bundle = stepper._repr_mimebundle_()
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    finished = STATE_PALETTE["FINISHED"]
    assert f"{{fill: {finished};}}" in data["image/svg+xml"]
    assert f"{{fill: {finished};}}" in data["text/html"] and "<?xml" not in data["text/html"]


def test_a_cells_graph_starts_scrolled_to_its_new_operators():
    from pyflowkit.notebook.pipeline_view import PipelineView

    graph = word_count_env().get_stream_graph()
    added = {max(graph.nodes)}
    html = PipelineView(graph, "stream", added)._repr_mimebundle_()["text/html"]
    assert "direction: rtl" in html and "pfk-added" in html
    assert "direction: rtl" not in PipelineView(graph, "stream")._repr_mimebundle_()["text/html"]
