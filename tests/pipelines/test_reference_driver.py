"""Every catalog pipeline through the in-process reference driver equals its ``expected()``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pyflowkit.reference.local_driver import run_local
from tests.pipelines.catalog import CATALOG, build_env, cases
from tests.pipelines.java_ref import key_group, subtask_of
from tests.pipelines.known_bugs import params
from tests.pipelines.spec import STREAMING, assert_results

# The catalog's expected() is Flink 1.11's reference model (java_ref's key routing §1.5, §9's
# windows, 1.11's ProcessingTime defaults); tests/goldens runs the same pipelines under 1.20
# against what real PyFlink 1.20.3 printed.
pytestmark = pytest.mark.flink_version("1.11")


def test_catalog_is_large_and_covers_both_modes() -> None:
    assert len(CATALOG) >= 30
    assert len(cases()) > len(CATALOG)


@pytest.mark.parametrize(
    ("key", "group", "p2", "p3", "p4"),
    [
        (1, 86, 1, 2, 2),
        (2, 127, 1, 2, 3),
        (42, 29, 0, 0, 0),
        ("a", 81, 1, 1, 2),
        ("b", 22, 0, 0, 0),
        ("hello", 35, 0, 0, 1),
        (100, 64, 1, 1, 2),
        (True, 77, 1, 1, 2),
        (("a",), 81, 1, 1, 2),
    ],
)
def test_java_ref_matches_flink_key_group_vectors(key, group, p2, p3, p4) -> None:
    """The catalog's routing reference reproduces real Flink's vectors (reference §1.5)."""
    assert key_group(key) == group
    assert [subtask_of(key, p) for p in (2, 3, 4)] == [p2, p3, p4]


@pytest.mark.parametrize(
    ("name", "parallelism", "key_of"),
    [
        ("key_by_string_keys_p3_routing", 3, str),
        ("key_by_int_keys_p4_routing", 4, int),
        ("keyed_reduce_p2", 2, str),
    ],
)
def test_java_ref_1_20_routing_matches_real_pyflink(name, parallelism, key_of) -> None:
    """Under 1.20 the reference routes ``Row.of(key)`` as real PyFlink 1.20.3 did (its golden's
    ``sink:k>`` prefixes), and differently from 1.11 for some key."""
    golden = Path(__file__).resolve().parents[1] / "goldens" / "pyflink"
    lines = json.loads((golden / f"catalog__{name}__STREAMING.json").read_text())["lines"]
    placed = {}
    for line in lines:
        number, key = re.match(r"^\w+:(\d+)> \(([^,]+),", line).groups()
        placed[key_of(key)] = int(number) - 1
    assert len(placed) >= 3
    assert {k: subtask_of(k, parallelism, version="1.20") for k in placed} == placed
    assert {k: subtask_of(k, parallelism) for k in placed} != placed


@pytest.mark.parametrize(("pipeline", "mode"), params("driver", cases((STREAMING,))))
def test_reference_driver_streaming(pipeline, mode) -> None:
    result = run_local(build_env(pipeline, mode))
    assert_results(pipeline, mode, result.printed)
