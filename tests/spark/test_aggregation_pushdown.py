"""Flink's keyed sum/min/max/min_by/max_by pushed down to Spark (BATCH) give, per subtask and in
order, exactly the records of the simulated cluster's Python fold; what is not pushed down says
why in explain_spark()."""

from __future__ import annotations

from collections import defaultdict

import pytest

from pyflowkit.common import Configuration, Types
from pyflowkit.common.types import Row
from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from pyflowkit.java_semantics import INT_MAX_VALUE, INT_MIN_VALUE, LONG_MAX_VALUE
from pyflowkit.spark.aggregation_pushdown import ENABLED_KEY
from pyflowkit.spark.plan import effective_runtime_mode, stage_specs

TUPLE = Types.TUPLE([Types.STRING(), Types.INT(), Types.LONG(), Types.STRING()])
# (key, int, long, tag): ties on the int field, int and long overflow, keys first seen out of order
DATA = [
    ("b", 5, LONG_MAX_VALUE, "b0"),
    ("a", 3, 1, "a0"),
    ("a", 1, 2, "a1"),
    ("b", 5, 10, "b1"),
    ("c", INT_MAX_VALUE, LONG_MAX_VALUE, "c0"),
    ("a", 1, 3, "a2"),
    ("c", 7, 5, "c1"),
    ("b", -2, 1, "b2"),
    ("a", 9, -4, "a3"),
    ("c", INT_MAX_VALUE, 1, "c2"),
    ("b", 9, 2, "b3"),
    ("b", 9, 3, "b4"),
]


def _set_pushdown(env, value: str) -> None:
    from pyflowkit.common import Configuration

    conf = Configuration()
    conf.set_string(ENABLED_KEY, value)
    env.configure(conf)


def _env(mode: str = "BATCH", p: int = 2) -> StreamExecutionEnvironment:
    """At parallelism ``p`` whatever the version: the tests compare the hosts subtask by
    subtask (under 1.20 ``set_parallelism`` is only the AdaptiveBatchScheduler's upper bound)."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(p)
    if mode == "BATCH":
        env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    _set_pushdown(env, "true")
    conf = Configuration()
    conf.set_string("execution.batch.adaptive.auto-parallelism.enabled", "false")
    env.configure(conf)
    return env


def _keyed(env, data=DATA, type_info=TUPLE):
    source = env.from_collection(data, type_info=type_info)
    return source.key_by(lambda t: t[0], key_type=Types.STRING())


def _per_subtask(lines: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for line in lines:
        prefix, _, rest = line.partition("> ")
        out[prefix].append(rest)
    return dict(out)


def _both(spark, env) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    from pyflowkit.reference.local_driver import run_local
    from pyflowkit.spark.executor import execute

    graph = env.get_job_graph()
    spark_lines = execute(graph, spark=spark, print_output=False).print_lines
    return _per_subtask(spark_lines), _per_subtask(run_local(graph).printed)


def _pushdown_lines(spark, env) -> list[str]:
    from pyflowkit.spark.executor import explain_spark

    return explain_spark(env, spark=spark).pushdown


def test_sum_wraps_as_java_int_and_long_on_the_simulated_cluster() -> None:
    """SumAggregator on a declared Integer/Long field wraps like Flink's IntSum/LongSum."""
    from pyflowkit.reference.local_driver import run_local

    env = _env(p=1)
    keyed = _keyed(env, [("c", INT_MAX_VALUE, LONG_MAX_VALUE, "x"), ("c", 2, 3, "y")])
    keyed.sum(1).print()
    keyed.sum(2).print()
    printed = run_local(env.get_job_graph()).printed
    assert sorted(printed) == sorted(
        [f"(c,{INT_MIN_VALUE + 1},{LONG_MAX_VALUE},x)", f"(c,{INT_MAX_VALUE},{-(2**63) + 2},x)"]
    )


def _specs(env):
    graph = env.get_job_graph()
    return stage_specs(graph, graph.stream_graph.execution_config, effective_runtime_mode(graph))


def test_the_producer_combines_the_aggregation_edge_by_default_in_batch() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    _keyed(env).sum(1).print()
    specs = _specs(env)
    assert list(specs[0].combine) == [0] and specs[0].combine[0].kind == "sum"
    assert specs[1].combine == {}  # the consumer folds as usual
    assert specs[1].typed[0].spark_ddl == (
        "e0 array<struct<`f0`:string,`f1`:int,`f2`:bigint,`f3`:string>>"
    )
    env = _env("STREAMING")
    _keyed(env).sum(1).print()
    assert _specs(env)[0].combine == {}
    env = _env()
    _set_pushdown(env, "false")
    _keyed(env).sum(1).print()
    assert _specs(env)[0].combine == {}


@pytest.mark.spark
@pytest.mark.parametrize(
    "kind, field", [("sum", 1), ("sum", 2), ("min", 1), ("max", 3), ("min_by", 1), ("max_by", 1)]
)
def test_pushed_down_aggregation_matches_the_python_fold(spark, kind, field) -> None:
    env = _env()
    getattr(_keyed(env), kind)(field).print()
    assert any(
        "pushed down to the producers' Arrow stage" in line for line in _pushdown_lines(spark, env)
    )
    on_spark, simulated = _both(spark, env)
    assert on_spark == simulated
    assert sum(map(len, on_spark.values())) == 3  # one record per key


@pytest.mark.spark
def test_row_field_by_name_and_pickled_chunks_in_between(spark) -> None:
    """A Row field by name; a True in the INT field (fits Types.INT() but not the typed column)
    makes its chunks travel pickled, folded by the chain between Spark's partial records."""
    row_type = Types.ROW_NAMED(["k", "v", "tag"], [Types.STRING(), Types.INT(), Types.STRING()])
    data = [Row(k=f"k{i % 7}", v=(i * 37) % 11 - 5, tag=f"t{i}") for i in range(5000)]
    data[2500] = Row(k="k1", v=True, tag="bool")
    for kind in ("sum", "min_by", "max"):
        env = _env()
        source = env.from_collection(data, type_info=row_type)
        keyed = source.key_by(lambda r: r.k, key_type=Types.STRING())
        getattr(keyed, kind)("v").print()
        on_spark, simulated = _both(spark, env)
        assert on_spark == simulated, kind
        assert sum(map(len, on_spark.values())) == 7


@pytest.mark.spark
def test_explain_says_what_is_not_pushed_down(spark) -> None:
    env = _env()
    floats = Types.TUPLE([Types.STRING(), Types.DOUBLE()])
    env.from_collection([("a", 0.1)], type_info=floats).key_by(
        lambda t: t[0], key_type=Types.STRING()
    ).sum(1).print()
    env.from_collection(DATA, type_info=TUPLE).key_by(
        lambda t: (t[0], t[1]), key_type=Types.TUPLE([Types.STRING(), Types.INT()])
    ).min(1).print()
    lines = _pushdown_lines(spark, env)
    assert any("sum on a Double field stays a Python fold" in line for line in lines)
    assert any("is not a Byte…Long, String or Boolean" in line for line in lines)
    env = _env("STREAMING")
    _keyed(env).sum(1).print()
    assert any("STREAMING mode" in line for line in _pushdown_lines(spark, env))
    on_spark, simulated = _both(spark, env)
    assert on_spark == simulated
    assert sum(map(len, on_spark.values())) == len(DATA)  # running updates stay


# keys without a declared key type: str, int and bool chunks are combined (type inferred per
# chunk); None, tuples, floats, lone surrogates and mixed chunks travel uncombined
_UNTYPED = Types.TUPLE([Types.INT(), Types.STRING()])
_UNTYPED_KEYS = ["a", "b", 1, 2, True, False, None, ("a", 1), 1.0, "\ud800", 2**70]


def _untyped_key(i: int) -> object:
    block = i // 1000  # uniform str / int / bool blocks, then mixed ones
    if block == 0:
        return "abc"[i % 3]
    if block == 1:
        return i % 4
    if block == 2:
        return i % 3 == 0
    return _UNTYPED_KEYS[(i * 7) % len(_UNTYPED_KEYS)]


@pytest.mark.spark
@pytest.mark.parametrize("kind", ["sum", "min_by", "max"])
def test_untyped_keys_are_pushed_down_and_match_the_python_fold(spark, kind) -> None:
    """``key_by(selector)`` with no key_type: pushed down, same records per subtask and in the
    same order as the simulated cluster, with mixed keys, None, tuples, floats, lone surrogates
    and ints beyond a Java long."""
    env = _env()
    data = [(i * 37 % 11 - 5, f"t{i}") for i in range(6000)]
    keys = [_untyped_key(i) for i in range(len(data))]
    source = env.from_collection(data, type_info=_UNTYPED)
    getattr(source.key_by(lambda t, keys=keys: keys[int(t[1][1:])]), kind)(0).print()
    assert any(
        "pushed down to the producers' Arrow stage" in line for line in _pushdown_lines(spark, env)
    )
    on_spark, simulated = _both(spark, env)
    assert on_spark == simulated
    assert sum(map(len, on_spark.values())) >= len(_UNTYPED_KEYS) + 3


@pytest.mark.spark
def test_untyped_string_keys_by_lambda_and_by_row_field(spark) -> None:
    """The word-count shape without key_type (tuple position) and a Row field by name."""
    env = _env()
    _set_pushdown(env, "true")
    env.from_collection(DATA, type_info=TUPLE).key_by(lambda t: t[0]).sum(1).print()
    row_type = Types.ROW_NAMED(["k", "v"], [Types.STRING(), Types.INT()])
    rows = [Row(k=f"k{i % 5}", v=i % 9 - 4) for i in range(3000)]
    env.from_collection(rows, type_info=row_type).key_by(lambda r: r.k).min_by("v").print()
    lines = _pushdown_lines(spark, env)
    assert sum("pushed down to the producers' Arrow stage" in line for line in lines) == 2
    on_spark, simulated = _both(spark, env)
    assert on_spark == simulated
    assert sum(map(len, on_spark.values())) == 3 + 5


def test_float_keys_declared_int_are_truncated_on_both_hosts_and_pushed_down(spark) -> None:
    """PyFlink's INT key coder truncates float keys (1.7 and 1.2 share key 1): the pushed-down
    sum and the simulated cluster's fold group by the converted key, and agree line for line."""
    env = _env()
    data = [(1.7, 1), (1.2, 2), (2.0, 3), (2.9, 4), (-1.5, 5), (-1.2, 6), (0.4, 7)]
    source = env.from_collection(data, type_info=Types.TUPLE([Types.DOUBLE(), Types.INT()]))
    source.key_by(lambda t: t[0], key_type=Types.INT()).sum(1).print("s")
    assert any("pushed down" in line for line in _pushdown_lines(spark, env))
    on_spark, simulated = _both(spark, env)
    assert on_spark == simulated
    assert sorted(line for lines in on_spark.values() for line in lines) == [
        "(-1.5,11)",
        "(0.4,7)",
        "(1.7,3)",
        "(2.0,7)",
    ]
