"""The task's mailbox (Flink 1.11's ``TaskMailboxImpl`` + ``MailboxProcessor``).

One queue, first in first out: the mailbox loop runs the oldest mail whatever its priority
(``processMail`` drains a batch in order). A priority only lets a ``yield`` at that priority
skip lower mails (``TaskMailboxImpl.take(priority)``): what the synchronous savepoint loop does
with ``getMailboxExecutor(MAX_PRIORITY).yield()``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

MIN_PRIORITY = -1  # TaskMailbox.MIN_PRIORITY: the main mailbox executor (checkpoint triggers)
MAX_PRIORITY = 2**31 - 1  # TaskMailbox.MAX_PRIORITY: checkpoint notifications


@dataclass
class Mail:
    """Flink's ``Mail``: a piece of work run on the task thread between default actions.

    Mirrors ``org.apache.flink.streaming.runtime.tasks.mailbox.Mail`` (with its priority).
    """

    description: str
    action: Callable[[], None]
    priority: int = MIN_PRIORITY


class MailboxProcessor:
    """Flink's ``MailboxProcessor`` over a ``TaskMailboxImpl``: mail first (oldest first), else
    the default action (processing input).

    ``take_mail(priority)`` is ``TaskMailboxImpl.tryTake(priority)``: the oldest mail whose
    priority is at least ``priority``; ``MIN_PRIORITY`` (the loop) takes the head.
    """

    def __init__(self) -> None:
        self.mails: deque[Mail] = deque()
        self.mails_processed = 0

    def put(self, mail: Mail) -> None:
        """``TaskMailbox.put``: at the end of the queue."""
        self.mails.append(mail)

    def has_mail(self, priority: int = MIN_PRIORITY) -> bool:
        mails = self.mails
        if not mails:
            return False
        if priority == MIN_PRIORITY:  # every mail's priority is at least MIN_PRIORITY
            return True
        return any(m.priority >= priority for m in mails)

    def take_mail(self, priority: int = MIN_PRIORITY) -> Mail | None:
        for i, mail in enumerate(self.mails):
            if mail.priority >= priority:
                del self.mails[i]
                return mail
        return None

    def held(self, priority: int) -> int:
        """How many queued mails a yield at ``priority`` leaves waiting."""
        return sum(1 for m in self.mails if m.priority < priority)

    def clear(self) -> None:
        self.mails.clear()
