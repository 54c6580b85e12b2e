"""Configured checkpoint/savepoint locations read as Flink's ``Path`` reads them: ``file:/x`` (the
form Flink prints) and ``file:///x`` are ``/x``; ``file://var/x`` names an authority and is refused
with ``FileSystem``'s "Did you forget a slash?" ``IOException``; on every reader (checkpoint
storage, ``state.checkpoints.dir``, ``state.savepoints.dir``, ``execution.savepoint.path``, a
JobClient's savepoint directory, Spark's checkpoint location)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pyflowkit.common import Configuration
from pyflowkit.common.checkpointing_options import savepoint_directory
from pyflowkit.common.fs_path import local_path
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.errors import IOException, UnsupportedOperationException
from pyflowkit.runtime import MiniCluster
from pyflowkit.runtime.checkpoint.savepoint import read_savepoint
from pyflowkit.runtime.predicates import checkpoint_completed
from pyflowkit.runtime.two_phase_commit import TransactionStore
from tests.api.test_local_job_client import _env, _last_sums
from tests.checkpoint.jobs import word_count


@pytest.mark.parametrize(
    "given,expected",
    [
        ("file:///data/chk", "/data/chk"),
        ("file:/data/chk", "/data/chk"),
        ("file:////data//chk/", "/data/chk"),
        ("file:///data/my%20chk", "/data/my chk"),
        ("/data/chk", "/data/chk"),
    ],
)
def test_file_uris_are_local_paths(given: str, expected: str) -> None:
    assert local_path(given, "test") == expected


def test_relative_paths_resolve_against_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert local_path("chk", "test") == str(tmp_path / "chk")
    assert local_path("file:chk", "test") == str(tmp_path / "chk")
    assert local_path(tmp_path / "p", "test") == str(tmp_path / "p")


@pytest.mark.parametrize("authority", ["var", "localhost"])
def test_a_file_uri_with_an_authority_is_refused_as_flink_refuses_it(authority: str) -> None:
    with pytest.raises(IOException) as err:
        local_path(f"file://{authority}/x", "test")
    assert str(err.value) == (
        f"Found local file path with authority '{authority}' in path 'file://{authority}/x'. "
        f"Hint: Did you forget a slash? (correct path would be 'file:///{authority}/x')"
    )
    assert isinstance(err.value, OSError)
    env = StreamExecutionEnvironment.get_execution_environment()
    with pytest.raises(IOException, match="Did you forget a slash"):
        env.get_checkpoint_config().set_checkpoint_storage_dir(f"file://{authority}/x")


def test_remote_schemes_stay_unsupported() -> None:
    with pytest.raises(UnsupportedOperationException, match="remote file system"):
        local_path("hdfs://namenode/chk", "test")


def test_checkpoints_go_to_a_file_colon_directory_not_under_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    target = tmp_path / "chk"
    env = word_count(TransactionStore())
    env.get_checkpoint_config().set_checkpoint_storage_dir(f"file:{target}")
    assert env.get_checkpoint_config().get_checkpoint_storage().get_checkpoint_path() == str(target)
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(env)
    run.run_until(checkpoint_completed(1))
    path = Path(run.checkpoint_details(1)["external_path"])
    assert path == target / run.job_id / "chk-1"
    assert read_savepoint(f"file://{path}")[0]["checkpoint_id"] == 1
    assert list(cwd.iterdir()) == []  # no directory named 'file:' appeared


def test_state_checkpoints_dir_set_in_the_configuration_is_read_as_a_path(tmp_path: Path) -> None:
    conf = Configuration().set_string("state.checkpoints.dir", f"file://{tmp_path}")
    conf.set_string("state.checkpoint-storage", "filesystem")
    env = word_count(TransactionStore())
    env.configure(conf)
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(env)
    run.run_until(checkpoint_completed(1))
    assert Path(run.checkpoint_details(1)["external_path"]) == tmp_path / run.job_id / "chk-1"


def test_savepoint_directories_and_execution_savepoint_path_take_file_uris(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert savepoint_directory({"state.savepoints.dir": f"file:{tmp_path}"}) == str(tmp_path)
    client = _env().execute_async("first")
    path = client.stop_with_savepoint(False, f"file:{tmp_path}").result()
    assert Path(path).parent == tmp_path
    sums = _last_sums(client.get_job_execution_result().result().printed, {})
    second = _env(**{"execution.savepoint.path": f"file://{path}"}).execute("second")
    assert _last_sums(second.printed, sums) == {k: 2000 // 5 for k in range(5)}
    with pytest.raises(IOException, match="authority 'tmp'"):
        _env(**{"execution.savepoint.path": "file://tmp/sp"}).execute("third")


def test_sparks_checkpoint_location_reads_file_uris(tmp_path: Path) -> None:
    from pyflowkit.spark.job_client import _path_argument
    from pyflowkit.spark.streaming_job import checkpoint_location

    location, temporary = checkpoint_location({"state.checkpoints.dir": f"file:{tmp_path}"}, "j1")
    assert (location, temporary) == (os.path.join(str(tmp_path), "j1"), False)
    assert _path_argument("trigger_savepoint", f"file:///{tmp_path}/sp") == f"{tmp_path}/sp"
    with pytest.raises(IOException):
        checkpoint_location({"state.checkpoints.dir": "file://var/chk"}, "j1")
