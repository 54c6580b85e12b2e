"""Transformations: what DataStream API calls record (Flink's ``org.apache.flink.api.dag.Transformation``).

This module is the contract between the API (``pyflowkit.datastream``), the graph compiler and the
runtimes. A transformation names its operator with an ``OperatorFactory`` (the Flink operator class
name plus its parameters, defined with the operators, as Flink's ``StreamOperatorFactory``); the
operators' registry turns a factory into a live operator per subtask.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from enum import Enum
from typing import Any

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.graph.partitioner import StreamPartitioner
from pyflowkit.operators.boundedness import Boundedness
from pyflowkit.operators.chaining_strategy import ChainingStrategy
from pyflowkit.operators.factory import OperatorFactory
from pyflowkit.state.key_groups import UPPER_BOUND_MAX_PARALLELISM

PARALLELISM_DEFAULT = -1  # ExecutionConfig.PARALLELISM_DEFAULT


class ShuffleMode(Enum):
    """Flink's ``ShuffleMode`` of a partition transformation / StreamEdge."""

    PIPELINED = "PIPELINED"
    BATCH = "BATCH"
    UNDEFINED = "UNDEFINED"


_id_counter = itertools.count(1)


def new_node_id() -> int:
    """``Transformation.getNewNodeId``: a process-wide counter starting at 1 (as Flink's static one)."""
    return next(_id_counter)


def validate_parallelism(parallelism: int, operator: str, *, allow_default: bool = False) -> None:
    """Flink's ``Preconditions`` on parallelism, with the operator named."""
    if isinstance(parallelism, bool) or not isinstance(parallelism, int):
        raise IllegalArgumentException(
            f"Parallelism of operator '{operator}' must be an int, got {parallelism!r}."
        )
    if allow_default and parallelism == PARALLELISM_DEFAULT:
        return
    if parallelism <= 0:
        raise IllegalArgumentException(
            f"The parallelism of an operator must be at least 1. Operator '{operator}' was given "
            f"{parallelism}."
        )


def validate_max_parallelism(max_parallelism: int, operator: str) -> None:
    """``Transformation.setMaxParallelism`` bounds: 0 < maxParallelism <= 32768."""
    if isinstance(max_parallelism, bool) or not isinstance(max_parallelism, int):
        raise IllegalArgumentException(
            f"Maximum parallelism of operator '{operator}' must be an int, got {max_parallelism!r}."
        )
    if not 0 < max_parallelism <= UPPER_BOUND_MAX_PARALLELISM:
        raise IllegalArgumentException(
            f"Maximum parallelism must be between 1 and {UPPER_BOUND_MAX_PARALLELISM}. Found: "
            f"{max_parallelism} (operator '{operator}')."
        )


class Transformation:
    """Flink's ``Transformation``: one logical operation and its settings."""

    def __init__(
        self, name: str, output_type: Any = None, parallelism: int = PARALLELISM_DEFAULT
    ) -> None:
        self.id: int = new_node_id()
        self.name = name
        self.output_type = output_type
        self.parallelism = parallelism
        # Transformation.isParallelismConfigured (1.17+): set by the program, not the environment
        self.parallelism_configured = False
        self.max_parallelism: int = -1
        self.uid: str | None = None
        self.user_provided_node_hash: str | None = None
        self.buffer_timeout: int = -1
        self.slot_sharing_group: str | None = None
        self.description: str | None = None

    @property
    def inputs(self) -> list[Transformation]:
        return []

    def set_parallelism(self, parallelism: int) -> None:
        validate_parallelism(parallelism, self.name)
        self.parallelism = parallelism
        self.parallelism_configured = True

    def set_max_parallelism(self, max_parallelism: int) -> None:
        validate_max_parallelism(max_parallelism, self.name)
        self.max_parallelism = max_parallelism

    def set_uid(self, uid: str) -> None:
        if not isinstance(uid, str) or not uid:
            raise IllegalArgumentException(
                f"The uid of operator '{self.name}' must be a non-empty string, got {uid!r}."
            )
        self.uid = uid

    def set_uid_hash(self, uid_hash: str) -> None:
        """``setUidHash``: a 32-character hex string (Flink's legacy user hash)."""
        ok = isinstance(uid_hash, str) and len(uid_hash) == 32
        if not ok or any(c not in "0123456789abcdefABCDEF" for c in uid_hash):
            raise IllegalArgumentException(
                "Node hash must be a 32 character String that describes a hex code. Found: "
                f"{uid_hash} (operator '{self.name}')."
            )
        self.user_provided_node_hash = uid_hash.lower()

    def transitive_predecessors(self) -> list[Transformation]:
        """``getTransitivePredecessors``: this transformation and everything upstream."""
        seen: dict[int, Transformation] = {}
        stack: list[Transformation] = [self]
        while stack:
            t = stack.pop()
            if t.id not in seen:
                seen[t.id] = t
                stack.extend(t.inputs)
        return list(seen.values())

    def __repr__(self) -> str:
        return f"{type(self).__name__}{{id={self.id}, name='{self.name}', parallelism={self.parallelism}}}"


class PhysicalTransformation(Transformation):
    """Flink's ``PhysicalTransformation``: becomes a StreamNode running an operator."""

    def __init__(
        self,
        name: str,
        operator_factory: OperatorFactory,
        output_type: Any = None,
        parallelism: int = PARALLELISM_DEFAULT,
    ) -> None:
        super().__init__(name, output_type, parallelism)
        self.operator_factory = operator_factory
        self.chaining_strategy: ChainingStrategy = operator_factory.chaining_strategy

    def set_chaining_strategy(self, strategy: ChainingStrategy) -> None:
        self.chaining_strategy = strategy


class LegacySourceTransformation(PhysicalTransformation):
    """Flink's ``LegacySourceTransformation`` (fromCollection, addSource, …): task ``SourceStreamTask``."""

    def __init__(
        self,
        name: str,
        operator_factory: OperatorFactory,
        output_type: Any = None,
        parallelism: int = PARALLELISM_DEFAULT,
        boundedness: Boundedness = Boundedness.BOUNDED,
        parallel: bool = True,
    ) -> None:
        super().__init__(name, operator_factory, output_type, parallelism)
        self.boundedness = boundedness
        self.parallel = parallel  # False for non-parallel sources (forced parallelism 1)

    def set_parallelism(self, parallelism: int) -> None:
        validate_parallelism(parallelism, self.name)
        if not self.parallel and parallelism != 1:
            raise IllegalArgumentException(
                f"The parallelism of non parallel operator must be 1. Operator 'Source: {self.name}' "
                f"is a non-parallel source and cannot run with parallelism {parallelism}."
            )
        self.parallelism = parallelism
        self.parallelism_configured = True


class SourceTransformation(PhysicalTransformation):
    """Flink's FLIP-27 ``SourceTransformation`` (``from_source``): task ``SourceOperatorStreamTask``."""

    def __init__(
        self,
        name: str,
        operator_factory: OperatorFactory,
        output_type: Any = None,
        parallelism: int = PARALLELISM_DEFAULT,
        boundedness: Boundedness = Boundedness.BOUNDED,
    ) -> None:
        super().__init__(name, operator_factory, output_type, parallelism)
        self.boundedness = boundedness
        self.parallel = True


class OneInputTransformation(PhysicalTransformation):
    """Flink's ``OneInputTransformation``; keyed when ``state_key_selector`` is set."""

    def __init__(
        self,
        input: Transformation,
        name: str,
        operator_factory: OperatorFactory,
        output_type: Any = None,
        parallelism: int = PARALLELISM_DEFAULT,
    ) -> None:
        super().__init__(name, operator_factory, output_type, parallelism)
        self.input = input
        self.state_key_selector: Callable[[Any], Any] | None = None
        self.state_key_type: Any = None

    @property
    def inputs(self) -> list[Transformation]:
        return [self.input]


class TwoInputTransformation(PhysicalTransformation):
    """Flink's ``TwoInputTransformation`` (connect → Co-Map/Co-Process…): task ``TwoInputStreamTask``."""

    def __init__(
        self,
        input1: Transformation,
        input2: Transformation,
        name: str,
        operator_factory: OperatorFactory,
        output_type: Any = None,
        parallelism: int = PARALLELISM_DEFAULT,
    ) -> None:
        super().__init__(name, operator_factory, output_type, parallelism)
        self.input1 = input1
        self.input2 = input2
        self.state_key_selector1: Callable[[Any], Any] | None = None
        self.state_key_selector2: Callable[[Any], Any] | None = None
        self.state_key_type: Any = None

    @property
    def inputs(self) -> list[Transformation]:
        return [self.input1, self.input2]


class SinkTransformation(PhysicalTransformation):
    """Flink's ``SinkTransformation``: node named ``Sink: <name>``."""

    def __init__(
        self,
        input: Transformation,
        name: str,
        operator_factory: OperatorFactory,
        parallelism: int = PARALLELISM_DEFAULT,
    ) -> None:
        super().__init__(name, operator_factory, None, parallelism)
        self.input = input
        self.state_key_selector: Callable[[Any], Any] | None = None
        self.state_key_type: Any = None

    @property
    def inputs(self) -> list[Transformation]:
        return [self.input]


class UnionTransformation(Transformation):
    """Flink's ``UnionTransformation``: no node; the downstream node gets one in-edge per input."""

    def __init__(self, inputs: list[Transformation]) -> None:
        super().__init__("Union", inputs[0].output_type, inputs[0].parallelism)
        self._inputs = list(inputs)

    @property
    def inputs(self) -> list[Transformation]:
        return list(self._inputs)


class PartitionTransformation(Transformation):
    """Flink's ``PartitionTransformation``: a virtual node carrying a partitioner."""

    def __init__(
        self,
        input: Transformation,
        partitioner: StreamPartitioner,
        shuffle_mode: ShuffleMode = ShuffleMode.UNDEFINED,
    ) -> None:
        super().__init__("Partition", input.output_type, input.parallelism)
        self.input = input
        self.partitioner = partitioner
        self.shuffle_mode = shuffle_mode

    @property
    def inputs(self) -> list[Transformation]:
        return [self.input]


class SideOutputTransformation(Transformation):
    """Flink's ``SideOutputTransformation``: a virtual node selecting an ``OutputTag``."""

    def __init__(self, input: Transformation, output_tag: Any) -> None:
        super().__init__("SideOutput", getattr(output_tag, "type_info", None), input.parallelism)
        self.input = input
        self.output_tag = output_tag

    @property
    def inputs(self) -> list[Transformation]:
        return [self.input]


CACHE_PRODUCER_OPERATOR_NAME = "CacheWrite"  # CacheTransformationTranslator's names
CACHE_CONSUMER_OPERATOR_NAME = "CacheRead"


class CacheTransformation(Transformation):
    """Flink's ``CacheTransformation`` (``DataStream.cache()``): in a batch job its input's records
    go to a ``CacheWrite`` node as well; once cached, a ``CacheRead`` source replays them.

    ``writer`` is the CacheWrite sink (a collect sink whose records the environment keeps per
    subtask); ``reader`` is None until the environment hands it the cached partitions.
    """

    def __init__(self, input: Transformation, writer_factory: OperatorFactory) -> None:
        super().__init__(f"Cache: {input.name}", input.output_type, input.parallelism)
        self.input = input
        self.dataset_id = f"{self.id:032x}"  # the IntermediateDataSetID it stands for
        self.writer = SinkTransformation(input, CACHE_PRODUCER_OPERATOR_NAME, writer_factory)
        self.reader: LegacySourceTransformation | None = None

    @property
    def cached(self) -> bool:
        return self.reader is not None

    @property
    def inputs(self) -> list[Transformation]:
        """``getInputs``: the cached transformation's upstream is not part of a job that reads the
        cache."""
        return [] if self.reader is not None else [self.input]
