"""``CepOperator.process_batch`` collects ``select`` outputs and emits them once per batch: the
printed order of main and side outputs stays the order a record-by-record emission gives; its
outputs and keyed state equal ``process_element``'s (no skipping, no inline tests) batch by batch."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyflowkit.cep import CEP, Pattern, PatternProcessFunction
from pyflowkit.common import Time
from pyflowkit.datastream import OutputTag, TimeCharacteristic
from pyflowkit.operators.cep.functions import PatternSelectAdapter
from pyflowkit.runtime import JobStatus, MiniCluster
from tests.cep.jobs import environment, high, pair, readings
from tests.windows.harness import WindowHarness

TAG = OutputTag("even")


def tagged(match: dict[str, list]) -> Any:
    """A pair on the main output, or on the side output when its second reading is even."""
    p = pair(match)
    return (TAG, p) if p[2] % 2 == 0 else p


class OneByOne(PatternProcessFunction):
    """The same outputs from a process function (emitted match by match)."""

    def process_match(self, match: dict[str, list], ctx: Any) -> Any:
        return [tagged(match)]


def printed(function: Any, source_batch: int) -> list[str]:
    env = environment(1)
    env.set_stream_time_characteristic(TimeCharacteristic.ProcessingTime)
    pattern = Pattern.begin("first").where(high).next("second").where(high)
    stream = CEP.pattern(env.from_collection(readings(600)).key_by(lambda e: e[0]), pattern)
    main = stream.select(function) if callable(function) else stream.process(function)
    main.print("main")
    main.get_side_output(TAG).print("side")
    run = MiniCluster(echo_print=False, seed=2, source_batch=source_batch).submit(
        env.get_job_graph()
    )
    run.run()
    assert run.job_status is JobStatus.FINISHED, run.failure_traceback
    return run.printed()


# events without timestamps: CEP in processing time, the 1.11 default (FLINK-19326)
@pytest.mark.flink_version("1.11")
@pytest.mark.parametrize("source_batch", [1, 64])
def test_select_outputs_keep_their_order_with_side_outputs(source_batch: int) -> None:
    got = printed(tagged, source_batch)
    assert got == printed(OneByOne(), source_batch)
    assert any(line.startswith("main") for line in got)
    assert any(line.startswith("side") for line in got)


# ---- process_batch (skips, inline tests, collected outputs) vs process_element, record by record
def cep_harness(pattern: Pattern) -> WindowHarness:
    return WindowHarness(
        "CepOperator",
        key_selector=lambda v: v[0],
        function=PatternSelectAdapter(lambda m: tuple(e for es in m.values() for e in es)),
        pattern=pattern,
        is_processing_time=True,
    )


def keyed_state(h: WindowHarness) -> dict[Any, Any]:
    """(key group, state name, key) → value over the operator's keyed state."""
    out = {}
    for kg, states in h.operator.keyed_state_backend.snapshot().items():
        for name, table in states.items():
            for key, _ns, value in table["entries"]:
                out[(kg, name, key)] = value
    return out


PATTERNS = {
    "strict": lambda: (
        Pattern.begin("a")
        .where(lambda e: e[1] > 6)
        .next("b")
        .where(lambda e: e[1] > 3)
        .within(Time.milliseconds(5))
    ),
    "relaxed": lambda: (
        Pattern.begin("a")
        .where(lambda e: e[1] > 6)
        .followed_by("b")
        .where(lambda e: e[1] < 2)
        .within(Time.milliseconds(5))
    ),
    "times": lambda: (
        Pattern.begin("a")
        .where(lambda e: e[1] > 4)
        .times(2)
        .consecutive()
        .next("b")
        .where(lambda e: e[1] == 9)
    ),
}


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(sorted(PATTERNS)),
    st.lists(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 9)), max_size=12), max_size=10),
    st.lists(st.integers(0, 4), min_size=10, max_size=10),
)
def test_process_batch_equals_process_element(name, batches, ticks) -> None:  # noqa: ANN001
    batched, one_by_one = cep_harness(PATTERNS[name]()), cep_harness(PATTERNS[name]())
    now = 0
    for batch, tick in zip(batches, ticks, strict=False):
        now += tick
        for h in (batched, one_by_one):
            h.set_processing_time(now)
        batched.operator.process_batch(batch, None)
        for value in batch:
            one_by_one.element(value)
        assert batched.records == one_by_one.records
        assert keyed_state(batched) == keyed_state(one_by_one)
