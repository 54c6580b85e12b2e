"""BATCH reads a broadcast connect's broadcast side first, under 1.20 (FLINK-20491).

Flink's BATCH translator runs ``connect(broadcast_stream).process(...)`` as
``BatchCoBroadcastWithNonKeyedOperator`` / ``BatchCoBroadcastWithKeyedOperator`` (PyFlink 1.20:
``ExternalPythonBatch[Keyed]CoBroadcastProcessOperator``), ``InputSelectable`` operators whose
``nextSelection()`` is SECOND until ``endInput(2)``. The task core's ``StreamInputProcessor``
honours it for every host: the simulated cluster polls only the selected input's gates, and what
a host hands over for an input that is not selected (Spark's rows) waits until it is. Under 1.11
(no DataStream BATCH mode) both inputs are read as they come. The real-PyFlink golden
``program__broadcast_rules_batch__BATCH`` checks the output on both hosts
(tests/goldens/test_pyflink_goldens.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import Configuration
from pyflowkit.common.flink_version import (
    BATCH_BROADCAST_FIRST,
    FLINK_VERSION_KEY,
    profile_for,
    rules_table,
)
from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from pyflowkit.errors import IllegalStateException
from pyflowkit.graph.transformations import OperatorFactory
from pyflowkit.operators.co_broadcast import BatchCoBroadcastWithNonKeyedOperator
from pyflowkit.runtime import MiniCluster
from pyflowkit.task.execution_mode import factory_for_mode
from pyflowkit.task.input_processor import StreamInputProcessor

PROGRAM = Path(__file__).resolve().parents[1] / "goldens" / "programs" / "broadcast_rules_batch.py"


def _build() -> Any:
    """The golden program's ``build``, imported from pyflowkit (the only difference)."""
    namespace: dict[str, Any] = {}
    source = PROGRAM.read_text().replace("from pyflink", "from pyflowkit")
    exec(compile(source, str(PROGRAM), "exec"), namespace)  # noqa: S102 - our own test program
    return namespace["build"]


def _run(version: str, mode: Any = RuntimeExecutionMode.BATCH) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string(FLINK_VERSION_KEY, version)
    )
    env.set_runtime_mode(mode)
    _build()(env)
    run = MiniCluster(echo_print=False, seed=1).submit(env, "rules")
    run.run_until(lambda r: r.job_status.name == "FINISHED", max_steps=20_000)  # step mode: traced
    run.raise_if_failed()
    return run


def test_1_20_batch_matches_every_event_against_every_rule() -> None:
    run = _run("1.20")
    assert sorted(run.printed()) == [
        "keyed cpu=50: ok",
        "keyed cpu=90: alert",
        "keyed disk=99: alert",
        "keyed mem=40: ok",
        "keyed net=5: no rule",
        "match cpu=50: ok",
        "match cpu=90: alert",
        "match disk=99: alert",
        "match mem=40: ok",
        "match net=5: no rule",
    ]
    # each broadcast task read its input 2 to the end before its first buffer of input 1
    for task in ("Co-Process-Broadcast", "Co-Process-Broadcast-Keyed"):
        reads = [
            e.message
            for e in run.trace
            if e.method == "StreamTask.processInput"
            and e.message.startswith(task + " ")
            and "(input " in e.message
        ]
        first_regular = next(i for i, m in enumerate(reads) if m.endswith("(input 1)."))
        assert reads[:first_regular] and all(
            m.endswith("(input 2).") for m in reads[:first_regular]
        )
        assert not any(m.endswith("(input 2).") for m in reads[first_regular:])


def test_1_11_batch_reads_both_inputs_as_they_come() -> None:
    printed = _run("1.11").printed()
    assert "match cpu=90: no rule" in printed  # the event was read before the rule
    assert "keyed cpu=90: no rule" in printed


@pytest.mark.parametrize(
    ("mode", "version", "expected"),
    [
        ("STREAMING", "1.20", "CoBroadcastWithKeyedOperator"),
        ("BATCH", "1.11", "CoBroadcastWithKeyedOperator"),
        ("BATCH", "1.20", "BatchCoBroadcastWithKeyedOperator"),
    ],
)
def test_only_batch_under_1_20_translates_to_the_batch_operator(
    mode: str, version: str, expected: str
) -> None:
    factory = OperatorFactory("CoBroadcastWithKeyedOperator", params={})
    rule = profile_for(version).batch_broadcast
    assert factory_for_mode(factory, mode, rule).operator_class == expected


class _Chain:
    """A chain whose head is a BATCH broadcast operator, recording what reaches it."""

    def __init__(self) -> None:
        self.head = BatchCoBroadcastWithNonKeyedOperator.__new__(
            BatchCoBroadcastWithNonKeyedOperator
        )
        self.seen: list[tuple[int, Any]] = []

    def process_batch(self, values: Any, timestamps: Any, input_index: int) -> None:
        self.seen.extend((input_index, v) for v in values)

    def process_watermark(self, watermark: int, input_index: int) -> None:
        self.seen.append((input_index, f"wm {watermark}"))

    def end_input(self, input_index: int) -> None:
        self.head.end_input(input_index)
        self.seen.append((input_index, "end"))


def test_what_arrives_for_the_regular_input_waits_until_the_broadcast_side_ended() -> None:
    """A host that cannot choose what to read (Spark's rows) hands everything over in its own
    order; the input processor holds input 1 until input 2 ended, then replays it in order."""
    chain = _Chain()
    inputs = StreamInputProcessor(chain, {1: [("e", 0)], 2: [("r", 0)]})
    assert inputs.selective and inputs.is_selected(2) and not inputs.is_selected(1)
    inputs.process_batch(1, ["event a", "event b"], None)
    inputs.process_watermark(("e", 0), 5)
    inputs.process_batch(2, ["rule x"], None)
    inputs.process_batch(1, ["event c"], None)
    assert chain.seen == [(2, "rule x")]
    inputs.end_all_inputs()
    assert chain.seen == [
        (2, "rule x"),
        (2, "end"),
        (1, "event a"),
        (1, "event b"),
        (1, "wm 5"),
        (1, "event c"),
        (1, "end"),
    ]


def test_the_regular_input_before_the_broadcast_side_is_refused() -> None:
    op = BatchCoBroadcastWithNonKeyedOperator.__new__(BatchCoBroadcastWithNonKeyedOperator)
    with pytest.raises(
        IllegalStateException,
        match=r"^Should not process regular input before broadcast side is done\.$",
    ):
        op.process_element1("event", None)
    assert op.next_selection() == 2
    op.end_input(2)
    assert op.next_selection() == 1


def test_the_rule_is_in_the_table() -> None:
    assert BATCH_BROADCAST_FIRST.issue == "FLINK-20491"
    assert "| Input order of a broadcast connect in BATCH | FLINK-20491 | 1.13 |" in rules_table()
