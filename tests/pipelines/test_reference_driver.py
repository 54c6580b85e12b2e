"""Every catalog pipeline through the in-process reference driver equals its ``expected()``."""

from __future__ import annotations

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


@pytest.mark.parametrize(("pipeline", "mode"), params("driver", cases((STREAMING,))))
def test_reference_driver_streaming(pipeline, mode) -> None:
    result = run_local(build_env(pipeline, mode))
    assert_results(pipeline, mode, result.printed)
