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

    Priority mails are where checkpoint triggers go (next issue); timers are ordinary mails.
    """

    def __init__(self) -> None:
        self.priority_mails: deque[Mail] = deque()
        self.mails: deque[Mail] = deque()
        self.mails_processed = 0

    def put(self, mail: Mail, priority: bool = False) -> None:
        (self.priority_mails if priority else self.mails).append(mail)

    def has_mail(self) -> bool:
        return bool(self.priority_mails or self.mails)

    def take_mail(self) -> Mail | None:
        if self.priority_mails:
            return self.priority_mails.popleft()
        if self.mails:
            return self.mails.popleft()
        return None

    def clear(self) -> None:
        self.priority_mails.clear()
        self.mails.clear()
