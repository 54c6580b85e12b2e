"""The simulated local cluster (Flink's ``MiniCluster``): configuration and job submission."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.graph.job_graph import JobGraph
from pyflowkit.runtime.rpc import ClusterConfig
from pyflowkit.runtime.stream_task import ChainFactory, default_chain_factory


class MiniCluster:
    """Flink's ``MiniCluster``: a Dispatcher, a ResourceManager and N TaskExecutors with M slots.

    ``submit`` returns a ``JobRun`` that owns its own simulated world (clock, RPC bus, TaskExecutors),
    so that every run can be replayed deterministically from its seed.
    """

    def __init__(
        self,
        task_managers: int = 2,
        slots_per_task_manager: int = 2,
        seed: int = 0,
        chain_factory: ChainFactory | None = None,
        **options: Any,
    ) -> None:
        for name, value in (
            ("task_managers", task_managers),
            ("slots_per_task_manager", slots_per_task_manager),
        ):
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
        self.config = replace(
            ClusterConfig(),
            task_managers=task_managers,
            slots_per_task_manager=slots_per_task_manager,
            seed=seed,
            **options,
        )
        self.chain_factory = chain_factory or default_chain_factory

    def submit(self, env_or_job_graph: Any, job_name: str | None = None) -> Any:
        """``MiniCluster.submitJob``: a stepping handle on the job (nothing has happened yet)."""
        from pyflowkit.runtime.job_run import JobRun

        job_graph = to_job_graph(env_or_job_graph, job_name, seed=self.config.seed)
        return JobRun(self.config, job_graph, self.chain_factory)


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
