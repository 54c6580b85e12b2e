"""A key selector returning a list or dict with no declared key type: PyFlink 1.20 keys the stream
by the key's pickled bytes (``PICKLED_BYTE_ARRAY``; Java routes by ``Row.of(bytes).hashCode()``,
``62 + Arrays.hashCode(bytes)``; the 1.11 profile by the key as a ``Row(byte[])``,
``31 + Arrays.hashCode(bytes)``), so the job runs and keyed state is per key; on every host."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from pyflowkit.common import Configuration
from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from pyflowkit.java_semantics import PickledList, key_identity, pickled_key, pickled_key_hash_code
from pyflowkit.state.java_hash import java_hash_code, key_hash_function
from pyflowkit.state.key_groups import assign_key_to_parallel_operator
from tests.spark.pickled_key_jobs import NAMES, RECORDS, SubtaskOf, check, jobs


def arrays_hash_code(data: bytes) -> int:
    """``java.util.Arrays.hashCode(byte[])``, written out independently."""
    h = 1
    for b in data:
        signed = b if b < 128 else b - 256
        h = (31 * h + signed) % 2**32
    return h - 2**32 if h >= 2**31 else h


def test_the_key_hash_of_pickled_bytes_under_each_profile() -> None:
    """1.11 keys by the key itself, a ``Row(byte[])``: ``31 + Arrays.hashCode``; PyFlink 1.20
    keys by ``Row.of(key)`` over the cloudpickled bytes: ``62 + Arrays.hashCode``."""
    for key in ([1], ["a", 2.5], {"k": [1, 2]}, {3, 4}):
        expected = arrays_hash_code(pickle.dumps(key)) + 31
        expected = (expected + 2**31) % 2**32 - 2**31
        assert pickled_key_hash_code(key) == expected
        assert java_hash_code(key) == expected == java_hash_code(pickled_key(key))
        assert key_hash_function(True, None)(key) == row_of_pickled_bytes_hash(key)
        assert key_hash_function(False, None)(key) == expected
    # equal lists are one key; lists whose pickles differ are two ([1] and [1.0]), as in PyFlink
    assert key_identity([1]) == key_identity(PickledList([1])) != key_identity([1.0])
    wrapped = pickled_key([1, 2])
    assert isinstance(wrapped, list) and wrapped == [1, 2] and repr(wrapped) == "[1, 2]"
    assert pickle.loads(pickle.dumps(wrapped)) == [1, 2]


@pytest.mark.parametrize("mode", ["STREAMING", "BATCH"])
@pytest.mark.parametrize("parallelism", [1, 2, 4])
def test_list_and_dict_keys_on_the_simulated_cluster(mode: str, parallelism: int) -> None:
    results = {}
    for name in NAMES:
        conf = Configuration().set_string("execution.target", "local")
        env = StreamExecutionEnvironment.get_execution_environment(conf)
        env.set_parallelism(parallelism)
        env.set_runtime_mode(getattr(RuntimeExecutionMode, mode))
        results[name] = list(jobs(env)[name].execute_and_collect())
    check(results, mode)


def row_of_pickled_bytes_hash(key: Any) -> int:
    """PyFlink 1.20's key_by keys by ``Row.of(key)`` (FLIP-130 ``KeyByKeySelector``), the key
    being its pickled bytes (cloudpickle, protocol 5): ``62 + Arrays.hashCode(bytes)``."""
    h = (62 + arrays_hash_code(pickle.dumps(key, protocol=5))) % 2**32
    return h - 2**32 if h >= 2**31 else h


@pytest.mark.parametrize(
    "hash_code",
    [
        # the 1.11 profile keys by the key itself: Row(byte[]).hashCode, 31 + Arrays.hashCode
        pytest.param(java_hash_code, marks=pytest.mark.flink_version("1.11"), id="1.11"),
        pytest.param(row_of_pickled_bytes_hash, marks=pytest.mark.flink_version("1.20"), id="1.20"),
    ],
)
def test_records_go_to_the_subtask_of_the_pickled_key_group(hash_code: Any) -> None:
    conf = Configuration().set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(4)
    got = (
        env.from_collection(RECORDS)
        .key_by(lambda t: [t[0]])
        .process(SubtaskOf())
        .execute_and_collect()
    )
    for key, subtask in got:
        assert subtask == assign_key_to_parallel_operator([key], 128, 4, hash_code)


@pytest.mark.spark
@pytest.mark.parametrize("mode", ["STREAMING", "BATCH"])
def test_list_and_dict_keys_on_spark(spark: Any, mode: str) -> None:
    results = {}
    for name in NAMES:
        env = StreamExecutionEnvironment.get_execution_environment()
        env.set_parallelism(2)
        env.set_runtime_mode(getattr(RuntimeExecutionMode, mode))
        results[name] = list(jobs(env)[name].execute_and_collect(spark=spark))
    check(results, mode)
