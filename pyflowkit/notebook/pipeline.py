"""A notebook pipeline built cell by cell: each ``%%pipeline`` cell is an atomic, replaceable step.

No Flink counterpart: a notebook-side builder around one ``StreamExecutionEnvironment``.
A cell runs against the live environment after a deep-copy snapshot is taken; if it raises, the
snapshot is swapped back, so transformations, settings and names are exactly as before the cell.
Re-running a cell (same cell id, or same text without one) replaces its earlier contribution.
"""

from __future__ import annotations

import contextlib
import copy
import io
import linecache
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: Modules whose public names are in scope in every ``%%pipeline`` cell.
API_MODULES = ("pyflowkit.datastream", "pyflowkit.common")


def api_namespace() -> dict[str, Any]:
    """The pyflowkit API names a pipeline cell sees (``Types``, ``Row``, ``WatermarkStrategy``…)."""
    import importlib

    names: dict[str, Any] = {}
    for module_name in API_MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", [n for n in dir(module) if not n.startswith("_")]):
            with contextlib.suppress(AttributeError):
                names[name] = getattr(module, name)
    return names


def reachable_transformation_ids(transformations: Iterable[Any]) -> set[int]:
    """Ids of the given transformations and of everything upstream of them (sources included)."""
    seen: set[int] = set()
    stack = list(transformations)
    while stack:
        t = stack.pop()
        if t.id in seen:
            continue
        seen.add(t.id)
        stack.extend(t.inputs)
    return seen


@dataclass
class PipelineState:
    """What a cell may change: the environment and the names pipeline cells have bound."""

    env: Any
    names: dict[str, Any] = field(default_factory=dict)

    def snapshot(self) -> PipelineState:
        """A deep copy taken together, so identities between env and names are kept."""
        env, names = copy.deepcopy((self.env, self.names))
        return PipelineState(env, names)

    def transformation_ids(self) -> set[int]:
        """The environment's transformations, plus streams cells hold (Flink keeps no sources)."""
        held = [
            v.get_transformation()
            for v in self.names.values()
            if callable(getattr(v, "get_transformation", None))
            and getattr(v, "get_execution_environment", lambda: None)() is self.env
        ]
        return reachable_transformation_ids([*self.env.get_transformations(), *held])


@dataclass
class PipelineCell:
    """One ``%%pipeline`` cell: its key (cell id or text), its source and its number."""

    key: str
    source: str
    number: int


class PipelineCellError(Exception):
    """A ``%%pipeline`` cell raised; the pipeline was left exactly as before the cell."""


@dataclass
class CellOutcome:
    """What running a cell did: transformation ids it added (for highlighting) and names bound."""

    cell: PipelineCell
    added_ids: set[int]
    bound_names: list[str]
    replaced: bool


class Pipeline:
    """A named pipeline: an environment grown by an ordered list of cells.

    Notebook-side only; the environment is Flink's ``StreamExecutionEnvironment``.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.cells: list[PipelineCell] = []
        self._before: list[PipelineState] = []  # _before[k]: state before cells[k] ran
        self.state = self._fresh_state()
        self._next_number = 1
        self.last_added_ids: set[int] = set()

    @staticmethod
    def _fresh_state() -> PipelineState:
        from pyflowkit.datastream import StreamExecutionEnvironment

        return PipelineState(StreamExecutionEnvironment.get_execution_environment())

    @property
    def env(self) -> Any:
        return self.state.env

    @property
    def names(self) -> dict[str, Any]:
        return self.state.names

    def index_of(self, key: str) -> int | None:
        return next((i for i, c in enumerate(self.cells) if c.key == key), None)

    def run_cell(self, key: str, source: str, user_ns: Mapping[str, Any]) -> CellOutcome:
        """Run (or re-run) a cell; on any exception nothing changes and the exception propagates.

        Cells after a re-run cell are replayed (their output suppressed) so they see the change.
        """
        __tracebackhide__ = True
        index = self.index_of(key)
        replaced = index is not None
        if index is None:
            cell = PipelineCell(key, source, self._next_number)
            start, later = len(self.cells), []
            base = self.state
        else:
            cell = PipelineCell(key, source, self.cells[index].number)
            start, later = index, self.cells[index + 1 :]
            base = self._before[index]
        work = base.snapshot()  # never mutate a kept state: the cell runs on a copy
        kept = work.snapshot()  # the state before this cell, kept for a later re-run
        before_ids = work.transformation_ids()
        bound = self._exec(cell, work, user_ns)
        added = work.transformation_ids() - before_ids
        befores = [kept]
        for later_cell in later:
            befores.append(work.snapshot())
            with contextlib.redirect_stdout(io.StringIO()):
                self._exec(later_cell, work, user_ns)
        # success: commit
        self.cells = [*self.cells[:start], cell, *later]
        self._before = [*self._before[:start], *befores]
        self.state = work
        if not replaced:
            self._next_number += 1
        self.last_added_ids = added
        return CellOutcome(cell, added, bound, replaced)

    def _exec(
        self, cell: PipelineCell, state: PipelineState, user_ns: Mapping[str, Any]
    ) -> list[str]:
        """Execute one cell against ``state`` (mutated); returns the names it bound."""
        __tracebackhide__ = True
        filename = f"<%%pipeline {self.name} cell {cell.number}>"
        lines = cell.source.splitlines(keepends=True)
        linecache.cache[filename] = (len(cell.source), None, lines, filename)
        code = compile(cell.source, filename, "exec")
        base = {**user_ns, **api_namespace(), **state.names, "env": state.env}
        scope = dict(base)
        exec(code, scope)
        bound = [
            n
            for n, v in scope.items()
            if not (n.startswith("__") and n.endswith("__")) and (n not in base or base[n] is not v)
        ]
        for n in bound:
            state.names[n] = scope[n]
        if scope.get("env") is not state.env:
            raise PipelineCellError(
                f"%%pipeline {self.name}: the cell rebound `env`; `env` is this pipeline's "
                "StreamExecutionEnvironment and cannot be replaced (use %pipeline reset instead)."
            )
        return bound

    def exported_names(self) -> dict[str, Any]:
        """Names to publish in the notebook: those cells bound, plus ``env``."""
        return {**self.names, "env": self.env}

    def summary(self) -> str:
        n = len(self.state.transformation_ids())
        return f"pipeline {self.name!r}: {len(self.cells)} cell(s), {n} transformation(s)"


class PipelineRegistry:
    """All pipelines of one IPython session, by name."""

    def __init__(self) -> None:
        self.pipelines: dict[str, Pipeline] = {}

    def get_or_create(self, name: str) -> Pipeline:
        check_name(name)
        if name not in self.pipelines:
            self.pipelines[name] = Pipeline(name)
        return self.pipelines[name]

    def get(self, name: str) -> Pipeline:
        try:
            return self.pipelines[name]
        except KeyError:
            known = ", ".join(sorted(self.pipelines)) or "none yet"
            raise KeyError(
                f"no pipeline named {name!r} (known: {known}); create it with a %%pipeline {name} cell"
            ) from None

    def reset(self, name: str) -> Pipeline:
        pipeline = self.get(name)
        del self.pipelines[name]
        return pipeline


def check_name(name: str) -> None:
    if not name.isidentifier():
        raise ValueError(
            f"pipeline name {name!r} is not valid: use a Python identifier such as word_count"
        )
