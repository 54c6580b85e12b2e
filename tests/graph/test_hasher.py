"""StreamGraphHasherV2 and murmur3_x64_128: reference §3.6 vectors and the uid rules."""

from __future__ import annotations

import pytest

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.graph.hasher import Murmur3Hasher, StreamGraphHasherV2, murmur3_x64_128
from pyflowkit.graph.streaming_job_graph_generator import create_job_graph

from .builders import collection_source, map_, print_sink, stream_graph


def test_murmur3_known_answers() -> None:
    # Canonical MurmurHash3_x64_128 (seed 0) (h1, h2); Guava's asBytes() is both little endian.
    def h1_h2(data: bytes) -> tuple[int, int]:
        digest = murmur3_x64_128(data)
        return int.from_bytes(digest[:8], "little"), int.from_bytes(digest[8:], "little")

    assert h1_h2(b"") == (0, 0)
    assert h1_h2(b"hello") == (0xCBD8A7B341BD9B02, 0x5B1E906A48AE1D19)
    fox = b"The quick brown fox jumps over the lazy dog"  # Guava's documented hex
    assert murmur3_x64_128(fox).hex() == "6c1b07bc7bbc4be347939ac4a93c437a"
    assert len(murmur3_x64_128(bytes(range(40)))) == 16  # multi-block input with a tail


@pytest.mark.parametrize(
    ("ints", "expected"),
    [
        ([0], "bc764cd8ddf7a0cff126f51c16239658"),
        ([0, 0], "cbc357ccb763df2852fee8c4fc7d55f2"),
        ([1], "feca28aff5a3958840bee985ee7de4d3"),
    ],
)
def test_put_int_vectors(ints: list[int], expected: str) -> None:
    hasher = Murmur3Hasher()
    for value in ints:
        hasher.put_int(value)
    assert hasher.hash().hex() == expected


def test_uid_vector() -> None:
    assert Murmur3Hasher().put_string("my-map").hash().hex() == "46fe65c20d95ac360c296fef8820108c"


def test_source_then_unchained_map_vector() -> None:
    src = collection_source()
    m = map_(src)  # p=2 vs source p=1: REBALANCE, not chained
    hashes = StreamGraphHasherV2().traverse_stream_graph_and_generate_hashes(stream_graph([m]))
    assert hashes[src.id].hex() == "bc764cd8ddf7a0cff126f51c16239658"
    assert hashes[m.id].hex() == "0a448493b4782967b150582570326227"


def test_source_with_one_chained_output_vector() -> None:
    src = collection_source()
    m = map_(src, parallelism=1)
    hashes = StreamGraphHasherV2().traverse_stream_graph_and_generate_hashes(stream_graph([m]))
    assert hashes[src.id].hex() == "cbc357ccb763df2852fee8c4fc7d55f2"


def test_disabling_chaining_changes_auto_generated_ids() -> None:
    src = collection_source()
    m = map_(src, parallelism=1)
    on = StreamGraphHasherV2().traverse_stream_graph_and_generate_hashes(stream_graph([m]))
    off = StreamGraphHasherV2().traverse_stream_graph_and_generate_hashes(
        stream_graph([m], chaining_enabled=False)
    )
    assert on[src.id] != off[src.id]
    assert off[src.id].hex() == "bc764cd8ddf7a0cff126f51c16239658"


def test_uid_hash_is_stable_whatever_the_topology() -> None:
    src = collection_source()
    m = map_(src)
    m.set_uid("my-map")
    jg = create_job_graph(stream_graph([m]))
    assert jg.get_vertex("Map").id == "46fe65c20d95ac360c296fef8820108c"


def test_hashes_are_independent_of_global_node_ids() -> None:
    first = create_job_graph(stream_graph([print_sink(map_(collection_source()))]))
    second = create_job_graph(stream_graph([print_sink(map_(collection_source()))]))
    assert [v.id for v in first.vertices] == [v.id for v in second.vertices]


def test_duplicate_uid_is_a_hash_collision() -> None:
    src = collection_source()
    a, b = map_(src), map_(src)
    a.set_uid("dup")
    b.set_uid("dup")
    with pytest.raises(IllegalArgumentException) as err:
        create_job_graph(stream_graph([a, b]))
    assert str(err.value) == (
        'Hash collision on user-specified ID "dup". Most likely cause is a non-unique ID. '
        "Please check that all IDs specified via `uid(String)` are unique."
    )


def test_user_hash_is_the_second_operator_id() -> None:
    src = collection_source()
    m = map_(src)
    m.set_uid_hash("AAAABBBBCCCCDDDDEEEEFFFF00001111")
    jg = create_job_graph(stream_graph([m]))
    pair = jg.get_vertex("Map").operator_ids[0]
    assert pair.generated_operator_id == "0a448493b4782967b150582570326227"
    assert pair.user_defined_operator_id == "aaaabbbbccccddddeeeeffff00001111"
    assert (
        jg.get_vertex("Source: Collection Source").operator_ids[0].user_defined_operator_id is None
    )


def test_hasher_ignores_shuffle_mode_as_flinks_isChainable_twin() -> None:
    """StreamGraphHasherV2.isChainable (1.11) has no shuffle-mode rule: a BATCH forward edge
    is not chained by the JobGraph generator, yet it counts as chainable in the hash."""
    from pyflowkit.graph.partitioner import ForwardPartitioner
    from pyflowkit.graph.transformations import PartitionTransformation, ShuffleMode

    src = collection_source()
    forward = PartitionTransformation(src, ForwardPartitioner(), ShuffleMode.BATCH)
    m = map_(forward, parallelism=1)
    graph = stream_graph([m])
    hashes = StreamGraphHasherV2().traverse_stream_graph_and_generate_hashes(graph)
    assert hashes[src.id].hex() == "cbc357ccb763df2852fee8c4fc7d55f2"  # putInt(0), putInt(0)
    job = create_job_graph(graph)
    assert [v.name for v in job.vertices] == ["Source: Collection Source", "Map"]
