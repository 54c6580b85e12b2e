"""How many TaskManagers and slots a simulated MiniCluster starts for a job.

Flink's local execution sizes its MiniCluster to the job: ``PerJobMiniClusterFactory
.getMiniClusterConfig(jobGraph.getMaximumParallelism())`` (1.11 and 1.20 alike) takes
``local.number-taskmanager`` TaskManagers (1.20: ``minicluster.number-of-taskmanagers``, the old
key deprecated; default 1) and ``taskmanager.numberOfTaskSlots`` slots each, or, when that is not
configured, ``MathUtils.divideRoundUp(maximumParallelism, numTaskManagers)``.

Two deliberate differences: the job's need is ``required_slots`` (the max parallelism of each slot
sharing group, summed), so a second slot sharing group gets slots where Flink's one group's worth
makes it wait and fail (golden ``program__notebook02_slots``); and the classroom cluster
(``MiniCluster()``, ``Stepper(env)``) keeps 2 TaskManagers x 2 slots for a job that fits, and gives a
larger job as many slots on each of its 2 TaskManagers as the job needs, so that one TaskManager
can hold the job after ``Fail TM`` (Flink's MiniCluster never restarts a failed TaskManager: its
``TerminatingFatalErrorHandler`` only closes it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.graph.job_graph import JobGraph

NUM_TASK_SLOTS = "taskmanager.numberOfTaskSlots"
NUM_TASK_MANAGERS = "minicluster.number-of-taskmanagers"
NUM_TASK_MANAGERS_DEPRECATED = "local.number-taskmanager"
#: the classroom cluster: 2 TaskManagers x 2 slots (slot choice and TaskManager loss stay visible)
CLASSROOM_TASK_MANAGERS = 2
CLASSROOM_SLOTS = 2


@dataclass(frozen=True)
class ClusterSize:
    """TaskManagers and slots per TaskManager of one MiniCluster."""

    task_managers: int
    slots_per_task_manager: int


def required_slots(job_graph: JobGraph) -> int:
    """Slots a job needs with slot sharing: the max parallelism of each group, summed."""
    groups: dict[str, int] = {}
    for v in job_graph.vertices:
        g = v.slot_sharing_group or "default"
        groups[g] = max(groups.get(g, 0), v.parallelism)
    return sum(groups.values())


def job_configuration(job_graph: JobGraph) -> dict[str, str]:
    """The job's ``Configuration`` (what ``get_execution_environment(config)`` / ``configure``
    set), as the executor hands it to ``PerJobMiniClusterFactory``."""
    config = getattr(job_graph.stream_graph, "execution_config", None)
    return dict(getattr(config, "configuration", {}) or {})


def _count(value: object, name: str) -> int:
    """A TaskManager or slot count: an int >= 1 (as given, or a configured string)."""
    try:
        n = value if isinstance(value, int) and not isinstance(value, bool) else int(str(value))
    except ValueError:
        n = 0
    if n < 1:
        raise IllegalArgumentException(f"MiniCluster: {name} must be an int >= 1, got {value!r}.")
    return n


def configured_task_managers(configuration: Mapping[str, str]) -> int | None:
    """``minicluster.number-of-taskmanagers`` (or its deprecated key), if configured."""
    for key in (NUM_TASK_MANAGERS, NUM_TASK_MANAGERS_DEPRECATED):
        if key in configuration:
            return _count(configuration[key], key)
    return None


def configured_slots(configuration: Mapping[str, str]) -> int | None:
    """``taskmanager.numberOfTaskSlots``, if configured."""
    if NUM_TASK_SLOTS in configuration:
        return _count(configuration[NUM_TASK_SLOTS], NUM_TASK_SLOTS)
    return None


def local_execution_size(job_graph: JobGraph) -> ClusterSize:
    """``PerJobMiniClusterFactory.getMiniClusterConfig``: what ``env.execute()`` starts."""
    configuration = job_configuration(job_graph)
    tms = configured_task_managers(configuration) or 1
    slots = configured_slots(configuration)
    if slots is None:
        slots = -(-required_slots(job_graph) // tms)  # MathUtils.divideRoundUp
    return ClusterSize(tms, max(1, slots))


def classroom_size(
    job_graph: JobGraph,
    task_managers: int | None = None,
    slots: int | None = None,
) -> ClusterSize:
    """What ``MiniCluster()`` and ``Stepper(env)`` start: the given counts, else the job's
    configured ones, else 2 TaskManagers x 2 slots, or x the job's required slots when it does not
    fit in 2 x 2 (each TaskManager can hold the job, so it recovers from ``Fail TM``)."""
    configuration = job_configuration(job_graph)
    tms = (
        _count(task_managers, "task_managers")
        if task_managers is not None
        else configured_task_managers(configuration) or CLASSROOM_TASK_MANAGERS
    )
    if slots is not None:
        return ClusterSize(tms, _count(slots, "slots_per_task_manager"))
    configured = configured_slots(configuration)
    if configured is not None:
        return ClusterSize(tms, configured)
    need = required_slots(job_graph)
    return ClusterSize(tms, CLASSROOM_SLOTS if need <= tms * CLASSROOM_SLOTS else need)
