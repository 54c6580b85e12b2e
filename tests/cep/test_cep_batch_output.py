"""``CepOperator.process_batch`` collects ``select`` outputs and emits them once per batch: the
printed order of main and side outputs stays the order a record-by-record emission gives."""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.cep import CEP, Pattern, PatternProcessFunction
from pyflowkit.datastream import OutputTag, TimeCharacteristic
from pyflowkit.runtime import JobStatus, MiniCluster
from tests.cep.jobs import environment, high, pair, readings

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


@pytest.mark.parametrize("source_batch", [1, 64])
def test_select_outputs_keep_their_order_with_side_outputs(source_batch: int) -> None:
    got = printed(tagged, source_batch)
    assert got == printed(OneByOne(), source_batch)
    assert any(line.startswith("main") for line in got)
    assert any(line.startswith("side") for line in got)
