"""What a Spark run gives back: Flink's ``JobExecutionResult`` plus sinks, print lines, the plan.

Stands for Flink's ``JobExecutionResult``; ``to_pandas(sink)`` and ``spark_plan`` are pyflowkit's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyflowkit.common.job_execution_result import JobExecutionResult


class SparkJobExecutionResult(JobExecutionResult):
    """A finished Spark run: ``results`` per sink, ``print_lines``, ``spark_plan``, progress,
    ``metrics`` per subtask."""

    def __init__(
        self,
        job_id: str,
        net_runtime: int,
        results: Mapping[str, list[Any]],
        job_name: str | None = None,
        print_lines: list[str] | None = None,
        spark_plan: Any = None,
        sink_types: Mapping[str, Any] | None = None,
        progress: Any = None,
        metrics: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        super().__init__(job_id, net_runtime, results=results, job_name=job_name)
        self.print_lines = list(print_lines or [])
        self.spark_plan = spark_plan
        self.sink_types = dict(sink_types or {})
        self.progress = progress  # a SparkProgress, or a function giving it on first read
        # subtask ("Map (1/2)") → its operators' user metrics (identifier → value) at its end
        self.metrics = {task: dict(values) for task, values in (metrics or {}).items()}

    @property
    def spark_plan(self) -> Any:
        """Which JobVertex ran as which Spark stage (``SparkPlan``); a job the local Spark
        service ran reads it from the service when first asked for."""
        if callable(self._spark_plan):
            self._spark_plan = self._spark_plan()
        return self._spark_plan

    @spark_plan.setter
    def spark_plan(self, value: Any) -> None:
        self._spark_plan = value

    @property
    def progress(self) -> Any:
        """The run's final ``SparkProgress`` (jobs, stages, tasks done; FINISHED)."""
        if callable(self._progress):
            self._progress = self._progress()
        return self._progress

    @progress.setter
    def progress(self, value: Any) -> None:
        self._progress = value

    def _sink_name(self, sink: Any) -> str:
        name = getattr(sink, "name", None) or sink
        if not isinstance(name, str):
            name = str(name)
        if name in self.results:
            return name
        for candidate in (f"Sink: {name}",):
            if candidate in self.results:
                return candidate
        raise KeyError(f"No sink named {name!r}; this job's sinks are {sorted(self.results)}.")

    def to_pandas(self, sink: Any = None) -> Any:
        """The records of one sink (by name; the only one if omitted) as a pandas DataFrame.

        Rows become one column per field, tuples columns ``f0, f1, …``, scalars one column ``f0``;
        declared Types give the column dtypes.
        """
        import pandas as pd

        if sink is None:
            if len(self.results) != 1:
                raise KeyError(f"Name the sink: this job has {sorted(self.results)}.")
            name = next(iter(self.results))
        else:
            name = self._sink_name(sink)
        values = self.results[name]
        type_info = self.sink_types.get(name)
        columns = _column_names(values, type_info)
        if values and hasattr(values[0], "as_dict"):
            data = [tuple(v) for v in values]
        elif values and isinstance(values[0], tuple):
            data = values
        else:
            data = [(v,) for v in values]
        frame = pd.DataFrame.from_records(data, columns=columns)
        for column, dtype in _dtypes(type_info, columns).items():
            try:
                frame[column] = frame[column].astype(dtype)
            except (TypeError, ValueError):
                pass
        return frame


def _column_names(values: list[Any], type_info: Any) -> list[str]:
    if type_info is not None and hasattr(type_info, "get_field_names"):
        return list(type_info.get_field_names())
    if values and hasattr(values[0], "as_dict"):
        try:
            return list(values[0].as_dict())
        except Exception:
            return [f"f{i}" for i in range(len(tuple(values[0])))]
    if values and isinstance(values[0], tuple):
        return [f"f{i}" for i in range(len(values[0]))]
    if type_info is not None and hasattr(type_info, "get_arity"):
        return [f"f{i}" for i in range(type_info.get_arity())]
    return ["f0"]


_PANDAS_DTYPES = {
    "String": "string",
    "Integer": "int32",
    "Long": "int64",
    "Short": "int16",
    "Byte": "int8",
    "Boolean": "bool",
    "Float": "float32",
    "Double": "float64",
}


def _dtypes(type_info: Any, columns: list[str]) -> dict[str, str]:
    if type_info is None:
        return {}
    fields = type_info.get_field_types() if hasattr(type_info, "get_field_types") else [type_info]
    out = {}
    for column, field_type in zip(columns, fields, strict=False):
        dtype = _PANDAS_DTYPES.get(str(field_type))
        if dtype is not None:
            out[column] = dtype
    return out
