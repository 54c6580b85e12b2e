"""State backends and checkpoint storage: what they configure, where the simulated cluster
writes checkpoints and savepoints, and what it reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from pyflowkit.datastream.checkpoint_storage import (
    CustomCheckpointStorage,
    FileSystemCheckpointStorage,
    JobManagerCheckpointStorage,
)
from pyflowkit.datastream.state_backend import (
    EmbeddedRocksDBStateBackend,
    FsStateBackend,
    HashMapStateBackend,
    MemoryStateBackend,
    PredefinedOptions,
    RocksDBStateBackend,
)
from pyflowkit.errors import IllegalArgumentException, UnsupportedOperationException
from pyflowkit.runtime import MiniCluster
from pyflowkit.runtime.checkpoint.savepoint import read_savepoint
from pyflowkit.runtime.checkpoint.stats import NOT_EXTERNALLY_ADDRESSABLE
from pyflowkit.runtime.predicates import all_tasks_in, checkpoint_completed
from pyflowkit.runtime.two_phase_commit import TransactionStore
from tests.checkpoint.jobs import word_count


def _run(env):  # noqa: ANN001, ANN202
    return MiniCluster(echo_print=False, seed=1, source_batch=2).submit(env)


def test_filesystem_storage_writes_every_completed_checkpoint(tmp_path: Path) -> None:
    env = word_count(TransactionStore())
    env.get_checkpoint_config().set_checkpoint_storage_dir(f"file://{tmp_path}")
    storage = env.get_checkpoint_config().get_checkpoint_storage()
    assert isinstance(storage, FileSystemCheckpointStorage)
    assert storage.get_checkpoint_path() == str(tmp_path)
    run = _run(env)
    run.run_until(checkpoint_completed(2))
    for cid in (1, 2):
        path = Path(run.checkpoint_details(cid)["external_path"])
        assert path == tmp_path / run.job_id / f"chk-{cid}"
        assert sorted(p.name for p in path.iterdir()) == ["_metadata", "state"]
        metadata, states = read_savepoint(path)
        assert metadata["checkpoint_id"] == cid and states
    info = run.checkpoint_config()
    assert info["checkpoint_storage"] == "FileSystemCheckpointStorage"
    assert info["checkpoints_directory"] == str(tmp_path)
    assert info["state_backend"] == "HashMapStateBackend"


def test_jobmanager_storage_keeps_checkpoints_in_memory(tmp_path: Path) -> None:
    env = word_count(TransactionStore())
    env.get_checkpoint_config().set_checkpoint_storage_dir(str(tmp_path))
    env.get_checkpoint_config().set_checkpoint_storage(JobManagerCheckpointStorage())
    run = _run(env)
    run.run_until(checkpoint_completed(1))
    assert run.checkpoint_details(1)["external_path"] == NOT_EXTERNALLY_ADDRESSABLE
    assert list(tmp_path.iterdir()) == []
    assert run.checkpoint_config()["checkpoint_storage"] == "JobManagerCheckpointStorage"
    assert JobManagerCheckpointStorage().get_max_state_size() == 5 * 1024 * 1024


def test_legacy_backends_set_checkpoint_and_savepoint_directories(tmp_path: Path) -> None:
    chk, sp = tmp_path / "chk", tmp_path / "sp"
    env = word_count(TransactionStore())
    backend = FsStateBackend(str(chk), str(sp))
    assert env.get_state_backend() is None
    env.set_state_backend(backend)
    assert env.get_state_backend() is backend and backend.get_checkpoint_path() == str(chk)
    assert env.get_default_savepoint_directory() == str(sp)
    run = _run(env)
    run.run_until(all_tasks_in("RUNNING"))
    savepoint = Path(run.savepoint_path(run.trigger_savepoint()))
    assert savepoint.parent == sp
    run.run_until(checkpoint_completed())
    frame = run.checkpoints_frame()
    done = frame[(frame.status == "COMPLETED") & ~frame.is_savepoint.astype(bool)]
    paths = [Path(run.checkpoint_details(int(i))["external_path"]) for i in done.id]
    assert paths and all(p.parent == chk / run.job_id for p in paths)
    rocks = RocksDBStateBackend(str(chk), enable_incremental_checkpointing=True)
    env.set_state_backend(rocks)
    info = _run(env).checkpoint_config()
    assert info["state_backend"] == "EmbeddedRocksDBStateBackend"
    assert info["incremental_checkpointing"] is True
    assert rocks.get_checkpoint_backend().get_checkpoint_path() == str(chk)
    env.set_state_backend(MemoryStateBackend())
    # PyFlink 1.20: a state backend sets no CheckpointConfig storage (Java's getter is null)
    assert env.get_checkpoint_config().get_checkpoint_storage() is None
    assert _run(env).checkpoint_config()["checkpoint_storage"] == "JobManagerCheckpointStorage"
    assert env.is_changelog_state_backend_enabled() is None
    assert _run(env).checkpoint_config()["state_changelog_enabled"] is False
    env.enable_changelog_state_backend(True)
    assert env.is_changelog_state_backend_enabled() is True
    assert _run(env).checkpoint_config()["state_changelog_enabled"] is True
    env.set_default_savepoint_directory(str(tmp_path / "other"))
    assert env.get_default_savepoint_directory() == str(tmp_path / "other")


def test_backend_options_and_bad_input(tmp_path: Path) -> None:
    rocks = EmbeddedRocksDBStateBackend()
    assert not rocks.is_incremental_checkpoints_enabled()
    rocks.set_predefined_options(PredefinedOptions.FLASH_SSD_OPTIMIZED)
    assert rocks.get_predefined_options() is PredefinedOptions.FLASH_SSD_OPTIMIZED
    rocks.set_db_storage_paths(str(tmp_path))
    assert rocks.get_db_storage_paths() == [str(tmp_path)]
    rocks.set_number_of_transfer_threads(2)
    assert rocks.get_number_of_transfer_threads() == 2
    with pytest.raises(IllegalArgumentException, match="transfer threads must be positive"):
        rocks.set_number_of_transfer_threads(0)
    with pytest.raises(UnsupportedOperationException, match="Java class"):
        rocks.set_options("org.example.Factory")
    with pytest.raises(IllegalArgumentException, match="needs a checkpoint_path"):
        FileSystemCheckpointStorage()
    with pytest.raises(UnsupportedOperationException, match="remote file system"):
        FileSystemCheckpointStorage("hdfs:///chk")
    with pytest.raises(UnsupportedOperationException, match="no JVM"):
        CustomCheckpointStorage(object())
    env = word_count(TransactionStore())
    before = env.get_configuration().to_dict()
    with pytest.raises(IllegalArgumentException, match="set_state_backend needs a StateBackend"):
        env.set_state_backend("rocksdb")
    with pytest.raises(IllegalArgumentException, match="needs a CheckpointStorage"):
        env.get_checkpoint_config().set_checkpoint_storage(str(tmp_path))
    assert env.get_configuration().to_dict() == before
    assert isinstance(HashMapStateBackend(), HashMapStateBackend)
