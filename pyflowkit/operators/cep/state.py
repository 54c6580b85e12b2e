"""NFA states and their transitions (Flink's ``State``, ``StateTransition``, ``StateTransitionAction``)."""

from __future__ import annotations

from enum import Enum
from typing import Any


class StateTransitionAction(Enum):
    """Flink's ``StateTransitionAction``: take the event, ignore it, or move on without it."""

    TAKE = "TAKE"
    IGNORE = "IGNORE"
    PROCEED = "PROCEED"


class StateType(Enum):
    """Flink's ``State.StateType``."""

    Start = "Start"
    Final = "Final"
    Normal = "Normal"
    Stop = "Stop"


class StateTransition:
    """Flink's ``StateTransition``: an edge with its action, target and condition (None = always)."""

    __slots__ = ("action", "source_state", "target_state", "condition")

    def __init__(
        self, source: State, action: StateTransitionAction, target: State, condition: Any
    ) -> None:
        self.source_state = source
        self.action = action
        self.target_state = target
        self.condition = condition

    def __repr__(self) -> str:
        return (
            f"StateTransition({self.action.name}, from {self.source_state.name} to "
            f"{self.target_state.name}{', with condition' if self.condition is not None else ''})"
        )


class State:
    """Flink's ``State``: a named NFA state with its outgoing transitions (in insertion order)."""

    __slots__ = ("name", "state_type", "state_transitions")

    def __init__(self, name: str, state_type: StateType) -> None:
        self.name = name
        self.state_type = state_type
        self.state_transitions: list[StateTransition] = []

    def is_final(self) -> bool:
        return self.state_type is StateType.Final

    def is_start(self) -> bool:
        return self.state_type is StateType.Start

    def is_stop(self) -> bool:
        return self.state_type is StateType.Stop

    def make_start(self) -> None:
        self.state_type = StateType.Start

    def add_state_transition(
        self, action: StateTransitionAction, target: State, condition: Any
    ) -> None:
        self.state_transitions.append(StateTransition(self, action, target, condition))

    def add_ignore(self, condition: Any, target: State | None = None) -> None:
        self.add_state_transition(StateTransitionAction.IGNORE, target or self, condition)

    def add_take(self, condition: Any, target: State | None = None) -> None:
        self.add_state_transition(StateTransitionAction.TAKE, target or self, condition)

    def add_proceed(self, target: State, condition: Any) -> None:
        self.add_state_transition(StateTransitionAction.PROCEED, target, condition)

    def __repr__(self) -> str:
        lines = [f"{self.state_type.name}State({self.name})"]
        lines += [f"\t{t!r}" for t in self.state_transitions]
        return "\n".join(lines)
