"""Numbers as PyFlink 1.20 has them: a declared FLOAT is a 32-bit float wherever PyFlink serialises
it (a network edge, a sink), BYTE/SHORT/INT/LONG are what its coders make of a Python number, and
``from_collection`` narrows as its Java side does. Expected values were read off PyFlink 1.20.5's
compiled coders (``coder_impl_fast``) and ``PythonTypeUtils.converter``."""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.java_semantics import (
    coder_boolean,
    coder_float,
    coder_int,
    coder_real,
    java_float,
    java_float_to_string,
    java_narrow,
)
from pyflowkit.runtime import JobStatus
from tests.faults.helpers import chain_of, run_to_end

# (value, bits) → what PyFlink's IntCoderImpl & co. read back, or (exception, message)
CODER_INT = [
    (43878, 32, 43878),
    (-129, 16, -129),
    (3.7, 16, 3),
    (-3.7, 8, -3),
    (True, 32, 1),
    (2**31 - 1, 32, 2**31 - 1),
    (43878, 16, (OverflowError, "value too large to convert to int16_t")),
    (-129, 8, (OverflowError, "value too large to convert to int8_t")),
    (2**31, 32, (OverflowError, "value too large to convert to int32_t")),
    (2**63, 64, (OverflowError, "Python int too large to convert to C long")),
    ("5", 32, (TypeError, "an integer is required")),
    (None, 64, (TypeError, "an integer is required")),
    (float("nan"), 32, (ValueError, "cannot convert float NaN to integer")),
]


@pytest.mark.parametrize("value,bits,expected", CODER_INT)
def test_int_coders_convert_and_raise_as_pyflink(value: Any, bits: int, expected: Any) -> None:
    if isinstance(expected, tuple):
        error, message = expected
        with pytest.raises(error, match=message):
            coder_int(value, bits)
    else:
        got = coder_int(value, bits)
        assert got == expected and type(got) is int


def test_real_and_boolean_coders() -> None:
    assert coder_float(110.1) == 110.0999984741211
    assert coder_float(3.7) == 3.700000047683716
    assert coder_float(5) == 5.0 and type(coder_float(5)) is float
    assert coder_float(1e300) == float("inf")  # a C float cast overflows to infinity
    assert coder_real(110.1) == 110.1 and coder_real(True) == 1.0
    with pytest.raises(TypeError, match="must be real number, not str"):
        coder_float("5")
    assert coder_boolean(200) is True and coder_boolean(0) is False
    with pytest.raises(OverflowError, match="can't convert negative value to unsigned char"):
        coder_boolean(-1)


def test_java_casts_and_float_text() -> None:
    assert java_narrow(43878, 16) == -21658  # (short) 43878
    assert java_narrow(200, 8) == -56
    assert java_narrow(2**31, 32) == -(2**31)
    assert java_narrow(-1, 64) == -1
    assert java_float(110.1) == 110.0999984741211
    # Float.toString: the shortest text that reads back as the same float
    assert [java_float_to_string(java_float(x)) for x in (110.1, 0.1, 1e7, 1e-4, 1.4e-45)] == [
        "110.1",
        "0.1",
        "1.0E7",
        "1.0E-4",
        "1.4E-45",
    ]


def _float_job(env: StreamExecutionEnvironment) -> Any:
    """110.1 declared FLOAT, across a network edge (rebalance) into a map that shows its repr;
    the same value passed along a chained edge (not serialised) stays Python's double."""
    source = env.from_collection([110.1, 2.5], type_info=Types.DOUBLE())
    chained = source.map(lambda x: x, output_type=Types.FLOAT()).map(
        lambda x: f"chained {x!r}", output_type=Types.STRING()
    )
    shipped = (
        source.map(lambda x: x, output_type=Types.FLOAT())
        .rebalance()
        .map(lambda x: f"shipped {x!r}", output_type=Types.STRING())
    )
    return chained.union(shipped)


EXPECTED_FLOATS = sorted(
    ["chained 110.1", "chained 2.5", "shipped 110.0999984741211", "shipped 2.5"]
)


def _local(build: Any, parallelism: int = 1) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    build(env).print()
    return run_to_end(env)


def test_float_is_32_bit_across_an_edge_not_within_a_chain() -> None:
    run = _local(_float_job)
    assert run.job_status is JobStatus.FINISHED, run.failure_traceback
    assert sorted(run.printed()) == EXPECTED_FLOATS


def test_declared_float_prints_as_java_float() -> None:
    run = _local(lambda env: env.from_collection([110.1, 1e8], type_info=Types.FLOAT()))
    assert run.printed() == ["110.1", "1.0E8"]


def _collection_job(env: StreamExecutionEnvironment) -> Any:
    """from_collection's Java side narrows: 43878 as SHORT, 200 as BYTE, 110.1 as FLOAT."""
    shorts = env.from_collection([43878, 7], type_info=Types.SHORT()).map(
        lambda v: f"short {v!r}", output_type=Types.STRING()
    )
    byte_float = env.from_collection(
        [(200, 110.1)], type_info=Types.TUPLE([Types.BYTE(), Types.FLOAT()])
    ).map(lambda t: f"tuple {t!r}", output_type=Types.STRING())
    return shorts.union(byte_float)


EXPECTED_COLLECTION = sorted(["short -21658", "short 7", "tuple (-56, 110.0999984741211)"])


def test_from_collection_narrows_as_java_casts() -> None:
    run = _local(_collection_job)
    assert run.job_status is JobStatus.FINISHED, run.failure_traceback
    assert sorted(run.printed()) == EXPECTED_COLLECTION


def _running_sum(env: StreamExecutionEnvironment) -> Any:
    """A keyed running sum of FLOATs: each partial sum is a Java float on its way out."""
    return (
        env.from_collection([("a", 0.1), ("a", 0.2), ("a", 0.3)])
        .map(lambda t: t, output_type=Types.TUPLE([Types.STRING(), Types.FLOAT()]))
        .set_parallelism(1)  # chained to the source: the records keep their order
        .key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .map(lambda t: t[1], output_type=Types.FLOAT())
        .rebalance()
        .map(repr, output_type=Types.STRING())
    )


def _expected_running_sum() -> list[str]:
    total, out = None, []
    for x in (0.1, 0.2, 0.3):
        x = java_float(x)  # each input crossed the key_by edge as a FLOAT
        total = x if total is None else total + x
        out.append(repr(java_float(total)))
    return out


def test_running_sum_over_float_edges() -> None:
    run = _local(_running_sum)
    assert run.job_status is JobStatus.FINISHED, run.failure_traceback
    assert run.printed() == _expected_running_sum()
    assert run.printed() != ["0.1", "0.30000000000000004", "0.6000000000000001"]


def test_short_out_of_range_fails_the_job_with_pyflinks_overflow_error() -> None:
    run = _local(
        lambda env: (
            env.from_collection([1])
            .map(lambda x: 43878, output_type=Types.SHORT())
            .rebalance()
            .map(repr)
        )
    )
    assert run.job_status is JobStatus.FAILED
    root = chain_of(run.failure_cause)[-1]
    assert type(root) is OverflowError
    assert (
        "cannot serialize record 43878 (int) with its declared type Short: value too large "
        "to convert to int16_t" in str(root)
    )


@pytest.mark.spark
@pytest.mark.parametrize(
    "build,expected",
    [
        (_float_job, EXPECTED_FLOATS),
        (_collection_job, EXPECTED_COLLECTION),
        (_running_sum, _expected_running_sum()),
    ],
    ids=["float edge", "from_collection casts", "running float sum"],
)
def test_numbers_on_spark(spark: Any, build: Any, expected: list[str]) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    got = list(build(env).execute_and_collect("numbers", spark=spark))
    assert sorted(got) == sorted(expected)


COLUMN_CASES = [
    # (declared tuple, elements): the column path must give what element by element gives
    (
        Types.TUPLE([Types.STRING(), Types.INT(), Types.FLOAT()]),
        [("a", 1, 110.1), ("b", 2**31, 2.5), ("c", True, float("inf"))],
    ),
    (Types.TUPLE([Types.BYTE(), Types.SHORT()]), [(200, 7), (-129, 43878), (2**70, None)]),
    (Types.TUPLE([Types.LONG(), Types.FLOAT()]), [(2**63, 1), (-(2**63), 0.1), (5, "x")]),
    (Types.TUPLE([Types.INT(), Types.TUPLE([Types.SHORT()])]), [(1, (43878,)), (2, (7,))]),
    (Types.TUPLE([Types.INT(), Types.INT()]), [(1, 2), [2**40, 3], (4,)]),  # mixed shapes
]


@pytest.mark.parametrize(("type_info", "elements"), COLUMN_CASES)
def test_from_collection_converts_columns_as_it_converts_elements(
    type_info: Any, elements: list[Any]
) -> None:
    """``convert_collection`` (column by column, in C where it can) equals converting element by
    element with ``collection_converter``, types included (43878 SHORT -> -21658, bools kept)."""
    from pyflowkit.operators.declared_types import collection_converter, convert_collection

    convert = collection_converter(type_info)
    expected = [convert(e) for e in elements]
    got = convert_collection(type_info, list(elements))
    assert got == expected
    assert [[type(v) for v in e] for e in got] == [[type(v) for v in e] for e in expected]


def test_an_int_column_that_fits_is_not_copied_and_a_float_column_is_cast_to_32_bits() -> None:
    from pyflowkit.operators.declared_types import convert_collection

    elements = [("a", i) for i in range(1000)]
    assert convert_collection(Types.TUPLE([Types.STRING(), Types.INT()]), elements) is elements
    got = convert_collection(Types.TUPLE([Types.INT(), Types.FLOAT()]), [(1, 1e300), (2, 110.1)])
    assert got == [(1, float("inf")), (2, 110.0999984741211)]
