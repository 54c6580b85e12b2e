"""Events and the match graph of one key, reference-counted (Flink's ``SharedBuffer`` + ``SharedBufferAccessor``).

Plain data, so it is keyed state as it stands (checkpoints, savepoints, rescaling):

* ``events``: ``EventId`` → ``[references, event]`` (``sharedBuffer-events``)
* ``entries``: ``NodeId`` → ``[references, [edge, ...]]`` (``sharedBuffer-entries``); an edge is
  ``(target NodeId or None, DeweyNumber)`` (``SharedBufferEdge``)
* ``events_count``: timestamp → the next event id at that timestamp (``sharedBuffer-events-count``)

``EventId`` is ``(timestamp, id)``, ``NodeId`` is ``(EventId, pattern name)``; a lock count that
drops to zero removes the entry (``Lockable.release``) and releases what it points to.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.errors import IllegalStateException
from pyflowkit.operators.cep.dewey_number import is_compatible_with
from pyflowkit.operators.cep.nfa_compiler import original_name


class SharedBufferAccessor:
    """Flink's ``SharedBufferAccessor`` over one key's three maps (see the module docstring)."""

    __slots__ = ("events", "entries", "events_count")

    def __init__(
        self,
        events: dict[Any, list[Any]],
        entries: dict[Any, list[Any]],
        events_count: dict[int, int],
    ) -> None:
        self.events = events
        self.entries = entries
        self.events_count = events_count

    def is_empty(self) -> bool:
        """``SharedBuffer.isEmpty``: no events are held."""
        return not self.events

    def register_event(self, value: Any, timestamp: int) -> tuple[int, int]:
        """``registerEvent``: a new ``EventId`` for ``value``, locked once (by the event wrapper)."""
        counts = self.events_count
        n = counts.get(timestamp, 0)
        event_id = (timestamp, n)
        counts[timestamp] = n + 1
        self.events[event_id] = [1, value]
        return event_id

    def advance_time(self, timestamp: int) -> None:
        """``advanceTime``: forget event counters of timestamps before ``timestamp``."""
        counts = self.events_count
        if counts:
            for ts in [t for t in counts if t < timestamp]:
                del counts[ts]

    def put(self, state_name: str, event_id: Any, previous: Any, version: tuple[int, ...]) -> Any:
        """``put``: the node for ``event_id`` in ``state_name`` with an edge back to ``previous``."""
        if previous is not None:
            self.lock_node(previous)
        node_id = (event_id, original_name(state_name))
        node = self.entries.get(node_id)
        if node is None:
            node = self.entries[node_id] = [0, []]
            self._lock_event(event_id)
        node[1].append((previous, version))
        return node_id

    def extract_patterns(self, node_id: Any, version: tuple[int, ...]) -> list[dict[str, list]]:
        """``extractPatterns``: every path back from ``node_id`` compatible with ``version``, as
        ``{pattern name: [EventId, ...]}`` in event order (depth first, as Flink)."""
        entries = self.entries
        if node_id not in entries:
            return []
        # a chain of single edges (the common case) is followed without a stack; an edge's
        # version is most often a prefix of the current one (isCompatibleWith inline)
        path: list[Any] = []
        current, current_version = node_id, version
        while True:
            edges = entries[current][1]
            if len(edges) != 1:
                return self._extract_patterns(node_id, version)
            target, edge_version = edges[0]
            if current_version != edge_version:
                m = len(edge_version)
                if len(current_version) > m:
                    if current_version[:m] != edge_version:
                        return []
                elif not is_compatible_with(current_version, edge_version):
                    return []
            path.append(current)
            if target is None:
                return [_path_to_match(path)]
            current, current_version = target, edge_version

    def _extract_patterns(self, node_id: Any, version: tuple[int, ...]) -> list[dict[str, list]]:
        """The depth-first walk of ``extractPatterns`` over branching edges."""
        result: list[dict[str, list]] = []
        entries = self.entries
        stack: list[tuple[Any, tuple[int, ...], list[Any]]] = [(node_id, version, [])]
        while stack:
            current, current_version, path = stack.pop()
            if current is None:
                result.append(_path_to_match(path))
                continue
            path.append(current)
            first = True
            for target, edge_version in entries[current][1]:
                if is_compatible_with(current_version, edge_version):
                    if first:
                        new_path = path
                        first = False
                    else:
                        new_path = list(path)
                    stack.append((target, edge_version, new_path))
        return result

    def materialize_match(self, match: dict[str, list]) -> dict[str, list]:
        """``materializeMatch``: event ids → the events."""
        events = self.events
        out: dict[str, list] = {}
        for name, ids in match.items():
            if len(ids) == 1:
                out[name] = [events[ids[0]][1]]
            else:
                out[name] = [events[eid][1] for eid in ids]
        return out

    def lock_node(self, node_id: Any) -> None:
        node = self.entries.get(node_id)
        if node is not None:
            node[0] += 1

    def release_node(self, node_id: Any) -> None:
        """``releaseNode``: one reference less; at zero the node goes, and so do its references."""
        entries = self.entries
        events = self.events
        # a chain of single edges (the common case) is released without a stack
        while node_id is not None:
            node = entries.get(node_id)
            if node is None:
                return
            if node[0] > 1:
                node[0] -= 1
                return
            del entries[node_id]
            event_id = node_id[0]
            wrapper = events.get(event_id)
            if wrapper is not None:
                if wrapper[0] > 1:
                    wrapper[0] -= 1
                else:
                    del events[event_id]
            edges = node[1]
            if len(edges) != 1:
                self._release_all([target for target, _ in reversed(edges)])
                return
            node_id = edges[0][0]

    def _release_all(self, stack: list[Any]) -> None:
        """``releaseNode`` for the targets of a branching node (a stack, last first)."""
        entries = self.entries
        while stack:
            nid = stack.pop()
            if nid is None:
                continue
            node = entries.get(nid)
            if node is None:
                continue
            if node[0] > 0:
                node[0] -= 1
                if node[0] > 0:
                    continue
            del entries[nid]
            self.release_event(nid[0])
            edges = node[1]
            if len(edges) == 1:
                stack.append(edges[0][0])
            else:
                stack.extend([target for target, _ in reversed(edges)])

    def _lock_event(self, event_id: Any) -> None:
        wrapper = self.events.get(event_id)
        if wrapper is None:
            raise IllegalStateException(f"Referring to non existent event with id {event_id}")
        wrapper[0] += 1

    def release_event(self, event_id: Any) -> None:
        wrapper = self.events.get(event_id)
        if wrapper is not None:
            if wrapper[0] > 0:
                wrapper[0] -= 1
                if wrapper[0] > 0:
                    return
            del self.events[event_id]


def _path_to_match(path: list[Any]) -> dict[str, list]:
    """A path of ``NodeId``s (last event first) as ``{pattern name: [EventId, ...]}``."""
    complete: dict[str, list] = {}
    for nid in reversed(path):
        ids = complete.get(nid[1])
        if ids is None:
            complete[nid[1]] = [nid[0]]
        else:
            ids.append(nid[0])
    return complete
