"""The partial matches a ``CepOperator`` holds per key, read from its keyed state (for notebooks).

No Flink counterpart (Flink shows them nowhere); it reads ``nfaStateName`` and the shared buffer's
maps as ``JobRun.keyed_state`` (live) or ``keyed_state_at`` (a checkpoint) return them and walks
the buffer back from each computation state, as ``NFA.extractCurrentMatches`` does.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.operators.cep.dewey_number import to_string
from pyflowkit.operators.cep.nfa import extract_current_matches
from pyflowkit.operators.cep.nfa_compiler import original_name
from pyflowkit.operators.cep.shared_buffer import SharedBufferAccessor


def _as_dict(value: Any) -> dict[Any, Any]:
    """A map state's value: a dict (live) or ``[[key, value], ...]`` (snapshot)."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    return {_hashable(k): v for k, v in value}


def _hashable(x: Any) -> Any:
    return tuple(_hashable(v) for v in x) if isinstance(x, list) else x


def partial_matches(cep_state: dict[str, dict[Any, Any]]) -> list[dict[str, Any]]:
    """One row per partial match: key, the pattern part it waits in, start time, Dewey version and
    the events taken so far (``{pattern name: [event, ...]}``)."""
    nfa_states = cep_state.get("nfaStateName", {})
    events_by_key = cep_state.get("sharedBuffer-events", {})
    entries_by_key = cep_state.get("sharedBuffer-entries", {})
    rows: list[dict[str, Any]] = []
    for key, nfa_state in nfa_states.items():
        accessor = SharedBufferAccessor(
            _as_dict(events_by_key.get(key)), _as_dict(entries_by_key.get(key)), {}
        )
        for cs in nfa_state[0]:
            name, previous, version, start, _start_id = cs
            if previous is None:
                continue  # a start state: nothing taken yet
            node = _hashable(previous)
            match = extract_current_matches(accessor, (name, node, tuple(version), start, None))
            rows.append(
                {
                    "key": key,
                    "waiting_in": original_name(name),
                    "started_at": start,
                    "version": to_string(tuple(version)),
                    "events": accessor.materialize_match(match),
                }
            )
    return rows
