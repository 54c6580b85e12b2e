"""PyFlink's CompletableFuture (pyflink.common.completable_future), as execute_async returns it."""

from __future__ import annotations

import pytest

from pyflowkit.common.completable_future import CompletableFuture
from pyflowkit.common.job_client import CompletableFuture as FromJobClient
from pyflowkit.datastream import StreamExecutionEnvironment


def test_a_completed_future_cannot_be_cancelled():
    future = CompletableFuture(41)
    assert future.done() and future.result() == 41 and future.exception() is None
    assert future.cancel() is False and future.cancelled() is False
    assert FromJobClient is CompletableFuture


def test_a_failed_future_raises_its_exception():
    error = ValueError("boom")
    future = CompletableFuture(None, error)
    assert future.done() and future.exception() is error
    with pytest.raises(ValueError, match="boom"):
        future.result()


def test_execute_async_results_are_futures():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.from_collection([1]).print()
    client = env.execute_async("futures")
    status = client.get_job_status()
    assert isinstance(status, CompletableFuture) and status.done() and not status.cancelled()
    assert client.get_job_execution_result().result().get_job_id() == client.get_job_id()
