"""Test helpers: Flink's CEP test ``Event``/``SubEvent`` and an ``NFATestHarness`` over our NFA."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pyflowkit.operators.cep.nfa import NFA
from pyflowkit.operators.cep.nfa_compiler import compile_states
from pyflowkit.operators.cep.shared_buffer import SharedBufferAccessor


@dataclass(frozen=True)
class Event:
    """Flink's test ``Event(id, name, price)``."""

    id: int
    name: str
    price: float = 1.0

    def __repr__(self) -> str:
        return f"{self.name}{self.id}"


@dataclass(frozen=True)
class SubEvent(Event):
    """Flink's test ``SubEvent(id, name, price, volume)``."""

    volume: float = 0.0

    def __repr__(self) -> str:
        return f"{self.name}{self.id}v{self.volume}"


def name_is(name: str) -> Any:
    return lambda e: e.name == name


class _Clock:
    def __init__(self) -> None:
        self.now = 0

    def current_processing_time(self) -> int:
        return self.now


class NFATestHarness:
    """Flink's ``NFATestHarness``: ``advanceTime`` then ``process`` for every record."""

    def __init__(self, pattern: Any, timeout_handling: bool = False) -> None:
        states, window = compile_states(pattern)
        self.nfa = NFA(states, window, timeout_handling)
        self.state = self.nfa.create_initial_nfa_state()
        self.buffer = SharedBufferAccessor({}, {}, {})
        self.skip = pattern.after_match_skip_strategy
        self.clock = _Clock()
        self.timed_out: list[tuple[dict[str, list], int]] = []

    def consume(self, event: Any, timestamp: int) -> list[dict[str, list]]:
        self.timed_out += self.nfa.advance_time(self.buffer, self.state, timestamp)
        return self.nfa.process(self.buffer, self.state, event, timestamp, self.skip, self.clock)

    def feed(self, records: Iterable[tuple[Any, int]]) -> list[dict[str, list]]:
        out: list[dict[str, list]] = []
        for event, ts in records:
            out += self.consume(event, ts)
        return out

    def feed_events(self, events: Sequence[Any]) -> list[dict[str, list]]:
        """Events at timestamps 1, 2, 3, ... (Flink tests' usual ``new StreamRecord<>(e, i)``)."""
        return self.feed((e, i + 1) for i, e in enumerate(events))


def feed_nfa(pattern: Any, records: Iterable[tuple[Any, int]]) -> list[list[Any]]:
    """Flink's ``NFATestUtilities.feedNFA``: each match flattened in pattern order."""
    return [flatten(m) for m in NFATestHarness(pattern).feed(records)]


def flatten(match: dict[str, list]) -> list[Any]:
    return [e for events in match.values() for e in events]


def as_sorted(matches: Iterable[Sequence[Any]]) -> list[list[str]]:
    """Flink's ``comparePatterns``: the matches sorted (each keeps its pattern order)."""
    return sorted([repr(e) for e in m] for m in matches)


def at(*events: Any, start: int = 1) -> list[tuple[Any, int]]:
    return [(e, start + i) for i, e in enumerate(events)]
