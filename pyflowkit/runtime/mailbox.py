"""The task's mailbox (Flink's ``TaskMailbox`` + ``MailboxProcessor``)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Mail:
    """Flink's ``Mail``: a piece of work run on the task thread between default actions."""

    description: str
    action: Callable[[], None]


class MailboxProcessor:
    """Flink's ``MailboxProcessor``: priority mails first, then mails, else the default action.

    Priority mails (``TaskMailbox.MAX_PRIORITY``) carry checkpoint triggers and notifications;
    timers are ordinary mails. ``priority_only`` is ``getMailboxExecutor(MAX_PRIORITY).yield()``:
    what the synchronous savepoint loop runs while ordinary mail waits.
    """

    def __init__(self) -> None:
        self.priority_mails: deque[Mail] = deque()
        self.mails: deque[Mail] = deque()
        self.mails_processed = 0

    def put(self, mail: Mail, priority: bool = False) -> None:
        (self.priority_mails if priority else self.mails).append(mail)

    def has_mail(self, priority_only: bool = False) -> bool:
        if priority_only:
            return bool(self.priority_mails)
        return bool(self.priority_mails or self.mails)

    def take_mail(self, priority_only: bool = False) -> Mail | None:
        if self.priority_mails:
            return self.priority_mails.popleft()
        if self.mails and not priority_only:
            return self.mails.popleft()
        return None

    def clear(self) -> None:
        self.priority_mails.clear()
        self.mails.clear()
