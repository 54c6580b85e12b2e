"""The key_by rule (KEY_BY_ROW, FLIP-130): PyFlink 1.20 keys a stream by ``Row.of(key)``.

Every expected value below was computed by flink-dist 1.20.3 itself (``new Row(1)`` with the key
set, its ``hashCode()`` and ``KeyGroupRangeAssignment.assignToKeyGroup(row, 128)``), and the
subtasks by real PyFlink 1.20.3 (tests/goldens).
"""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Configuration, Row, Types
from pyflowkit.common.flink_version import FLINK_VERSION_KEY, profile_for
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.runtime import MiniCluster
from pyflowkit.state.java_hash import java_hash_code, key_hash_function
from pyflowkit.state.key_groups import assign_to_key_group

JAVA_ROW_OF_KEY = [  # (key, its declared type, Row.of(key).hashCode(), key group of 128)
    ("a", Types.STRING(), 159, 64),
    (7, Types.INT(), 69, 17),
    (-1, Types.INT(), 61, 62),
    (5_000_000_000, Types.LONG(), 705032767, 85),
    (-1, Types.LONG(), 62, 33),
    (1.5, Types.FLOAT(), 1069547582, 42),
    (2.5, Types.DOUBLE(), 1074004030, 15),
    (True, Types.BOOLEAN(), 1293, 67),
    (("a", 1), Types.TUPLE([Types.STRING(), Types.INT()]), 3070, 44),
    (Row("y", 2), Types.ROW([Types.STRING(), Types.INT()]), 5768, 108),
]


@pytest.mark.parametrize(("key", "key_type", "hash_code", "key_group"), JAVA_ROW_OF_KEY)
def test_declared_keys_hash_as_javas_row_of_key(
    key: Any, key_type: Any, hash_code: int, key_group: int
) -> None:
    rule = profile_for("1.20").key_by
    assert rule.keys_by_row
    hash_of = key_hash_function(rule.keys_by_row, key_type)
    assert hash_of(key) == hash_code
    assert assign_to_key_group(key, 128, hash_of) == key_group


def test_undeclared_keys_hash_their_cloudpickle_bytes() -> None:
    # Row.of(new byte[]{-128, 5, 127}).hashCode() == -92873: 62 + Arrays.hashCode(bytes)
    untyped = key_hash_function(True, None)
    assert untyped("a") != untyped(b"a")
    import pickle

    assert untyped("a") == 62 + _arrays_hash(pickle.dumps("a", protocol=5))
    assert 62 + _arrays_hash(bytes([0x80, 5, 0x7F])) == -92873


def _arrays_hash(data: bytes) -> int:
    h = 1
    for b in data:
        h = (31 * h + (b - 256 if b > 127 else b)) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def test_1_11_keys_by_the_key_itself() -> None:
    rule = profile_for("1.11").key_by
    assert not rule.keys_by_row
    assert key_hash_function(rule.keys_by_row, Types.STRING()) is java_hash_code


def _word_counts(version: str) -> list[str]:
    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string(FLINK_VERSION_KEY, version)
    )
    env.set_parallelism(2)
    env.from_collection(["a b", "b c", "c a"]).flat_map(lambda line: line.split()).map(
        lambda w: (w, 1)
    ).key_by(lambda t: t[0]).reduce(lambda a, b: (a[0], a[1] + b[1])).print()
    run = MiniCluster(echo_print=False, seed=1).submit(env, "wc")
    run.run()
    run.raise_if_failed()
    return sorted(run.printed())


def test_placement_and_state_follow_the_profile() -> None:
    # PyFlink 1.20.3 (golden program__notebook03_job): every key on subtask 1; 1.11's
    # murmur(String.hashCode) puts b, c on subtask 1 and a on 2. Keyed state agrees either way.
    assert _word_counts("1.20") == [
        "1> ('a', 1)", "1> ('a', 2)", "1> ('b', 1)", "1> ('b', 2)", "1> ('c', 1)", "1> ('c', 2)"
    ]  # fmt: skip
    assert _word_counts("1.11") == [
        "1> ('b', 1)", "1> ('b', 2)", "1> ('c', 1)", "1> ('c', 2)", "2> ('a', 1)", "2> ('a', 2)"
    ]  # fmt: skip


# --- defaults per entry point ---------------------------------------------------------------


@pytest.mark.flink_version("1.20")
def test_the_marker_pins_a_tests_environments() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    assert env.get_flink_version_profile().version == "1.20"


def test_session_default_yields_to_entry_point_and_configuration() -> None:
    from pyflowkit.common.flink_version import (
        DEFAULT_VERSION,
        entry_point_version,
        set_session_version,
    )

    def version(conf: Configuration | None = None) -> str:
        env = StreamExecutionEnvironment.get_execution_environment(conf)
        return env.get_flink_version_profile().version

    assert version() == DEFAULT_VERSION
    set_session_version("1.20")  # what %load_ext pyflowkit does with 1.11
    try:
        assert version() == "1.20"
        with entry_point_version("1.11"):  # what pyflowkit run does with 1.20
            assert version() == "1.11"
            assert version(Configuration().set_string(FLINK_VERSION_KEY, "1.20")) == "1.20"
    finally:
        set_session_version(None)
    assert version() == DEFAULT_VERSION
