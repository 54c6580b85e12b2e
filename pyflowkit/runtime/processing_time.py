"""Processing time on the simulated clock (Flink's ``SystemProcessingTimeService``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pyflowkit.runtime.mailbox import Mail

if TYPE_CHECKING:
    from pyflowkit.runtime.task import Task


class SimulatedTimer:
    """A registered processing-time timer; ``cancel()`` drops it."""

    def __init__(self) -> None:
        self.cancelled = False
        self.event: Any = None

    def cancel(self) -> None:
        self.cancelled = True
        if self.event is not None:
            self.event.cancelled = True


class SimulatedProcessingTimeService:
    """Flink's ``ProcessingTimeService`` backed by the simulated clock: a due timer becomes a mail.

    Stands for ``SystemProcessingTimeService`` + ``ProcessingTimeServiceImpl`` (mailbox executor).
    """

    def __init__(self, task: Task) -> None:
        self.task = task

    def get_current_processing_time(self) -> int:
        return self.task.bus.now

    def register_timer(self, timestamp: int, callback: Callable[[int], None]) -> SimulatedTimer:
        timer = SimulatedTimer()
        task = self.task
        delay = max(0, timestamp - task.bus.now)

        def fire() -> None:
            if timer.cancelled or not task.accepts_mail():
                return
            task.put_mail(Mail(f"processing-time timer @ {timestamp}", lambda: callback(timestamp)))

        timer.event = task.bus.call_later(
            delay, f"Timer:{task.attempt_id}", "ProcessingTimeService.timer", fire
        )
        return timer
