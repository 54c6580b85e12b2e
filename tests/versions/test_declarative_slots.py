"""FLIP-138 under the 1.20 profile: the JobMaster declares resource requirements.

Flink 1.11's SlotPoolImpl sends one ResourceManager.requestSlot per slot; Flink 1.20's
DeclarativeSlotPoolBridge raises DefaultDeclarativeSlotPool's requirements and, once connected,
declares the total (ResourceManager.declareRequiredResources); the FineGrainedSlotManager
allocates the missing slots on dynamic slot ids and the offers fulfil the pending requests.
"""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Configuration
from pyflowkit.common.flink_version import FLINK_VERSION_KEY
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.runtime.predicates import all_tasks_in, job_finished

DECLARE = "ResourceManager.declareRequiredResources"
OFFER_1_20 = "DefaultDeclarativeSlotPool.offerSlots"
REQUIREMENT_2 = (
    "[ResourceRequirement{resourceProfile=ResourceProfile{UNKNOWN}, numberOfRequiredSlots=2}]"
)


def _run(version: str, *, checkpointing: bool = False) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string(FLINK_VERSION_KEY, version)
    )
    env.set_parallelism(2)
    if checkpointing:
        env.enable_checkpointing(50)
    words = env.from_collection(["a b", "b c", "a", "c c"]).flat_map(lambda s: s.split())
    words.map(lambda w: (w, 1)).key_by(lambda t: t[0]).reduce(
        lambda a, b: (a[0], a[1] + b[1])
    ).print()
    return MiniCluster(task_managers=2, slots_per_task_manager=2, seed=7, echo_print=False).submit(
        env, "words"
    )


def _required(message: str) -> int:
    """numberOfRequiredSlots of a declaration's text (0 for ``[]``)."""
    return 0 if message.endswith(": []") else int(message.rsplit("=", 1)[1].rstrip("}]"))


def _methods(run: Any) -> list[str]:
    return [e.method for e in run.trace]


def test_1_20_declares_requirements_before_any_slot_is_offered() -> None:
    run = _run("1.20")
    run.run_until(all_tasks_in("RUNNING"))
    trace = run.trace
    methods = _methods(run)
    declares = [e for e in trace if e.method == DECLARE]
    first_offer = methods.index(OFFER_1_20)
    # one declaration of the total, sent once the ResourceManager connection is up
    assert [e.message for e in declares if trace.index(e) < first_offer] == [
        f"Received resource declaration for job {run.job_graph.job_id}: {REQUIREMENT_2}"
    ]
    assert methods.index("DeclarativeSlotPoolService.connectToResourceManager") < methods.index(
        DECLARE
    )
    assert methods.index("FineGrainedSlotManager.processResourceRequirements") < first_offer
    # the JobMaster never requests a slot itself: no SlotPoolImpl / SlotManagerImpl request path
    for legacy in ("SlotPool.requestNewAllocatedSlot", "SlotManager.registerSlotRequest"):
        assert legacy not in methods
    assert methods.count("DeclarativeSlotPoolBridge.requestNewAllocatedSlot") == 2
    assert methods.count("DefaultSlotStatusSyncer.allocateSlot") == 2
    assert methods.count("TaskExecutor.requestSlot") == 2
    assert methods.count("DeclarativeSlotPoolBridge.newSlotsAreAvailable") == 2
    assert "[org.apache.flink.runtime.scheduler.strategy.PipelinedRegionSchedulingStrategy]" in (
        next(e.message for e in trace if e.method == "DefaultScheduler.startScheduling")
    )
    # dynamic slot ids: the TaskSlotTable numbers them after its two static slots
    slots = run.slots_frame()
    allocated = slots[slots["state"] == "ALLOCATED"]
    assert sorted(allocated["slot"]) == [2, 3]
    assert sorted(run.tasks_frame()["slot"]) == [2, 2, 2, 3, 3]


def test_1_11_requests_one_slot_at_a_time() -> None:
    run = _run("1.11")
    run.run_until(all_tasks_in("RUNNING"))
    methods = _methods(run)
    assert methods.count("SlotPool.requestNewAllocatedSlot") == 2
    assert methods.count("SlotManager.registerSlotRequest") == 2
    for new in (DECLARE, OFFER_1_20, "DefaultSlotStatusSyncer.allocateSlot"):
        assert new not in methods
    assert "EagerSchedulingStrategy]" in next(
        e.message for e in run.trace if e.method == "DefaultScheduler.startScheduling"
    )
    assert sorted(run.slots_frame().query("state == 'ALLOCATED'")["slot"]) == [0, 1]


def test_both_versions_print_the_same_and_give_every_slot_back() -> None:
    printed = {}
    for version in ("1.11", "1.20"):
        run = _run(version)
        run.run_until(job_finished())
        run.step(1000)
        assert run.job_status is JobStatus.FINISHED
        # the subtask prefix differs (1.20 keys by Row.of(key): FLIP-130), the records do not
        printed[version] = sorted(line.split("> ", 1)[1] for line in run.printed())
        assert set(run.slots_frame()["state"]) == {"FREE"}
        assert list(run.slots_frame()["slot"]) == [0, 1, 0, 1]  # static numbers again
    assert printed["1.11"] == printed["1.20"]
    assert printed["1.20"][-1] == "('c', 3)"


def test_1_20_restart_re_reserves_the_pools_slots_without_new_requests() -> None:
    run = _run("1.20", checkpointing=True)
    run.run_until(all_tasks_in("RUNNING"))
    allocations = set(run.slots_frame().query("state == 'ALLOCATED'")["allocation_id"])
    before = len(run.trace)
    run.fail_task("Flat Map", 0)
    run.run_until(job_finished())
    after = run.trace[before:]
    methods = [e.method for e in after]
    assert "RESTARTING" in {e.new_state for e in after}
    # the failed region's slots stay in the pool, free, and are reserved again
    freed = [e for e in after if e.method == "DefaultDeclarativeSlotPool.freeReservedSlot"]
    reserved = [e for e in after if e.method == "DeclarativeSlotPoolBridge.allocateAvailableSlot"]
    assert len(freed) == len(reserved) == 2
    assert {a for a in allocations if any(a in e.message for e in reserved)} == allocations
    # requirements drop and come back: re-declared, but no new slot from the ResourceManager
    declared = [_required(e.message) for e in after if e.method == DECLARE]
    assert declared == [0, 1, 2]
    assert "TaskExecutor.requestSlot" not in methods
    assert "DefaultSlotStatusSyncer.allocateSlot" not in methods
    assert run.job_status is JobStatus.FINISHED


@pytest.mark.parametrize("version", ["1.11", "1.20"])
def test_lost_task_manager_gets_new_slots_on_the_other(version: str) -> None:
    run = _run(version, checkpointing=True)
    run.run_until(all_tasks_in("RUNNING"))
    te = run.tasks_frame()["task_executor"].iloc[0]
    run.fail_task_manager(int(te.rsplit("-", 1)[1]))
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED
    alive = {r for r in run.tasks_frame()["task_executor"]}
    assert te not in alive


def test_the_sequence_diagram_draws_1_20_slot_calls_between_their_components() -> None:
    from pyflowkit.notebook.stepper_narration import NARRATION
    from pyflowkit.render.sequence_model import sequence_model

    run = _run("1.20")
    run.run()
    messages = sequence_model(run.trace, 2).to_dict()["messages"]
    ends = {m["method"]: (m["from"], m["to"]) for m in messages}
    assert ends[DECLARE] == ("SlotPool", "ResourceManager")
    assert ends["DeclarativeSlotPoolBridge.requestNewAllocatedSlot"] == ("Scheduler", "SlotPool")
    assert ends["DeclarativeSlotPoolService.connectToResourceManager"] == ("JobMaster", "SlotPool")
    assert ends[OFFER_1_20] == ("JobMaster", "SlotPool")
    assert ends["DefaultDeclarativeSlotPool.declareResourceRequirements"] == (
        "SlotPool",
        "SlotPool",
    )
    flip_138 = ("DeclarativeSlotPool", "DefaultDeclarativeSlotPool", "FineGrainedSlotManager")
    slot_calls = {m for m in ends if m.startswith(flip_138) or m == DECLARE}
    assert slot_calls - set(NARRATION) == set(), "every 1.20 slot call has a narration"
