"""CheckpointConfig's Flink 1.20 settings: externalized-checkpoint retention reaches the JobGraph
and the CheckpointCoordinator, the alignment timeout and forced unaligned checkpoints are reported
in the checkpoint config view, and what the 1.11 runtime cannot do is refused, not ignored."""

from __future__ import annotations

import pytest

from pyflowkit.common import Configuration, Duration
from pyflowkit.datastream import (
    ExternalizedCheckpointCleanup,
    ExternalizedCheckpointRetention,
    StreamExecutionEnvironment,
)
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.runtime import MiniCluster
from pyflowkit.runtime.predicates import checkpoint_completed
from pyflowkit.runtime.two_phase_commit import TransactionStore
from tests.checkpoint.jobs import word_count


def _env() -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.enable_checkpointing(100)
    env.from_collection([1, 2, 3]).map(lambda x: x + 1).print()
    return env


def test_retention_defaults_to_none_retained_as_in_1_20() -> None:
    cp = StreamExecutionEnvironment.get_execution_environment().get_checkpoint_config()
    assert not cp.is_externalized_checkpoints_enabled()
    assert (
        cp.get_externalized_checkpoint_retention()
        is ExternalizedCheckpointRetention.NO_EXTERNALIZED_CHECKPOINTS
    )
    assert (
        cp.get_externalized_checkpoint_cleanup()
        is ExternalizedCheckpointCleanup.NO_EXTERNALIZED_CHECKPOINTS
    )


@pytest.mark.parametrize(
    ("mode", "policy"),
    [
        (ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION, "RETAIN_ON_CANCELLATION"),
        (ExternalizedCheckpointRetention.DELETE_ON_CANCELLATION, "RETAIN_ON_FAILURE"),
        (
            ExternalizedCheckpointRetention.NO_EXTERNALIZED_CHECKPOINTS,
            "NEVER_RETAIN_AFTER_TERMINATION",
        ),
    ],
)
def test_retention_becomes_the_job_graphs_retention_policy(mode, policy) -> None:  # noqa: ANN001
    env = _env()
    cp = env.get_checkpoint_config()
    assert cp.set_externalized_checkpoint_retention(mode) is cp
    assert cp.get_externalized_checkpoint_retention() is mode
    assert cp.get_externalized_checkpoint_cleanup() is ExternalizedCheckpointCleanup[mode.name]
    assert cp.is_externalized_checkpoints_enabled() is (mode.name != "NO_EXTERNALIZED_CHECKPOINTS")
    assert env.get_job_graph().checkpointing_settings.retention_policy == policy


def test_cleanup_setter_and_retention_setter_are_one_setting() -> None:
    cp = StreamExecutionEnvironment.get_execution_environment().get_checkpoint_config()
    cp.set_externalized_checkpoint_cleanup(ExternalizedCheckpointCleanup.RETAIN_ON_CANCELLATION)
    assert (
        cp.get_externalized_checkpoint_retention()
        is ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION
    )
    cp.set_externalized_checkpoint_retention(
        ExternalizedCheckpointRetention.NO_EXTERNALIZED_CHECKPOINTS
    )
    assert not cp.is_externalized_checkpoints_enabled()
    with pytest.raises(IllegalArgumentException, match="ExternalizedCheckpointRetention.RETAIN"):
        cp.set_externalized_checkpoint_retention("RETAIN_ON_CANCELLATION")  # type: ignore[arg-type]
    assert not cp.is_externalized_checkpoints_enabled()
    # PyFlink converts either enum by member name (``_to_j_externalized_checkpoint_cleanup`` reads
    # ``self.name``), so the cleanup setters take an ExternalizedCheckpointRetention, and back
    cp.set_externalized_checkpoint_cleanup(
        ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION  # type: ignore[arg-type]
    )
    assert cp.get_externalized_checkpoint_cleanup() is (
        ExternalizedCheckpointCleanup.RETAIN_ON_CANCELLATION
    )
    cp.enable_externalized_checkpoints(
        ExternalizedCheckpointRetention.DELETE_ON_CANCELLATION  # type: ignore[arg-type]
    )
    assert cp.get_externalized_checkpoint_retention() is (
        ExternalizedCheckpointRetention.DELETE_ON_CANCELLATION
    )
    cp.set_externalized_checkpoint_retention(
        ExternalizedCheckpointCleanup.NO_EXTERNALIZED_CHECKPOINTS  # type: ignore[arg-type]
    )
    assert not cp.is_externalized_checkpoints_enabled()
    with pytest.raises(IllegalArgumentException, match="ExternalizedCheckpointCleanup.RETAIN"):
        cp.enable_externalized_checkpoints("RETAIN_ON_CANCELLATION")  # type: ignore[arg-type]


def test_coordinator_and_checkpoint_view_apply_the_1_20_settings() -> None:
    env = word_count(TransactionStore())
    cp = env.get_checkpoint_config()
    cp.set_externalized_checkpoint_retention(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION)
    cp.enable_unaligned_checkpoints()
    cp.set_force_unaligned_checkpoints()
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(env)
    run.run_until(checkpoint_completed(1))
    coord = run.checkpoint_coordinator
    assert coord.retention_policy == "RETAIN_ON_CANCELLATION"
    assert not coord.completed_by_id[1].props.discard_cancelled  # kept when the job is cancelled
    info = run.checkpoint_config()
    assert info["externalization"] == {"enabled": True, "delete_on_cancellation": False}
    assert info["unaligned_checkpoints"] is True
    assert info["force_unaligned_checkpoints"] is True
    assert info["aligned_checkpoint_timeout"] == 0
    assert info["mode"] == "exactly_once" and info["interval"] == 30


def test_alignment_timeout_is_stored_and_refused_with_unaligned_checkpoints() -> None:
    env = _env()
    cp = env.get_checkpoint_config()
    assert cp.get_alignment_timeout().to_milliseconds() == 0
    assert cp.set_alignment_timeout(Duration.of_seconds(2)) is cp
    assert cp.get_alignment_timeout().to_milliseconds() == 2000
    # aligned checkpoints never read it (as in Flink): the job compiles
    assert env.get_job_graph().checkpointing_settings.is_unaligned_checkpoints_enabled is False
    cp.enable_unaligned_checkpoints()
    with pytest.raises(IllegalArgumentException, match=r"set_alignment_timeout\(2000 ms\).*1.11"):
        env.get_job_graph()
    cp.set_alignment_timeout(Duration.of_millis(0))
    assert env.get_job_graph().checkpointing_settings.is_unaligned_checkpoints_enabled is True
    with pytest.raises(IllegalArgumentException, match="takes a Duration"):
        cp.set_alignment_timeout(500)  # type: ignore[arg-type]


def test_force_unaligned_checkpoints_on_config_and_environment() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    assert env.is_force_unaligned_checkpoints() is False
    env.get_checkpoint_config().set_force_unaligned_checkpoints()
    assert env.is_force_unaligned_checkpoints() is True
    env.get_checkpoint_config().set_force_unaligned_checkpoints(False)
    assert env.is_force_unaligned_checkpoints() is False
    with pytest.raises(IllegalArgumentException, match="True or False"):
        env.get_checkpoint_config().set_force_unaligned_checkpoints("yes")  # type: ignore[arg-type]


def test_configuration_keys_set_the_1_20_options() -> None:
    conf = Configuration()
    conf.set_string(
        "execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION"
    )
    conf.set_string("execution.checkpointing.unaligned.forced", "true")
    conf.set_string("execution.checkpointing.aligned-checkpoint-timeout", "3 s")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    cp = env.get_checkpoint_config()
    assert (
        cp.get_externalized_checkpoint_retention()
        is ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION
    )
    assert cp.is_force_unaligned_checkpoints()
    assert cp.get_alignment_timeout().to_milliseconds() == 3000
    bad = Configuration().set_string(
        "execution.checkpointing.externalized-checkpoint-retention", "KEEP"
    )
    with pytest.raises(IllegalArgumentException, match="externalized-checkpoint-retention"):
        env.configure(bad)
    assert cp.is_force_unaligned_checkpoints()


def test_chaining_of_different_max_parallelism_is_reported_and_false_is_refused() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    assert env.is_chaining_of_operators_with_different_max_parallelism_enabled() is True
    key = "pipeline.operator-chaining.chain-operators-with-different-max-parallelism"
    env.configure(Configuration().set_string(key, "true"))
    assert env.is_chaining_of_operators_with_different_max_parallelism_enabled() is True
    with pytest.raises(IllegalArgumentException, match="1.11's chaining rules"):
        env.configure(
            Configuration().set_string(key, "false").set_string("parallelism.default", "3")
        )
    assert env.get_parallelism() != 3
    assert env.is_chaining_of_operators_with_different_max_parallelism_enabled() is True


def test_get_checkpoint_storage_is_none_until_one_is_set() -> None:
    """PyFlink 1.20: ``getCheckpointStorage()`` is null unless set on the CheckpointConfig; the
    options alone (``state.checkpoints.dir``) set none."""
    from pyflowkit.common import Configuration
    from pyflowkit.datastream.checkpoint_storage import (
        FileSystemCheckpointStorage,
        JobManagerCheckpointStorage,
    )
    from pyflowkit.datastream.state_backend import MemoryStateBackend

    conf = Configuration().set_string("state.checkpoints.dir", "/tmp/chk")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    cp = env.get_checkpoint_config()
    assert cp.get_checkpoint_storage() is None
    cp.set_checkpoint_storage_dir("file:///tmp/chk2")
    storage = cp.get_checkpoint_storage()
    assert isinstance(storage, FileSystemCheckpointStorage)
    assert storage.get_checkpoint_path() == "/tmp/chk2"
    assert FileSystemCheckpointStorage.MAX_FILE_STATE_THRESHOLD == 1024 * 1024
    size = JobManagerCheckpointStorage().get_max_state_size()
    assert size == JobManagerCheckpointStorage.DEFAULT_MAX_STATE_SIZE == 5 * 1024 * 1024
    assert MemoryStateBackend.DEFAULT_MAX_STATE_SIZE == size
    assert cp.DEFAULT_TIMEOUT == cp.get_checkpoint_timeout() == 600_000
