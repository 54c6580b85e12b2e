"""``key_by(..., key_type=...)`` converts each key with the declared type's coder, as PyFlink 1.20's
key_by does (measured: tests/goldens/programs/key_type_*.py): routing, key context, keyed state and
``ctx.get_current_key()`` all see the converted key; a key the coder refuses fails the job."""

from __future__ import annotations

import pytest

from pyflowkit.common import Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import KeyedProcessFunction
from pyflowkit.datastream.state import ValueStateDescriptor
from pyflowkit.operators.declared_types import converting_key_selector
from pyflowkit.runtime import MiniCluster


def _first(r):
    return r[0]


def _converted(key_type, key):
    return converting_key_selector(_first, key_type, "key_by after operator 'src'")((key, 0))


@pytest.mark.parametrize(
    ("key_type", "key", "expected"),
    [
        (Types.INT(), 1.7, 1),  # int(): truncation toward zero
        (Types.INT(), -1.5, -1),
        (Types.INT(), True, 1),
        (Types.INT(), 7, 7),
        (Types.LONG(), 1900.9, 1900),
        (Types.SHORT(), -32768.2, -32768),
        (Types.BYTE(), 127.9, 127),
        (Types.FLOAT(), 0.1, 0.10000000149011612),  # rounded to 32 bits
        (Types.FLOAT(), 1, 1.0),
        (Types.DOUBLE(), 3, 3.0),
        (Types.BOOLEAN(), 0.0, False),
        (Types.BOOLEAN(), 2, True),
        (Types.STRING(), "a", "a"),
        (Types.TUPLE([Types.INT(), Types.STRING()]), (1.5, "a"), (1, "a")),
    ],
)
def test_each_key_type_converts_as_its_coder(key_type, key, expected) -> None:
    got = _converted(key_type, key)
    assert got == expected
    assert type(got) is type(expected)


@pytest.mark.parametrize(
    ("key_type", "key", "error", "text"),
    [
        (Types.INT(), 2147483653.0, OverflowError, "value too large to convert to int32_t"),
        (Types.INT(), 2**31, OverflowError, "value too large to convert to int32_t"),
        (Types.BYTE(), 128, OverflowError, "value too large to convert to int8_t"),
        (Types.LONG(), 2**70, OverflowError, "Python int too large to convert to C long"),
        (Types.INT(), "1", TypeError, "an integer is required"),
        (Types.STRING(), 1, AttributeError, "'int' object has no attribute 'encode'"),
        (Types.STRING(), None, AttributeError, "'NoneType' object has no attribute 'encode'"),
        (Types.BOOLEAN(), "yes", TypeError, "an integer is required"),
    ],
)
def test_a_refused_key_names_the_key_by_the_rule_and_pyflinks_text(
    key_type, key, error, text
) -> None:
    with pytest.raises(error) as raised:
        _converted(key_type, key)
    message = str(raised.value)
    assert message.startswith(
        f"key_by after operator 'src': cannot serialize key {key!r} ({type(key).__name__}) "
        f"with its declared type {key_type}: {text}."
    )
    assert "Fix: return keys of the declared key_type, or leave key_type out." in message


_BATCHES = [
    (Types.STRING(), ["a", "b", "a", "é"]),
    (Types.INT(), [1, 2.7, True, -3]),
    (Types.LONG(), [1, 2**40, -(2**40)]),
    (Types.FLOAT(), [0.1, 1, 2.5]),
    (Types.BOOLEAN(), [True, 0, 2.0]),
    (Types.TUPLE([Types.INT(), Types.STRING()]), [(1.5, "a"), (2, "b")]),
    (Types.INT(), []),
]


@pytest.mark.parametrize(("key_type", "keys"), _BATCHES)
def test_a_batch_of_keys_converts_as_each_key_alone(key_type, keys) -> None:
    """The batch form (``key_batch_selector``: routing, the keyed reduce and the pushdown select a
    batch's keys at once) gives each record's key exactly as ``select_converted_key`` does."""
    from pyflowkit.state.key_groups import key_batch_selector

    select = converting_key_selector(_first, key_type, "key_by after operator 'src'")
    records = [(k, 0) for k in keys]
    got = key_batch_selector(select)(records)
    want = [select(r) for r in records]
    assert got == want
    assert list(map(type, got)) == list(map(type, want))


def _batch_failure(key_type, records, selector=_first):
    from pyflowkit.state.key_groups import key_batch_selector

    select = converting_key_selector(selector, key_type, "key_by after operator 'src'")
    with pytest.raises(Exception) as batch:
        key_batch_selector(select)(records)
    with pytest.raises(Exception) as one_by_one:
        for r in records:
            select(r)
    assert type(batch.value) is type(one_by_one.value)
    assert str(batch.value) == str(one_by_one.value)
    return batch.value


def test_a_batch_with_refused_keys_fails_on_the_first_as_record_by_record() -> None:
    failure = _batch_failure(Types.INT(), [(1, 0), (2**31, 0), ("x", 0), (2**40, 0)])
    assert "cannot serialize key 2147483648 (int)" in str(failure)
    failure = _batch_failure(Types.STRING(), [("a", 0), (None, 0), (1, 0)])
    assert "'NoneType' object has no attribute 'encode'" in str(failure)


def _fails_on_x(record):
    if record[0] == "x":
        raise ValueError("selector failed on x")
    return record[0]


def test_a_refused_key_before_a_failing_selector_call_fails_first_as_record_by_record() -> None:
    failure = _batch_failure(Types.STRING(), [("a", 0), (1, 0), ("x", 0)], _fails_on_x)
    assert type(failure) is AttributeError  # the refused key 1, not the selector's ValueError
    failure = _batch_failure(Types.STRING(), [("a", 0), ("x", 0), (1, 0)], _fails_on_x)
    assert str(failure) == "selector failed on x"


def test_an_undeclared_or_pickled_key_type_leaves_the_selector_alone() -> None:
    assert converting_key_selector(_first, None, "k") is _first
    assert converting_key_selector(_first, Types.PICKLED_BYTE_ARRAY(), "k") is _first


class _KeyAndCount(KeyedProcessFunction):
    def open(self, runtime_context) -> None:
        self.count = runtime_context.get_state(ValueStateDescriptor("n", Types.INT()))

    def process_element(self, value, ctx):
        n = (self.count.value() or 0) + 1
        self.count.update(n)
        yield ctx.get_current_key(), value[0], n


def _run(env) -> list[str]:
    run = MiniCluster(echo_print=False).submit(env).run()
    run.raise_if_failed()
    return run.printed()


def test_state_and_current_key_are_scoped_by_the_converted_key_at_parallelism_2() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    data = [(1.7, 1), (1.2, 2), (2.0, 3), (2.9, 4), (-1.5, 5), (-1.2, 6), (0.4, 7)]
    (
        env.from_collection(data)
        .key_by(lambda r: r[0], key_type=Types.INT())
        .process(_KeyAndCount())
        .print("k")
    )
    lines = _run(env)
    by_key: dict[int, list[tuple]] = {}
    subtask_of: dict[int, set[str]] = {}
    for line in lines:
        prefix, _, rest = line.partition("> ")
        key, raw, n = eval(rest)  # noqa: S307 - our own tuple text
        by_key.setdefault(key, []).append((raw, n))
        subtask_of.setdefault(key, set()).add(prefix)
    assert by_key == {
        1: [(1.7, 1), (1.2, 2)],
        2: [(2.0, 1), (2.9, 2)],
        -1: [(-1.5, 1), (-1.2, 2)],
        0: [(0.4, 1)],
    }
    assert all(len(s) == 1 for s in subtask_of.values())  # one subtask per converted key


def test_an_out_of_range_key_fails_the_job_even_without_state() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    (
        env.from_collection([(1.0, 1), (2147483653.0, 2)])
        .key_by(lambda r: r[0], key_type=Types.INT())
        .map(lambda r: r[1])
        .print("m")
    )
    run = MiniCluster(echo_print=False).submit(env).run()
    with pytest.raises(Exception) as raised:
        run.raise_if_failed()
    chain = []
    error: BaseException | None = raised.value
    while error is not None:
        chain.append(f"{type(error).__name__}: {error}")
        error = error.__cause__
    assert any(
        link.startswith(
            "OverflowError: key_by after operator 'Source: Collection Source': cannot serialize "
            "key 2147483653.0 (float) with its declared type Integer: value too large to convert "
            "to int32_t."
        )
        for link in chain
    ), chain
