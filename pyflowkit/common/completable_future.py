"""``CompletableFuture``: the result of an asynchronous call (PyFlink's
``pyflink.common.completable_future``)."""

from __future__ import annotations

from typing import Any


class CompletableFuture:
    """A completed-or-failed future (PyFlink's ``CompletableFuture`` wrapper)."""

    def __init__(self, value: Any = None, exception: BaseException | None = None) -> None:
        self._value = value
        self._exception = exception

    def result(self) -> Any:
        if self._exception is not None:
            raise self._exception
        return self._value

    def cancel(self) -> bool:
        """Java's ``cancel``: False, the future has completed (our jobs run synchronously)."""
        return False

    def cancelled(self) -> bool:
        return False

    def done(self) -> bool:
        return True

    def exception(self) -> BaseException | None:
        return self._exception
