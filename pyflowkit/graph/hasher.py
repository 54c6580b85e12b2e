"""Operator/vertex hashes: Flink's ``StreamGraphHasherV2`` over a pure-Python ``murmur3_x64_128``.

JobVertex ids and operator ids are these hashes (32 hex chars), never the int StreamNode ids.
"""

from __future__ import annotations

import struct
from collections import deque
from collections.abc import Callable

from pyflowkit.errors import IllegalArgumentException, IllegalStateException
from pyflowkit.graph.chaining_rules import is_chainable
from pyflowkit.graph.stream_graph import StreamEdge, StreamGraph, StreamNode

_M64 = 0xFFFFFFFFFFFFFFFF
_C1 = 0x87C37B91114253D5
_C2 = 0x4CF5AD432745937F
_TIMES_37 = bytes((b * 37) & 0xFF for b in range(256))  # a byte times 37, as Java's (byte) cast


def _rotl64(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _M64


def _fmix64(k: int) -> int:
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & _M64
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & _M64
    k ^= k >> 33
    return k


def murmur3_x64_128(data: bytes, seed: int = 0) -> bytes:
    """MurmurHash3 x64 128-bit, as Guava's ``Hashing.murmur3_128(seed).hashBytes(..).asBytes()``."""
    length = len(data)
    h1 = h2 = seed & _M64
    nblocks = length // 16
    for i in range(nblocks):
        k1, k2 = struct.unpack_from("<QQ", data, i * 16)
        k1 = (k1 * _C1) & _M64
        k1 = _rotl64(k1, 31)
        k1 = (k1 * _C2) & _M64
        h1 ^= k1
        h1 = _rotl64(h1, 27)
        h1 = (h1 + h2) & _M64
        h1 = (h1 * 5 + 0x52DCE729) & _M64
        k2 = (k2 * _C2) & _M64
        k2 = _rotl64(k2, 33)
        k2 = (k2 * _C1) & _M64
        h2 ^= k2
        h2 = _rotl64(h2, 31)
        h2 = (h2 + h1) & _M64
        h2 = (h2 * 5 + 0x38495AB5) & _M64
    tail = data[nblocks * 16 :]
    if tail:
        padded = tail + bytes(16 - len(tail))
        k1, k2 = struct.unpack("<QQ", padded)
        if len(tail) > 8:
            k2 = (k2 * _C2) & _M64
            k2 = _rotl64(k2, 33)
            k2 = (k2 * _C1) & _M64
            h2 ^= k2
        k1 = (k1 * _C1) & _M64
        k1 = _rotl64(k1, 31)
        k1 = (k1 * _C2) & _M64
        h1 ^= k1
    h1 ^= length
    h2 ^= length
    h1 = (h1 + h2) & _M64
    h2 = (h2 + h1) & _M64
    h1 = _fmix64(h1)
    h2 = _fmix64(h2)
    h1 = (h1 + h2) & _M64
    h2 = (h2 + h1) & _M64
    return struct.pack("<QQ", h1, h2)


class Murmur3Hasher:
    """Guava's streaming ``Hasher`` for ``murmur3_128(0)``: ``putInt`` (LE) / ``putString``."""

    __slots__ = ("_buffer",)

    def __init__(self) -> None:
        self._buffer = bytearray()

    def put_int(self, value: int) -> Murmur3Hasher:
        self._buffer += struct.pack("<i", value)
        return self

    def put_string(self, value: str) -> Murmur3Hasher:
        self._buffer += value.encode("utf-8")
        return self

    def hash(self) -> bytes:
        return murmur3_x64_128(bytes(self._buffer))


ChainablePredicate = Callable[[StreamEdge, StreamGraph], bool]


def hasher_is_chainable(edge: StreamEdge, chaining_enabled: bool) -> bool:
    """``StreamGraphHasherV2.isChainable`` (1.11): ``CHAINING_RULES`` minus the shuffle mode."""
    return is_chainable(edge, chaining_enabled, check_shuffle_mode=False)


class StreamGraphHasherV2:
    """Deterministic operator hashes from the graph's topology (Flink's ``StreamGraphHasherV2``)."""

    def traverse_stream_graph_and_generate_hashes(
        self, stream_graph: StreamGraph
    ) -> dict[int, bytes]:
        """BFS from the sources sorted by id; a node is hashed once all its inputs are hashed."""
        hashes: dict[int, bytes] = {}
        seen_hashes: set[bytes] = set()
        visited: set[int] = set()
        remaining: deque[StreamNode] = deque()
        for source_id in sorted(stream_graph.sources):
            remaining.append(stream_graph.nodes[source_id])
            visited.add(source_id)
        chaining = stream_graph.chaining_enabled
        while remaining:
            node = remaining.popleft()
            if self._generate_node_hash(node, hashes, seen_hashes, chaining):
                for out_edge in node.out_edges:
                    child = out_edge.target
                    if child.id not in visited:
                        remaining.append(child)
                        visited.add(child.id)
            else:
                visited.discard(node.id)  # revisited once all inputs are hashed
        return hashes

    def _generate_node_hash(
        self,
        node: StreamNode,
        hashes: dict[int, bytes],
        seen_hashes: set[bytes],
        chaining_enabled: bool,
    ) -> bool:
        uid = node.uid
        if uid is None:
            for in_edge in node.in_edges:
                if in_edge.source.id not in hashes:
                    return False
            digest = self._generate_deterministic_hash(node, hashes, chaining_enabled)
        else:
            digest = Murmur3Hasher().put_string(uid).hash()
            if digest in seen_hashes:
                raise IllegalArgumentException(
                    f'Hash collision on user-specified ID "{uid}". Most likely cause is a '
                    "non-unique ID. Please check that all IDs specified via `uid(String)` are "
                    "unique."
                )
        if node.id in hashes:
            raise IllegalStateException(
                "Unexpected state. Tried to add node hash twice. This is probably a bug in the "
                "JobGraph generator."
            )
        hashes[node.id] = digest
        seen_hashes.add(digest)
        return True

    @staticmethod
    def _generate_deterministic_hash(
        node: StreamNode, hashes: dict[int, bytes], chaining_enabled: bool
    ) -> bytes:
        # The node's position in the traversal (not its id, which comes from a global counter),
        # once more per chainable out-edge; then mixed with every input's hash.
        hasher = Murmur3Hasher()
        position = len(hashes)
        hasher.put_int(position)
        for out_edge in node.out_edges:
            if hasher_is_chainable(out_edge, chaining_enabled):
                hasher.put_int(position)
        digest = hasher.hash()
        for in_edge in node.in_edges:  # hash[j] = (byte) (hash[j] * 37 ^ otherHash[j])
            other = int.from_bytes(hashes[in_edge.source.id], "little")
            times37 = int.from_bytes(digest.translate(_TIMES_37), "little")
            digest = (times37 ^ other).to_bytes(16, "little")
        return digest


class StreamGraphUserHashHasher:
    """Flink's legacy ``StreamGraphUserHashHasher``: the ``set_uid_hash`` value of each node."""

    def traverse_stream_graph_and_generate_hashes(
        self, stream_graph: StreamGraph
    ) -> dict[int, bytes | None]:
        return {
            node_id: bytes.fromhex(node.user_hash) if node.user_hash else None
            for node_id, node in stream_graph.nodes.items()
        }
