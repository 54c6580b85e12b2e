"""Which in-flight merging windows exist for a key, and which window holds each one's state.

Stands for Flink's ``MergingWindowSet``: the mapping window → state window is kept in keyed list
state (``merging-window-set``) between elements, so it survives snapshots.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyflowkit.datastream.window import MergingWindowAssigner, Window
from pyflowkit.errors import IllegalStateException

# merge_function(merge_result, merged_windows, state_window_result, merged_state_windows)
MergeFunction = Callable[[Window, list[Window], Window, list[Window]], None]


class _Collect(MergingWindowAssigner.MergeCallback):
    def __init__(self) -> None:
        self.results: list[tuple[Window, list[Window]]] = []

    def merge(self, to_be_merged, merge_result) -> None:
        self.results.append((merge_result, list(to_be_merged)))


class MergingWindowSet:
    """Flink's ``MergingWindowSet`` for the current key."""

    def __init__(self, assigner: MergingWindowAssigner, state: Any) -> None:
        self.assigner = assigner
        self.state = state  # list state of [window, state_window] pairs (current key)
        self.mapping: dict[Window, Window] = {w: sw for w, sw in state.get()}
        self.initial_mapping = dict(self.mapping)

    def persist(self) -> None:
        """Write the mapping back to state if it changed."""
        if self.mapping != self.initial_mapping:
            self.state.clear()
            if self.mapping:
                self.state.update([[w, sw] for w, sw in self.mapping.items()])

    def get_state_window(self, window: Window) -> Window | None:
        return self.mapping.get(window)

    def retire_window(self, window: Window) -> None:
        if self.mapping.pop(window, None) is None:
            raise IllegalStateException(f"Window {window} is not in in-flight window set.")

    def add_window(self, new_window: Window, merge_function: MergeFunction) -> Window:
        """Add a window, merging as the assigner says; returns the window it ended up in."""
        windows = list(self.mapping) + [new_window]
        collect = _Collect()
        self.assigner.merge_windows(windows, collect)

        result_window = new_window
        merged_new_window = False
        for merge_result, merged_windows in collect.results:
            if new_window in merged_windows:
                merged_windows.remove(new_window)
                merged_new_window = True
                result_window = merge_result
            # the state window of one of the merged windows carries the merged state
            merged_state_window = self.mapping[merged_windows[0]]
            merged_state_windows = []
            for w in merged_windows:
                sw = self.mapping.pop(w, None)
                if sw is not None:
                    merged_state_windows.append(sw)
            self.mapping[merge_result] = merged_state_window
            merged_state_windows.remove(merged_state_window)
            if not (merge_result in merged_windows and len(merged_windows) == 1):
                merge_function(
                    merge_result, merged_windows, merged_state_window, merged_state_windows
                )

        if not collect.results or (result_window == new_window and not merged_new_window):
            self.mapping[result_window] = result_window
        return result_window

    def __repr__(self) -> str:
        return f"MergingWindowSet{{windows={self.mapping}}}"
