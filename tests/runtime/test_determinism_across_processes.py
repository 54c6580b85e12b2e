"""Seeded runs never depend on what the process did before, nor on ``PYTHONHASHSEED``.

Flink's StreamNode ids come from one process-wide counter; every order the simulated cluster
derives from ids (Java ``HashMap`` iteration of sources and job vertices) uses the job-local id.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.graph.streaming_job_graph_generator import create_job_graph
from tests.runtime.determinism_scenarios import SCENARIOS, run_all, take_node_ids

ROOT = Path(__file__).resolve().parents[2]


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def _assert_same(expected: dict[str, bytes], actual: dict[str, bytes], where: str) -> None:
    assert sorted(actual) == sorted(expected)
    differing = [name for name in expected if expected[name] != actual[name]]
    if differing:
        a, b = expected[differing[0]], actual[differing[0]]
        at = next(
            (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
        )
        context = f"{a[max(0, at - 300) : at + 200]!r}\nvs\n{b[max(0, at - 300) : at + 200]!r}"
        raise AssertionError(f"{where}: {differing} differ; first at byte {at}:\n{context}")


def test_scenarios_equal_after_building_other_pipelines(tmp_path: Path) -> None:
    savepoints = tmp_path / "savepoints"
    run_all(tmp_path / "first", savepoints)
    expected = _files(tmp_path / "first")
    assert len(expected) == 2 * len(SCENARIOS)
    for extra in (3, 13, 16):  # shifts ids across the Java HashMap's buckets of 16
        take_node_ids(extra)
        run_all(tmp_path / f"after-{extra}", savepoints)
        _assert_same(expected, _files(tmp_path / f"after-{extra}"), f"after {extra} more ids")


def test_scenarios_equal_in_fresh_processes_with_other_hash_seeds(tmp_path: Path) -> None:
    savepoints = tmp_path / "savepoints"  # appears in the trace: the same path everywhere
    run_all(tmp_path / "here", savepoints)
    expected = _files(tmp_path / "here")
    for hash_seed, extra in (("0", "0"), ("4242", "9")):
        out = tmp_path / f"seed-{hash_seed}"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-m", "tests.runtime.determinism_scenarios"]
        subprocess.run([*cmd, str(out), str(savepoints), extra], cwd=ROOT, env=env, check=True)
        _assert_same(expected, _files(out), f"PYTHONHASHSEED={hash_seed}, {extra} ids taken")


def _twin_sources_env() -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.from_collection([1]).map(lambda x: x).print()
    env.from_collection([2]).map(lambda x: x).set_parallelism(2).print()
    return env


def _align_next_id(residue: int) -> None:
    """Take ids until the next node id is ``residue`` modulo 16 (a Java HashMap bucket)."""
    env = StreamExecutionEnvironment.get_execution_environment()
    next_id = env.from_collection([0]).get_transformation().id + 1
    take_node_ids((residue - next_id) % 16)


def test_job_local_ids_keep_flinks_visible_ids() -> None:
    _align_next_id(1)
    first = _twin_sources_env().get_stream_graph()
    _align_next_id(13)  # the second job's six ids straddle a multiple of 16
    second = _twin_sources_env().get_stream_graph()
    assert min(second.nodes) % 16 == 13
    assert (
        str(next(iter(second.nodes.values()))) == f"Source: Collection Source-{min(second.nodes)}"
    )
    local = [second.job_local_id(i) for i in second.nodes]
    assert local == [first.job_local_id(i) for i in first.nodes] == [1, 2, 3, 4, 5, 6]
    jobs = [create_job_graph(g, "0" * 32) for g in (first, second)]
    assert [v.name for v in jobs[0].vertices_in_flink_order] == [
        v.name for v in jobs[1].vertices_in_flink_order
    ]
    ack = [j.checkpointing_settings.vertices_to_acknowledge for j in jobs]
    assert ack[0] == ack[1]
