"""Metric groups and metrics (PyFlink's ``pyflink.metrics.metricbase``; Flink's
``MetricGroup``, ``SimpleCounter``, ``MeterView``, ``Gauge`` and PyFlink's ``Distribution``).

A subtask's metrics live in one ``MetricRegistry`` (its task environment's): the host reads the
values from there (the MiniCluster's task table, the Spark executor's result). Nothing here
imports pyflowkit: every layer may use it.
"""

from __future__ import annotations

import abc
from collections import deque
from collections.abc import Callable
from enum import Enum
from typing import Any


class Metric(abc.ABC):
    """PyFlink's ``Metric``: the base of every metric."""

    @abc.abstractmethod
    def value(self) -> Any:
        """What a reporter shows for this metric (pyflowkit's; Flink's reporters read each kind)."""


class Counter(Metric):
    """PyFlink's ``Counter`` (Flink's ``SimpleCounter``): a count that goes up and down."""

    def __init__(self) -> None:
        self._count = 0

    def inc(self, n: int = 1) -> None:
        self._count += n

    def dec(self, n: int = 1) -> None:
        self._count -= n

    def get_count(self) -> int:
        return self._count

    def value(self) -> int:
        return self._count

    def snapshot(self) -> Any:
        return self._count

    def restore(self, state: Any) -> None:
        self._count = int(state)


class Meter(Metric):
    """PyFlink's ``Meter`` (Flink's ``MeterView``): events, and their rate per second over the
    last ``time_span_in_seconds`` of the subtask's processing time."""

    def __init__(self, clock: Callable[[], int], time_span_in_seconds: int = 60) -> None:
        if isinstance(time_span_in_seconds, bool) or not isinstance(time_span_in_seconds, int):
            raise TypeError(f"time_span_in_seconds must be an int, got {time_span_in_seconds!r}")
        if time_span_in_seconds <= 0:
            raise ValueError(f"time_span_in_seconds must be positive, got {time_span_in_seconds}")
        self._clock = clock
        self._span_ms = time_span_in_seconds * 1000
        self._count = 0
        self._events: deque[tuple[int, int]] = deque()  # (time ms, value) within the span
        self._in_span = 0

    def mark_event(self, value: int = 1) -> None:
        self._count += value
        self._events.append((self._clock(), value))
        self._in_span += value
        self._expire()

    def get_count(self) -> int:
        return self._count

    def get_rate(self) -> float:
        """Events per second over the last time span (Flink's ``Meter.getRate``)."""
        self._expire()
        return self._in_span / (self._span_ms / 1000)

    def _expire(self) -> None:
        horizon = self._clock() - self._span_ms
        while self._events and self._events[0][0] <= horizon:
            self._in_span -= self._events.popleft()[1]

    def value(self) -> dict[str, float]:
        return {"count": self._count, "rate": self.get_rate()}

    def snapshot(self) -> Any:
        """Count and the events within the span, summed per millisecond."""
        self._expire()
        events: dict[int, int] = {}
        for at, value in self._events:
            events[at] = events.get(at, 0) + value
        return [self._count, sorted(events.items())]

    def restore(self, state: Any) -> None:
        count, events = state
        self._count = int(count)
        self._events = deque((int(at), int(value)) for at, value in events)
        self._in_span = sum(value for _, value in self._events)
        self._expire()


class Distribution(Metric):
    """PyFlink's ``Distribution``: count, sum, min, max and mean of the values it was given."""

    def __init__(self) -> None:
        self._count = 0
        self._sum = 0
        self._min: Any = None
        self._max: Any = None

    def update(self, value: int) -> None:
        self._count += 1
        self._sum += value
        self._min = value if self._min is None else min(self._min, value)
        self._max = value if self._max is None else max(self._max, value)

    def get_count(self) -> int:
        return self._count

    def get_sum(self) -> Any:
        return self._sum

    def get_min(self) -> Any:
        return self._min

    def get_max(self) -> Any:
        return self._max

    def get_mean(self) -> float | None:
        return self._sum / self._count if self._count else None

    def snapshot(self) -> Any:
        return [self._count, self._sum, self._min, self._max]

    def restore(self, state: Any) -> None:
        self._count, self._sum, self._min, self._max = state

    def value(self) -> dict[str, Any]:
        return {
            "count": self._count,
            "sum": self._sum,
            "min": self._min,
            "max": self._max,
            "mean": self.get_mean(),
        }


class Gauge(Metric):
    """Flink's ``Gauge``: the value of a function, read when reported."""

    def __init__(self, obj: Callable[[], Any]) -> None:
        if not callable(obj):
            raise TypeError(f"a gauge needs a callable returning its value, got {obj!r}")
        self._obj = obj

    def get_value(self) -> Any:
        return self._obj()

    def value(self) -> Any:
        return self._obj()


class MetricGroupType(Enum):
    """PyFlink's ``MetricGroupType``: a plain group, or the key / value of a key-value group."""

    generic = 0
    key = 1
    value = 2


class MetricRegistry:
    """The metrics of one subtask: identifier (scope below the task, joined by ``.``) → metric.

    A host that rebuilds a running subtask (the Spark streaming executor, once per micro-batch)
    carries its metrics over with ``snapshot`` / ``restore``: a metric registered again under a
    restored identifier continues from the restored value (gauges are read live, not kept)."""

    def __init__(self) -> None:
        self.metrics: dict[str, Metric] = {}
        self._restored: dict[str, tuple[str, Any]] = {}

    def register(self, identifier: str, metric: Metric) -> Metric:
        existing = self.metrics.get(identifier)
        if existing is not None:
            if type(existing) is not type(metric):
                raise ValueError(
                    f"Name collision: the metric {identifier!r} is already a "
                    f"{type(existing).__name__}, it cannot also be a {type(metric).__name__}."
                )
            return existing  # the same metric again (e.g. open() of a second function)
        restored = self._restored.pop(identifier, None)
        if restored is not None and restored[0] == type(metric).__name__:
            metric.restore(restored[1])  # type: ignore[attr-defined]
        self.metrics[identifier] = metric
        return metric

    def snapshot(self) -> dict[str, tuple[str, Any]]:
        """identifier → (kind, state) of every counter, meter and distribution (plain data)."""
        out = dict(self._restored)  # restored but not registered again (yet)
        for name, metric in self.metrics.items():
            if callable(getattr(metric, "snapshot", None)):
                out[name] = (type(metric).__name__, metric.snapshot())  # type: ignore[attr-defined]
        return out

    def restore(self, states: dict[str, tuple[str, Any]]) -> None:
        """Values for metrics registered from now on (see ``snapshot``)."""
        self._restored = {k: (kind, state) for k, (kind, state) in states.items()}

    def values(self) -> dict[str, Any]:
        """Every metric's current value, in registration order."""
        return {name: metric.value() for name, metric in self.metrics.items()}


class MetricGroup(abc.ABC):
    """PyFlink's ``MetricGroup``: named sub-groups and metrics of one operator subtask."""

    @abc.abstractmethod
    def add_group(self, name: str, extra: str | None = None) -> MetricGroup:
        """A sub-group ``name``; with ``extra`` a key group ``name`` and its value group
        ``extra`` (whose variables gain ``<name>`` = ``extra``)."""

    @abc.abstractmethod
    def counter(self, name: str) -> Counter: ...

    @abc.abstractmethod
    def gauge(self, name: str, obj: Callable[[], int]) -> None: ...

    @abc.abstractmethod
    def meter(self, name: str, time_span_in_seconds: int = 60) -> Meter: ...

    @abc.abstractmethod
    def distribution(self, name: str) -> Distribution: ...


def _name(name: Any, what: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"A {what} name must be a non-empty str, got {name!r}.")
    return name


class GenericMetricGroup(MetricGroup):
    """PyFlink's ``GenericMetricGroup``: scope components, variables, metrics in a registry.

    ``local_scope`` is the part of the scope below the subtask (operator name, user groups); it
    names the metric in the registry, as the task table shows it.
    """

    def __init__(
        self,
        registry: MetricRegistry,
        clock: Callable[[], int],
        scope_components: list[str],
        local_scope: list[str],
        variables: dict[str, str],
        name: str = "",
        metric_group_type: MetricGroupType = MetricGroupType.generic,
        delimiter: str = ".",
    ) -> None:
        self._registry = registry
        self._clock = clock
        self._scope_components = list(scope_components)
        self._local_scope = list(local_scope)
        self._variables = dict(variables)
        self._name = name
        self._metric_group_type = metric_group_type
        self._delimiter = delimiter
        self._sub_groups: dict[tuple[str, MetricGroupType], GenericMetricGroup] = {}

    def _add_group(self, name: str, group_type: MetricGroupType) -> GenericMetricGroup:
        key = (name, group_type)
        if key not in self._sub_groups:
            variables = dict(self._variables)
            if group_type is MetricGroupType.value:
                variables[f"<{self._name}>"] = name
            self._sub_groups[key] = GenericMetricGroup(
                self._registry,
                self._clock,
                [*self._scope_components, name],
                [*self._local_scope, name],
                variables,
                name,
                group_type,
                self._delimiter,
            )
        return self._sub_groups[key]

    def add_group(self, name: str, extra: str | None = None) -> MetricGroup:
        _name(name, "metric group")
        if extra is None:
            return self._add_group(name, MetricGroupType.generic)
        _name(extra, "metric group")
        return self._add_group(name, MetricGroupType.key)._add_group(extra, MetricGroupType.value)

    def _register(self, name: str, metric: Metric) -> Any:
        local = self._delimiter.join([*self._local_scope, _name(name, "metric")])
        return self._registry.register(local, metric)

    def counter(self, name: str) -> Counter:
        return self._register(name, Counter())

    def gauge(self, name: str, obj: Callable[[], int]) -> None:
        self._register(name, Gauge(obj))

    def meter(self, name: str, time_span_in_seconds: int = 60) -> Meter:
        return self._register(name, Meter(self._clock, time_span_in_seconds))

    def distribution(self, name: str) -> Distribution:
        return self._register(name, Distribution())

    def get_scope_components(self) -> list[str]:
        """The scope, e.g. ``['localhost', 'taskmanager', 'TaskExecutor-0', 'job', 'Map', '0']``."""
        return list(self._scope_components)

    def get_all_variables(self) -> dict[str, str]:
        return dict(self._variables)

    def get_metric_identifier(self, metric_name: str) -> str:
        """The fully qualified name, e.g. ``localhost.taskmanager.TaskExecutor-0.job.Map.0.n``."""
        return self._delimiter.join([*self._scope_components, metric_name])


def operator_metric_group(
    registry: MetricRegistry,
    clock: Callable[[], int],
    *,
    host: str,
    tm_id: str,
    job_name: str,
    task_name: str,
    operator_name: str,
    subtask_index: int,
) -> GenericMetricGroup:
    """Flink's ``OperatorMetricGroup`` with the default scope
    ``<host>.taskmanager.<tm_id>.<job_name>.<operator_name>.<subtask_index>``."""
    variables = {
        "<host>": host,
        "<tm_id>": tm_id,
        "<job_name>": job_name,
        "<task_name>": task_name,
        "<operator_name>": operator_name,
        "<subtask_index>": str(subtask_index),
    }
    scope = [host, "taskmanager", tm_id, job_name, operator_name, str(subtask_index)]
    return GenericMetricGroup(registry, clock, scope, [operator_name], variables, operator_name)
