"""A job of parallelism 8 on the default simulated clusters: sized to the job as Flink's local
execution sizes its MiniCluster (``PerJobMiniClusterFactory.getMiniClusterConfig``), unless the
TaskManagers or slots are configured, in which case a too-small cluster fails as Flink's does."""

from __future__ import annotations

from collections import Counter

import pytest

from pyflowkit.common import Configuration, Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.errors import IllegalArgumentException, JobExecutionException
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.runtime.cluster_size import (
    classroom_size,
    local_execution_size,
    required_slots,
)
from pyflowkit.runtime.mini_cluster import to_job_graph
from pyflowkit.runtime.predicates import checkpoint_completed, job_finished
from pyflowkit.runtime.two_phase_commit import TransactionStore
from tests.checkpoint.jobs import WORDS, word_count

# Flink 1.20's DeclarativeSlotPoolBridge.failPendingRequests (1.11: SlotPoolImpl's timeout text)
NO_SLOT = "Could not acquire the minimum required resources."
NO_SLOT_1_11 = (
    "Could not allocate the required slot within slot request timeout. Please make sure that the "
    "cluster has enough resources."
)
VALUES = list(range(40))
EXPECTED = sorted(f"({k},{sum(v * 2 for v in VALUES if v % 5 == k)})" for k in range(5))


def p8_env(
    configuration: Configuration | None = None, parallelism: int = 8
) -> StreamExecutionEnvironment:
    """A parallelism-8 job as a user copies it from a PyFlink example (keyed sums of 0..39 x 2)."""
    env = StreamExecutionEnvironment.get_execution_environment(configuration)
    env.set_parallelism(parallelism)
    (
        env.from_collection(VALUES, type_info=Types.INT())
        .map(lambda x: (x % 5, x * 2), output_type=Types.TUPLE([Types.INT(), Types.INT()]))
        .key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .print()
    )
    return env


def final_sums(lines: list[str]) -> list[str]:
    """The last running sum printed per key (``N> (k, s)`` lines)."""
    last: dict[str, str] = {}
    for line in lines:
        record = line.split("> ", 1)[1]
        last[record.split(",")[0]] = record
    return sorted(last.values())


def local_conf(**entries: str) -> Configuration:
    conf = Configuration()
    conf.set_string("execution.target", "local")
    for key, value in entries.items():
        conf.set_string(key.replace("_", "."), value)
    return conf


def slot_counts(run) -> Counter[str]:
    return Counter(run.slots_frame().task_executor)


def test_required_slots_and_the_sizes_of_a_p8_job() -> None:
    jg = to_job_graph(p8_env())
    assert required_slots(jg) == 8
    # Flink's local execution: 1 TaskManager, divideRoundUp(8, 1) slots
    local = local_execution_size(jg)
    assert (local.task_managers, local.slots_per_task_manager) == (1, 8)
    size = classroom_size(jg)
    assert (size.task_managers, size.slots_per_task_manager) == (2, 8)
    explicit = classroom_size(jg, 2, 2)
    assert (explicit.task_managers, explicit.slots_per_task_manager) == (2, 2)


def test_configured_task_managers_divide_the_slots_as_flink_does() -> None:
    for conf, want in (
        (Configuration().set_string("local.number-taskmanager", "3"), (3, 3)),
        (Configuration().set_string("minicluster.number-of-taskmanagers", "4"), (4, 2)),
        (Configuration().set_string("taskmanager.numberOfTaskSlots", "5"), (1, 5)),
    ):
        size = local_execution_size(to_job_graph(p8_env(conf)))
        assert (size.task_managers, size.slots_per_task_manager) == want


def test_a_job_that_fits_keeps_the_classroom_2_by_2() -> None:
    size = classroom_size(to_job_graph(p8_env(parallelism=4)))
    assert (size.task_managers, size.slots_per_task_manager) == (2, 2)


def test_a_bad_configured_count_is_refused() -> None:
    conf = Configuration().set_string("taskmanager.numberOfTaskSlots", "0")
    with pytest.raises(IllegalArgumentException, match=r"taskmanager.numberOfTaskSlots must be"):
        classroom_size(to_job_graph(p8_env(conf)))


def test_p8_on_the_default_mini_cluster_finishes() -> None:
    run = MiniCluster(echo_print=False).submit(p8_env())
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED
    assert slot_counts(run) == {"TaskExecutor-0": 8, "TaskExecutor-1": 8}
    assert final_sums(run.printed()) == EXPECTED


def test_p8_under_env_execute_on_the_local_target_finishes_on_one_task_manager() -> None:
    env = p8_env(local_conf())
    result = env.execute("p8")
    assert final_sums(result.printed) == EXPECTED
    assert {name.rsplit("(", 1)[1] for name in result.metrics} <= {f"{i}/8)" for i in range(1, 9)}


def test_configured_slots_too_few_fail_with_flinks_message() -> None:
    env = p8_env(local_conf(taskmanager_numberOfTaskSlots="2"))
    with pytest.raises(JobExecutionException) as info:
        env.execute("p8 on 2 slots")
    causes = []
    cause: BaseException | None = info.value
    while cause is not None:
        causes.append(cause)
        cause = cause.__cause__
    assert any(
        type(c).__name__ == "NoResourceAvailableException" and str(c) == NO_SLOT for c in causes
    ), causes


def explicit_2_by_2_failure() -> BaseException:
    run = MiniCluster(task_managers=2, slots_per_task_manager=2, echo_print=False).submit(p8_env())
    run.run()  # fast mode: the job fails and nothing is left to do (no slot is allocated again)
    assert run.job_status is JobStatus.FAILED
    assert slot_counts(run) == {"TaskExecutor-0": 2, "TaskExecutor-1": 2}
    assert run.now == pytest.approx(300_000, abs=100)  # slot.request.timeout
    cause = run.failure_cause.__cause__
    assert type(cause).__name__ == "NoResourceAvailableException"
    return cause


def test_an_explicit_mini_cluster_too_small_fails_with_flinks_message() -> None:
    assert str(explicit_2_by_2_failure()) == NO_SLOT


@pytest.mark.flink_version("1.11")
def test_an_explicit_mini_cluster_too_small_fails_with_flink_1_11s_message() -> None:
    assert str(explicit_2_by_2_failure()) == NO_SLOT_1_11


def test_stepper_sizes_a_p8_job_and_shows_its_slots() -> None:
    from pyflowkit.notebook.stepper import Stepper

    stepper = Stepper(p8_env(), seed=3)
    assert (stepper.task_managers, stepper.slots_per_task_manager) == (2, 8)
    stepper.submit()
    stepper.run_to("end")
    assert stepper.run.job_status is JobStatus.FINISHED
    assert stepper.job_status == "FINISHED"
    assert Counter(row["task_executor"] for row in stepper.slots) == {
        "TaskExecutor-0": 8,
        "TaskExecutor-1": 8,
    }
    assert final_sums(stepper.run.printed()) == EXPECTED


def test_stepper_with_explicit_2_by_2_fails_a_p8_job() -> None:
    from pyflowkit.notebook.stepper import Stepper

    stepper = Stepper(p8_env(), task_managers=2, slots=2)
    stepper.submit()
    stepper.run_to("end")
    assert stepper.job_status == "FAILED"
    assert len(stepper.slots) == 4
    assert str(stepper.run.failure_cause.__cause__) == NO_SLOT


@pytest.mark.parametrize(
    "version", ["1.20", pytest.param("1.11", marks=pytest.mark.flink_version("1.11"))]
)
def test_stepper_p8_with_checkpoints_recovers_from_fail_tm(version: str) -> None:
    """The restart after ``Fail TM`` gets its 8 slots on the other TaskManager; the committed
    output is exactly once."""
    from pyflowkit.notebook.stepper import Stepper

    store = TransactionStore()
    env = word_count(store, parallelism=8, interval=30)
    assert env.get_flink_version_profile().version == version
    stepper = Stepper(env, seed=1)
    stepper.submit()
    stepper.run.run_until(checkpoint_completed(1))
    on_tm = Counter(stepper.run.tasks_frame().task_executor)
    victim = int(on_tm.most_common(1)[0][0].rsplit("-", 1)[1])
    stepper.fail_task_manager(victim)
    stepper.run_to("end")
    while not stepper.run.job_status.is_globally_terminal_state():
        stepper.run_to("end")
    assert stepper.run.job_status is JobStatus.FINISHED, stepper.run.failure_cause
    frame = stepper.run.tasks_frame()
    assert set(frame.task_executor) == {f"TaskExecutor-{1 - victim}"}
    store.commit_final_transactions()
    assert Counter(store.committed) == Counter(
        (w, n) for w, total in Counter(WORDS).items() for n in range(1, total + 1)
    )
