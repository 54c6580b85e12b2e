"""Java ``long`` bounds as watermark sentinels (Flink's ``Watermark.MAX_WATERMARK``)."""

from __future__ import annotations

from pyflowkit.java_semantics import LONG_MAX_VALUE, LONG_MIN_VALUE

MAX_WATERMARK = LONG_MAX_VALUE  # Watermark.MAX_WATERMARK: end of event time
MIN_WATERMARK = LONG_MIN_VALUE  # an operator's watermark before any arrived
VOID_NAMESPACE = None  # Flink's VoidNamespace.INSTANCE: keyed state outside windows
