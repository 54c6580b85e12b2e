"""Job submission: the Dispatcher and the JobManagerRunner with its leader election."""

from __future__ import annotations

from pyflowkit.graph.job_graph import JobGraph
from pyflowkit.runtime.job_master import JobMaster
from pyflowkit.runtime.resource_manager import ResourceManager
from pyflowkit.runtime.rpc import RpcBus


class JobManagerRunner:
    """Flink's ``JobManagerRunnerImpl``: leader election, then creates and starts the JobMaster."""

    def __init__(
        self, job_graph: JobGraph, bus: RpcBus, rm: ResourceManager, dispatcher: Dispatcher
    ) -> None:
        self.job_graph = job_graph
        self.bus = bus
        self.rm = rm
        self.dispatcher = dispatcher
        self.job_master: JobMaster | None = None

    def start(self) -> None:
        """``JobManagerRunnerImpl.start``: start leader election for this job."""
        self.bus.emit(
            "JobManagerRunner",
            "JobManagerRunnerImpl.start",
            f"Starting leader election for job {self.job_graph.job_id}.",
            job=self.job_graph.job_id,
        )
        self.bus.send(
            "LeaderElectionService",
            "JobManagerRunner",
            "JobManagerRunnerImpl.grantLeadership",
            self.grant_leadership,
        )

    def grant_leadership(self) -> None:
        """``grantLeadership`` → ``startJobMaster``: create the JobMaster and start it."""
        session = self.bus.new_id()
        self.bus.emit(
            "JobManagerRunner",
            "JobManagerRunnerImpl.grantLeadership",
            f"JobManager runner for job {self.job_graph.job_name} "
            f"({self.job_graph.job_id}) was granted leadership with session id {session}.",
            job=self.job_graph.job_id,
        )
        self.job_master = JobMaster(self.job_graph, self.bus, self.rm, self.dispatcher)
        self.bus.send("JobManagerRunner", "JobMaster", "JobMaster.start", self.job_master.start)


class Dispatcher:
    """Flink's ``Dispatcher`` (``StandaloneDispatcher`` of a MiniCluster)."""

    def __init__(self, bus: RpcBus, rm: ResourceManager) -> None:
        self.bus = bus
        self.rm = rm
        self.runners: dict[str, JobManagerRunner] = {}
        self.terminal_jobs: dict[str, str] = {}

    def submit_job(self, job_graph: JobGraph) -> None:
        """``Dispatcher.submitJob`` → persistAndRunJob → createJobManagerRunner → start."""
        jid, name = job_graph.job_id, job_graph.job_name
        self.bus.emit(
            "Dispatcher",
            "Dispatcher.submitJob",
            f"Received JobGraph submission {jid} ({name}).",
            job=jid,
        )
        self.bus.emit(
            "Dispatcher", "Dispatcher.persistAndRunJob", f"Submitting job {jid} ({name}).", job=jid
        )
        runner = JobManagerRunner(job_graph, self.bus, self.rm, self)
        self.runners[jid] = runner
        self.bus.send("Dispatcher", "JobManagerRunner", "JobManagerRunnerImpl.start", runner.start)

    def job_reached_globally_terminal_state(self, jm: JobMaster) -> None:
        self.terminal_jobs[jm.job_id] = jm.job_status.value
        self.bus.emit(
            "Dispatcher",
            "Dispatcher.jobReachedGloballyTerminalState",
            f"Job {jm.job_id} reached globally terminal state {jm.job_status.value}.",
            job=jm.job_id,
        )
