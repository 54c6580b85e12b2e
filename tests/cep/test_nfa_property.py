"""Property: on random event sequences the NFA finds exactly the matches a brute-force matcher
finds, for strict (``next``) and relaxed (``followed_by``) contiguity, ``times(n)`` (consecutive or
relaxed inside), ``optional`` middle parts and ``within``."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from pyflowkit.cep import Pattern
from tests.cep.harness import Event, NFATestHarness

LETTERS = "abc"


@dataclass(frozen=True)
class Part:
    letter: str
    strict: bool  # contiguity to the part before (ignored for the first part)
    times: int  # 1 = single
    inner_strict: bool  # consecutive() for times > 1
    optional: bool


def build(parts: list[Part], within: int | None) -> Pattern:
    p = None
    for i, part in enumerate(parts):
        name = f"p{i}"
        if p is None:
            p = Pattern.begin(name)
        else:
            p = p.next(name) if part.strict else p.followed_by(name)
        p = p.where(lambda e, letter=part.letter: e.name == letter)
        if part.times > 1:
            p = p.times(part.times)
            if part.inner_strict:
                p = p.consecutive()
        if part.optional:
            p = p.optional()
    if within is not None:
        p = p.within(within)
    return p


def brute_force(parts: list[Part], events: list[tuple[Event, int]], within: int | None) -> list:
    """Every assignment of events to parts that the contiguity rules allow."""
    n = len(events)
    letter = [e.name for e, _ in events]
    found: list[dict[str, list]] = []

    def gap_ok(prev: int, nxt: int, strict: bool, part_letter: str) -> bool:
        if strict:
            return nxt == prev + 1
        return all(letter[j] != part_letter for j in range(prev + 1, nxt))

    def groups(i: int, prev: int, part: Part):
        """Index tuples for part i starting after ``prev`` (-1 = anywhere, for the first part)."""
        candidates = [j for j in range(prev + 1, n) if letter[j] == part.letter]
        for first in candidates:
            if i > 0 and not gap_ok(prev, first, part.strict, part.letter):
                continue
            yield from _rest(first, part, (first,))

    def _rest(last: int, part: Part, acc: tuple[int, ...]):
        if len(acc) == part.times:
            yield acc
            return
        for j in range(last + 1, n):
            if letter[j] == part.letter and gap_ok(last, j, part.inner_strict, part.letter):
                yield from _rest(j, part, (*acc, j))

    def walk(i: int, prev: int, chosen: dict[str, tuple[int, ...]]) -> None:
        if i == len(parts):
            idx = [j for g in chosen.values() for j in g]
            if within is None or events[idx[-1]][1] - events[idx[0]][1] < within:
                found.append({k: [events[j][0] for j in g] for k, g in chosen.items()})
            return
        part = parts[i]
        for g in groups(i, prev, part):
            walk(i + 1, g[-1], {**chosen, f"p{i}": g})
        if part.optional:
            walk(i + 1, prev, chosen)

    walk(0, -1, {})
    return found


part_strategy = st.builds(
    Part,
    letter=st.sampled_from(LETTERS),
    strict=st.booleans(),
    times=st.sampled_from([1, 1, 2]),
    inner_strict=st.booleans(),
    optional=st.booleans(),
)


@st.composite
def scenario(draw):  # noqa: ANN001, ANN201
    parts = draw(st.lists(part_strategy, min_size=2, max_size=3))
    # optional only for middle single parts (Flink's optional first/last parts need their own rules)
    parts = [
        Part(p.letter, p.strict, p.times, p.inner_strict, p.optional and 0 < i < len(parts) - 1 and p.times == 1)
        for i, p in enumerate(parts)
    ]  # fmt: skip
    letters = draw(st.lists(st.sampled_from(LETTERS), min_size=0, max_size=9))
    gaps = draw(st.lists(st.integers(1, 3), min_size=len(letters), max_size=len(letters)))
    ts = list(itertools.accumulate(gaps))
    events = [(Event(i, c), t) for i, (c, t) in enumerate(zip(letters, ts, strict=True))]
    within = draw(st.one_of(st.none(), st.integers(2, 8)))
    return parts, events, within


def _key(match: dict[str, list]) -> str:
    return repr(sorted(match.items()))


@given(scenario())
def test_nfa_equals_brute_force(case) -> None:  # noqa: ANN001
    parts, events, within = case
    got = NFATestHarness(build(parts, within)).feed(events)
    assert sorted(map(_key, got)) == sorted(map(_key, brute_force(parts, events, within)))
