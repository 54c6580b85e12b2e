"""Differential: pipelines built with the real API give the same records per sink on Spark as in
the in-process reference driver (``pyflowkit.reference.local_driver``) and as plain Python.
Tests taking ``spark_host`` run on the embedded session and on the local Spark service (Spark
Connect, ``pyflowkit spark start``, and a JobGraph submitted to its dispatcher), which programs
with no master configured use; on the service
one case of each kind of stage (keyed fold, aggregation pushdown, two inputs, side outputs, state
and timers, windows) proves the results equal, the other cases run embedded only."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from pyflowkit.common import Duration, Types, WatermarkStrategy
from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from pyflowkit.datastream.output_tag import OutputTag
from pyflowkit.state.java_hash import key_hash_function
from pyflowkit.state.key_groups import assign_key_to_parallel_operator

pytestmark = pytest.mark.spark

WORDS = "to be or not to be that is the question whether tis nobler in the mind to suffer".split()
LINES = [" ".join(WORDS[i : i + 5]) for i in range(0, len(WORDS), 3)]
COUNTS = Counter(w for line in LINES for w in line.split())


def env_with(p: int, mode: str = "STREAMING") -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(p)
    if mode == "BATCH":
        env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    return env


def run_on(spark, graph):
    """The job's result on ``spark``: a session, or the service's dispatcher (``submitted``)."""
    from pyflowkit.spark.executor import execute

    if hasattr(spark, "state"):  # conftest.SubmittedHost
        return spark.execute(graph, print_output=False)
    return execute(graph, spark=spark, print_output=False)


def run_both(spark, env) -> tuple[list[str], list[str]]:
    """(Spark print lines, reference print lines) for the same JobGraph."""
    from pyflowkit.reference.local_driver import run_local

    graph = env.get_job_graph()
    spark_lines = run_on(spark, graph).print_lines
    local_lines = run_local(graph).printed
    return spark_lines, local_lines


def strip(lines: list[str]) -> list[str]:
    return [line.split("> ", 1)[1] if "> " in line[:5] else line for line in lines]


def per_subtask(lines: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for line in lines:
        prefix, _, rest = line.partition("> ") if "> " in line[:5] else ("", "", line)
        out[prefix].append(rest)
    return dict(out)


def flink_tuple(text: str) -> tuple[str, int]:
    """Parse a typed Tuple2 as Flink prints it: ``(word,3)``."""
    word, n = text.strip("()").rsplit(",", 1)
    return word, int(n)


def per_key(lines: list[str], key) -> dict[tuple[str, object], list[str]]:
    """Records per (subtask prefix, key), in order: Flink's ordering guarantee."""
    out: dict[tuple[str, object], list[str]] = defaultdict(list)
    for prefix, values in per_subtask(lines).items():
        for v in values:
            out[(prefix, key(v))].append(v)
    return dict(out)


def word_count(env):
    return (
        env.from_collection(LINES, type_info=Types.STRING())
        .flat_map(lambda line: line.split(), output_type=Types.STRING())
        .map(lambda w: (w, 1), output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda t: t[0], key_type=Types.STRING())
    )


@pytest.mark.parametrize("p", [1, 2, 3, 4])
def test_map_filter(spark, p) -> None:
    env = env_with(p)
    env.from_collection(list(range(30))).map(lambda x: x * 3).filter(lambda x: x % 2 == 0).print()
    s, ref = run_both(spark, env)
    assert Counter(s) == Counter(ref)
    assert sorted(int(v) for v in strip(s)) == [x * 3 for x in range(30) if x * 3 % 2 == 0]


def hosts(name: str, values: list, on_service: list):
    """``values`` on the embedded session, ``on_service`` also on the local Spark service."""
    cases = [("embedded", v) for v in values]
    cases += [(host, v) for host in ("service", "submitted") for v in on_service]
    return pytest.mark.parametrize(f"spark_host,{name}", cases, indirect=["spark_host"])


@hosts("p", [1, 2, 3, 4], on_service=[2])
def test_word_count_reduce_streaming(spark_host, p) -> None:
    env = env_with(p)
    word_count(env).reduce(lambda a, b: (a[0], a[1] + b[1])).print()
    s, ref = run_both(spark_host, env)
    # same lines on the same subtasks, in the same order per key (Flink's guarantee)
    assert per_key(s, lambda v: flink_tuple(v)[0]) == per_key(ref, lambda v: flink_tuple(v)[0])
    finals: dict[str, int] = {}
    for line in strip(s):
        w, n = flink_tuple(line)
        finals[w] = max(finals.get(w, 0), n)
    assert finals == dict(COUNTS)
    if p > 1:  # the key's subtask under the env's Flink version (its profile's KEY_BY_ROW rule)
        keys_by_row = env.get_flink_version_profile().key_by.keys_by_row
        key_hash = key_hash_function(keys_by_row, Types.STRING())
        for line in s:
            prefix, rest = line.split("> ", 1)
            word = flink_tuple(rest)[0]
            assert int(prefix) - 1 == assign_key_to_parallel_operator(word, 128, p, key_hash)


@hosts("p", [1, 2, 3], on_service=[2])
def test_word_count_sum_batch_emits_final_results_only(spark_host, p) -> None:
    env = env_with(p, "BATCH")
    word_count(env).sum(1).print()
    lines = run_on(spark_host, env.get_job_graph()).print_lines
    assert sorted(flink_tuple(v) for v in strip(lines)) == sorted(COUNTS.items())


@hosts("agg", ["min", "max", "min_by", "max_by"], on_service=["max_by"])
def test_keyed_aggregations(spark_host, agg) -> None:
    env = env_with(2)
    data = [("a", 3, "x"), ("b", 1, "y"), ("a", 1, "z"), ("b", 5, "w"), ("a", 7, "v")]
    stream = env.from_collection(data).key_by(lambda t: t[0])
    getattr(stream, agg)(1).print()
    s, ref = run_both(spark_host, env)
    assert per_key(s, lambda v: eval(v)[0]) == per_key(ref, lambda v: eval(v)[0])
    assert len(s) == len(data)


@pytest.mark.parametrize(
    "partition", ["rebalance", "rescale", "shuffle", "broadcast", "global_", "forward", "custom"]
)
def test_partitioners(spark, partition) -> None:
    env = env_with(2)
    src = env.from_collection(list(range(20)))
    if partition == "forward":
        stream = src.map(lambda x: x).set_parallelism(1).forward()
        down = stream.map(lambda x: x + 100).set_parallelism(1)
    elif partition == "custom":
        down = src.partition_custom(lambda k, n: k % n, lambda x: x).map(lambda x: x + 100)
    else:
        down = getattr(src, partition)().map(lambda x: x + 100)
    down.print()
    s, ref = run_both(spark, env)
    assert Counter(strip(s)) == Counter(strip(ref))
    copies = 2 if partition == "broadcast" else 1
    assert sorted(int(v) for v in strip(s)) == sorted([x + 100 for x in range(20)] * copies)
    if partition in ("global_", "custom", "broadcast", "forward", "rescale"):
        assert Counter(s) == Counter(ref)  # deterministic routing: same subtasks too
    if partition == "custom":
        assert all(int(line.split("> ")[1]) % 2 == int(line[0]) - 1 for line in s)


def test_union_and_connect(spark_host) -> None:
    from pyflowkit.datastream.functions import CoMapFunction

    class Tag(CoMapFunction):
        def map1(self, value):
            return ("left", value)

        def map2(self, value):
            return ("right", value)

    env = env_with(2)
    a = env.from_collection([1, 2, 3])
    b = env.from_collection([10, 20])
    c = env.from_collection([100])
    a.union(b).map(lambda x: x + 1).print()
    a.connect(c).map(Tag()).print()
    s, ref = run_both(spark_host, env)
    assert Counter(strip(s)) == Counter(strip(ref))
    assert sorted(strip(s)) == sorted(
        ["2", "3", "4", "11", "21", "('left', 1)", "('left', 2)", "('left', 3)", "('right', 100)"]
    )


def test_side_outputs(spark_host) -> None:
    from pyflowkit.datastream.functions import ProcessFunction

    odd = OutputTag("odd", Types.INT())

    class Split(ProcessFunction):
        def process_element(self, value, ctx):
            if value % 2:
                yield odd, value
            else:
                yield value

    env = env_with(2)
    main = env.from_collection(list(range(10))).process(Split(), output_type=Types.INT())
    main.map(lambda x: ("even", x)).print()
    main.get_side_output(odd).map(lambda x: ("odd", x)).print()
    s, ref = run_both(spark_host, env)
    assert Counter(s) == Counter(ref)
    assert sorted(eval(v) for v in strip(s)) == sorted(
        [("even", x) for x in range(0, 10, 2)] + [("odd", x) for x in range(1, 10, 2)]
    )


def test_keyed_process_with_state_and_event_time_timers(spark_host) -> None:
    from pyflowkit.datastream.functions import KeyedProcessFunction
    from pyflowkit.datastream.state import ValueStateDescriptor

    class CountThenFire(KeyedProcessFunction):
        def open(self, runtime_context):
            self.count = runtime_context.get_state(ValueStateDescriptor("n", Types.LONG()))

        def process_element(self, value, ctx):
            self.count.update((self.count.value() or 0) + 1)
            ctx.timer_service().register_event_time_timer(ctx.timestamp() + 10)

        def on_timer(self, timestamp, ctx):
            yield (ctx.get_current_key(), timestamp, self.count.value())

    env = env_with(2)
    events = [("a", 1), ("b", 2), ("a", 3), ("a", 20), ("b", 40)]
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(0)
    ).with_timestamp_assigner(lambda e, ts: e[1])
    (
        env.from_collection(events)
        .assign_timestamps_and_watermarks(strategy)
        .key_by(lambda e: e[0])
        .process(CountThenFire())
        .print()
    )
    s, ref = run_both(spark_host, env)
    # Not compared with the reference driver: it shares one user-function instance between
    # subtasks (state handles overwritten by the last open()), unlike Flink's per-subtask copies.
    assert len(s) == len(ref)
    fired = sorted(eval(v) for v in strip(s))
    # timers at ts+10, deduplicated per (key, time); counts as seen when each timer fires
    assert [(k, t) for k, t, _ in fired] == [("a", 11), ("a", 13), ("a", 30), ("b", 12), ("b", 50)]
    # the bounded source ends at once, so every timer fires at the final MAX watermark
    assert [n for _, _, n in fired] == [3, 3, 3, 2, 2]


@hosts("mode", ["STREAMING", "BATCH"], on_service=["STREAMING"])
def test_tumbling_event_time_window(spark_host, mode) -> None:
    from pyflowkit.datastream.window import TumblingEventTimeWindows

    env = env_with(2, mode)
    events = [("a", 1, 1000), ("b", 2, 1500), ("a", 3, 4999), ("a", 4, 5000), ("b", 5, 9000)]
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        lambda e, ts: e[2]
    )
    (
        env.from_collection(events)
        .assign_timestamps_and_watermarks(strategy)
        .map(lambda e: (e[0], e[1]))
        .key_by(lambda t: t[0])
        .window(TumblingEventTimeWindows.of(Duration.of_seconds(5)))
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .print()
    )
    s, ref = run_both(spark_host, env)
    assert Counter(s) == Counter(ref)
    assert sorted(eval(v) for v in strip(s)) == [("a", 4), ("a", 4), ("b", 2), ("b", 5)]


def test_count_window(spark) -> None:
    env = env_with(2)
    data = [("a", i) for i in range(5)] + [("b", i) for i in range(4)]
    env.from_collection(data).key_by(lambda t: t[0]).count_window(2).sum(1).print()
    s, ref = run_both(spark, env)
    assert per_key(s, lambda v: eval(v)[0]) == per_key(ref, lambda v: eval(v)[0])
    assert sorted(eval(v) for v in strip(s)) == [("a", 1), ("a", 5), ("b", 1), ("b", 5)]
