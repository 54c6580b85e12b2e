"""Same program + seed → same trace, byte for byte; rewind(k) replays exactly."""

import pytest

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.runtime import MiniCluster, load_trace
from pyflowkit.runtime.trace import trace_to_json
from tests.runtime.fake_chain import demo_job, fake_chain_factory


def full_run(seed: int) -> str:
    cluster = MiniCluster(seed=seed, chain_factory=fake_chain_factory, echo_print=False)
    run = cluster.submit(demo_job(30))
    run.step(10_000)
    return run.trace_json()


def test_twenty_runs_byte_equal() -> None:
    traces = {full_run(7) for _ in range(20)}
    assert len(traces) == 1


def test_seeds_explore_interleavings() -> None:
    assert len({full_run(seed) for seed in range(5)}) > 1


def test_rewind_then_step_equals_original() -> None:
    cluster = MiniCluster(seed=3, chain_factory=fake_chain_factory, echo_print=False)
    run = cluster.submit(demo_job(30))
    run.step(10_000)
    total = run.steps_taken
    assert total > 80
    original = run.trace_json()
    results = run.results()
    for k in (0, 1, 57, total - 20, total):
        run.rewind(k)
        assert run.steps_taken == k
        assert [e.step for e in run.trace] == sorted(e.step for e in run.trace)
        assert all(e.step <= k for e in run.trace)
        run.step(10_000)
        assert run.trace_json() == original
        assert run.results() == results


def test_rewind_replays_steering_commands() -> None:
    cluster = MiniCluster(seed=1, chain_factory=fake_chain_factory, echo_print=False)
    from pyflowkit.common.restart_strategy import RestartStrategies

    run = cluster.submit(demo_job(40, RestartStrategies.fixed_delay_restart(2, 500)))
    run.step(60)
    run.fail_task("Map", 0, cause="boom")
    run.step(10_000)
    original = run.trace_json()
    run.rewind(30)
    run.step(10_000)
    assert run.trace_json() == original
    assert "boom" in original


def test_save_and_load_trace(tmp_path) -> None:
    cluster = MiniCluster(chain_factory=fake_chain_factory, echo_print=False)
    run = cluster.submit(demo_job())
    run.run()
    path = run.save_trace(tmp_path / "trace.json")
    loaded = load_trace(path)
    assert loaded == run.trace
    assert trace_to_json(loaded) == path.read_text(encoding="utf-8")
    assert b"pickle" not in path.read_bytes()
    frame = run.trace_frame()
    assert list(frame.columns[:5]) == ["step", "time", "component", "method", "message"]
    assert len(frame) == len(run.trace)


def test_bad_arguments() -> None:
    run = MiniCluster(chain_factory=fake_chain_factory, echo_print=False).submit(demo_job())
    with pytest.raises(IllegalArgumentException, match="n must be an int >= 1"):
        run.step(0)
    with pytest.raises(IllegalArgumentException, match="between 0 and the current step 0"):
        run.rewind(5)
    with pytest.raises(IllegalArgumentException, match="No vertex 'Nope'"):
        run.fail_task("Nope", 0)
    with pytest.raises(IllegalArgumentException, match="parallelism 2; subtask must be in"):
        run.fail_task("Map", 2)
    with pytest.raises(IllegalArgumentException, match="unknown option"):
        MiniCluster(buffer_sise=3)
    with pytest.raises(IllegalArgumentException, match="task_managers must be an int >= 1"):
        MiniCluster(task_managers=0)


def test_same_program_same_seed_same_bytes_from_an_environment() -> None:
    from pyflowkit.datastream import StreamExecutionEnvironment

    def trace_of(seed: int) -> str:
        env = StreamExecutionEnvironment.get_execution_environment()
        env.set_parallelism(2)
        env.from_collection(["a b", "b c", "c a"] * 5).flat_map(str.split).map(
            lambda w: (w, 1)
        ).key_by(lambda t: t[0]).reduce(lambda a, b: (a[0], a[1] + b[1])).print()
        run = MiniCluster(seed=seed, echo_print=False).submit(env, "wc")
        run.step(100_000)
        return run.trace_json()

    assert trace_of(4) == trace_of(4)
    assert trace_of(4) != trace_of(5)


def test_rewind_with_real_operators_replays_fresh_functions() -> None:
    from pyflowkit.datastream import StreamExecutionEnvironment

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.from_collection(list(range(40))).map(lambda x: (x % 4, x)).key_by(lambda t: t[0]).reduce(
        lambda a, b: (a[0], a[1] + b[1])
    ).print()
    run = MiniCluster(seed=9, echo_print=False).submit(env, "rw")
    run.step(100_000)
    original, printed = run.trace_json(), run.printed()
    assert repr(run).startswith("JobRun(job='rw', status=FINISHED, step=")
    run.rewind(run.steps_taken // 2)
    assert len(run.printed()) < len(printed)
    run.step(100_000)
    assert run.trace_json() == original
    assert run.printed() == printed
