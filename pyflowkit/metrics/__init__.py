"""PyFlink's ``pyflink.metrics``: the metric group user functions get from
``RuntimeContext.get_metrics_group()`` and its counters, meters and distributions."""

from pyflowkit.metrics.metricbase import Counter, Distribution, Meter, Metric, MetricGroup

__all__ = ["MetricGroup", "Metric", "Counter", "Meter", "Distribution"]
