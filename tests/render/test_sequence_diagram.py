"""The sequence diagram's model (lifelines, arrows, labels) from a golden trace, its SVG, and the
Stepper/SequenceView panes built from it.

``data/word_count_checkpoint_trace.json``: word count at parallelism 2 (source 1) on 2 TaskExecutors,
seed 3, submitted, checkpoint 1 triggered by hand, run to FINISHED (StreamTask.processInput events
left out: records are not calls). Regenerate the arrow list after an intended change with
``PYFLOWKIT_REGEN_GOLDEN=1``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from pyflowkit.render.sequence_model import SequenceModel, sequence_model
from pyflowkit.render.sequence_svg import FONT, sequence_svg
from pyflowkit.runtime.trace import load_trace

DATA = Path(__file__).with_name("data")
GOLDEN = DATA / "word_count_sequence_arrows.txt"
SUBMISSION = [
    "client -> Dispatcher: submitJob",
    "Dispatcher -> JobManagerRunner: JobManagerRunnerImpl.start",
    "JobManagerRunner -> JobMaster: JobMaster.<init>",
    "JobMaster -> Scheduler: SchedulerBase.<init>",
    "JobManagerRunner -> JobMaster: JobMaster.start",
    "JobMaster -> Scheduler: startScheduling",
    "Scheduler -> SlotPool: requestNewAllocatedSlot",
    "JobMaster -> ResourceManager: registerJobManager",
    "SlotPool -> ResourceManager: registerSlotRequest",
    "ResourceManager -> TaskExecutor-0: requestSlot",
    "TaskExecutor-0 -> JobMaster: offerSlotsToJobManager",
    "JobMaster -> SlotPool: offerSlot",
    "Scheduler -> TaskExecutor-0: submitTask",
    "TaskExecutor-0 -> Scheduler: updateTaskExecutionState RUNNING",
]


def golden_model() -> SequenceModel:
    producers = json.loads((DATA / "word_count_channels.json").read_text())
    channels = {
        (k.rsplit("|", 1)[0], int(k.rsplit("|", 1)[1])): [tuple(p) for p in v]
        for k, v in producers.items()
    }
    return sequence_model(load_trace(DATA / "word_count_checkpoint_trace.json"), 2, channels)


def test_arrows_of_the_golden_trace():
    arrows = golden_model().arrows()
    if os.environ.get("PYFLOWKIT_REGEN_GOLDEN"):
        GOLDEN.write_text("\n".join(arrows) + "\n", encoding="utf-8")
    assert arrows == GOLDEN.read_text(encoding="utf-8").splitlines()


def test_submission_arrives_in_flinks_order():
    arrows = golden_model().arrows()
    positions = [arrows.index(a) for a in SUBMISSION]
    assert positions == sorted(positions), [arrows[p] for p in positions]
    assert arrows[0] == "client -> Dispatcher: submitJob"


def test_lifelines_are_the_cluster_components_then_each_task_after_its_task_executor():
    model = golden_model()
    labels = [line.label for line in model.lifelines]
    assert labels[:8] == [
        "client",
        "Dispatcher",
        "JobManagerRunner",
        "JobMaster",
        "Scheduler",
        "SlotPool",
        "CheckpointCoordinator",
        "ResourceManager",
    ]
    te0 = labels.index("TaskExecutor-0")
    tasks = [line for line in model.lifelines if line.kind == "task"]
    assert {t.label for t in tasks} == {
        "Collection Source (1/1)",
        "Flat Map → Map (1/2)",
        "Flat Map → Map (2/2)",
        "Keyed Reduce → Print (1/2)",
        "Keyed Reduce → Print (2/2)",
    }
    assert all(t.group == "TaskExecutor-0" for t in tasks)  # seed 3 put every slot on TM 0
    assert labels[te0 + 1 : te0 + 6] == [t.label for t in tasks]
    assert labels[-1] == "TaskExecutor-1"
    assert {line.group for line in model.lifelines if line.kind == "component"} == {"JobMaster"}
    full = next(t for t in tasks if t.label == "Keyed Reduce → Print (2/2)")
    assert full.title.startswith("Task Keyed Reduce -> Sink: Print to Std. Out (2/2), attempt #0")


def test_checkpoint_protocol_arrows_barriers_acks_and_notifications():
    model = golden_model()
    label = {line.id: line.label for line in model.lifelines}
    by_kind: dict[str, list[tuple[str, str, str]]] = {}
    for m in model.messages:
        by_kind.setdefault(m["kind"], []).append((label[m["from"]], label[m["to"]], m["label"]))
    barriers = [b for b in by_kind["barrier"] if b[0] != b[1]]
    assert sorted(barriers) == sorted(
        (f"Flat Map → Map ({p}/2)", f"Keyed Reduce → Print ({c}/2)", "CheckpointBarrier (1)")
        for p in (1, 2)
        for c in (1, 2)
    )
    acks = [a for a in by_kind["ack"] if a[1] == "JobMaster"]
    assert len(acks) == 5 and {a[2] for a in acks} == {
        "RpcCheckpointResponder.acknowledgeCheckpoint (1)"
    }
    assert sum(a[:2] == ("Scheduler", "CheckpointCoordinator") for a in by_kind["ack"]) == 5
    notify = [n for n in by_kind["notify"] if n[0] == "CheckpointCoordinator"]
    assert len(notify) == 5 and all(n[1] == "TaskExecutor-0" for n in notify)
    order = [m["method"] for m in model.messages if m["checkpoint"] == 1]
    assert order[0] == "CheckpointCoordinator.createPendingCheckpoint"
    assert order.index("CheckpointCoordinator.completePendingCheckpoint") > max(
        i for i, m in enumerate(order) if m == "PendingCheckpoint.acknowledgeTask"
    )


def test_adding_events_one_by_one_gives_the_same_model():
    events = load_trace(DATA / "word_count_checkpoint_trace.json")
    whole = golden_model()
    stepwise = SequenceModel(2, whole.channel_producers)
    for e in events:
        stepwise.add([e])
    assert stepwise.to_dict() == whole.to_dict()
    assert whole.to_dict(last=3)["messages"] == whole.messages[-3:]
    assert whole.to_dict()["total"] == len(whole.messages)


def test_svg_has_one_group_per_arrow_text_at_14px_and_the_current_step_marked():
    model = golden_model().to_dict()
    svg = sequence_svg(model, highlight_step=model["messages"][-1]["step"])
    assert len(re.findall(r'<g class="pfk-seq-msg', svg)) == len(model["messages"])
    sizes = {int(s) for s in re.findall(r'font-size="(\d+)"', svg)}
    assert sizes == {FONT} and FONT >= 14
    assert svg.count('class="pfk-seq-current"') == sum(
        m["step"] == model["messages"][-1]["step"] for m in model["messages"]
    )
    assert ">Keyed Reduce → Print</text>" in svg and ">(2/2)</text>" in svg
    assert ">CheckpointBarrier (1)</text>" in svg
    last = sequence_svg(model, last=5)
    assert len(re.findall(r'<g class="pfk-seq-msg', last)) == 5


def test_an_arrows_label_sits_above_its_line_with_a_gap():
    """The label's baseline above the line by the font's descent (0.24 em in DejaVu Sans, what
    system-ui is on Debian), the stroke's half and a gap of 2 px (issue #23: at font scale 2 a
    label sat on its line). The browser tests measure it on screen (conftest.TEXT_CUT)."""
    svg = sequence_svg(golden_model().to_dict())
    arrows = re.findall(
        r'<line x1="[\d.]+" y1="([\d.]+)" x2="[\d.]+" y2="[\d.]+" stroke="[^"]+" '
        r'stroke-width="(\d+)"[^>]*/><text x="[\d.]+" y="([\d.]+)"',
        svg,
    )
    assert len(arrows) > 20
    for line_y, stroke, baseline in arrows:
        gap = float(line_y) - float(stroke) / 2 - float(baseline) - 0.24 * FONT
        assert gap >= 2, (line_y, baseline, gap)


def test_an_excerpt_draws_only_the_lifelines_it_touches():
    from pyflowkit.render.sequence_model import SequenceDiagram

    model = golden_model()
    excerpt = SequenceDiagram(model, last=3)
    svg = excerpt.to_svg()
    touched = {m["from"] for m in model.messages[-3:]} | {m["to"] for m in model.messages[-3:]}
    assert sorted(re.findall(r'class="pfk-lifeline" data-id="([^"]+)"', svg)) == sorted(touched)
    assert 'class="pfk-static pfk-themed pfk-auto" style="overflow-x: auto' in excerpt._repr_html_()
    assert len(re.findall(r'class="pfk-lifeline"', SequenceDiagram(model).to_svg())) == len(
        model.lifelines
    )


def test_job_run_sequence_diagram_through_the_display_hook(tmp_path):
    from pyflowkit.runtime import MiniCluster
    from tests.notebook.test_widgets import checkpointed_env

    run = MiniCluster(2, 2, seed=3, echo_print=False).submit(checkpointed_env())
    run.step(12)
    diagram = run.sequence_diagram()
    assert diagram.model.arrows()[0] == "client -> Dispatcher: submitJob"
    assert len(re.findall(r"<g class=\"pfk-seq-msg", diagram.to_svg())) == len(
        diagram.model.messages
    )
    path = diagram.save(tmp_path / "seq.svg")
    assert path.read_text(encoding="utf-8").startswith("<svg")
    assert len(run.sequence_diagram(last=4).model.messages[-4:]) == 4


def test_labels_at_a_projectors_width_are_whole_words_not_cut():
    """At 1280 px the pane is ~1,000 px: a long ``Class.method`` arrow label (FLIP-138's
    ``DeclarativeSlotPoolBridge.declareRequiredResources``) drops its class (its title keeps it),
    a one-word lifeline name wraps at its camel case, a task name at the space that fits both lines."""
    from pyflowkit.render.sequence_svg import _fit_method, _two_lines

    label = "SubtaskCheckpointCoordinatorImpl.checkpointState (1)"
    assert _fit_method(label, 240) == "checkpointState (1)"
    assert _fit_method("declareRequiredResources", 240) == "declareRequiredResources"
    assert _two_lines("ResourceManager", 100) == ["Resource", "Manager"]
    assert _two_lines("JobManagerRunner", 100) == ["JobManager", "Runner"]
    assert _two_lines("Keyed Reduce → Print (1/2)", 140) == ["Keyed Reduce", "→ Print (1/2)"]


def test_eight_lifelines_at_1280px_name_a_chained_task_whole_on_three_lines():
    """Notebook 05 at 1280 x 800: eight lifelines in a ~1,100 px pane. "Keyed Aggregation → Print
    (1/2)" was drawn "Keyed Aggrega…" / "(1/2)"; it wraps onto three whole lines (the header grows),
    and where even three do not hold it, the chain's head operator keeps the name whole."""
    from pyflowkit.render.sequence_svg import HEAD, HEAD3, column_for, header_svg, name_lines

    task = "Keyed Aggregation → Print (1/2)"
    column = column_for(1100, 8)
    assert name_lines(task, column - 20) == ["Keyed", "Aggregation →", "Print (1/2)"]
    assert name_lines(task + " #1", column_for(1000, 8) - 20) == [
        "Keyed",
        "Aggregation",
        "(1/2) #1",
    ]
    assert name_lines("CheckpointCoordinator", column - 20) == ["Checkpoint", "Coordinator"]
    line = {"id": "t", "label": task, "title": task, "group": "", "kind": "task"}
    head = header_svg([{**line, "id": "client", "label": "client", "kind": "fixed"}, line], column)
    assert f'height="{HEAD3}"' in head and "…" not in head
    texts = re.findall(r'<text x="[\d.]+" y="(\d+)" text-anchor="middle">([^<]+)</text>', head)
    assert [t for _, t in texts] == ["client", "Keyed", "Aggregation →", "Print (1/2)"]
    assert max(int(y) for y, _ in texts) <= HEAD3 - 7  # inside the name box
    short = header_svg([{**line, "label": "Map (1/2)"}], column)
    assert f'height="{HEAD}"' in short  # the header grows only when a name needs three lines


def test_a_flink_120_job_stepped_at_1000px_draws_no_label_cut():
    from pyflowkit.common.configuration import Configuration
    from pyflowkit.datastream import StreamExecutionEnvironment
    from pyflowkit.notebook.sequence_view import SequencePane
    from pyflowkit.notebook.stepper import Stepper

    config = Configuration().set_string("pyflowkit.flink-version", "1.20")
    env = StreamExecutionEnvironment.get_execution_environment(config)
    env.set_parallelism(2)
    env.enable_checkpointing(1000)
    words = env.from_collection(["a b", "c d", "a"]).flat_map(lambda s: s.split())
    words.key_by(lambda w: w).reduce(lambda a, b: a + b).print()
    stepper, pane, methods = Stepper(env, submit=True), SequencePane(), set()
    for _ in range(120):
        stepper.step()
        running = set(stepper.execution_states().values()) == {"RUNNING"}
        if running and "checkpoint" not in methods:
            stepper.trigger_checkpoint()
            methods.add("checkpoint")
        head, body = pane.update(stepper.run, 1000)
        assert "…" not in head + body, re.findall(r">([^<]*…[^<]*)<", head + body)
        methods |= {m.rpartition(".")[2] for m in re.findall(r'data-method="([^"]+)"', body)}
        if {"declareRequiredResources", "checkpointState"} <= methods:
            break  # FLIP-138's and a checkpoint's long labels drawn whole
    assert {"declareRequiredResources", "checkpointState"} <= methods


def test_a_call_that_logs_several_lines_is_one_arrow_and_separate_calls_stay_apart():
    """A restore logs "Restoring job … from latest valid checkpoint" and "No master state to
    restore", the failover strategy "Calculating tasks to restart" and how many: one call each, so
    one arrow each whose hover text holds every line; two slot requests stay two arrows."""
    from pyflowkit.common.configuration import Configuration
    from pyflowkit.datastream import StreamExecutionEnvironment
    from pyflowkit.notebook.stepper import Stepper
    from pyflowkit.render.sequence_model import SequenceModel

    config = Configuration().set_string("pyflowkit.flink-version", "1.11")
    env = StreamExecutionEnvironment.get_execution_environment(config)
    env.set_parallelism(2)
    env.enable_checkpointing(1000)
    words = env.from_collection(["a b", "c d", "a"] * 20).flat_map(lambda s: s.split())
    words.key_by(lambda w: w).reduce(lambda a, b: a + b).print()
    stepper = Stepper(env, submit=True)
    stepper.step_until(lambda s: set(s.execution_states().values()) == {"RUNNING"}, "running")
    stepper.trigger_checkpoint()
    stepper.run_to("checkpoint")
    stepper.selected = next(k for k, v in stepper.states.items() if v == "RUNNING")
    stepper.fail_selected_task()
    stepper.run_to("end")
    model = SequenceModel()
    model.add(stepper.run.trace)

    def arrows(method: str) -> list[dict]:
        return [m for m in model.messages if m["method"] == method]

    (restore,) = arrows("CheckpointCoordinator.restoreLatestCheckpointedState")
    assert "from latest valid checkpoint" in restore["detail"]
    assert restore["detail"].endswith("\nNo master state to restore")
    (tasks,) = arrows("RestartPipelinedRegionFailoverStrategy.getTasksNeedingRestart")
    assert len(tasks["detail"].splitlines()) == 2
    assert len(arrows("SlotPool.requestNewAllocatedSlot")) >= 2


def test_an_arrow_label_takes_its_row_not_a_few_columns() -> None:
    """A row holds one arrow, so its label is drawn whole across the next lifelines (issue 23's
    "transitionState RUNNING → RE…"): a self-call's label after the loop, a call's above its line;
    cut only where even the whole row is too narrow."""
    from pyflowkit.render.sequence_svg import message_row

    lifelines = ["client", "Dispatcher", "JobMaster", "Scheduler", "Coordinator", "TE", "A", "B"]
    x = {name: 52 + 129 * k + 64 for k, name in enumerate(lifelines)}
    width = 52 + 129 * len(lifelines)
    label = "transitionState RESTARTING → RUNNING"
    base = {"i": 0, "step": 105, "method": "ExecutionGraph.transitionState", "detail": "d"}
    self_call = {**base, "kind": "state", "from": "Scheduler", "to": "Scheduler", "label": label}
    call = {**base, "kind": "rpc", "from": "Scheduler", "to": "Coordinator", "label": label}
    for m in (self_call, call):
        row = message_row(m, x, True, column=129, width=width)
        assert f">{label}</text>" in row, row
    narrow = message_row(self_call, {"Scheduler": 52 + 64}, True, column=129, width=52 + 129)
    assert "…</text>" in narrow  # one lifeline's width cannot hold it


def test_the_compact_header_of_large_font_scales():
    """From font scale 1.5 (zoomed: every unit counts twice) the header drops the group band's
    row: at 2, notebook 03's four lifelines in a 1,090 px pane (545 units) take 38 units (76 px)
    instead of 64 (128 px); a JobMaster part's box names its group above its own name, a chained
    task too long for two lines shows its head operator and (i/n) (the title keeps the chain);
    the names on lines 16 units apart, inside their boxes."""
    from pyflowkit.render.sequence_svg import (
        HEAD,
        column_for,
        compact_lines,
        head_height,
        header_svg,
    )

    def line(id_, label, group="", kind="component"):
        return {"id": id_, "label": label, "title": label, "group": group, "kind": kind}

    chain = "Keyed Aggregation → Print (1/2)"
    lifelines = [
        line("client", "client", kind="fixed"),
        line("Dispatcher", "Dispatcher"),
        line("Scheduler", "Scheduler", group="JobMaster"),
        line("TaskExecutor-0", "TaskExecutor-0"),
    ]
    column = column_for(545, 4)
    assert head_height(lifelines, column) == HEAD
    assert head_height(lifelines, column, compact=True) == 38
    assert compact_lines(lifelines[2], column) == ["JobMaster", "Scheduler"]
    assert compact_lines(line("JobMaster", "JobMaster", group="JobMaster"), column) == ["JobMaster"]
    assert compact_lines(line("t", "Keyed Reduce → Print (1/2)", kind="task"), column) == [
        "Keyed Reduce",
        "→ Print (1/2)",
    ]
    long = line("t", "Keyed Reduce → Sink: Print to Std. Out → Map (1/2)", kind="task")
    assert compact_lines(long, column) == ["Keyed Reduce", "(1/2)"]  # the chain's head
    # (where even the head operator is cut on two lines: three whole ones)
    assert compact_lines(line("t", chain, kind="task"), column) == [
        "Keyed",
        "Aggregation →",
        "Print (1/2)",
    ]
    assert head_height(lifelines[:2], column, compact=True) == 22  # one line each
    task = line("t", "Keyed Reduce → Sink: Print to Std. Out → Map (1/2)", kind="task")
    head = header_svg([*lifelines[:3], task], column, True)
    assert 'height="38"' in head and "…" not in head
    assert "pfk-seq-group-name" in head and ">JobMaster</text>" in head
    assert f"<title>{task['title']}</title>" in head
    ys = [float(y) for y in re.findall(r'<text x="[\d.]+" y="([\d.]+)"', head)]
    assert min(ys) - 0.76 * 14 >= 1 and max(ys) + 0.24 * 14 <= 38 - 1  # inside the boxes
    y = {t: float(v) for v, t in re.findall(r'<text x="[\d.]+" y="([\d.]+)"[^>]*>([^<]+)<', head)}
    assert y["Scheduler"] - y["JobMaster"] == 16 and y["(1/2)"] - y["Keyed Reduce"] == 16
    assert y["client"] == (y["JobMaster"] + y["Scheduler"]) / 2  # one line: in the middle
