"""``InputDependencyConstraint`` (PyFlink's ``pyflink.common.InputDependencyConstraint``)."""

from __future__ import annotations

from enum import Enum


class InputDependencyConstraint(Enum):
    """Flink's ``InputDependencyConstraint``: schedule a task once ANY or ALL inputs are ready.

    Deprecated since Flink 1.13 and read by no scheduler (Flink's nor pyflowkit's).
    """

    ANY = 0
    ALL = 1
