"""Probe motif: a mail lands silently, and a review turn follows a few hours later.

The most common shape of a living world's change (a merchant moves an appointment, a scam asks
for money, a landlord announces works): :class:`MailedProbe` places the silent delivery and the
review turn in its window, seeds the mail through the email seed module and gives the oracle a
step that finds the mail and hands it to :meth:`MailedProbe.handle`. A subclass says what the
mail is (:meth:`~MailedProbe.mail`), how the reference policy handles it and what its checks are.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Generator
from datetime import datetime, timedelta
from typing import Any, Protocol, TypeVar

from vibelife_env.probes.base import Probe, Slot
from vibelife_env.services.email import seed as mail_seed


class Addressed(Protocol):
    """A story with the user's mail address (where the mail is delivered)."""

    @property
    def email(self) -> str: ...


S = TypeVar("S", bound=Addressed)


class MailedProbe(Probe[S]):
    """See the module docstring. The story must have ``email`` (the user's address)."""

    review: str = "Review: anything new in the mail?"

    @abstractmethod
    def mail(self, story: S) -> tuple[str, str, str, str]:
        """``(message_id, sender, subject, body)`` of the mail that lands."""

    @abstractmethod
    def handle(self, agent: Any, found: dict[str, Any]) -> Generator[dict[str, Any], Any, list[str]]:
        """The reference policy's handling of the mail as listed in the inbox; returns reply fragments."""

    def slots(self, story: S, window: tuple[datetime, datetime]) -> list[Slot]:
        self.message_id, self.sender, self.subject, self.body = self.mail(story)
        self.at = self._between(window).replace(minute=0)
        review = self.at + timedelta(hours=int(self.rng.integers(3, 9)))
        lands = {
            "id": f"{self.name}_lands",
            "time": self.at,
            "kind": "mutation",
            "silent": True,
            "body": f"A mail arrives: {self.subject}",
            "apply": [{"script": f"{self.name}_mail"}],
            "idempotency_key": self.name,
        }
        turn = {
            "id": f"{self.name}_review",
            "time": review,
            "kind": "cron_fire",
            "source": "scheduler",
            "body": self.review,
        }
        return [Slot(self.name, [lands, turn], {f"{self.name}_review": [self.step]})]

    def setup(self, b: Any, story: S) -> None:
        message = mail_seed.message(
            self.message_id, self.subject, self.sender, story.email, self.at, self.body, important=True
        )
        b.callable(f"{self.name}_mail", lambda ctx: ctx.world.services["email"].execute(message))

    def step(self, agent: Any, text: str) -> Generator[dict[str, Any], Any, list[str]]:
        """Find the mail in the inbox (unless the agent stopped looking) and handle it."""
        if not agent.fresh():
            return []
        inbox = yield agent.call("email__get_emails", folder="INBOX")
        found = next((m for m in inbox.get("emails", []) if m.get("message_id") == self.message_id), None)
        if found is None:
            return []
        out = yield from self.handle(agent, found)
        return out
