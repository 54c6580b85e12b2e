"""The environment's checkpoint accessors of PyFlink 1.20 read the CheckpointConfig."""

from __future__ import annotations

from pyflowkit.datastream import CheckpointingMode, StreamExecutionEnvironment


def test_consistency_mode_and_unaligned_flag_follow_the_checkpoint_config():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.enable_checkpointing(1000, CheckpointingMode.AT_LEAST_ONCE)
    assert env.get_checkpointing_consistency_mode() is CheckpointingMode.AT_LEAST_ONCE
    env.get_checkpoint_config().set_checkpointing_mode(CheckpointingMode.EXACTLY_ONCE)
    assert env.get_checkpointing_consistency_mode() is CheckpointingMode.EXACTLY_ONCE
    assert env.is_unaligned_checkpoints_enabled() is False
    env.get_checkpoint_config().enable_unaligned_checkpoints()
    assert env.is_unaligned_checkpoints_enabled() is True
