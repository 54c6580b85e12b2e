"""PyFlink's ``pyflink.datastream.timerservice``: ``TimerService`` (defined with the functions)."""

from __future__ import annotations

from pyflowkit.datastream.functions import TimerService

__all__ = ["TimerService"]
