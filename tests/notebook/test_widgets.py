"""Widgets' Python side: GraphView state/marks/selection, Stepper commands, static fallbacks."""

from __future__ import annotations

import pytest

from pyflowkit.datastream import StreamExecutionEnvironment
from tests.notebook.conftest import run
from tests.notebook.test_magics import CELL1, CELL2, CELL3


def word_count_env():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    (
        env.from_collection(["to be or", "not to be"])
        .flat_map(lambda line: line.split())
        .map(lambda w: (w, 1))
        .key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .print()
    )
    return env


def bundle_of(widget):
    bundle = widget._repr_mimebundle_()
    return bundle[0] if isinstance(bundle, tuple) else bundle


def test_widget_front_end_files_are_found():
    from pyflowkit.notebook.assets import widget_file

    assert "export default" in widget_file("pyflowkit.js").read_text()
    assert ".pfk-" in widget_file("widgets.css").read_text()
    with pytest.raises(FileNotFoundError, match="nope.js"):
        widget_file("nope.js")


def test_graph_view_states_marks_and_selection():
    from pyflowkit.notebook.graph_view import GraphView
    from pyflowkit.render.palette import STATE_PALETTE, STATE_TEXT

    graph = word_count_env().get_job_graph()
    view = GraphView(graph)
    svg_before = view.svg
    vid = graph.vertices[1].id
    view.set_states({f"jv_{vid}": "running"})
    assert view.states == {f"jv_{vid}": "RUNNING"} and view.svg == svg_before  # no re-layout
    with pytest.raises(ValueError, match="Unknown state 'SLEEPING'"):
        view.set_states({f"jv_{vid}": "SLEEPING"})
    view.set_edge_marks({f"je_{vid}_0": "barrier"})
    with pytest.raises(ValueError, match="unknown marks"):
        view.set_edge_marks({f"je_{vid}_0": "smoke"})
    clicked = []
    view.on_select(clicked.append)
    view.selected = f"jv_{vid}"
    assert clicked == [f"jv_{vid}"]
    data = bundle_of(view)
    assert "application/vnd.jupyter.widget-view+json" in data
    running = STATE_PALETTE["RUNNING"]  # the palette, with its readable text colour
    assert f"#jv_{vid} > polygon" in data["image/svg+xml"] and running in data["image/svg+xml"]
    assert f"text {{fill: {STATE_TEXT['RUNNING']};}}" in data["image/svg+xml"]


def test_stepper_steps_until_a_task_runs_and_to_the_end():
    from pyflowkit.notebook.stepper import Stepper

    stepper = Stepper(word_count_env())
    assert not stepper.submitted and stepper.states == {}
    stepper.submit()
    assert stepper.job_status == "CREATED" and stepper.step_count == 0
    for _ in range(100):
        stepper.step()
        if "RUNNING" in stepper.states.values():
            break
    assert "RUNNING" in stepper.states.values()
    assert stepper.events[-1]["method"] and stepper.events[-1]["message"]
    running = next(k for k, v in stepper.states.items() if v == "RUNNING")
    at = stepper.step_count
    stepper.back()
    assert stepper.step_count == at - 1
    stepper.selected = running
    stepper.run_to("end")
    assert stepper.job_status == "FINISHED" and set(stepper.states.values()) == {"FINISHED"}
    assert {r["state"] for r in stepper.tasks} == {"FINISHED"}
    assert len(stepper.slots) == 4
    stepper.run_to("checkpoint")  # no checkpointing enabled: the job ends first
    assert stepper.message.startswith("no next completed checkpoint: run_until: the simulation ran")
    data = bundle_of(stepper)
    assert "FINISHED" in data["text/html"] and "image/svg+xml" in data


def test_stepper_commands_from_the_browser_never_raise():
    from pyflowkit.notebook.stepper import Stepper

    stepper = Stepper(word_count_env(), seed=1)
    stepper._on_command(stepper, {"cmd": "fail_task"}, [])
    assert "select a subtask" in stepper.message
    stepper._on_command(stepper, {"cmd": "step", "n": 5}, [])
    assert stepper.step_count == 5
    stepper._on_command(stepper, {"cmd": "reset", "seed": 7}, [])
    assert stepper.seed == 7 and stepper.step_count == 0
    stepper._on_command(stepper, {"cmd": "frobnicate"}, [])
    assert stepper.message == "unknown command 'frobnicate'"


def test_stepper_fail_selected_task_fails_the_job():
    from pyflowkit.notebook.stepper import Stepper

    stepper = Stepper(word_count_env(), submit=True)
    stepper.run_to("state")
    while "RUNNING" not in stepper.states.values():
        stepper.step()
    stepper.selected = next(k for k, v in stepper.states.items() if v == "RUNNING")
    stepper.fail_selected_task()
    stepper.run_to("end")
    assert "FAILED" in {e["method"] for e in stepper.events} or stepper.job_status == "FAILED"


def test_step_and_local_run_subcommands(ip):
    for i, cell in enumerate((CELL1, CELL2, CELL3)):
        run(ip, cell, f"c{i}")
    stepper = ip.run_line_magic("pipeline", "step wc --seed 3 --task-managers 1 --slots 4")
    assert stepper.seed == 3 and stepper.task_managers == 1
    res, cap = run(ip, "%pipeline run wc --target local")
    assert res.error_in_exec is None
    result = ip.user_ns["wc_result"]
    frame = result.frames["Sink: Print to Std. Out"]
    assert sorted(line.split("> ", 1)[1] for line in frame["value"]) == sorted(
        ["('to', 1)", "('be', 1)", "('or', 1)", "('not', 1)", "('to', 2)", "('be', 2)"]
    )
    assert "2> ('to', 2)" in cap.stdout
    assert "Sink: Print to Std. Out (6 records)" in result._repr_html_()
    res, cap = run(ip, "%pipeline run wc --target local --master spark://x:7077")
    assert res.error_in_exec is None and "--master only applies" in cap.stdout


P8_CELL = """%%pipeline p8
env.set_parallelism(8)
(env.from_collection(list(range(40))).map(lambda x: (x % 5, x)).key_by(lambda t: t[0])
    .reduce(lambda a, b: (a[0], a[1] + b[1])).print())
"""


def test_a_parallelism_8_pipeline_steps_and_runs_on_a_cluster_sized_to_it(ip):
    """``%pipeline step`` without counts sizes the cluster (2 x 8); given counts are kept, and a
    2 x 2 cluster fails the job; ``%pipeline run --target local`` finishes it."""
    res, _ = run(ip, P8_CELL, "p8")
    assert res.error_in_exec is None
    stepper = ip.run_line_magic("pipeline", "step p8 --seed 3")
    assert (stepper.task_managers, stepper.slots_per_task_manager) == (2, 8)
    stepper.submit()
    stepper.run_to("end")
    assert stepper.job_status == "FINISHED" and len(stepper.slots) == 16
    small = ip.run_line_magic("pipeline", "step p8 --task-managers 2 --slots 2")
    small.submit()
    small.run_to("end")
    assert small.job_status == "FAILED" and len(small.slots) == 4
    res, cap = run(ip, "%pipeline run p8 --target local")
    assert res.error_in_exec is None
    lines = ip.user_ns["p8_result"].frames["Sink: Print to Std. Out"]["value"]
    last = {}
    for line in lines:
        record = eval(line.split("> ", 1)[1])  # noqa: S307 - our own printed tuples
        last[record[0]] = record[1]
    assert last == {k: sum(v for v in range(40) if v % 5 == k) for k in range(5)}


def test_stepper_runs_to_each_job_status_change_through_a_restart():
    from pyflowkit.common import RestartStrategies
    from pyflowkit.notebook.stepper import Stepper

    env = word_count_env()
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(2, 500))
    stepper = Stepper(env, submit=True)
    stepper.run_to("job")
    assert stepper.job_status == "RUNNING"
    while set(stepper.states.values()) != {"RUNNING"}:
        stepper.step()
    stepper.selected = next(k for k in sorted(stepper.states) if k.endswith("_1"))
    stepper.fail_selected_task()
    stepper.run_to("job")
    assert stepper.job_status == "RESTARTING" and stepper.message.startswith("ran to job")
    failed_at = stepper.run.now
    stepper.run_to("job")
    assert stepper.job_status == "RUNNING" and stepper.run.now - failed_at == 500
    assert {r["attempt"] for r in stepper.tasks} == {1}
    stepper.run_to("end")
    assert stepper.job_status == "FINISHED"
    with pytest.raises(ValueError, match=r"one of \('state', 'job', 'checkpoint', 'end'\)"):
        stepper.run_to("lunch")


class RunWithCheckpoints:
    """A real JobRun plus scripted ``checkpoints_frame`` rows (Flink REST ``/checkpoints`` names)."""

    def __init__(self, run, rows):
        self._run, self.rows = run, rows

    def __getattr__(self, name):
        return getattr(self._run, name)

    def checkpoints_frame(self):
        import pandas as pd

        return pd.DataFrame(self.rows)


def checkpoint_row(cid, status, acks, total=5, savepoint=False):
    return {
        "id": cid,
        "status": status,
        "is_savepoint": savepoint,
        "trigger_timestamp": 100 * cid,
        "latest_ack_timestamp": 100 * cid + 7 if acks else None,
        "num_acknowledged_subtasks": acks,
        "num_subtasks": total,
        "end_to_end_duration": 7 if status == "COMPLETED" else None,
        "state_size": 96 * acks,
        "alignment_buffered": 0,
        "failure_message": "Checkpoint expired before completing." if status == "FAILED" else None,
    }


def test_checkpoint_pane_shows_progress_counts_and_history_newest_first():
    from pyflowkit.notebook.stepper import CHECKPOINT_COLUMNS, Stepper

    stepper = Stepper(word_count_env(), submit=True)
    stepper.run = RunWithCheckpoints(
        stepper.run,
        [
            checkpoint_row(1, "COMPLETED", 5),
            checkpoint_row(2, "FAILED", 2),
            checkpoint_row(3, "IN_PROGRESS", 3, savepoint=True),
        ],
    )
    stepper.refresh()
    pane = stepper.checkpoints
    assert pane["available"] is True
    assert pane["counts"] == {"IN_PROGRESS": 1, "COMPLETED": 1, "FAILED": 1}
    assert pane["pending"] == [{"id": 3, "acks": 3, "total": 5, "is_savepoint": True}]
    assert [r["id"] for r in pane["history"]] == [3, 2, 1]
    assert pane["columns"] == list(CHECKPOINT_COLUMNS)
    assert pane["history"][2]["latest_ack_timestamp"] == 107
    assert pane["history"][0]["end_to_end_duration"] is None  # NaN in the frame → null in JSON
    html = bundle_of(stepper)["text/html"]
    assert "<table class='pfk-ck-history'>" in html
    assert "<td>COMPLETED</td>" in html and "Checkpoint expired before completing." in html


class RunWithoutCheckpoints:
    """A real JobRun as a runtime without checkpoint support would offer it."""

    def __init__(self, run):
        self._run = run

    def __getattr__(self, name):
        if "checkpoint" in name or "savepoint" in name:
            raise AttributeError(name)
        return getattr(self._run, name)


def test_checkpoint_pane_without_checkpoint_support_says_so():
    from pyflowkit.notebook.stepper import NO_CHECKPOINTS, Stepper

    stepper = Stepper(word_count_env(), submit=True)
    stepper.run = RunWithoutCheckpoints(stepper.run)
    stepper.refresh()
    assert stepper.checkpoints["available"] is False
    assert stepper.checkpoints["note"] == NO_CHECKPOINTS
    assert "pfk-ck-history" not in bundle_of(stepper)["text/html"]
    stepper.trigger_checkpoint()
    assert stepper.message == NO_CHECKPOINTS
    stepper.run_to("checkpoint")
    assert stepper.message == NO_CHECKPOINTS


def test_edge_marks_name_the_rendered_edges_of_barriers_and_blocked_channels():
    import re

    from pyflowkit.notebook.stepper import Stepper
    from pyflowkit.runtime.checkpoint.barriers import CheckpointBarrier
    from pyflowkit.runtime.checkpoint.properties import CheckpointOptions, CheckpointType
    from pyflowkit.runtime.network import Buffer

    stepper = Stepper(word_count_env(), submit=True)
    while set(stepper.states.values()) != {"RUNNING"}:
        stepper.step()
    assert stepper.edge_marks == {}
    edges = set(re.findall(r'<g id="(ee_[^"]+)" class="edge', stepper.svg))
    reducer = next(v for v in stepper.job_graph.vertices if v.name.startswith("Keyed Reduce"))
    task = next(
        t
        for te in stepper.run.task_executors
        for t in te.tasks.values()
        if t.tdd.job_vertex.id == reducer.id and t.tdd.subtask_index == 1
    )
    first, second = task.gates[0].channels
    options = CheckpointOptions(CheckpointType.CHECKPOINT)
    first.queue.append(Buffer(event=CheckpointBarrier(1, 0, options)))
    second.blocked = True
    stepper.refresh()
    assert stepper.edge_marks == {
        f"ee_{reducer.id}_1_0_{first.partition_id[1]}": "barrier",
        f"ee_{reducer.id}_1_0_{second.partition_id[1]}": "blocked",
    }
    assert set(stepper.edge_marks) <= edges
    svg = bundle_of(stepper)["image/svg+xml"]
    assert f"#ee_{reducer.id}_1_0_{second.partition_id[1]} path {{stroke: #f5222d" in svg


def checkpointed_env(parallelism=2, interval=60_000):
    """Word count over 200 lines (long enough to checkpoint while running), with uids."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    env.enable_checkpointing(interval)
    (
        env.from_collection([f"w{i % 7} w{i % 5}" for i in range(200)])
        .uid("lines")
        .flat_map(lambda line: line.split())
        .uid("words")
        .map(lambda w: (w, 1))
        .uid("pairs")
        .key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .uid("counts")
        .print()
        .uid("print")
    )
    return env


def test_checkpoint_from_the_stepper_reaches_completed_with_every_ack():
    from pyflowkit.notebook.stepper import Stepper

    stepper = Stepper(checkpointed_env(), seed=3, submit=True)
    while set(stepper.states.values()) != {"RUNNING"}:
        stepper.step()
    stepper._on_command(stepper, {"cmd": "checkpoint"}, [])
    assert stepper.message == "checkpoint 1 triggered"
    assert stepper.checkpoints["pending"] == [
        {"id": 1, "acks": 0, "total": 5, "is_savepoint": False}
    ]
    stepper._on_command(stepper, {"cmd": "run_to", "target": "checkpoint"}, [])
    assert stepper.message.startswith("ran to checkpoint")
    pane = stepper.checkpoints
    assert pane["counts"] == {"IN_PROGRESS": 0, "COMPLETED": 1, "FAILED": 0}
    (row,) = pane["history"]
    assert row["status"] == "COMPLETED" and row["num_acknowledged_subtasks"] == 5
    assert row["end_to_end_duration"] == row["latest_ack_timestamp"] - row["trigger_timestamp"]
    methods = [e["method"] for e in stepper.events]
    assert methods.index("CheckpointCoordinator.createPendingCheckpoint") < methods.index(
        "CheckpointCoordinator.completePendingCheckpoint"
    )
    assert "<td>COMPLETED</td>" in bundle_of(stepper)["text/html"]


def test_stepper_restores_a_savepoint_at_a_new_parallelism(tmp_path):
    from pyflowkit.notebook.stepper import Stepper

    first = Stepper(checkpointed_env(), seed=1, submit=True)
    while set(first.states.values()) != {"RUNNING"}:
        first.step()
    savepoint = first.run.stop_with_savepoint(str(tmp_path))
    path = first.run.savepoint_path(savepoint)
    first.run_to("end")
    assert first.job_status == "FINISHED"
    assert first.checkpoints["history"][0]["is_savepoint"] is True
    rescaled = Stepper(checkpointed_env(parallelism=3), seed=1, savepoint_path=path)
    rescaled._on_command(rescaled, {"cmd": "submit"}, [])
    assert rescaled.message.endswith(f"restoring {path}")
    rescaled.run_to("end")
    assert rescaled.job_status == "FINISHED"
    restored = {e.component for e in rescaled.run.trace if "restored the state" in e.message}
    assert len(restored) == 7  # the source and 2 × 3 new subtasks initialised from the savepoint
    counts: dict[str, int] = {}
    for line in first.run.printed() + rescaled.run.printed():
        word, count = eval(line.split("> ", 1)[1])
        counts[word] = count
    assert counts == {f"w{i}": 200 // 7 + (i < 200 % 7) + 200 // 5 * (i < 5) for i in range(7)}


def test_step_subcommand_passes_the_savepoint(ip, tmp_path):
    for i, cell in enumerate((CELL1, CELL2, CELL3)):
        run(ip, cell, f"c{i}")
    stepper = ip.run_line_magic(
        "pipeline", f"step wc --savepoint {tmp_path} --allow-non-restored-state"
    )
    assert stepper.savepoint_path == str(tmp_path) and stepper.allow_non_restored_state


def test_stepper_sequence_pane_follows_steps_and_rewinds():
    import re

    from pyflowkit.notebook.sequence_view import SequenceView
    from pyflowkit.notebook.stepper import Stepper

    stepper = Stepper(word_count_env(), submit=True)
    view = SequenceView(stepper)
    assert 'class="pfk-seq-head"' in stepper.seq_head and ">client</text>" in stepper.seq_head
    stepper.step(3)
    steps = [int(s) for s in re.findall(r'data-step="(\d+)"', stepper.seq_body)]
    assert steps == sorted(steps) and steps[-1] == 3
    assert "submitJob" in stepper.seq_body and view.seq_body == stepper.seq_body
    assert view.step_count == 3
    current = re.findall(r'class="pfk-seq-current"', stepper.seq_body)
    assert len(current) == sum(s == 3 for s in steps) > 0
    while "RUNNING" not in stepper.states.values():
        stepper.step()
    assert "submitTask" in stepper.seq_body and "Keyed Reduce" in stepper.seq_head
    arrows_before = stepper.sequence.model.arrows()
    stepper.back()
    stepper.step()
    assert stepper.sequence.model.arrows() == arrows_before  # rebuilt from the replayed trace
    diagram = stepper.sequence_diagram(last=10)
    assert len(re.findall(r'<g class="pfk-seq-msg', diagram.to_svg())) == 10
    assert diagram._repr_svg_().startswith("<svg")


def test_sequence_view_of_a_finished_run_and_the_widget_bundle():
    from pyflowkit.notebook.assets import widget_bundle
    from pyflowkit.notebook.sequence_view import SequenceView
    from pyflowkit.runtime import MiniCluster

    run = MiniCluster(echo_print=False).submit(word_count_env()).run()
    view = SequenceView(run, window=5)
    assert view.seq_body.count('<g class="pfk-seq-msg') == 5
    assert "CheckpointCoordinator.shutdown" in view.seq_body  # the last call of the run
    bundle = widget_bundle("sequence.js", "pyflowkit.js")
    assert bundle.count("export default") == 1 and "function seqPane" in bundle
    assert "seqPane(model, panes.sequence, clock.timed)" in bundle  # timed: step latency
