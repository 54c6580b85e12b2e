"""A plain ``SourceFunction.run`` on its own thread, stepped by the reader (Flink 1.11's
``SourceStreamTask.LegacySourceFunctionThread``).

Flink runs a legacy source's ``run(ctx)`` on a thread of its own, so a ``while running:
ctx.collect(…)`` loop never blocks the task. Here the reader and that thread hand control to each
other: the thread runs until the reader's buffer holds the records asked for (or ``run`` returns),
then waits in its next ``ctx.collect`` for the next request. Only one of the two ever runs, so a run is
as deterministic as a generator ``run``. Closing the thread calls the function's ``cancel()``
(``StreamSource.cancel``) and unwinds a ``run`` still waiting in ``collect``; a reader dropped
without closing (a lost TaskManager's, a rewound timeline's) unwinds it without user code.
"""

from __future__ import annotations

import inspect
import threading
from typing import Any

_JOIN_SECONDS = 5.0  # how long close() waits for a cancelled run to return


class SourceCancelled(BaseException):
    """Raised in a cancelled ``run`` from ``ctx.collect`` (Flink interrupts the source thread);
    a ``BaseException``, so a user's ``except Exception`` does not swallow it."""


class LegacySourceFunctionThread:
    """Runs ``function.run(ctx)`` on a daemon thread; ``resume(wanted)`` lets it run until
    ``len(buffer) >= wanted`` or it ends. ``ctx`` must call ``checkpoint()`` before each append."""

    def __init__(self, function: Any, ctx: Any, buffer: list[Any]) -> None:
        self.function = function
        self.ctx = ctx
        self.buffer = buffer
        self.wanted = 0
        self.done = False  # run returned, raised or was cancelled
        self.error: BaseException | None = None
        self._cancelled = False
        self._go = threading.Semaphore(0)  # reader → run: go on
        self._parked = threading.Semaphore(0)  # run → reader: waiting in collect, or ended
        self._thread = threading.Thread(
            target=self._main,
            name=f"Legacy Source Thread - {type(function).__name__}",
            daemon=True,
        )
        self._thread.start()

    def resume(self, wanted: int) -> None:
        """Let ``run`` go on until the buffer holds ``wanted`` records; its exception is raised
        here, in the reader's thread."""
        if self.done:
            return
        self.wanted = wanted
        self._go.release()
        self._parked.acquire()
        if self.error is not None:
            error, self.error = self.error, None
            raise error

    def checkpoint(self) -> None:
        """Called by the context before each record: wait here once the buffer is full enough."""
        if len(self.buffer) >= self.wanted:
            self._parked.release()
            self._go.acquire()
        if self._cancelled:
            raise SourceCancelled

    def close(self) -> None:
        """Cancel a run that has not ended (``SourceFunction.cancel()``) and let it unwind."""
        if self.done or not self._thread.is_alive():
            return
        canceller = getattr(self.function, "cancel", None)
        if callable(canceller):
            canceller()
        self.abandon()

    def abandon(self) -> None:
        """Unwind a run without calling user code (its reader was dropped, e.g. with the
        TaskManager that ran it: nothing of a lost process runs on)."""
        if self.done or not self._thread.is_alive():
            return
        self._cancelled = True
        if threading.current_thread() is self._thread:
            return  # a collection on the run's own thread: it unwinds at its next record
        self._go.release()
        self._parked.acquire(timeout=_JOIN_SECONDS)
        self._thread.join(timeout=_JOIN_SECONDS)

    def _main(self) -> None:
        self._go.acquire()
        try:
            if not self._cancelled:
                result = self.function.run(self.ctx)
                if inspect.isgenerator(result):  # a plain run that returned a generator
                    for item in result:
                        if item is not None:
                            self.ctx.collect(item)
        except SourceCancelled:
            pass
        except BaseException as error:  # noqa: BLE001 - handed to the reader's thread
            self.error = error
        finally:
            self.done = True
            self._parked.release()
