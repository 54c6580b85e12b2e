"""The simulated local cluster (Flink's ``MiniCluster``): configuration and job submission."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

from pyflowkit.common.python_dependencies import PYTHON_EXECUTABLE, LocalDependencies
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.graph.job_graph import JobGraph
from pyflowkit.runtime.cluster_size import classroom_size
from pyflowkit.runtime.cluster_size import job_configuration as _configuration
from pyflowkit.runtime.rpc import ClusterConfig
from pyflowkit.runtime.stream_task import ChainFactory, default_chain_factory


class MiniCluster:
    """Flink's ``MiniCluster``: a Dispatcher, a ResourceManager and N TaskExecutors with M slots.

    ``submit`` returns a ``JobRun`` that owns its own simulated world (clock, RPC bus, TaskExecutors),
    so that every run can be replayed deterministically from its seed. TaskManagers or slots left
    ``None`` are sized per job (``cluster_size.classroom_size``): the job's configured
    ``local.number-taskmanager`` / ``taskmanager.numberOfTaskSlots``, else 2 x 2, or 2 x the job's
    required slots when it does not fit.
    """

    def __init__(
        self,
        task_managers: int | None = None,
        slots_per_task_manager: int | None = None,
        seed: int = 0,
        chain_factory: ChainFactory | None = None,
        **options: Any,
    ) -> None:
        for name, value in (
            ("task_managers", task_managers),
            ("slots_per_task_manager", slots_per_task_manager),
        ):
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise IllegalArgumentException(
                    f"MiniCluster: {name} must be an int >= 1, got {value!r}."
                )
        unknown = set(options) - set(ClusterConfig.__dataclass_fields__)
        if unknown:
            raise IllegalArgumentException(
                f"MiniCluster: unknown option(s) {sorted(unknown)}; known: "
                f"{sorted(ClusterConfig.__dataclass_fields__)}."
            )
        window = options.get("printed_window", 0)
        if window is not None and (
            isinstance(window, bool) or not isinstance(window, int) or window < 0
        ):
            raise IllegalArgumentException(
                "MiniCluster: printed_window (lines run.printed() keeps) must be an int >= 0 or "
                f"None to keep every line, got {window!r}."
            )
        self.task_managers = task_managers
        self.slots_per_task_manager = slots_per_task_manager
        self.config = replace(ClusterConfig(), seed=seed, **options)
        self.chain_factory = chain_factory or default_chain_factory

    def submit(
        self,
        env_or_job_graph: Any,
        job_name: str | None = None,
        savepoint_path: str | Path | None = None,
        allow_non_restored_state: bool = False,
    ) -> Any:
        """``MiniCluster.submitJob``: a stepping handle on the job (nothing has happened yet).

        ``savepoint_path`` starts the job from a savepoint (state matched to operators by uid or
        generated id, redistributed by key group if the parallelism changed); Flink's error is
        raised here when state maps to no operator, unless ``allow_non_restored_state``.
        """
        from pyflowkit.runtime.job_run import JobRun

        job_graph = to_job_graph(env_or_job_graph, job_name, seed=self.config.seed)
        python_exec = _configuration(job_graph).get(PYTHON_EXECUTABLE)
        if python_exec:  # functions run in this interpreter: another one cannot be honoured
            LocalDependencies().check_executable(python_exec)
        if savepoint_path is None:
            savepoint_path = configured_savepoint_path(job_graph)
            if savepoint_path is not None:
                allow_non_restored_state = allow_non_restored_state or _configured_allow(job_graph)
        if savepoint_path is not None:
            job_graph = with_savepoint(job_graph, savepoint_path, allow_non_restored_state)
        return JobRun(self.config_for(job_graph), job_graph, self.chain_factory)

    def config_for(self, job_graph: JobGraph) -> ClusterConfig:
        """The cluster's configuration with the TaskManagers and slots it starts for this job."""
        size = classroom_size(job_graph, self.task_managers, self.slots_per_task_manager)
        return replace(
            self.config,
            task_managers=size.task_managers,
            slots_per_task_manager=size.slots_per_task_manager,
        )


def to_job_graph(env_or_job_graph: Any, job_name: str | None = None, seed: int = 0) -> JobGraph:
    """A JobGraph as given, or compiled from an environment with a JobID derived from the seed.

    (Flink's JobID is random; deriving it from the seed keeps "same program + seed → same trace".)
    """
    if isinstance(env_or_job_graph, JobGraph):
        return env_or_job_graph
    get_stream_graph = getattr(env_or_job_graph, "get_stream_graph", None)
    if get_stream_graph is None:
        raise IllegalArgumentException(
            "MiniCluster.submit expects a StreamExecutionEnvironment or a JobGraph, got "
            f"{type(env_or_job_graph).__name__}."
        )
    from pyflowkit.graph.streaming_job_graph_generator import create_job_graph

    stream_graph = get_stream_graph(job_name) if job_name is not None else get_stream_graph()
    rng = random.Random(f"job-id|{seed}|{stream_graph.job_name}")
    return create_job_graph(stream_graph, job_id=f"{rng.getrandbits(128):032x}")


def configured_savepoint_path(job_graph: JobGraph) -> str | None:
    """``execution.savepoint.path`` of the job's Configuration (as ``env.execute`` honours it)."""
    from pyflowkit.common.fs_path import local_path

    configured = _configuration(job_graph).get("execution.savepoint.path")
    return local_path(configured, "execution.savepoint.path") if configured else None


def _configured_allow(job_graph: JobGraph) -> bool:
    value = _configuration(job_graph).get("execution.savepoint.ignore-unclaimed-state", "false")
    return str(value).lower() == "true"


def with_savepoint(
    job_graph: JobGraph, path: str | Path, allow_non_restored_state: bool
) -> JobGraph:
    """The JobGraph with ``SavepointRestoreSettings``, after checking that the savepoint can be
    read and its state maps onto the job's operators (nothing is submitted otherwise)."""
    from pyflowkit.runtime.checkpoint.savepoint import SavepointRestoreSettings, read_savepoint
    from pyflowkit.runtime.checkpoint.state_assignment import check_state_mapping
    from pyflowkit.runtime.checkpoint.state_types import check_state_types
    from pyflowkit.state.user_types import job_state_classes

    if isinstance(allow_non_restored_state, bool) is False:
        raise IllegalArgumentException(
            "submit: allow_non_restored_state must be a bool, got "
            f"{type(allow_non_restored_state).__name__}."
        )
    _, states = read_savepoint(path, job_state_classes(job_graph))
    check_state_mapping(states, job_graph.vertices, str(path), allow_non_restored_state)
    check_state_types(states, job_graph.vertices, str(path), "state file")
    settings = SavepointRestoreSettings(str(path), allow_non_restored_state)
    return replace(job_graph, savepoint_restore_settings=settings)
