"""The fast state size of an operator snapshot equals the codec's encoded length, byte for byte."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pyflowkit.datastream.window import TimeWindow
from pyflowkit.state.state_codec import _plain_tuple_count, snapshot_size, state_size

atoms = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.sampled_from(["ü", '"q"', "back\\slash", "\n"]),
)
fields = st.one_of(
    atoms,
    st.tuples(atoms, atoms),
    st.tuples(atoms, st.tuples(atoms)),
    st.lists(atoms, max_size=2),
    st.dictionaries(st.integers(0, 3), atoms, max_size=2),
    st.builds(TimeWindow, st.integers(0, 9), st.integers(10, 20)),
    st.binary(max_size=3),
)
entries = st.lists(st.lists(fields, min_size=3, max_size=3), max_size=5)
per_kg = st.dictionaries(
    st.sampled_from(["a", "b"]),
    st.fixed_dictionaries(
        {"kind": st.sampled_from(["value", "list", "reducing", "map"]), "entries": entries}
    ),
    min_size=1,
    max_size=2,
)
snapshots = st.fixed_dictionaries(
    {
        "keyed_state": st.dictionaries(st.integers(0, 127).map(str), per_kg, max_size=3),
        "operator_state": st.dictionaries(
            st.sampled_from(["s"]),
            st.fixed_dictionaries({"mode": st.just("UNION"), "entries": st.lists(atoms)}),
        ),
        "timers": st.dictionaries(
            st.integers(0, 127).map(str), st.lists(st.lists(atoms, max_size=5), max_size=2)
        ),
    }
)


@given(snapshots)
def test_snapshot_size_is_the_encoded_length(snapshot: dict[str, Any]) -> None:
    assert snapshot_size(snapshot) == state_size(snapshot)


def test_word_count_state_takes_the_fast_path_and_counts_tuples() -> None:
    keyed = {
        str(kg): {"_op_state": {"kind": "value", "entries": [[f"w{kg}", None, (f"w{kg}", kg)]]}}
        for kg in range(5)
    }
    snapshot = {"keyed_state": keyed, "operator_state": {}, "timers": {}}
    assert _plain_tuple_count(keyed) == 5  # the C-encoder path, not the fallback
    assert snapshot_size(snapshot) == state_size(snapshot)
    keyed["0"]["_op_state"]["entries"].append(["w", TimeWindow(0, 5), 1])
    assert _plain_tuple_count(keyed) is None and snapshot_size(snapshot) == state_size(snapshot)
