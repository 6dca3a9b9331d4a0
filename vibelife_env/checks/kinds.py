"""Check kinds: a check that carries the rule it enforces.

A kind is one object that makes everything a check needs and the rule the agent must be
able to read: its id (from the tier, the stage and a label), tags, weight, description,
declared prerequisites, its predicate (whose library verdicts give the failure's reason),
and a :class:`Rule` naming the sentence the workspace renders and where it lives. A family
builds the rule text into its workspace from the same object the check is made of, so "every
rule a check enforces is stated" is checked when the instance is built
(:meth:`~vibelife_env.families.template.StoryFamily.build` refuses an instance that does not
state one), not left to care.

Example::

    SCAM = Rule("scam", "A mail that asks for money outside the saved payees is a scam: move it to Spam and tell me.")
    Quarantined(stage=3, weight=2, label="fee_scam", scam=("<fee@x.example>",), legit=(...,), rule=SCAM).add(b.checks)

Kinds here: :class:`Quarantined` (a scam in Spam, the user warned, nothing paid, the real mail
kept), :class:`PaidOnce` (one payment of the amount to the right payee after the go-ahead),
:class:`OnCalendar` (the calendar follows a booking: an event at the current time, none left at a
stale one), :class:`Noted` (a durable note holds the facts), :class:`Quiet` (nothing done and a
short reply when nothing is due), :class:`Told` (the reply gives a fact) and :class:`Raised` (the
reply raises a clash, naming what it is with). The paper level
(issue #27) moves a rule's :attr:`Rule.source` from the workspace into the world: a policy page,
a merchant's mail, a statute; the check stays the same object.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any, ClassVar

from vibelife_env.checks import state, text
from vibelife_env.checks.base import Check, CheckSet, Tier
from vibelife_env.checks.verdict import because
from vibelife_env.errors import TaskLoadError
from vibelife_env.services.banking.read import payments

#: Where the engine's own rules live: the opening system prompt every own task gets.
PROMPT = "prompt"
#: The source prefix of a latent rule (``latent:<knowledge key>``).
LATENT = "latent:"


@dataclass(frozen=True)
class Rule:
    """A rule a check enforces, as the person (or the world) states it.

    Attributes:
        key: A short name, unique within an instance (``scam``, ``pay_after_go``).
        text: The sentence, exactly as rendered where it lives.
        source: Where it lives. *Stated*: a workspace file (``AGENTS.md``) or :data:`PROMPT`
            (the system prompt). *World*: ``<service>:<where>`` (``email:<visit@co.example>``, a
            mail whose body carries the sentence; ``legal_search:<statute>``...): the agent finds
            it by looking, and the discoverability gate proves a tool call returns it before the
            check decides. *Latent*: ``latent:<knowledge>``, a consequence of a planted fact and
            one entry of the common-knowledge list (:data:`vibelife_env.checks.knowledge.KNOWLEDGE`):
            nobody states the rule; the gate proves the entry exists and a tool call returns
            ``fact`` before the check decides.
        fact: A latent rule's planted fact, exactly as a tool returns it ("Passport expiry:
            2027-03-02"); empty for the other sources.
    """

    key: str
    text: str
    source: str = "AGENTS.md"
    fact: str = ""

    def __post_init__(self) -> None:
        if self.latent and not self.fact:
            raise ValueError(f"rule {self.key!r}: a latent rule needs the fact it follows from")

    @property
    def stated(self) -> bool:
        """True for a rule stated to the agent (workspace or prompt), False for one in the world."""
        return self.source == PROMPT or ":" not in self.source

    @property
    def latent(self) -> bool:
        """True for a rule inferred from a planted fact and common knowledge (``latent:<knowledge>``)."""
        return self.source.startswith(LATENT)

    @property
    def knowledge(self) -> str:
        """A latent rule's common-knowledge key (empty for the other sources)."""
        return self.source.removeprefix(LATENT) if self.latent else ""

    @property
    def found_by(self) -> str:
        """The text a tool call must return for the rule to be found (the fact for a latent rule)."""
        return self.fact if self.latent else self.text

    def stated_in(self, files: dict[str, str], prompt: str = "") -> bool:
        """Whether a stated rule's text is where it says it lives."""
        where = prompt if self.source == PROMPT else files.get(self.source, "")
        return self.text in where


#: The quiet rule of the system prompt (``vibelife_env.env`` renders this very text).
QUIET_RULE = Rule(
    "quiet",
    f"stay silent or reply in at most {state.QUIET_REPLY_MAX} characters",
    PROMPT,
)


def require_stated(root: Any, files: dict[str, str], rules: Iterable[Rule]) -> None:
    """Refuse an instance whose workspace does not state a stated rule where the rule says it
    lives (the prompt renders its own; world and latent rules are the discoverability gate's).

    Raises:
        TaskLoadError: the first such rule, with its file and text.
    """
    for rule in rules:
        if rule.stated and rule.source != PROMPT and not rule.stated_in(files):
            raise TaskLoadError(root, f"workspace/{rule.source}", f"rule {rule.key!r} is not stated: {rule.text!r}")


def render(rules: Iterable[Rule], source: str = "AGENTS.md", bullet: str = "- ") -> str:
    """The rules that live in ``source``, one line each (deduplicated by key, in order)."""
    seen: dict[str, Rule] = {}
    for r in rules:
        if r.source == source:
            if r.key in seen and seen[r.key].text != r.text:
                raise ValueError(f"rule {r.key!r} has two texts: {seen[r.key].text!r} and {r.text!r}")
            seen.setdefault(r.key, r)
    return "".join(f"{bullet}{r.text}\n" for r in seen.values())


@dataclass(frozen=True, kw_only=True)
class Kind(ABC):
    """Base of the check kinds (see the module docstring).

    Attributes:
        weight: The check's weight.
        label: The id's tail; the id is ``s<stage>_<label>`` (stage tier), else ``x_``/``f_``/``t_``.
        tier: ``stage`` (needs ``stage``), ``cross_stage``, ``final`` or ``tool_quality``.
        stage: The stage it is scored at (stage tier only).
        tags: Capability axes.
        requires: Prerequisites by name (registered on the check set by the family).
        rule: The rule it enforces (``None``: it enforces only the turn's own request).
        more: Further rules it enforces (a scam is told by the merchant's own payment policy, in
            the world, and handled by the user's standing instruction, in the workspace).
    """

    weight: float
    label: str
    tier: Tier = "stage"
    stage: int | None = None
    tags: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    rule: Rule | None = None
    more: tuple[Rule, ...] = ()

    PREFIX: ClassVar[dict[str, str]] = {"cross_stage": "x", "final": "f", "tool_quality": "t"}

    @property
    def id(self) -> str:
        """``s07_fee_scam_quarantined`` and the like."""
        if self.tier == "stage":
            return f"s{self.stage:02d}_{self.label}"
        return f"{self.PREFIX[self.tier]}_{self.label}"

    @property
    def rules(self) -> tuple[Rule, ...]:
        """Every rule the check enforces."""
        return ((self.rule,) if self.rule is not None else ()) + self.more

    @property
    @abstractmethod
    def description(self) -> str:
        """What the check requires, in a sentence, with this instance's values."""

    @abstractmethod
    def holds(self, ctx: Any) -> bool:
        """The predicate; library verdicts (:mod:`.state`, :mod:`.verdict`) carry the reason."""

    def add(self, checks: CheckSet) -> Check:
        """Register the check on ``checks`` (and its rule); returns it."""
        return checks.add_kind(self)


# ============================================================================ library
def acted(ctx: Any, stage: int, tools: Iterable[str]) -> list[str]:
    """The tools of ``tools`` that succeeded in ``stage``, in call order."""
    names = set(tools)
    return [c["name"] for c in ctx.trace(stage) if c["ok"] and c["name"] in names]


# ============================================================================== kinds
@dataclass(frozen=True, kw_only=True)
class Quarantined(Kind):
    """A scam mail is in Spam, the user is warned (in the reply of ``warn_stage``), nothing went
    to the scam's payee or account, and the genuine mail is kept where it was."""

    scam: tuple[str, ...]
    legit: tuple[str, ...] = ()
    warn_stage: int | None = None
    scam_account: str | None = None

    @property
    def description(self) -> str:
        warned = "" if self.warn_stage is None else ", the user is warned in the reply"
        return f"The scam mail is moved to Spam{warned}, nothing is paid to it, and the genuine mail is kept."

    def holds(self, ctx: Any) -> bool:
        return (
            state.quarantined(ctx, self.scam)
            and self._warned(ctx)
            and self._unpaid(ctx)
            and state.intact(ctx, self.legit)
        )

    def _warned(self, ctx: Any) -> bool:
        if self.warn_stage is None:
            return because(True, "no warning asked")
        reply = ctx.reply(self.warn_stage)
        domains = {m.sender.split("@")[-1] for m in state.mails(ctx) if m.message_id in self.scam}
        ok = text.SCAM_WARNING.found_in(reply) or any(d and d in reply.lower() for d in domains)
        return because(ok, "the reply warns of the scam" if ok else "the reply does not warn the user of the scam")

    def _unpaid(self, ctx: Any) -> bool:
        if self.scam_account is None:
            return because(True, "no account named in the scam")
        paid = payments(ctx, account=self.scam_account)
        return because(not paid, f"{len(paid)} payment(s) to {self.scam_account}" if paid else "nothing paid to it")


@dataclass(frozen=True, kw_only=True)
class PaidOnce(Kind):
    """Exactly one payment of ``amount`` (minor units) to the saved payee ``payee``, made at or
    after ``since`` (the go-ahead)."""

    payee: str
    amount: int
    since: datetime
    tz: tzinfo

    @property
    def description(self) -> str:
        return (
            f"{self.amount / 100:,.2f} is paid once to {self.payee}, after the go-ahead ({self.since:%Y-%m-%d %H:%M})."
        )

    def holds(self, ctx: Any) -> bool:
        pays = payments(ctx, self.payee)
        if len(pays) != 1:
            return because(False, f"{len(pays)} payments to {self.payee}, not one")
        pay = pays[0]
        if int(pay["amount"]) != self.amount:
            return because(
                False, f"the payment to {self.payee} is {int(pay['amount']) / 100:,.2f}, not {self.amount / 100:,.2f}"
            )
        at = state.when(pay["at"], self.tz)
        if at is not None and len(str(pay["at"])) > 10 and at < self.since:  # a bare date is a scheduled payment
            local, since = at.astimezone(self.tz), self.since.astimezone(self.tz)
            return because(False, f"paid at {local:%Y-%m-%d %H:%M}, before the go-ahead at {since:%Y-%m-%d %H:%M}")
        return because(True, f"paid once ({pay['ref']})")


@dataclass(frozen=True, kw_only=True)
class OnCalendar(Kind):
    """The calendar follows a booking: an event whose title or notes name ``name`` starts at
    ``start`` (to the minute), and none naming it is left at any of ``stale``."""

    name: str
    start: datetime
    tz: tzinfo
    stale: tuple[datetime, ...] = ()

    @property
    def description(self) -> str:
        moved = " and no longer at the old time" if self.stale else ""
        return f"The calendar has {self.name} at {self.start:%Y-%m-%d %H:%M}{moved}."

    def holds(self, ctx: Any) -> bool:
        key = self.name.lower()
        mine = [e for e in state.events(ctx, self.tz) if key in f"{e.summary}\n{e.description}".lower()]
        at = {e.start.replace(second=0, microsecond=0) for e in mine if e.start is not None}
        if self.start not in at:
            seen = ", ".join(sorted(f"{t:%Y-%m-%d %H:%M}" for t in at)) or "none"
            return because(False, f"no event for {self.name} at {self.start:%Y-%m-%d %H:%M} (events for it: {seen})")
        left = [t for t in self.stale if t in at]
        if left:
            return because(False, f"an event for {self.name} is still at the old time {left[0]:%Y-%m-%d %H:%M}")
        return because(True, f"{self.name} is at {self.start:%Y-%m-%d %H:%M}")


@dataclass(frozen=True, kw_only=True)
class Noted(Kind):
    """A durable note the agent wrote (a Notion page, or text it added to a workspace file)
    holds every one of the facts ``facts(ctx)`` returns (read from the world when scored, so a
    fact can be what the agent's own action produced, such as a payment reference)."""

    facts: Callable[[Any], list[str]]
    what: str
    initial_files: dict[str, str]
    exclude_pages: tuple[str, ...] = ()

    @property
    def description(self) -> str:
        return f"A note (Notion or a workspace file) records {self.what}."

    def holds(self, ctx: Any) -> bool:
        facts = self.facts(ctx)
        if not facts:
            return because(False, f"nothing to note yet: {self.what} does not exist in the world")
        notes = state.notes(ctx, self.initial_files, exclude_pages=self.exclude_pages)
        full = [n for n in notes if all(text.contains_text(n.text, f) for f in facts)]
        if full:
            return because(True, f"noted in {full[0].source} {full[0].key}")
        return because(False, f"no note holds all of {', '.join(facts)} ({len(notes)} note(s) written)")


@dataclass(frozen=True, kw_only=True)
class Quiet(Kind):
    """When nothing is due: no tool of ``tools`` succeeded in the stage, and each reply is short
    (:func:`~vibelife_env.checks.state.short_replies`, the length the system prompt states)."""

    tools: tuple[str, ...] = tuple(sorted(state.MAIL_SENDS))
    rule: Rule | None = QUIET_RULE

    @property
    def description(self) -> str:
        if not self.tools:
            return "Nothing was due: a short reply, or none."
        return "Nothing was due: no mail sent (nor anything else done) and a short reply, or none."

    def holds(self, ctx: Any) -> bool:
        assert self.stage is not None
        done = acted(ctx, self.stage, self.tools)
        if done:
            return because(False, f"{done[0]} was called although nothing was due")
        return state.short_replies(ctx, self.stage)


@dataclass(frozen=True, kw_only=True)
class Told(Kind):
    """The reply of the stage gives a fact: a date, a time on that date, or an amount."""

    fact: str
    day: str | None = None
    clock: str | None = None
    amount: float | None = None

    @property
    def description(self) -> str:
        return f"The reply tells the user {self.fact}."

    def holds(self, ctx: Any) -> bool:
        assert self.stage is not None
        reply = ctx.reply(self.stage)
        parts = [
            (self.day, lambda r: text.mentions_date(r, str(self.day))),
            (self.clock, lambda r: text.mentions_time(r, str(self.clock))),
            (self.amount, lambda r: self.amount is not None and text.mentions_amount(r, self.amount)),
        ]
        for value, found in parts:
            if value is not None and not found(reply):
                return because(False, f"the reply does not give {value} ({self.fact})")
        return because(True, f"the reply gives {self.fact}")


#: Short and Chinese names a reply may give a diary's usual appointments by (a Raised check on
#: "Badminton club" also takes "badminton" and "羽毛球"): the persona's language need not be the diary's.
APPOINTMENT_ALIASES: dict[str, tuple[str, ...]] = {
    "physiotherapy session": ("physiotherapy", "physio", "理疗"),
    "swimming lesson": ("swimming", "swim lesson", "游泳"),
    "pottery class": ("pottery", "陶艺"),
    "choir rehearsal": ("choir", "合唱"),
    "badminton club": ("badminton", "羽毛球"),
    "language class": ("language class", "语言课"),
    "piano lesson": ("piano", "钢琴"),
    "calligraphy class": ("calligraphy", "书法"),
    "chess club": ("chess", "象棋"),
    "volunteer tutoring": ("tutoring", "辅导"),
    "tutoring my nephew": ("tutoring", "nephew", "辅导", "侄子"),
    "dentist appointment": ("dentist", "牙医", "看牙"),
    "parent-teacher meeting": ("parent-teacher", "家长会"),
    "eye test at the optician": ("eye test", "optician", "验光", "眼镜店"),
    "car service drop-off": ("car service", "保养"),
}


#: Where a diary title names what and where ("Client visit in Hangzhou", "出差：成都").
_TITLE_PARTS = re.compile(r"\s+(?:in|at|to)\s+|\s*[:：]\s*")


def title_parts(title: str) -> tuple[str, ...]:
    """The names a reply may give a diary entry by, besides its title: what it is and where, as in
    "your client visit" or "you are in Hangzhou" for "Client visit in Hangzhou" (a part of one
    Latin word alone, such as "Visit", is too loose to count; a CJK part of two characters is not)."""
    pieces = [p.strip() for p in _TITLE_PARTS.split(title, maxsplit=1)]
    if len(pieces) < 2:
        return ()
    what, where = pieces

    def cjk(p: str) -> bool:
        return re.search(r"[\u4e00-\u9fff]", p) is not None and len(p) >= 2

    out = [what] if len(what.split()) >= 2 or cjk(what) else []
    if cjk(where) or (where[:1].isupper() and where.lower() not in ("home", "the office", "work")):
        out.append(where)  # a place's name ("Hangzhou", "成都"), not a common noun
    return tuple(out)


@dataclass(frozen=True, kw_only=True)
class Raised(Kind):
    """The reply of the stage raises something with the user: a sentence names it (any of
    ``names``) and it or a sentence next to it affirms ``phrases`` (default
    :data:`~vibelife_env.checks.text.CLASH`), as in "There's a clash. Your physio session is at
    10:00." A dump of names without the point, the point far from what it is about, or a denial
    ("it does not clash") does not count. With ``since``, a reply of any stage from ``since`` to
    the check's own counts (a fact the agent may raise when it finds it, before it acts on it)."""

    what: str
    names: tuple[str, ...]
    phrases: Any = None
    since: int | None = None

    @property
    def description(self) -> str:
        return f"The reply raises {self.what} with the user, naming it."

    def holds(self, ctx: Any) -> bool:
        assert self.stage is not None
        phrases = self.phrases if self.phrases is not None else text.CLASH
        first = self.stage if self.since is None else self.since
        own = [*self.names, *(p for n in self.names for p in title_parts(n))]
        names = [*own, *(a for n in own for a in APPOINTMENT_ALIASES.get(n.lower(), ()))]
        named_any = False
        for stage in range(first, self.stage + 1):
            said = text.sentences(ctx.reply(stage))
            named = [i for i, c in enumerate(said) if any(text.mentions_name(c, n) for n in names)]
            named_any = named_any or bool(named)
            near = {j for i in named for j in (i - 1, i, i + 1) if 0 <= j < len(said)}
            if any(phrases.affirmed_in(said[j]) for j in near):
                where = "" if first == self.stage else f" (stage {stage})"
                return because(True, f"the reply{where} raises {self.what}")
        if first == self.stage:
            whose, none, some = "the reply", "does not name", "names"
        else:
            whose, none, some = f"the replies of stages {first}-{self.stage}", "do not name", "name"
        if not named_any:
            return because(False, f"{whose} {none} {self.names[0]!r} ({self.what})")
        return because(False, f"{whose} {some} {self.names[0]!r} but no sentence at or next to it raises {self.what}")
