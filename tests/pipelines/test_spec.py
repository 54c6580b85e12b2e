"""The result checker itself: it rejects wrong records, orders, placements and prefixes."""

from __future__ import annotations

import pytest

from tests.pipelines.spec import Order, Pipeline, SinkSpec, assert_results


def pipeline(**sinks: SinkSpec) -> Pipeline:
    return Pipeline("checker", lambda env: None, lambda mode: dict(sinks))


def test_total_order_is_enforced() -> None:
    p = pipeline(out=SinkSpec([1, 2, 3]))
    assert_results(p, "STREAMING", ["out> 1", "out> 2", "out> 3"])
    with pytest.raises(AssertionError, match="order differs"):
        assert_results(p, "STREAMING", ["out> 2", "out> 1", "out> 3"])
    with pytest.raises(AssertionError, match="records differ"):
        assert_results(p, "STREAMING", ["out> 1", "out> 2"])


def test_per_key_order_allows_interleaving_only() -> None:
    p = pipeline(u=SinkSpec([("a", 1), ("b", 1), ("a", 2)], 1, Order.PER_KEY, key=lambda r: r[0]))
    assert_results(p, "STREAMING", ["u> (b,1)", "u> (a,1)", "u> (a,2)"])
    with pytest.raises(AssertionError):
        assert_results(p, "STREAMING", ["u> (a,2)", "u> (b,1)", "u> (a,1)"])


def test_placement_and_prefix_format_are_enforced() -> None:
    p = pipeline(k=SinkSpec(["x", "y"], 2, Order.PER_SUBTASK, subtasks={0: ["x"], 1: ["y"]}))
    assert_results(p, "STREAMING", ["k:2> y", "k:1> x"])
    with pytest.raises(AssertionError, match="per-subtask"):
        assert_results(p, "STREAMING", ["k:1> y", "k:2> x"])
    with pytest.raises(AssertionError, match="lacks ':k'"):
        assert_results(p, "STREAMING", ["k> x", "k> y"])
    with pytest.raises(AssertionError, match="out of 1..2"):
        assert_results(p, "STREAMING", ["k:3> x", "k:1> y"])


def test_unnamed_print_sink_lines() -> None:
    assert_results(pipeline(**{"": SinkSpec([("a", 1)])}), "STREAMING", ["(a,1)"])
    p2 = pipeline(**{"": SinkSpec([1], 2, Order.PER_SUBTASK, subtasks={1: [1]})})
    assert_results(p2, "STREAMING", ["2> 1"])
    with pytest.raises(AssertionError):
        assert_results(p2, "STREAMING", ["1> 1"])
