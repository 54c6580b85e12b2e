"""Keyed state is per key, everywhere: every (op × state kind × mode × parallelism × host) cell's
function sees exactly its key's state, checked against the per-key model of
``keyed_state_cells`` (issue 22, part 2).

One job per (host, mode) holds every op at parallelism 1, 2 and 4 (Spark streaming: one per
parallelism), so Spark runs five jobs, not hundreds; each cell's test checks its slice of its
job. The Hypothesis test draws key sequences, both inputs' interleaving (the simulated
cluster's seed), mode and parallelism on the in-process hosts. Spark streaming runs STREAMING
jobs only: a BATCH job is a Spark batch job.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyflowkit.reference.local_driver import run_local
from pyflowkit.runtime import JobStatus, MiniCluster
from tests.task.keyed_state_cells import (
    BATCH,
    KEYS,
    OPS,
    PARALLELISMS,
    STATES,
    STREAMING,
    Inputs,
    MapProbe,
    Outputs,
    build_env,
    check_cell,
)

IN_PROCESS = ("reference", "simulated-step", "simulated-fast")
SPARK = ("spark-batch", "spark-streaming")
MODES = {host: (STREAMING, BATCH) for host in (*IN_PROCESS, "spark-batch")}
MODES["spark-streaming"] = (STREAMING,)

# (host, mode, op) → why the cell still fails (strict xfail: it must start passing when fixed)
KNOWN_FAILURES: dict[tuple[str, str, str], str] = {}


def kinds(op: str) -> tuple[str, ...]:
    return ("nfa",) if op == "cep" else STATES


def run_lines(host: str, mode: str, env: Any, spark: Any = None, seed: int = 0) -> list[str]:
    """Run ``env`` on ``host``; its print lines."""
    if host == "reference":
        return run_local(env, seed=seed).printed
    if host.startswith("simulated"):
        run = MiniCluster(seed=seed, echo_print=False).submit(env)
        if host == "simulated-fast":
            run.run()
        else:
            while run.has_next():
                run.step()
        run.raise_if_failed()
        assert run.job_status is JobStatus.FINISHED
        return run.printed()
    if host == "spark-batch":
        from pyflowkit.spark.executor import execute

        return execute(env, spark=spark, print_output=False).print_lines
    from pyflowkit.common import Configuration
    from pyflowkit.spark.executor import _configuration, _job_graph, start_streaming
    from tests.spark_streaming.helpers import RECORDS_PER_BATCH

    configuration = Configuration()
    for key, value in {
        "pyflowkit.spark.streaming-query": "always",
        "pyflowkit.spark.streaming.trigger": "available-now",
        "pyflowkit.spark.streaming.max-records-per-batch": str(RECORDS_PER_BATCH * 2),
    }.items():
        configuration.set_string(key, value)
    env.configure(configuration)
    job = start_streaming(_job_graph(env, None), _configuration(env), spark, print_output=False)
    job.wait(timeout=1800)
    job.raise_if_failed()
    assert job.status == "FINISHED"
    assert job.batches >= 2, "the input was not split into several micro-batches"
    return job.print_lines


_RUNS: dict[tuple[str, str, int], Outputs | BaseException] = {}


def outputs(host: str, mode: str, p: int, spark: Any = None) -> Outputs:
    """The matrix job's outputs, run once per test session (a failed job too): one job per
    (host, mode) with every parallelism, but one per parallelism as a streaming query (one
    Structured Streaming query with all of them fails to start its Python workers on a loaded
    2-core machine)."""
    group = (p,) if host == "spark-streaming" else PARALLELISMS
    run_key = (host, mode, group[0] if len(group) == 1 else 0)
    if run_key not in _RUNS:
        try:
            env = build_env(mode, parallelisms=group)
            _RUNS[run_key] = Outputs.parse(run_lines(host, mode, env, spark))
        except Exception as exc:  # every cell of the job reports the job's failure
            _RUNS[run_key] = exc
    run = _RUNS[run_key]
    if isinstance(run, BaseException):
        raise AssertionError(f"the {host} {mode} matrix job failed: {run}") from run
    return run


def cells(hosts: tuple[str, ...]) -> list[Any]:
    params = []
    for host in hosts:
        for mode in MODES[host]:
            for p in PARALLELISMS:
                for op in OPS:
                    for kind in kinds(op):
                        reason = KNOWN_FAILURES.get((host, mode, op))
                        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                        cell_id = f"{host}-{mode}-p{p}-{op}-{kind}"
                        params.append(
                            pytest.param(host, mode, p, op, kind, marks=marks, id=cell_id)
                        )
    return params


def assert_cell(host: str, mode: str, p: int, op: str, kind: str, out: Outputs) -> None:
    problems = check_cell(op, kind, p, mode, out)
    assert not problems, f"{op} with {kind} state, {mode}, parallelism {p}, {host}:\n" + "\n".join(
        problems[:8]
    )


@pytest.mark.parametrize(("host", "mode", "p", "op", "kind"), cells(IN_PROCESS))
def test_each_record_sees_its_keys_state(host: str, mode: str, p: int, op: str, kind: str) -> None:
    assert_cell(host, mode, p, op, kind, outputs(host, mode, p))


@pytest.mark.slow
@pytest.mark.parametrize(("host", "mode", "p", "op", "kind"), cells(SPARK))
def test_each_record_sees_its_keys_state_on_spark(
    spark: Any, host: str, mode: str, p: int, op: str, kind: str
) -> None:
    assert_cell(host, mode, p, op, kind, outputs(host, mode, p, spark))


keys = st.lists(st.sampled_from(KEYS[:5]), min_size=1, max_size=24)


@settings(max_examples=max(1, settings.default.max_examples // 8), deadline=None)  # ci: 6
@given(
    left=keys,
    right=st.lists(st.sampled_from(KEYS[:5]), min_size=1, max_size=8),
    rules=st.lists(st.sampled_from("xyz"), min_size=1, max_size=2),
    mode=st.sampled_from((STREAMING, BATCH)),
    p=st.sampled_from(PARALLELISMS),
    seed=st.integers(0, 2**16),
)
@pytest.mark.parametrize("host", IN_PROCESS)
def test_random_key_sequences_and_interleavings(
    host: str, left: list, right: list, rules: list, mode: str, p: int, seed: int
) -> None:
    """Any key sequence, any interleaving of the inputs (the seed), every op and state kind."""
    inputs = Inputs(tuple(left), tuple(right), tuple(rules))
    out = Outputs.parse(
        run_lines(host, mode, build_env(mode, inputs, parallelisms=(p,)), seed=seed)
    )
    problems = [
        f"{op}/{kind}: {problem}"
        for op in OPS
        if (host, mode, op) not in KNOWN_FAILURES
        for kind in kinds(op)
        for problem in check_cell(op, kind, p, mode, out, inputs)[:2]
    ]
    assert not problems, "\n".join(problems[:12])


# Flink 1.11's count_window(1) is GlobalWindows + PurgingTrigger(CountTrigger(1)): one window per
# key whose state lives on across firings (the matrix above checks 1.20's CountWindow per record)
@pytest.mark.flink_version("1.11")
@pytest.mark.parametrize("mode", (STREAMING, BATCH))
def test_1_11_count_window_state_lives_on_in_the_global_window(mode: str) -> None:
    op = "window_process_window"
    out = Outputs.parse(run_lines("reference", mode, build_env(mode, ops=(op,), parallelisms=(2,))))
    for kind in STATES:
        assert check_cell(op, kind, 2, mode, out) == []
    assert check_cell(op, "list", 2, mode, out, version="1.20")  # not 1.20's one-record windows


# ---------------------------------------------------------------------------------------------
# the model itself: it rejects state that is not per key, and accepts state that is
# ---------------------------------------------------------------------------------------------
class _FakeState:
    """One state of any kind over a dict of per-key values (``key()`` picks the slot)."""

    def __init__(self, slots: dict, key: Any, reduce: Any = None) -> None:
        self.slots, self.key, self.reduce = slots, key, reduce

    def value(self) -> Any:
        return self.slots.get(self.key())

    def update(self, value: Any) -> None:
        self.slots[self.key()] = value

    def add(self, value: Any) -> None:
        old = self.slots.get(self.key())
        if self.reduce is None:
            self.slots[self.key()] = [*(old or []), value]
        else:
            self.slots[self.key()] = value if old is None else self.reduce(old, value)

    def get(self) -> Any:
        return self.slots.get(self.key())

    def put(self, k: Any, v: Any) -> None:
        self.slots.setdefault(self.key(), {})[k] = v

    def keys(self) -> Any:
        return list(self.slots.get(self.key(), {}))

    def items(self) -> Any:
        return list(self.slots.get(self.key(), {}).items())


class _FakeContext:
    """A runtime context whose states are scoped by ``scope(record key)``."""

    def __init__(self, scope: Any) -> None:
        self.scope = scope
        self.current: Any = None

    def _state(self, descriptor: Any, reduce: Any = None) -> _FakeState:
        return _FakeState(defaultdict(), lambda: self.scope(self.current), reduce)

    get_state = get_list_state = get_map_state = _state

    def get_reducing_state(self, descriptor: Any) -> _FakeState:
        return self._state(descriptor, descriptor.reduce_function)

    def get_aggregating_state(self, descriptor: Any) -> _FakeState:
        return self._state(descriptor, lambda a, b: f"{a},{b}")


def _fake_map_run(scope: Any, inputs: Inputs) -> Outputs:
    context = _FakeContext(scope)
    probe = MapProbe("map@1")
    probe.open(context)
    lines = []
    for record in inputs.left_records():
        context.current = record[0]
        lines.append(probe.map(record))
    return Outputs.parse(lines)


@pytest.mark.parametrize("kind", STATES)
def test_model_rejects_state_shared_by_keys(kind: str) -> None:
    """The issue's a1 a3 a5 b2 b4: one state for all keys is caught, per-key state passes."""
    inputs = Inputs(tuple("ababa"), ())
    per_key = _fake_map_run(lambda key: key, inputs)
    assert check_cell("map", kind, 1, STREAMING, per_key, inputs) == []
    shared = _fake_map_run(lambda key: None, inputs)
    problems = check_cell("map", kind, 1, STREAMING, shared, inputs)
    assert "key a: its state holds 2 records of other keys, [b#1, b#3] (2)" in problems, problems
    one_per_record = _fake_map_run(lambda key: object(), inputs)
    assert check_cell("map", kind, 1, BATCH, one_per_record, inputs)
