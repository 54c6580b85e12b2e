"""What one subtask reports for one checkpoint (Flink's ``TaskStateSnapshot`` +
``CheckpointMetrics`` + ``OperatorState``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyflowkit.state.snapshot import OperatorSnapshot


@dataclass
class CheckpointMetrics:
    """Flink's ``CheckpointMetrics``: durations (ms) and bytes of one subtask's snapshot."""

    sync_duration: int = 0
    async_duration: int = 0
    alignment_duration: int = 0
    bytes_buffered_in_alignment: int = 0  # always 0 in 1.11: channels block, nothing spills
    start_delay: int = 0


@dataclass
class ChannelState:
    """In-flight data of an unaligned checkpoint (Flink's ``InputChannelStateHandle`` /
    ``ResultSubpartitionStateHandle``): records as ``(value, timestamp)`` pairs."""

    input: dict[int, list[tuple[Any, int | None]]] = field(default_factory=dict)
    output: dict[int, dict[int, list[Any]]] = field(default_factory=dict)

    @property
    def is_empty(self) -> bool:
        if any(self.input.values()):
            return False
        return not any(any(per_sub.values()) for per_sub in self.output.values())

    def num_records(self) -> int:
        n = sum(len(v) for v in self.input.values())
        return n + sum(len(els) for per in self.output.values() for els in per.values())


@dataclass
class TaskStateSnapshot:
    """Flink's ``TaskStateSnapshot``: operator id → that operator's state, plus channel state."""

    operator_states: dict[str, OperatorSnapshot] = field(default_factory=dict)
    channel_state: ChannelState = field(default_factory=ChannelState)
    state_size: int = 0


@dataclass
class OperatorState:
    """Flink's ``OperatorState``: one operator's state over all its subtasks."""

    operator_id: str
    parallelism: int
    max_parallelism: int
    subtask_states: dict[int, OperatorSnapshot] = field(default_factory=dict)
    operator_name: str = ""
    uid: str | None = None

    def state_size(self) -> int:
        from pyflowkit.state.state_codec import state_size

        return sum(state_size(s.to_dict()) for s in self.subtask_states.values())
