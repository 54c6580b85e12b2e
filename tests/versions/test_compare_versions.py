"""``pyflowkit.compare_versions(env)``: the same job under both profiles, each difference with its
rule (FLIP/JIRA)."""

from __future__ import annotations

import pyflowkit
from pyflowkit.common import Configuration, Types
from pyflowkit.common.flink_version import FLINK_VERSION_KEY
from pyflowkit.datastream import StreamExecutionEnvironment

ROW = Types.ROW([Types.STRING(), Types.INT()])


def _env(version: str, checkpointing: bool = True) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string(FLINK_VERSION_KEY, version)
    )
    env.set_parallelism(2)
    if checkpointing:
        env.enable_checkpointing(50)
    rows = env.from_collection([("a", 1), ("b", 2), ("a", 3)], type_info=ROW)
    rows.key_by(lambda r: r[0]).map(lambda r: r, output_type=ROW).print()
    return env


def test_differences_name_their_rules_and_leave_the_env_alone() -> None:
    env = _env("1.11")
    tc = env.get_stream_time_characteristic()
    c = pyflowkit.compare_versions(env)
    assert env.get_flink_version_profile().version == "1.11"
    assert env.get_stream_time_characteristic() is tc
    assert c.runs["1.11"].job_status == c.runs["1.20"].job_status == "FINISHED"
    whats = {d.what: d for d in c.differences}
    row = whats["how a printed Row looks"]
    assert (row.under_1_11, row.under_1_20, row.issues) == (
        "a,1",
        "+I[a,1]",
        "FLINK-18090; PyFlink DataStream._align_output_type",
    )
    assert whats["the scheduling strategy"].under_1_20 == "PipelinedRegionSchedulingStrategy"
    assert whats["the scheduling strategy"].issues == "FLIP-119"
    slots = whats["calls only one version makes (How the JobMaster gets slots)"]
    assert slots.issues == "FLIP-138"
    assert "SlotManager.registerSlotRequest ×2" in slots.under_1_11
    assert "ResourceManager.declareRequiredResources ×1" in slots.under_1_20
    # a finished source no longer stops checkpointing: only 1.20 completes checkpoints
    ckpt = whats["calls only one version makes (Checkpoints after tasks finish)"]
    assert ckpt.under_1_11 == "(none)"
    assert "CheckpointCoordinator.completePendingCheckpoint" in ckpt.under_1_20
    assert all(d.rules for d in c.differences), repr(c)
    assert [r.issue for r in c.rules()][:2] == [
        "FLINK-18090; PyFlink DataStream._align_output_type",
        "FLIP-130 (PyFlink DataStream key_by: AddKey + KeyByKeySelector)",
    ]
    # the views a student reads
    text = repr(c)
    assert text.startswith("VersionComparison of 'Flink Streaming Job': ")
    assert "     1.11: a,1\n     1.20: +I[a,1]" in text
    page = c._repr_html_()
    assert "<table" in page and "FLIP-138" in page and "+I[a,1]" in page
    assert "padding-right:24px" in page  # the last column keeps off the output area's edge
    assert list(c.frame().columns) == ["kind", "what", "Flink 1.11", "Flink 1.20", "FLIP/JIRA"]


def test_a_job_without_versioned_behaviour_differs_only_in_the_runtime() -> None:
    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string(FLINK_VERSION_KEY, "1.20")
    )
    env.set_parallelism(1)
    env.from_collection([1, 2, 3]).map(lambda x: x * 2).print()
    c = pyflowkit.compare_versions(env)
    assert c.runs["1.11"].printed == c.runs["1.20"].printed == ["2", "4", "6"]
    assert [d.kind for d in c.differences] == ["trace", "trace"]
    assert {d.issues for d in c.differences} == {"FLIP-119", "FLIP-138"}
