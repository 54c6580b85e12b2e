"""What a catalog pipeline promises: records per sink and the order guarantee Flink gives them.

Every sink in the catalog is a print sink with its own identifier, so all runtimes report results
the same way (print lines) and the ``id:k> `` prefix shows the subtask a record was written by.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

STREAMING = "STREAMING"
BATCH = "BATCH"
BOTH_MODES = (STREAMING, BATCH)


class Order(Enum):
    """Which order of a sink's records Flink guarantees."""

    TOTAL = "total order (one sink subtask fed by one ordered path)"
    PER_KEY = "order within each key (group), any interleaving across keys"
    PER_SUBTASK = "exact records and order per sink subtask"
    MULTISET = "the records only"


V1_11, V1_20 = "1.11", "1.20"


def expected_version() -> str:
    """The Flink version an expectation checked now follows: the one a new environment follows
    (``build_env`` configures none), so a test pinned with ``@pytest.mark.flink_version`` and an
    unpinned one each compare with their own version's results."""
    from pyflowkit.common.flink_version import default_version

    return default_version()


def flink_str(value: Any, version: str = V1_11) -> str:
    """The print sink's text of a typed value: Java ``toString`` (Tuple ``(a,1)``, Row ``a,1``);
    under 1.20 a Row prints as PyFlink's ``+I[a,1]`` (its fields' Python ``str``, FLINK-18090)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "(" + ",".join(flink_str(v, version) for v in value) + ")"
    if isinstance(value, RowValue):
        if version == V1_20:
            return "+I[" + ",".join(str(v) for v in value.fields) + "]"
        return ",".join(flink_str(v, version) for v in value.fields)
    if isinstance(value, float):
        return repr(value)  # the catalog only uses floats whose Java and Python texts agree
    return str(value)


@dataclass(frozen=True)
class RowValue:
    """An expected Row (compared through its print text: 1.11 ``Row.toString``, 1.20 ``+I[…]``)."""

    fields: tuple[Any, ...]

    def __getitem__(self, index: int) -> Any:
        return self.fields[index]


@dataclass
class SinkSpec:
    """The expected records of one print sink (identified by its sink identifier)."""

    records: list[Any]
    parallelism: int = 1
    order: Order = Order.TOTAL
    key: Callable[[Any], Any] | None = None  # PER_KEY: the group a record's order is kept in
    subtasks: dict[int, list[Any]] | None = None  # exact placement (0-based subtask index)
    typed: bool = True  # typed streams print Java text, untyped (pickled) ones Python str()
    check: Callable[[dict[int, list[str]]], None] | None = None  # extra invariant per subtask

    def render(self, value: Any) -> str:
        return flink_str(value, expected_version()) if self.typed else str(value)


@dataclass
class Pipeline:
    """One catalog entry: builds itself on an environment and knows its results per mode."""

    name: str
    build: Callable[[Any], None]
    expect: Callable[[str], dict[str, SinkSpec]]
    modes: tuple[str, ...] = BOTH_MODES
    bounded: bool = True  # False: uses add_source (CONTINUOUS_UNBOUNDED, as Flink declares it)
    notes: str = ""
    tags: set[str] = field(default_factory=set)

    def expected(self, mode: str = STREAMING) -> dict[str, SinkSpec]:
        return self.expect(mode)

    def __repr__(self) -> str:
        return self.name


def split_lines(lines: list[str], sinks: dict[str, SinkSpec]) -> dict[str, dict[int, list[str]]]:
    """Print lines → sink identifier → 0-based subtask → bodies, checking each prefix format."""
    out: dict[str, dict[int, list[str]]] = {name: {} for name in sinks}
    if "" in sinks:  # print() without identifier: the pipeline's only sink
        assert len(sinks) == 1, "a pipeline with an unnamed print sink has only that sink"
        parallel = sinks[""].parallelism > 1
        for line in lines:
            number, sep, body = line.partition("> ") if parallel else ("1", "> ", line)
            assert sep and number.isdigit(), f"unexpected print line {line!r}"
            out[""].setdefault(int(number) - 1, []).append(body)
        return out
    for line in lines:
        ident, sep, body = line.partition("> ")
        assert sep, f"print line without a sink prefix: {line!r}"
        name, colon, number = ident.partition(":")
        assert name in sinks, f"line from an unknown sink {name!r}: {line!r}"
        spec = sinks[name]
        if spec.parallelism > 1:
            assert colon and number.isdigit(), f"parallel sink line lacks ':k': {line!r}"
            k = int(number)
            assert 1 <= k <= spec.parallelism, f"subtask {k} out of 1..{spec.parallelism}: {line!r}"
            out[name].setdefault(k - 1, []).append(body)
        else:
            assert not colon, f"a parallelism-1 sink must not print ':k': {line!r}"
            out[name].setdefault(0, []).append(body)
    return out


def _ordered_by_group(bodies: list[str], expected: list[str], groups: dict[str, Any]) -> None:
    def by_group(items: list[str]) -> dict[Any, list[str]]:
        out: dict[Any, list[str]] = {}
        for item in items:
            out.setdefault(groups.get(item), []).append(item)
        return out

    assert by_group(bodies) == by_group(expected)


def assert_sink(name: str, spec: SinkSpec, per_subtask: dict[int, list[str]]) -> None:
    """Compare one sink's actual per-subtask bodies with its spec (order as guaranteed)."""
    expected = [spec.render(r) for r in spec.records]
    actual = [b for k in sorted(per_subtask) for b in per_subtask[k]]
    assert Counter(actual) == Counter(expected), (
        f"sink {name!r}: records differ\n  missing: "
        f"{list((Counter(expected) - Counter(actual)).elements())}\n  extra:   "
        f"{list((Counter(actual) - Counter(expected)).elements())}"
    )
    if spec.order is Order.TOTAL:
        assert len(per_subtask) <= 1
        assert actual == expected, f"sink {name!r}: order differs"
    if spec.order is Order.PER_KEY:
        assert spec.key is not None
        groups = {spec.render(r): spec.key(r) for r in spec.records}
        _ordered_by_group(actual, expected, groups)  # a key's records share one subtask
    if spec.subtasks is not None:
        want = {k: [spec.render(r) for r in v] for k, v in spec.subtasks.items() if v}
        got = {k: v for k, v in per_subtask.items() if v}
        if spec.order in (Order.PER_SUBTASK, Order.TOTAL):
            assert got == want, f"sink {name!r}: per-subtask records/order differ"
        else:
            assert {k: Counter(v) for k, v in got.items()} == {
                k: Counter(v) for k, v in want.items()
            }, f"sink {name!r}: records landed on other subtasks"
    if spec.check is not None:
        spec.check(per_subtask)


def assert_results(pipeline: Pipeline, mode: str, lines: list[str]) -> None:
    """All print lines of one run equal ``pipeline.expected(mode)`` under its order guarantees."""
    sinks = pipeline.expected(mode)
    split = split_lines(lines, sinks)
    for name, spec in sinks.items():
        assert_sink(name, spec, split[name])
