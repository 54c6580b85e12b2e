"""Stream partitioners: how a record writer picks output channels (Flink's ``StreamPartitioner``s).

``str(partitioner)`` is Flink's ``toString()``, the ship strategy name (FORWARD, HASH, …).
A partitioner instance is shared by the graph; every record writer works on its own ``copy()``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import compress, repeat
from operator import is_
from typing import Any

from pyflowkit.state.bulk_key_groups import bulk_applies, str_key_groups
from pyflowkit.state.java_hash import java_hash_code
from pyflowkit.state.key_groups import (
    DEFAULT_LOWER_BOUND_MAX_PARALLELISM,
    SHARED_LIMIT,
    assign_key_to_parallel_operator,
    compute_operator_index_for_key_group,
    memo_key_group,
    shared_key_groups,
)


class StreamPartitioner:
    """Flink's ``StreamPartitioner``: chooses the output channel(s) of one record."""

    ship_strategy: str = "?"
    is_pointwise: bool = False
    is_broadcast: bool = False

    def __init__(self) -> None:
        self.number_of_channels = 1

    def setup(self, number_of_channels: int, rng: random.Random | None = None) -> None:
        """Called once per record writer with the number of consumer subtasks."""
        self.number_of_channels = number_of_channels

    def select_channel(self, value: Any) -> int:
        raise NotImplementedError

    def copy(self) -> StreamPartitioner:
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        return clone

    def __str__(self) -> str:
        return self.ship_strategy

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class ForwardPartitioner(StreamPartitioner):
    """Flink's ``ForwardPartitioner``: always the local channel 0 (POINTWISE)."""

    ship_strategy = "FORWARD"
    is_pointwise = True

    def select_channel(self, value: Any) -> int:
        return 0


class RebalancePartitioner(StreamPartitioner):
    """Flink's ``RebalancePartitioner``: round robin, starting at a random channel per writer."""

    ship_strategy = "REBALANCE"

    def setup(self, number_of_channels: int, rng: random.Random | None = None) -> None:
        super().setup(number_of_channels)
        rng = rng or random.Random(0)
        self.next_channel_to_send_to = rng.randrange(number_of_channels)

    def select_channel(self, value: Any) -> int:
        self.next_channel_to_send_to = (self.next_channel_to_send_to + 1) % self.number_of_channels
        return self.next_channel_to_send_to


class RescalePartitioner(StreamPartitioner):
    """Flink's ``RescalePartitioner``: round robin over the local (POINTWISE) channels."""

    ship_strategy = "RESCALE"
    is_pointwise = True

    def setup(self, number_of_channels: int, rng: random.Random | None = None) -> None:
        super().setup(number_of_channels)
        self.next_channel_to_send_to = -1

    def select_channel(self, value: Any) -> int:
        self.next_channel_to_send_to += 1
        if self.next_channel_to_send_to >= self.number_of_channels:
            self.next_channel_to_send_to = 0
        return self.next_channel_to_send_to


class ShufflePartitioner(StreamPartitioner):
    """Flink's ``ShufflePartitioner``: a uniformly random channel (seeded here)."""

    ship_strategy = "SHUFFLE"

    def setup(self, number_of_channels: int, rng: random.Random | None = None) -> None:
        super().setup(number_of_channels)
        self.random = rng or random.Random(0)

    def select_channel(self, value: Any) -> int:
        return self.random.randrange(self.number_of_channels)


class BroadcastPartitioner(StreamPartitioner):
    """Flink's ``BroadcastPartitioner``: every channel gets every record."""

    ship_strategy = "BROADCAST"
    is_broadcast = True

    def select_channel(self, value: Any) -> int:
        raise RuntimeError("Broadcast partitioner does not support select channels.")


class GlobalPartitioner(StreamPartitioner):
    """Flink's ``GlobalPartitioner``: everything to channel 0."""

    ship_strategy = "GLOBAL"

    def select_channel(self, value: Any) -> int:
        return 0


class KeyGroupStreamPartitioner(StreamPartitioner):
    """Flink's ``KeyGroupStreamPartitioner``: key → key group → consumer subtask (HASH)."""

    ship_strategy = "HASH"

    def __init__(
        self,
        key_selector: Callable[[Any], Any],
        max_parallelism: int = DEFAULT_LOWER_BOUND_MAX_PARALLELISM,
        key_type: Any = None,
    ) -> None:
        super().__init__()
        self.key_selector = key_selector
        self.max_parallelism = max_parallelism
        self.key_type = key_type  # key_by(..., key_type=...)
        self.key_hash: Callable[[Any], int] = java_hash_code  # the profile's key_by rule

    def with_key_hash(self, key_hash: Callable[[Any], int]) -> KeyGroupStreamPartitioner:
        """A copy that computes key groups from ``key_hash`` (``java_hash.key_hash_function``)."""
        clone = self.copy()
        clone.key_hash = key_hash  # type: ignore[attr-defined]
        return clone  # type: ignore[return-value]

    def configure(self, max_parallelism: int) -> None:
        """``ConfigurableStreamPartitioner.configure``: the consumer's max parallelism."""
        self.max_parallelism = max_parallelism

    def select_channel(self, value: Any) -> int:
        return self.channel_of_key(self.key_selector(value))

    def channel_of_key(self, key: Any) -> int:
        """The consumer subtask of a selected key (``assignKeyToParallelOperator``); the key
        group of a ``str`` or ``int`` key is left in the shared memo for the keyed operator."""
        tk = type(key)
        if tk is str or tk is int:
            memo = shared_key_groups(self.key_hash, self.max_parallelism, tk)
            if memo is not None:
                kg = memo_key_group(memo, key, self.max_parallelism, self.key_hash)
                return compute_operator_index_for_key_group(
                    self.max_parallelism, self.number_of_channels, kg
                )
        return assign_key_to_parallel_operator(
            key, self.max_parallelism, self.number_of_channels, self.key_hash
        )

    def channels_of_str_keys(self, keys: list[str]) -> list[int]:
        """``channel_of_key`` of distinct exact-``str`` keys; the key groups the shared memo
        lacks are computed together (``bulk_key_groups``) and left there for the operator."""
        max_p, n = self.max_parallelism, self.number_of_channels
        memo = shared_key_groups(self.key_hash, max_p, str)
        if memo is None or not bulk_applies(self.key_hash):
            return [self.channel_of_key(k) for k in keys]
        kgs = list(map(memo.get, keys))
        if None in kgs:
            new = list(compress(keys, map(is_, kgs, repeat(None))))
            fresh = dict(zip(new, str_key_groups(new, max_p, self.key_hash), strict=True))
            if len(memo) + len(fresh) > SHARED_LIMIT:
                memo.clear()
            memo.update(fresh)
            kgs = [fresh[k] if kg is None else kg for k, kg in zip(keys, kgs, strict=True)]
        return [kg * n // max_p for kg in kgs]  # computeOperatorIndexForKeyGroup


class CustomPartitionerWrapper(StreamPartitioner):
    """Flink's ``CustomPartitionerWrapper``: the user's ``Partitioner.partition(key, n)``."""

    ship_strategy = "CUSTOM"

    def __init__(self, partitioner: Any, key_selector: Callable[[Any], Any]) -> None:
        super().__init__()
        self.partitioner = partitioner
        self.key_selector = key_selector

    def select_channel(self, value: Any) -> int:
        key = self.key_selector(value)
        fn = getattr(self.partitioner, "partition", self.partitioner)
        channel = fn(key, self.number_of_channels)
        if not isinstance(channel, int) or not 0 <= channel < self.number_of_channels:
            raise ValueError(
                f"Custom partitioner returned channel {channel!r} for key {key!r}; it must be an "
                f"int in [0, {self.number_of_channels})."
            )
        return channel
