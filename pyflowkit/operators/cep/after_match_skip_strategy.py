"""What to discard after a match (Flink's ``org.apache.flink.cep.nfa.aftermatch``).

A match is ``{pattern name: [EventId, ...]}``; an ``EventId`` is ``(timestamp, id)`` so tuple order is
Flink's ``EventId.compareTo``. ``prune`` drops (and releases) the computation states that started at
or before the pruning event, as each strategy defines it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyflowkit.errors import FlinkRuntimeException, IllegalStateException
from pyflowkit.operators.cep import java_priority_queue as pq

Match = dict[str, list[Any]]


class AfterMatchSkipStrategy:
    """Flink's ``AfterMatchSkipStrategy``; build one with the static methods."""

    @staticmethod
    def no_skip() -> AfterMatchSkipStrategy:
        return NoSkipStrategy()

    @staticmethod
    def skip_to_next() -> AfterMatchSkipStrategy:
        return SkipToNextStrategy()

    @staticmethod
    def skip_past_last_event() -> AfterMatchSkipStrategy:
        return SkipPastLastStrategy()

    @staticmethod
    def skip_to_first(pattern_name: str) -> SkipToElementStrategy:
        return SkipToFirstStrategy(pattern_name)

    @staticmethod
    def skip_to_last(pattern_name: str) -> SkipToElementStrategy:
        return SkipToLastStrategy(pattern_name)

    def is_skip_strategy(self) -> bool:
        return True

    def get_pattern_name(self) -> str | None:
        return None

    def should_prune(self, start_event_id: Any, pruning_id: Any) -> bool:
        raise NotImplementedError

    def get_pruning_id(self, matches: list[Match]) -> Any:
        raise NotImplementedError

    def prune(
        self,
        matches_to_prune: list[Any],
        matched_result: list[Match],
        release_node: Callable[[Any], None],
        key: pq.Key,
    ) -> None:
        """``prune``: release and drop the computation states the strategy skips."""
        pruning_id = self.get_pruning_id(matched_result)
        if pruning_id is None:
            return
        discard = []
        for cs in matches_to_prune:
            start = cs[4]
            if start is not None and self.should_prune(start, pruning_id):
                release_node(cs[1])
                discard.append(cs)
        pq.remove_all(matches_to_prune, discard, key)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    def __hash__(self) -> int:
        return hash(type(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}{{}}"


class NoSkipStrategy(AfterMatchSkipStrategy):
    """Flink's ``NoSkipStrategy``: every match is reported."""

    def is_skip_strategy(self) -> bool:
        return False

    def should_prune(self, start_event_id: Any, pruning_id: Any) -> bool:
        return False

    def get_pruning_id(self, matches: list[Match]) -> Any:
        return None


class SkipRelativeToWholeMatchStrategy(AfterMatchSkipStrategy):
    """Flink's ``SkipRelativeToWholeMatchStrategy``: prune starts at or before the pruning event."""

    def should_prune(self, start_event_id: Any, pruning_id: Any) -> bool:
        return start_event_id is not None and start_event_id <= pruning_id


class SkipToNextStrategy(SkipRelativeToWholeMatchStrategy):
    """Flink's ``SkipToNextStrategy``: skip partial matches that started with the match's first event."""

    def get_pruning_id(self, matches: list[Match]) -> Any:
        pruning = None
        for result in matches:
            for events in result.values():
                first = events[0]
                pruning = first if pruning is None else min(pruning, first)
        return pruning


class SkipPastLastStrategy(SkipRelativeToWholeMatchStrategy):
    """Flink's ``SkipPastLastStrategy``: skip everything that started before the match ended."""

    def get_pruning_id(self, matches: list[Match]) -> Any:
        pruning = None
        for result in matches:
            for events in result.values():
                last = events[-1]
                pruning = last if pruning is None else max(pruning, last)
        return pruning


class SkipToElementStrategy(AfterMatchSkipStrategy):
    """Flink's ``SkipToElementStrategy``: skip to the first/last event of pattern ``pattern_name``."""

    def __init__(self, pattern_name: str, should_throw_exception: bool = False) -> None:
        self.pattern_name = pattern_name
        self.should_throw_exception = should_throw_exception

    def throw_exception_on_miss(self) -> SkipToElementStrategy:
        """``throwExceptionOnMiss``: a match without ``pattern_name`` fails the job."""
        return type(self)(self.pattern_name, True)

    def get_pattern_name(self) -> str | None:
        return self.pattern_name

    def _index(self, size: int) -> int:
        raise NotImplementedError

    def should_prune(self, start_event_id: Any, pruning_id: Any) -> bool:
        return start_event_id is not None and start_event_id < pruning_id

    def get_pruning_id(self, matches: list[Match]) -> Any:
        pruning = None
        for result in matches:
            events = result.get(self.pattern_name)
            if not events:
                if self.should_throw_exception:
                    raise FlinkRuntimeException(
                        f"Could not skip to {self.pattern_name}. No such element in the found "
                        f"match {result}"
                    )
            else:
                candidate = events[self._index(len(events))]
                pruning = candidate if pruning is None else max(pruning, candidate)
            if self.should_throw_exception:
                all_events = [e for evs in result.values() for e in evs]
                if not all_events:
                    raise IllegalStateException("Cannot prune based on empty match")
                if pruning is not None and pruning == min(all_events):
                    raise FlinkRuntimeException("Could not skip to first element of a match.")
        return pruning

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}{{patternName='{self.pattern_name}', "
            f"shouldThrowException={str(self.should_throw_exception).lower()}}}"
        )


class SkipToFirstStrategy(SkipToElementStrategy):
    """Flink's ``SkipToFirstStrategy``."""

    def _index(self, size: int) -> int:
        return 0


class SkipToLastStrategy(SkipToElementStrategy):
    """Flink's ``SkipToLastStrategy``."""

    def _index(self, size: int) -> int:
        return size - 1
