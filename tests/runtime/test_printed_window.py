"""``run.printed()`` keeps a bounded window of print-sink lines; echo writes every line."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.runtime import MiniCluster
from pyflowkit.runtime.printed_lines import DEFAULT_PRINTED_WINDOW, PrintedLines


@given(
    st.one_of(st.none(), st.integers(0, 12)),
    st.lists(st.tuples(st.sampled_from("ab"), st.integers(0, 5)), max_size=12),
)
def test_window_is_the_last_lines_in_print_order(window: int | None, batches: list) -> None:
    printed = PrintedLines(window)
    every: list[tuple[str, str]] = []
    for n, (sink, size) in enumerate(batches):
        lines = [f"{sink}{n}.{i}" for i in range(size)]
        every.extend((sink, line) for line in lines)
        printed.add(sink, lines)
    kept = every if window is None else every[max(0, len(every) - window) :] if window else []
    assert printed.lines() == [line for _, line in kept]
    assert printed.lines("a") == [line for s, line in kept if s == "a"]
    assert len(printed) == len(kept)
    assert printed.total == len(every)


def test_kept_batches_are_the_sinks_lists_not_copies() -> None:
    printed = PrintedLines(None)
    lines = ["x", "y"]
    printed.add("s", lines)
    assert printed._batches[0][1] is lines


def _print_job(n: int, parallelism: int = 2):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    env.from_collection(list(range(n))).map(lambda x: (str(x), x)).print()
    return env


def test_run_keeps_the_last_lines_and_counts_all(capsys: pytest.CaptureFixture) -> None:
    full = MiniCluster(echo_print=False, printed_window=None).submit(_print_job(3000)).run()
    everything = full.printed()
    assert len(everything) == full.printed_count == 3000
    assert {line[:3] for line in everything} == {"1> ", "2> "}
    assert sorted(line[3:] for line in everything) == sorted(f"('{x}', {x})" for x in range(3000))
    windowed = MiniCluster(echo_print=True, printed_window=100).submit(_print_job(3000)).run()
    assert windowed.printed() == everything[-100:]
    assert windowed.printed_count == 3000
    assert windowed.results() == {"Sink: Print to Std. Out": everything[-100:]}
    echoed = capsys.readouterr().out.splitlines()
    assert echoed == everything  # echo writes every line, in print order


def test_default_window_and_zero() -> None:
    run = MiniCluster(echo_print=False).submit(_print_job(10)).run()
    assert run.host.printed.window == DEFAULT_PRINTED_WINDOW and len(run.printed()) == 10
    none = MiniCluster(echo_print=False, printed_window=0).submit(_print_job(10)).run()
    assert none.printed() == [] and none.printed_count == 10
    assert none.results() == {"Sink: Print to Std. Out": []}


@pytest.mark.parametrize("bad", [-1, 1.5, "10", True])
def test_bad_window_is_refused(bad: object) -> None:
    with pytest.raises(IllegalArgumentException, match="printed_window .* must be an int >= 0"):
        MiniCluster(printed_window=bad)
