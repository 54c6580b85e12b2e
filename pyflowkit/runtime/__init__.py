"""The simulated local Flink cluster: a deterministic, steppable, rewindable MiniCluster."""

from pyflowkit.runtime.execution_state import ExecutionState
from pyflowkit.runtime.job_status import JobStatus
from pyflowkit.runtime.mini_cluster import MiniCluster
from pyflowkit.runtime.trace import TraceEvent, load_trace

__all__ = ["ExecutionState", "JobStatus", "MiniCluster", "TraceEvent", "load_trace"]
