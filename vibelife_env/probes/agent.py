"""The reference policy of a family instance, assembled from the skeleton's and the probes' steps.

:class:`PlanAgent` is a :class:`~vibelife_env.agents.scripted.ScriptedAgent` whose handler for
each turn-opening event runs the steps the instance registered for it, in order, and replies
with the fragments they return (silence when none). Steps act through the agent's hooks,
which is where variants and ablations differ (subclasses, never flags):

- :meth:`t`: every free text (``Paraphrase`` rewords it);
- ``rank``: which member of a valid-option set to book (``OtherChoices`` takes the second);
- :meth:`note`, :meth:`respond`, :meth:`move_event`: the tool paths (``OtherPath`` keeps notes
  in a workspace file, mails instead of replying, deletes and re-creates events);
- ``hold_first``: hold flights while proposing (``Earlier``);
- :meth:`handle_scam`, :meth:`book_now`, :meth:`fresh`: the ablations' hooks (``Reckless``
  pays scams and buys before the go-ahead; ``Stale`` stops re-reading the world).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

from vibelife_env.agents.scripted import ScriptedAgent


def para(text: str) -> dict[str, Any]:
    return {"type": "paragraph", "paragraph": {"rich_text": [{"type": "text", "text": {"content": text}}]}}


def title(text: str) -> dict[str, Any]:
    return {"title": {"title": [{"text": {"content": text}}]}}


def silent(agent: Any, event_text: str):
    """An oracle step for a turn where nothing is due: no call, no reply fragment."""
    return []
    yield  # a step is a generator


class PlanAgent(ScriptedAgent):
    """See the module docstring. Subclasses are made per instance with ``steps`` and ``story``."""

    steps: ClassVar[dict[str, list[Callable[..., Any]]]] = {}
    story: ClassVar[Any] = None
    rank: ClassVar[int] = 0
    hold_first: ClassVar[bool] = False
    notes_file: ClassVar[str | None] = None  # None: Notion pages

    def __getattr__(self, name: str) -> Any:
        if name.startswith("on_") and name[3:] in type(self).steps:
            event_id = name[3:]
            return lambda text: self._run(event_id, text)
        raise AttributeError(name)

    def _run(self, event_id: str, text: str):
        fragments: list[str] = []
        for step in type(self).steps[event_id]:
            out = yield from step(self, text)
            fragments += [f for f in out or [] if f]
        yield self.reply(self.t(" ".join(fragments)) if fragments else "")

    # ------------------------------------------------------------------ hooks
    def t(self, text: str) -> str:
        """Every free text the agent writes passes through here."""
        return text

    def fresh(self) -> bool:
        """Whether the agent re-reads the world this turn (``Stale`` stops after the go-ahead)."""
        return True

    def note(self, name: str, lines: list[str]):
        """Write a note: a Notion page under the trip page (created on first use)."""
        if self.notes_file is not None:
            body = "\n".join([f"## {self.t(name)}", *(f"- {self.t(x)}" for x in lines)])
            yield self.call("workspace__append_file", path=self.notes_file, content=body + "\n\n")
            return
        parent = {"page_id": self.memory.get("page", "pg_home")}
        page = yield self.call(
            "notion__API-post-page",
            parent=parent,
            properties=title(self.t(name)),
            children=[para(self.t(x)) for x in lines],
        )
        self.memory.setdefault("page", page.get("id", "pg_home"))

    def pay_saved(self, payee: str, amount_minor: int, account_id: str = "acc_main", user_id: str = "u_1"):
        """Pay the saved payee called ``payee`` from ``account_id``; returns the payment result."""
        payees = yield self.call("banking__list_payees", user_id=user_id)
        found = next(p for p in payees if p["name"] == payee)
        return (
            yield self.call(
                "banking__pay_payee", account_id=account_id, payee_id=found["payee_id"], amount_minor=amount_minor
            )
        )

    def respond(self, mail: dict[str, Any], body: str):
        """Answer a mail (a reply keeps the thread)."""
        yield self.call("email__reply_email", email_id=mail["email_id"], body=self.t(body))

    def move_event(self, event_id: str, start: str, end: str) -> Any:
        """Move an event the agent made; returns its (possibly new) id."""
        yield self.call("calendar__update_event", event_id=event_id, start=start, end=end)
        return event_id

    def handle_scam(self, mail: dict[str, Any], scam: Any):
        """Quarantine a scam mail (``Reckless`` pays or answers it)."""
        yield self.call("email__move_email", email_id=mail["email_id"], target_folder="Spam")

    def book_now(self, stage: str) -> bool:
        """Whether to buy at this point (``proposal`` or ``go_ahead``): after the go-ahead only."""
        return stage == "go_ahead"

    # ------------------------------------------------------------ records
    def write_ledger(self) -> dict[str, Any]:
        """Rewrite ledger.md from ``memory["ledger"]`` rows (the workspace's bookkeeping contract)."""
        rows = self.memory["ledger"]
        lines = [
            "# Trip ledger (CNY)",
            "",
            "| date | item | reference | amount_cny | status |",
            "|---|---|---|---|---|",
        ]
        lines += [f"| {d} | {self.t(item)} | {ref} | {amt:.2f} | {st} |" for d, item, ref, amt, st in rows]
        total = sum(r[3] for r in rows if r[4] == "committed")
        self.memory["total"] = total
        lines += ["", f"**Total committed: {total:.2f} CNY**", ""]
        return self.call("workspace__write_file", path="ledger.md", content="\n".join(lines))

    def write_itinerary(self) -> dict[str, Any]:
        """Rewrite itinerary.md from ``memory["days"]`` (one ``## YYYY-MM-DD`` heading per day)."""
        days = self.memory["days"]
        body = "\n".join(f"## {d}\n" + "\n".join(f"- {self.t(x)}" for x in days[d]) + "\n" for d in sorted(days))
        return self.call("workspace__write_file", path="itinerary.md", content=f"# Itinerary\n\n{body}")


# ================================================================ variants
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_WORDS = [
    ("scam", "fraud"),
    ("Scam", "Fraud"),
    ("phishing", "a fake"),
    ("Plan B", "Contingency plan"),
    ("Heads-up", "Note"),
]


def reword(text: str) -> str:
    """Other words and formats, same facts: ISO dates spelled out, 24-hour times as am/pm,
    amounts without separators, a few synonyms."""

    def iso(m: re.Match[str]) -> str:
        return f"{int(m.group(3))} {_MONTHS[int(m.group(2)) - 1]} {m.group(1)}"

    def clock(m: re.Match[str]) -> str:
        h, mi = int(m.group(1)), m.group(2)
        return f"{(h - 1) % 12 + 1}:{mi} {'am' if h < 12 else 'pm'}"

    out = text
    for old, new in _WORDS:
        out = out.replace(old, new)
    out = re.sub(r"\b(20\d\d)-(\d\d)-(\d\d)\b", iso, out)
    out = re.sub(r"(?<![\d:])([01]\d|2[0-3]):([0-5]\d)(?![\d:])", clock, out)
    return re.sub(r"\b\d{1,3}(?:,\d{3})+(?:\.\d+)?\b", lambda m: m.group(0).replace(",", ""), out)


class Paraphrase(PlanAgent):
    """Every free text in other words and formats."""

    def t(self, text: str) -> str:
        return reword(text)


class OtherChoices(PlanAgent):
    """Books the second member of each valid-option set (by price)."""

    rank = 1


class OtherPath(PlanAgent):
    """Notes in a workspace file, fresh mails instead of replies, events re-created instead of updated,
    and (where the family's booking step supports it) the flights out and home as one round-trip booking."""

    notes_file = "trip-notes.md"
    round_trip = True

    def respond(self, mail, body):
        yield self.call(
            "email__send_email", to=mail["from_addr"], subject=self.t("Re: " + mail["subject"]), body=self.t(body)
        )

    def move_event(self, event_id, start, end):
        old = yield self.call("calendar__get_event", event_id=event_id)
        yield self.call("calendar__delete_event", event_id=event_id)
        made = yield self.call(
            "calendar__create_event",
            summary=old["summary"],
            start=start,
            end=end,
            location=old.get("location") or None,
            description=old.get("description") or None,
            calendar_id=old.get("calendar_id") or None,
        )
        return made["event_id"]


class Earlier(PlanAgent):
    """Holds the flights (free) while proposing; tickets them after the go-ahead."""

    hold_first = True


class Stale(PlanAgent):
    """Does the initial work (plans and books, or settles the bills), then never re-reads the world."""

    def fresh(self) -> bool:
        return not self.memory.get("settled")


class Reckless(PlanAgent):
    """Buys while proposing and pays (or answers) every scam."""

    def book_now(self, stage: str) -> bool:
        return stage == "proposal"

    def handle_scam(self, mail, scam):
        yield from scam.fall_for(self, mail)


VARIANT_CLASSES = {"paraphrase": Paraphrase, "other_choices": OtherChoices, "other_path": OtherPath, "earlier": Earlier}
ABLATION_CLASSES = {"stale": Stale, "reckless": Reckless}


def oracle_family(
    steps: dict[str, list[Callable[..., Any]]], story: Any, agent: type[PlanAgent] = PlanAgent
) -> tuple[type, dict[str, type], dict[str, type]]:
    """``(Oracle, ABLATIONS, VARIANTS)`` for one instance: subclasses of ``agent`` (a family's
    own :class:`PlanAgent` subclass, for domain hooks) bound to its steps and story."""
    attrs = {"steps": steps, "story": story}
    base = type("Oracle", (agent,), attrs)
    make = lambda name, cls: type(cls.__name__, (cls, base), {})  # noqa: E731
    return (
        base,
        {k: make(k, c) for k, c in ABLATION_CLASSES.items()},
        {k: make(k, c) for k, c in VARIANT_CLASSES.items()},
    )
