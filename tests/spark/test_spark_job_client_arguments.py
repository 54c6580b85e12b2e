"""``SparkJobClient`` speaks PyFlink 1.20's ``JobClient``: a ``JobStatus`` from ``get_job_status``,
``stop_with_savepoint(advance_to_end_of_event_time, savepoint_directory=None)`` and the short form
``stop_with_savepoint(path, drain=...)``; no directory → ``state.savepoints.dir``. A fake
``StreamingJob`` records what the client asks (no Spark needed)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from pyflowkit.common.job_client import JobClient
from pyflowkit.common.job_id import JobID
from pyflowkit.common.job_status import JobStatus
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.spark.job_client import SparkJobClient

JOB_ID = "0123456789abcdef0123456789abcdef"


class FakeJob:
    def __init__(self, configuration: dict[str, str] | None = None) -> None:
        self.job_id = JOB_ID
        self.job_name = "fake"
        self.status = "RUNNING"
        self.configuration = configuration or {}
        self.calls: list[tuple[Any, ...]] = []

    def poll(self, timeout: float) -> None:
        self.calls.append(("poll", timeout))

    def stop_with_savepoint(self, path: str, drain: bool) -> str:
        self.calls.append(("stop", path, drain))
        self.status = "FINISHED"
        return path

    def trigger_savepoint(self, path: str) -> str:
        self.calls.append(("trigger", path))
        return path


def test_status_is_pyflinks_enum_and_the_client_is_a_job_client() -> None:
    job = FakeJob()
    client = SparkJobClient(job)
    assert isinstance(client, JobClient)
    assert client.get_job_id() == JobID(JOB_ID) and isinstance(client.get_job_id(), JobID)
    assert client.get_job_status().result() is JobStatus.RUNNING
    assert job.calls == [("poll", 0)]
    job.status = "CANCELED"
    assert client.get_job_status().result() is JobStatus.CANCELED


@pytest.mark.parametrize(
    ("args", "kwargs", "expected"),
    [
        ((True, "/sp/a"), {}, ("stop", "/sp/a", True)),  # PyFlink's form
        ((False,), {"savepoint_directory": "/sp/b"}, ("stop", "/sp/b", False)),
        (("/sp/c",), {}, ("stop", "/sp/c", False)),  # the short form
        (("/sp/d",), {"drain": True}, ("stop", "/sp/d", True)),
    ],
)
def test_both_stop_with_savepoint_forms(args: tuple, kwargs: dict, expected: tuple) -> None:
    job = FakeJob()
    assert SparkJobClient(job).stop_with_savepoint(*args, **kwargs).result() == expected[1]
    assert job.calls == [expected]


def test_without_a_directory_a_fresh_savepoint_under_state_savepoints_dir(tmp_path) -> None:
    job = FakeJob({"state.savepoints.dir": f"file://{tmp_path}"})
    client = SparkJobClient(job)
    first = client.trigger_savepoint().result()
    second = client.stop_with_savepoint(False).result()
    for path in (first, second):
        assert os.path.dirname(path) == str(tmp_path)
        assert os.path.basename(path).startswith(f"savepoint-{JOB_ID[:6]}-")
    assert first != second


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (("yes", "/sp"), {}, "give the savepoint path once"),
        ((True,), {"drain": True}, "drain= goes with the short form"),
        ((1, "/sp"), {}, "must be True or False, got 1"),
        ((False, 42), {}, "savepoint_directory must be a path, got 42"),
    ],
)
def test_bad_arguments_fail_the_future_with_a_clear_error(
    args: tuple, kwargs: dict, message: str
) -> None:
    job = FakeJob()
    future = SparkJobClient(job).stop_with_savepoint(*args, **kwargs)
    with pytest.raises(IllegalArgumentException, match=message):
        future.result()
    assert job.calls == [] and job.status == "RUNNING"  # nothing stopped
