"""The runtime context CEP user functions see (Flink 1.11's
``org.apache.flink.cep.operator.CepRuntimeContext``).

Conditions, pattern select / flat-select / process functions and timeout functions get the task
info, the metric group, job parameters and the distributed cache of the operator's
``StreamingRuntimeContext``; keyed state, accumulators and broadcast variables are refused with
Flink's ``UnsupportedOperationException`` messages (the operator's own state is its NFA's alone).
"""

from __future__ import annotations

from typing import Any, NoReturn

from pyflowkit.common.distributed_cache import DistributedCache
from pyflowkit.datastream.functions import RuntimeContext
from pyflowkit.errors import UnsupportedOperationException
from pyflowkit.metrics.metricbase import MetricGroup

_STATE = "State is not supported."
_ACCUMULATORS = "Accumulators are not supported."
_BROADCAST = "Broadcast variables are not supported."


class CepRuntimeContext(RuntimeContext):
    """A ``RuntimeContext`` wrapper without state, accumulators or broadcast variables.

    Mirrors Flink's ``org.apache.flink.cep.operator.CepRuntimeContext`` (set on every CEP user
    function by ``CepOperator.setup`` / ``NFA.open``).
    """

    __slots__ = ("runtime_context", "operator_name")

    def __init__(self, runtime_context: Any, operator_name: str) -> None:
        self.runtime_context = runtime_context
        self.operator_name = operator_name

    def _refuse(self, message: str, what: str) -> NoReturn:
        raise UnsupportedOperationException(
            f"{message} (Operator '{self.operator_name}': CEP conditions and pattern functions "
            f"get Flink's CepRuntimeContext, which offers no {what}.)"
        )

    # ---- delegated (CepRuntimeContext forwards these to the operator's context) ----
    def get_task_name(self) -> str:
        return self.runtime_context.get_task_name()

    def get_number_of_parallel_subtasks(self) -> int:
        return self.runtime_context.get_number_of_parallel_subtasks()

    def get_max_number_of_parallel_subtasks(self) -> int:
        return self.runtime_context.get_max_number_of_parallel_subtasks()

    def get_index_of_this_subtask(self) -> int:
        return self.runtime_context.get_index_of_this_subtask()

    def get_attempt_number(self) -> int:
        return self.runtime_context.get_attempt_number()

    def get_task_name_with_subtasks(self) -> str:
        return self.runtime_context.get_task_name_with_subtasks()

    def get_job_parameter(self, key: str, default_value: str) -> str:
        return self.runtime_context.get_job_parameter(key, default_value)

    def get_metrics_group(self) -> MetricGroup:
        return self.runtime_context.get_metrics_group()

    def get_distributed_cache(self) -> DistributedCache:
        return self.runtime_context.get_distributed_cache()

    # ---- unsupported operations (Flink's messages) ----
    def add_accumulator(self, name: str, value: Any) -> NoReturn:
        self._refuse(_ACCUMULATORS, "accumulators")

    def get_accumulator(self, name: str) -> NoReturn:
        self._refuse(_ACCUMULATORS, "accumulators")

    def get_all_accumulators(self) -> NoReturn:
        self._refuse(_ACCUMULATORS, "accumulators")

    def get_int_counter(self, name: str) -> NoReturn:
        self._refuse("Int counters are not supported.", "accumulators")

    def get_long_counter(self, name: str) -> NoReturn:
        self._refuse("Long counters are not supported.", "accumulators")

    def get_double_counter(self, name: str) -> NoReturn:
        self._refuse("Double counters are not supported.", "accumulators")

    def get_histogram(self, name: str) -> NoReturn:
        self._refuse("Histograms are not supported.", "accumulators")

    def has_broadcast_variable(self, name: str) -> NoReturn:
        self._refuse(_BROADCAST, "broadcast variables")

    def get_broadcast_variable(self, name: str) -> NoReturn:
        self._refuse(_BROADCAST, "broadcast variables")

    def get_broadcast_variable_with_initializer(self, name: str, initializer: Any) -> NoReturn:
        self._refuse(_BROADCAST, "broadcast variables")

    def get_state(self, state_descriptor: Any) -> NoReturn:
        self._refuse(_STATE, "keyed state")

    def get_list_state(self, state_descriptor: Any) -> NoReturn:
        self._refuse(_STATE, "keyed state")

    def get_map_state(self, state_descriptor: Any) -> NoReturn:
        self._refuse(_STATE, "keyed state")

    def get_reducing_state(self, state_descriptor: Any) -> NoReturn:
        self._refuse(_STATE, "keyed state")

    def get_aggregating_state(self, state_descriptor: Any) -> NoReturn:
        self._refuse(_STATE, "keyed state")

    def __repr__(self) -> str:
        return f"CepRuntimeContext({self.operator_name!r})"
