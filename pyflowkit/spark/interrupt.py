"""Ctrl-C while ``env.execute()`` runs a job on Spark: cancel the job, then raise
``KeyboardInterrupt``, with nothing else on stderr.

Stands for what a Flink client does on Ctrl-C during ``execute()`` in an attached local run (the
interrupt reaches the program; the MiniCluster's job is cancelled with it). PySpark's own SIGINT
handler calls the JVM from inside the main thread's pending py4j call, which leaves a py4j
traceback on stderr; while a job runs, this handler only notes the key and cancels the job from a
helper thread (its own py4j connection). The main thread raises once the job has stopped. A
second Ctrl-C raises at once.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any


class CancelOnInterrupt:
    """``with CancelOnInterrupt(cancel) as ctrl_c: ...; ctrl_c.raise_if_pressed(what)``."""

    def __init__(self, cancel: Callable[[], Any]) -> None:
        self._cancel = cancel
        self.pressed = threading.Event()
        self._previous: Any = None
        self._installed = False

    def __enter__(self) -> CancelOnInterrupt:
        if threading.current_thread() is threading.main_thread():
            try:
                self._previous = signal.signal(signal.SIGINT, self._on_sigint)
                self._installed = True
            except ValueError:  # not the main interpreter
                pass
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)
            self._installed = False

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        if self.pressed.is_set():  # a second Ctrl-C: stop waiting for the cancellation
            raise KeyboardInterrupt
        self.pressed.set()
        threading.Thread(target=self._cancel_quietly, name="pyflowkit-cancel", daemon=True).start()

    def _cancel_quietly(self) -> None:
        try:
            self._cancel()
        except Exception:  # noqa: BLE001 — the job may have ended meanwhile
            pass

    def raise_if_pressed(self, what: str) -> None:
        """``KeyboardInterrupt`` naming the cancelled job if Ctrl-C was pressed."""
        if self.pressed.is_set():
            raise KeyboardInterrupt(f"{what} was cancelled (Ctrl-C).")


def cancel_job_group(session: Any, group: str) -> None:
    """Cancel the Spark jobs of ``group`` (classic: ``cancelJobGroup``; Connect: the tag)."""
    try:
        session.sparkContext.cancelJobGroup(group)
    except Exception:  # noqa: BLE001 — Spark Connect has no SparkContext
        session.interruptTag(group)
