"""How a large ExecutionJobVertex is drawn: its subtasks in a grid, its ALL_TO_ALL edges bundled.

Flink's web UI draws a JobGraph vertex with its parallelism and lists the subtasks in a table; our
ExecutionGraph drawing shows every subtask. Above :data:`GRID_ABOVE` subtasks a vertex's subtasks
go in columns of :func:`grid_rows` (not one tall stack), and a JobEdge touching such a vertex is
drawn once, as a bundle between the two clusters labelled with its ExecutionEdges' count
("HASH ALL_TO_ALL (8×8)"); a small job keeps one arrow per ExecutionEdge.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pyflowkit.render.dot import label_lines

#: The most subtasks a vertex stacks in one column with one arrow per ExecutionEdge.
GRID_ABOVE = 4


def is_grid(parallelism: int) -> bool:
    """Whether a vertex of ``parallelism`` subtasks is drawn as a grid (and its edges bundled)."""
    return parallelism > GRID_ABOVE


def grid_rows(parallelism: int) -> int:
    """Rows of the grid: about sqrt(2p) (boxes are wider than tall), at least 4: 8 -> 4 x 2,
    16 -> 6 x 3, 32 -> 8 x 4."""
    return min(parallelism, max(GRID_ABOVE, math.ceil(math.sqrt(2 * parallelism))))


def grid_columns(ids: Sequence[str]) -> list[list[str]]:
    """The subtasks' ids (in subtask order) cut into columns of :func:`grid_rows`, top to bottom."""
    rows = grid_rows(len(ids))
    return [list(ids[i : i + rows]) for i in range(0, len(ids), rows)]


def bundle_label(ship: str, pattern: str, producers: int, consumers: int, edges: int) -> str:
    """A bundled JobEdge's label: ship strategy, distribution pattern and what it stands for:
    ``(P×C)`` producers by consumers for ALL_TO_ALL, ``(n edges)`` for POINTWISE."""
    size = f"{producers}×{consumers}" if pattern == "ALL_TO_ALL" else f"{edges} edges"
    return label_lines(ship, pattern, f"({size})")
