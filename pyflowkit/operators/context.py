"""What a runtime gives the operators of one subtask (Flink's ``Environment`` + ``StreamConfig``).

A runtime (the simulated cluster, Spark, the local driver) implements ``TaskEnvironment``;
``StreamConfig`` is built per chained operator from its ``StreamNode``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pyflowkit.common.flink_version import default_version
from pyflowkit.common.python_dependencies import CACHED_FILES
from pyflowkit.common.python_dependencies import cached_files as parse_cached_files
from pyflowkit.metrics.metricbase import MetricRegistry
from pyflowkit.operators.processing_time import ManualProcessingTimeService, ProcessingTimeService
from pyflowkit.state.key_groups import (
    KeyGroupRange,
    compute_default_max_parallelism,
    compute_key_group_range_for_operator_index,
)


@dataclass(eq=False)
class TaskEnvironment:
    """Flink's ``RuntimeEnvironment``/``TaskInfo`` for one subtask, plus the host's I/O hooks.

    ``print_lines(lines, to_err)`` writes a batch of a print sink's lines (hosts capture or forward
    them; a host with only ``print_writer`` gets them line by line, one without either writes
    them to stdout/stderr);
    ``collect(sink_node_id, value)`` appends to a collect sink's buffer; ``accumulators`` are the
    job's accumulators (name → value) this subtask contributes to; ``metric_registry`` holds the
    metrics its operators registered (Flink's ``TaskMetricGroup``), ``task_manager_id`` names the
    TaskManager in their scope.
    """

    job_name: str = "Flink Streaming Job"
    task_name: str = "Task"
    subtask_index: int = 0
    parallelism: int = 1
    max_parallelism: int = 128
    attempt_number: int = 0
    processing_time_service: ProcessingTimeService = field(
        default_factory=ManualProcessingTimeService
    )
    print_writer: Callable[[str, bool], None] | None = None
    print_lines_writer: Callable[[list[str], bool], None] | None = None
    collect_writer: Callable[[int, Any], None] | None = None
    accumulators: dict[str, Any] = field(default_factory=dict)
    job_parameters: dict[str, str] = field(default_factory=dict)
    metric_registry: MetricRegistry = field(default_factory=MetricRegistry)
    task_manager_id: str = "local"
    cached_file_resolver: Callable[[str, str], str] | None = None  # None: registered path as is

    @property
    def key_group_range(self) -> KeyGroupRange:
        return compute_key_group_range_for_operator_index(
            self.max_parallelism, self.parallelism, self.subtask_index
        )

    @property
    def task_name_with_subtasks(self) -> str:
        return f"{self.task_name} ({self.subtask_index + 1}/{self.parallelism})"

    def print_line(self, line: str, to_err: bool) -> None:
        if self.print_writer is not None:
            self.print_writer(line, to_err)
        else:
            print(line, file=sys.stderr if to_err else sys.stdout)

    def print_lines(self, lines: list[str], to_err: bool) -> None:
        if self.print_lines_writer is not None:
            self.print_lines_writer(lines, to_err)
        elif self.print_writer is not None:
            for line in lines:
                self.print_writer(line, to_err)
        elif lines:
            (sys.stderr if to_err else sys.stdout).write("\n".join(lines) + "\n")

    def collect(self, sink_node_id: int, value: Any) -> None:
        if self.collect_writer is None:
            raise RuntimeError(
                f"Collect sink {sink_node_id} runs on a host that gave no collect buffer."
            )
        self.collect_writer(sink_node_id, value)


@dataclass(eq=False)
class StreamConfig:
    """Flink's ``StreamConfig``: what one chained operator is configured with.

    ``key_selector``/``key_selector1``/``key_selector2`` are set for keyed operators;
    ``input_type(s)``, ``output_type`` and ``key_type`` are the declared TypeInformation (or None).
    """

    node_id: int = 0
    operator_name: str = "Operator"
    operator_id: str = ""
    key_selector: Callable[[Any], Any] | None = None
    key_selector1: Callable[[Any], Any] | None = None
    key_selector2: Callable[[Any], Any] | None = None
    input_types: tuple[Any, ...] = ()
    output_type: Any = None
    key_type: Any = None  # key_by(..., key_type=...): keys are checked against it
    time_characteristic: str = "ProcessingTime"
    auto_watermark_interval: int = 0
    chain_index: int = 0
    is_chain_start: bool = True
    is_chain_end: bool = True
    runtime_mode: str = "STREAMING"  # the job's resolved RuntimeExecutionMode: STREAMING / BATCH
    # the job's pyflowkit.flink-version (common.flink_version; unset: the entry point's default)
    flink_version: str = field(default_factory=default_version)
    cached_files: dict[str, tuple[str, bool]] = field(default_factory=dict)  # name → (path, exec)

    @property
    def is_batch(self) -> bool:
        """BATCH execution mode (Flink 1.12's ``RuntimeExecutionMode.BATCH``)."""
        return self.runtime_mode == "BATCH"

    @property
    def is_keyed(self) -> bool:
        return (
            self.key_selector is not None
            or self.key_selector1 is not None
            or self.key_selector2 is not None
        )

    @classmethod
    def from_stream_node(
        cls,
        node: Any,
        chain_index: int = 0,
        operator_id: str = "",
        settings: Any = None,
    ) -> StreamConfig:
        """Read a ``StreamNode`` into a config; ``settings`` is the graph's EnvironmentSettings."""
        from pyflowkit.datastream.functions import key_selector_callable

        def sel(s: Any) -> Callable[[Any], Any] | None:
            return None if s is None else key_selector_callable(s)

        in_types = tuple(
            e.source.output_type for e in sorted(node.in_edges, key=lambda e: e.type_number)
        )
        return cls(
            node_id=node.id,
            operator_name=node.operator_name,
            operator_id=operator_id,
            key_selector=sel(node.state_key_selector),
            key_selector1=sel(node.state_key_selector1),
            key_selector2=sel(node.state_key_selector2),
            input_types=in_types,
            output_type=node.output_type,
            key_type=getattr(node, "state_key_type", None),
            time_characteristic=getattr(settings, "time_characteristic", "ProcessingTime"),
            auto_watermark_interval=getattr(settings, "auto_watermark_interval", 0),
            chain_index=chain_index,
            flink_version=getattr(settings, "flink_version", None) or default_version(),
            cached_files=parse_cached_files(
                (getattr(settings, "configuration", None) or {}).get(CACHED_FILES)
            ),
        )


def default_max_parallelism(max_parallelism: int, parallelism: int) -> int:
    """The max parallelism a vertex runs with: its own if set, else Flink's default."""
    return max_parallelism if max_parallelism > 0 else compute_default_max_parallelism(parallelism)
