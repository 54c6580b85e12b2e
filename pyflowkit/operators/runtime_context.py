"""The RuntimeContext user functions see (Flink's ``StreamingRuntimeContext``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyflowkit.common.distributed_cache import DistributedCache
from pyflowkit.datastream.functions import RuntimeContext
from pyflowkit.errors import UnsupportedOperationException
from pyflowkit.metrics.metricbase import MetricGroup, operator_metric_group

if TYPE_CHECKING:
    from pyflowkit.operators.base import StreamOperator


class StreamingRuntimeContext(RuntimeContext):
    """Flink's ``StreamingRuntimeContext``: task info plus keyed state of one operator."""

    def __init__(self, operator: StreamOperator) -> None:
        self.operator = operator

    @property
    def _env(self) -> Any:
        return self.operator._env

    def get_task_name(self) -> str:
        return self._env.task_name

    def get_number_of_parallel_subtasks(self) -> int:
        return self._env.parallelism

    def get_max_number_of_parallel_subtasks(self) -> int:
        return self._env.max_parallelism

    def get_index_of_this_subtask(self) -> int:
        return self._env.subtask_index

    def get_attempt_number(self) -> int:
        return self._env.attempt_number

    def get_task_name_with_subtasks(self) -> str:
        return self._env.task_name_with_subtasks

    def get_job_parameter(self, key: str, default_value: str) -> str:
        return self._env.job_parameters.get(key, default_value)

    def get_metrics_group(self) -> MetricGroup:
        """Flink's ``getMetricGroup``: the operator's group, scope
        ``<host>.taskmanager.<tm_id>.<job_name>.<operator_name>.<subtask_index>``."""
        group = getattr(self.operator, "_metric_group", None)
        if group is None:
            env = self._env
            clock = env.processing_time_service.get_current_processing_time
            group = operator_metric_group(
                env.metric_registry,
                clock,
                host="localhost",
                tm_id=env.task_manager_id,
                job_name=env.job_name,
                task_name=env.task_name,
                operator_name=self.operator.config.operator_name,
                subtask_index=env.subtask_index,
            )
            self.operator._metric_group = group
        return group

    def get_distributed_cache(self) -> DistributedCache:
        """Flink's ``getDistributedCache``: files registered with ``register_cached_file``."""
        return DistributedCache(self.operator.config.cached_files, self._env.cached_file_resolver)

    def get_accumulator(self, name: str) -> Any:
        return self._env.accumulators.get(name)

    def add_accumulator(self, name: str, value: Any) -> None:
        self._env.accumulators[name] = value

    def _keyed_state(self, descriptor: Any, kind: str) -> Any:
        if descriptor.kind != kind:
            raise UnsupportedOperationException(
                f"Operator '{self.operator.config.operator_name}': get_{kind}_state needs a "
                f"{kind} state descriptor, got {type(descriptor).__name__}."
            )
        backend = self.operator.keyed_state_backend
        ttl = descriptor.get_ttl_config() if hasattr(descriptor, "get_ttl_config") else None
        if backend is None:
            what = f"State '{descriptor.name}' has a time-to-live; TTL" if ttl else "Keyed state"
            raise UnsupportedOperationException(
                f"Operator '{self.operator.config.operator_name}': {what} can only be used on "
                "a 'keyed stream', i.e., after a 'keyBy()' operation."
            )
        state = backend.get_partitioned_state(descriptor)
        if ttl is None or not ttl.is_enabled():
            return state
        return self.operator.ttl_states().wrap(state, ttl)

    def get_state(self, state_descriptor: Any) -> Any:
        return self._keyed_state(state_descriptor, "value")

    def get_list_state(self, state_descriptor: Any) -> Any:
        return self._keyed_state(state_descriptor, "list")

    def get_map_state(self, state_descriptor: Any) -> Any:
        return self._keyed_state(state_descriptor, "map")

    def get_reducing_state(self, state_descriptor: Any) -> Any:
        return self._keyed_state(state_descriptor, "reducing")

    def get_aggregating_state(self, state_descriptor: Any) -> Any:
        return self._keyed_state(state_descriptor, "aggregating")
