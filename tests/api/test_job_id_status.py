"""pyflowkit.common's JobID and JobStatus (PyFlink's pyflink.common.job_id / job_status)."""

from __future__ import annotations

import pickle

import pytest

from pyflowkit.common import JobID, JobStatus
from pyflowkit.common.job_id import JobID as JobIDByPath
from pyflowkit.common.job_status import JobStatus as JobStatusByPath
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.errors import IllegalArgumentException, IllegalStateException
from pyflowkit.runtime.job_status import JobStatus as RuntimeJobStatus
from pyflowkit.runtime.job_status import check_job_transition


def test_job_id_is_32_lower_case_hex_characters():
    jid = JobID.from_hex_string("AB" * 16)
    assert str(jid) == "ab" * 16 and jid.to_hex_string() == "ab" * 16
    assert jid == "ab" * 16 and hash(jid) == hash("ab" * 16)
    assert repr(jid) == f"JobID({'ab' * 16})"
    assert pickle.loads(pickle.dumps(jid)) == jid
    generated = JobID.generate()
    assert len(generated) == 32 and generated != JobID.generate()
    assert JobIDByPath is JobID


@pytest.mark.parametrize("bad", ["not-a-job-id", "0x" + "a" * 30, "a" * 31, "g" * 32, None])
def test_bad_job_id_names_the_rule(bad):
    with pytest.raises(IllegalArgumentException, match="32 hexadecimal characters"):
        JobID(bad)


def test_execute_and_execute_async_report_a_job_id():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.from_collection([1, 2]).map(lambda v: v + 1).print()
    result = env.execute("ids")
    assert isinstance(result.get_job_id(), JobID) and len(str(result.get_job_id())) == 32
    env.from_collection([3]).print()
    client = env.execute_async("ids async")
    assert isinstance(client.get_job_id(), JobID)
    assert client.get_job_execution_result().result().get_job_id() == client.get_job_id()


def test_job_status_members_and_terminal_states_as_pyflink():
    assert [s.name for s in JobStatus] == [
        "CREATED", "RUNNING", "FAILING", "FAILED", "CANCELLING", "CANCELED", "FINISHED",
        "RESTARTING", "SUSPENDED", "RECONCILING",
    ]  # fmt: skip
    globally = {s for s in JobStatus if s.is_globally_terminal_state()}
    assert globally == {JobStatus.FAILED, JobStatus.CANCELED, JobStatus.FINISHED}
    terminal = {s for s in JobStatus if s.is_terminal_state()}
    assert terminal == globally | {JobStatus.SUSPENDED}
    assert JobStatusByPath is JobStatus


def test_the_runtime_moves_through_commons_job_status():
    assert RuntimeJobStatus is JobStatus
    check_job_transition("j", JobStatus.CREATED, JobStatus.RUNNING)
    with pytest.raises(IllegalStateException, match="Cannot leave terminal state FINISHED"):
        check_job_transition("j", JobStatus.FINISHED, JobStatus.RUNNING)
