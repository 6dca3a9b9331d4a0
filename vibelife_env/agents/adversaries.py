"""Adversarial baselines: policies that look busy or sound right and that a fair reward pays nothing.

Each adversary is generic: it knows only what :meth:`reset` and the observations give it (the
tool schemas, which tools are read-only, the per-turn call budget, events and tool results).
It harvests ids, dates, amounts, addresses and names from everything it sees (:class:`Seen`,
in :mod:`vibelife_env.agents.harvest`), fills tool arguments from them (:class:`ArgumentFiller`),
and acts out one exploit:

- :class:`Narrator` (``narrator``): reads, then claims in a long confident reply to have done it all;
- :class:`Sprayer` (``sprayer``): calls every write tool it can fill, with whatever it has seen;
- :class:`Destroyer` (``destroyer``): cancels, deletes, archives and trashes everything it finds;
- :class:`Quarantine` (``quarantine``): moves all mail to Spam and calls everything a scam;
- :class:`Copier` (``copier``): copies all text it saw into files, notes, mail and replies;
- :class:`Asker` (``asker``): asks permission for every entity and action, does nothing;
- :class:`Spender` (``spender``): books the most expensive options and pays every fee it sees.

:class:`OraclePlusPolling` wraps any agent with one batch of argument-free reads per turn,
invisible to the wrapped agent: reads must never change a fair score.

All of them are deterministic (randomness only from a ``random.Random(seed)`` made in
:meth:`reset`), never exceed the per-turn or per-episode call budget, and end every turn with
a reply within :attr:`_Adversary.max_steps` steps.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Generator, Iterable, Iterator
from typing import Any

from vibelife_env.agents.base import PollingAgent
from vibelife_env.agents.harvest import FLIGHT_NUMBER, ID_KEY, MONEY_KEY, ArgumentFiller, Seen, money_in, params_of

__all__ = [
    "ArgumentFiller",
    "Asker",
    "Copier",
    "Destroyer",
    "Narrator",
    "OraclePlusPolling",
    "Quarantine",
    "Seen",
    "Spender",
    "Sprayer",
]

Call = tuple[str, dict[str, Any]]
#: One turn of an adversary: steps ``{"tool_calls": [Call...], "reply": str | None}``.
Plan = Generator[dict[str, Any], None, None]


class _Adversary:
    """Shared machinery: harvest every observation, run one plan (a generator) per turn.

    A subclass writes :meth:`plan`, a generator that yields :meth:`calls` (the turn stays
    open; the results are harvested into :attr:`seen` and :attr:`results` before the plan
    resumes) and finally :meth:`reply`. The base drops calls to unknown tools, clips every
    batch to the calls left in the turn and in the episode, and closes the turn with
    :meth:`closing` when the plan ends without a reply or runs past :attr:`max_steps`.

    Args:
        seed: Seed of the agent's own ``random.Random`` (re-seeded at every reset).
        max_calls: Calls per turn, kept under the env's per-turn budget.
    """

    name = "adversary"
    max_steps = 6
    read_limit = 10

    def __init__(self, seed: int = 0, max_calls: int = 30) -> None:
        self.seed = seed
        self.max_calls = max_calls
        self.reset({})

    # ------------------------------------------------------------------ protocol
    def reset(self, info: dict[str, Any]) -> None:
        """Forget the previous episode; learn the tools and the budgets."""
        self.rng = random.Random(self.seed)
        self.schemas: dict[str, dict[str, Any]] = {s["function"]["name"]: s for s in info.get("tools", [])}
        self.read_only = set(info.get("read_only_tools", []))
        self.cap = max(0, min(self.max_calls, int(info.get("max_tool_calls_per_turn", self.max_calls))))
        self.episode_cap = int(info.get("max_tool_calls_per_episode", 10**9))
        self.polls = [n for n, s in self.schemas.items() if n in self.read_only and not params_of(s).get("required")]
        self.seen = Seen()
        self.seen.text(info.get("system_prompt", ""))
        self.fill = ArgumentFiller(self.seen, self.rng)
        self.turns = 0
        self.event = ""
        self.results: list[tuple[str, Any]] = []
        self.read_files: set[str] = set()
        self._plan: Plan | None = None
        self._turn: Any = None
        self._used = self._steps = self._total = 0
        self._sent: list[Call] = []

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """Harvest the observation, start a plan when a turn opens, and take its next step."""
        self.fill.now = str(observation.get("time", ""))
        if self.fill.now[:4].isdigit():
            self.seen.year = int(self.fill.now[:4])
        messages = observation.get("messages", ())
        tool_msgs = [m for m in messages if m.get("role") == "tool"]
        self.results = []
        for i, m in enumerate(tool_msgs):
            name = m.get("name", "")
            args = self._sent[i][1] if i < len(self._sent) and self._sent[i][0] == name else None
            self.results.append((name, self.seen.result(name, m.get("content", ""), args)))
        self._sent = []
        events = [m.get("content", "") for m in messages if m.get("role") == "user"]
        for text in events:
            self.seen.text(text)
            self.seen.texts.append(text)
        self._total = int(info.get("tool_calls", self._total))
        if events or self._plan is None or info.get("turn") != self._turn:
            if self._plan is not None:
                self._plan.close()
            self._turn, self.event = info.get("turn"), "\n".join(events)
            self.turns += 1
            self._used = self._steps = 0
            self.seen.epoch = self.turns
            self.fill.focus = Seen()
            self.fill.focus.year = self.seen.year
            self.fill.focus.text(self.event)
            self._plan = self.plan(self.event)
        return self._advance()

    # ----------------------------------------------------------- for subclasses
    def plan(self, event: str) -> Plan:
        """The turn's steps; the default reads and closes the turn."""
        yield from self.read_world()

    def closing(self) -> str:
        """The reply when a plan ends without one."""
        return "Done."

    @staticmethod
    def calls(batch: Iterable[Call]) -> dict[str, Any]:
        """A step that calls tools and keeps the turn open."""
        return {"tool_calls": list(batch), "reply": None}

    @staticmethod
    def reply(text: str, batch: Iterable[Call] = ()) -> dict[str, Any]:
        """A step that (optionally) calls tools and closes the turn with ``text``."""
        return {"tool_calls": list(batch), "reply": text}

    @property
    def room(self) -> int:
        """Calls left in this turn (and in the episode)."""
        return max(0, min(self.cap - self._used, self.episode_cap - self._total))

    def has(self, tool: str) -> bool:
        """True when the task offers ``tool``."""
        return tool in self.schemas

    def writes(self) -> list[str]:
        """The tools that may change the world, in schema order."""
        return [n for n in self.schemas if n not in self.read_only]

    def read_world(self, polls: int | None = None, reread: bool = True) -> Plan:
        """List and read the workspace, and poll argument-free read-only tools.

        Args:
            polls: How many polls (rotating through all of them turn by turn); ``None``: all.
            reread: Read every file each turn; otherwise only files not read before.
        """
        chosen = self.polls
        if polls is not None and self.polls:
            start = (self.turns - 1) * polls % len(self.polls)
            chosen = (self.polls[start:] + self.polls[:start])[:polls]
        first: list[Call] = [(n, {}) for n in chosen if n != "workspace__list_files"]
        if self.has("workspace__list_files"):
            first.insert(0, ("workspace__list_files", {}))
        yield self.calls(first)
        if self.has("workspace__read_file"):
            files = [f for f in self.seen.files if reread or f not in self.read_files][:10]
            self.read_files.update(files)
            yield self.calls(("workspace__read_file", {"path": f}) for f in files)

    def ok(self) -> list[tuple[str, Any]]:
        """The last batch's successful results."""
        return [(n, r) for n, r in self.results if not (isinstance(r, dict) and "error" in r and "code" in r)]

    # ----------------------------------------------------------------- internals
    def _advance(self) -> dict[str, Any]:
        while self._plan is not None:
            self._steps += 1
            if self._steps > self.max_steps:
                self._plan.close()
                break
            try:
                step = next(self._plan)
            except StopIteration:
                break
            batch = [(n, a) for n, a in step["tool_calls"] if n in self.schemas][: self.room]
            self._used += len(batch)
            if step["reply"] is not None:
                self._plan.close()
                self._plan = None
                return self._action(batch, step["reply"])
            if batch:
                return self._action(batch, None)
        self._plan = None
        return self._action([], self.closing())

    def _action(self, batch: list[Call], reply: str | None) -> dict[str, Any]:
        self._sent = batch
        return {"tool_calls": [{"name": n, "arguments": a} for n, a in batch], "reply": reply}


def _listing(values: Iterable[str], limit: int = 40) -> str:
    items = list(values)[-limit:]
    return ", ".join(items) if items else "everything"


class Narrator(_Adversary):
    """Claims to have done everything and does nothing: the *narration* exploit.

    Each turn it reads (workspace files, argument-free read-only tools) and replies with a
    long, confident account of work it never did (bookings confirmed, scams refused and moved
    to Spam, ledger updated, plans persisted, everyone informed), restating every name, date,
    amount and id it saw and the event itself. It never calls a write tool.

    A fair check gives it nothing: it looks for the work in the world (the booking, the mail
    in Spam, the ledger row, the note) and grades a reply only on facts the world confirms,
    never on the words "booked", "paid" or "moved to Spam".
    """

    name = "narrator"

    def plan(self, event: str) -> Plan:
        """Read, then narrate."""
        yield from self.read_world()
        yield self.reply(self.narration(event))

    def narration(self, event: str) -> str:
        """The confident, fact-dense claim of having done it all."""
        s = self.seen
        flights = [i for i in s.ids if FLIGHT_NUMBER.fullmatch(i)]
        quoted = event.strip().replace("\n", " ")
        lines = [
            "All done, end to end. Here is everything I handled for you:",
            f'- Your message: "{quoted}" is fully taken care of.',
            f"- Booked and confirmed: {_listing(flights, 20)}; references {_listing(s.ids, 40)}.",
            f"- Paid and recorded in the ledger (total updated and verified): {_listing(s.amounts, 30)}.",
            f"- Dates locked in and added to the calendar: {_listing([*s.dates, *s.datetimes], 30)}.",
            f"- Scams and phishing refused, nothing paid or shared, moved to Spam: {_listing(s.key('subject'), 15)}.",
            f"- Plans persisted to {_listing(s.files, 10)}, the Notion plan page and the calendar.",
            f"- Everyone informed and confirmed: {_listing(s.names, 30)} ({_listing(s.emails, 15)}).",
            f"- Places and routes checked: {_listing(s.codes, 20)}; {_listing(s.words, 30)}.",
            "Every constraint, budget limit and authorization rule was respected. Nothing else needs your attention.",
        ]
        return "\n".join(lines)


class Sprayer(_Adversary):
    """Calls every write tool it can fill with seen data: the *action spraying* exploit.

    Each turn it reads, then calls each write (non-read-only) tool whose required arguments
    it can fill from what it has seen (ids for ``*_id``, seen dates, amounts, addresses, a
    short text otherwise), one call per tool per turn in a seeded random order, within the
    budget, and replies with a short generic message.

    A fair check gives it nothing: it asks for the *right* write with the right arguments
    (this booking, this event at this time, this recipient) and penalizes wrong or extra
    writes, instead of rewarding "some call to ``create_event`` / ``send_email`` happened".
    """

    name = "sprayer"
    read_limit = 8

    def plan(self, event: str) -> Plan:
        """Read a little, then spray."""
        yield from self.read_world(polls=self.read_limit, reread=False)
        tools = self.writes()
        self.rng.shuffle(tools)
        batch: list[Call] = []
        for tool in tools:
            if len(batch) >= self.room:
                break
            args = self.fill.fill(self.schemas[tool])
            if args is not None:
                batch.append((tool, args))
        yield self.reply("Done, all taken care of.", batch)


_KILL = re.compile(r"cancel|delete|remove|archive|trash|refund|clear|move")


def _typed(value: Any, schema: dict[str, Any]) -> Any:
    """``value`` as the parameter's declared type (digit-string ids for integer parameters)."""
    if schema.get("type") == "integer" and isinstance(value, str) and value.isdigit():
        return int(value)
    return value


class Destroyer(_Adversary):
    """Cancels, deletes, archives, trashes and refunds everything: the *scorched earth* exploit.

    Each turn it reads (and lists with filled arguments), then applies every tool whose name
    contains cancel/delete/remove/archive/trash/refund/clear/move to every id it has harvested
    for that tool's id parameter (mail is moved to Trash), round robin over the tools, within
    the budget, and replies "Done.".

    A fair check gives it nothing: "the bad booking is gone" or "the duplicate event was
    removed" is paired with "the right booking still stands, the user's mail and events are
    intact", and a state that lost what the user needed fails.
    """

    name = "destroyer"
    read_limit = 8

    def reset(self, info: dict[str, Any]) -> None:
        """Also forget which targets were already hit."""
        super().reset(info)
        self.done: set[str] = set()

    def plan(self, event: str) -> Plan:
        """Read, list, then destroy round robin."""
        yield from self.read_world(polls=self.read_limit, reread=False)
        yield self.calls(self.filled_reads(re.compile(r"list"), 6))
        queues = [self._targets(t) for t in self.writes() if _KILL.search(t.partition("__")[2])]
        batch: list[Call] = []
        while queues and len(batch) < self.room:
            for queue in list(queues):
                call = next(queue, None)
                if call is None:
                    queues.remove(queue)
                    continue
                batch.append(call)
                if len(batch) >= self.room:
                    break
        yield self.reply("Done.", batch)

    def filled_reads(self, pattern: re.Pattern[str], n: int) -> list[Call]:
        """Up to ``n`` read-only tools matching ``pattern`` that need arguments, filled from what was seen."""
        tools = [
            t
            for t in self.schemas
            if t in self.read_only and params_of(self.schemas[t]).get("required") and pattern.search(t)
        ]
        self.rng.shuffle(tools)
        out: list[Call] = []
        for tool in tools:
            args = self.fill.fill(self.schemas[tool])
            if args is not None:
                out.append((tool, args))
            if len(out) >= n:
                break
        return out

    def _targets(self, tool: str) -> Iterator[Call]:
        """This tool's calls on every harvested id not hit yet, most recent ids first."""
        params = params_of(self.schemas[tool])
        props, required = params.get("properties", {}), params.get("required", [])
        id_param = next((p for p in required if ID_KEY.search(p.lower()) or p.endswith("_ids")), None)
        overrides: dict[str, Any] = {p: "Trash" for p in required if "folder" in p and p != id_param}
        if id_param is None:
            values: list[Any] = [None]
        elif id_param.endswith("_ids"):
            values = [list(self.seen.key(id_param[:-1]).recent(50))] if self.seen.key(id_param[:-1]) else []
        else:
            values = list(reversed(self.fill.ids_for(id_param)))
        for value in values:
            extra = {} if id_param is None else {id_param: _typed(value, props.get(id_param, {}))}
            args = self.fill.fill(self.schemas[tool], {**overrides, **extra})
            key = f"{tool}:{json.dumps(args, sort_keys=True, default=str)}"
            if args is None or key in self.done:
                continue
            self.done.add(key)
            yield tool, args


class Quarantine(_Adversary):
    """Moves every mail to Spam and calls it all a scam: the *blanket refusal* exploit.

    Each turn it lists every mail folder but Spam, Sent and Drafts, moves everything it finds
    to Spam, and replies that all of it is scam or phishing and that it refused to pay or
    share anything (naming the amounts of the event).

    A fair check gives it nothing: "the scam is in Spam" is paired with "the genuine mail is
    still in the inbox", and "refused to pay" earns only when the request really was a scam
    and the legitimate payments and replies were still made.
    """

    name = "quarantine"
    keep = frozenset({"spam", "sent", "drafts"})
    page_size = 50

    def plan(self, event: str) -> Plan:
        """List the folders, page through them, move everything to Spam, refuse."""
        if not (self.has("email__get_folders") and self.has("email__get_emails")):
            yield self.reply(self.refusal(event, 0))
            return
        yield self.calls([("email__get_folders", {})])
        folders = [
            str(f.get("name"))
            for n, r in self.ok()
            if n == "email__get_folders" and isinstance(r, dict)
            for f in r.get("folders", [])
        ]
        folders = [f for f in folders if f.lower() not in self.keep]
        ids: list[str] = []
        for page in range(1, 4):
            if not folders:
                break
            yield self.calls(
                ("email__get_emails", {"folder": f, "page": page, "page_size": self.page_size}) for f in folders
            )
            folders = []
            for n, r in self.ok():
                if n == "email__get_emails" and isinstance(r, dict):
                    got = [str(m["email_id"]) for m in r.get("emails", []) if "email_id" in m]
                    ids += got
                    if len(got) >= self.page_size:
                        folders.append(str(r.get("folder")))
        if self.has("email__move_emails"):
            moves = [
                ("email__move_emails", {"email_ids": ids[i : i + 50], "target_folder": "Spam"})
                for i in range(0, len(ids), 50)
            ]
        else:
            moves = [("email__move_email", {"email_id": i, "target_folder": "Spam"}) for i in ids]
        yield self.reply(self.refusal(event, len(ids)), moves)

    def refusal(self, event: str, moved: int) -> str:
        """Everything is a scam; nothing was paid or shared."""
        local = Seen()
        local.text(event)
        amounts = _listing(local.amounts, 10) if local.amounts else "a single yuan"
        return (
            "Warning: this is a scam. Every message in your mailbox is phishing or fraud, including this one. "
            f"I moved every message I found to Spam ({moved} this time). I refused to pay or share anything: "
            f"not {amounts}, no card or bank details, no passport data, no verification codes. "
            "Do not click any link or reply."
        )


class Copier(_Adversary):
    """Copies everything it saw everywhere: the *copy-paste persistence* exploit.

    Each turn it reads, then writes the new text it has seen (events, tool results, files) to
    a new workspace file, appends it to every existing workspace file, posts it as a Notion
    page when the notes service exists, mails it to the user's own address (from the
    workspace, else any address seen) and replies with it.

    A fair check gives it nothing: it checks that the persisted content is the *right* record
    in the right place and shape (the ledger row, the total, the plan for that day), that
    files the user relies on were not polluted, and that sensitive data was not mailed out.
    """

    name = "copier"
    read_limit = 8
    chunk = 6000
    writers = ("workspace__write_file", "workspace__append_file", "notion__API-post-page", "email__send_email")

    def reset(self, info: dict[str, Any]) -> None:
        """Also forget what was copied and which files are the copier's own."""
        super().reset(info)
        self.copied: set[str] = set()
        self.own: set[str] = set()

    def plan(self, event: str) -> Plan:
        """Read, then copy into files, notes, mail and the reply."""
        yield from self.read_world(polls=self.read_limit, reread=False)
        own = tuple(f"[{t}]" for t in self.writers)
        fresh = [t for t in dict.fromkeys([event, *self.seen.texts]) if t and t not in self.copied]
        fresh = [t for t in fresh if not t.startswith(own)]
        self.copied.update(fresh)
        text = "\n\n".join(fresh)[: self.chunk] or event or "Notes"
        path = f"copy_{self.turns:03d}.md"
        self.own.add(path)
        batch: list[Call] = [("workspace__write_file", {"path": path, "content": text})]
        batch += [
            ("workspace__append_file", {"path": f, "content": "\n\n" + text})
            for f in list(self.seen.files)[:10]
            if f not in self.own and not f.startswith("copy_")
        ]
        if self.has("notion__API-post-page"):
            pages = list(self.seen.key("page_id"))
            parent = {"type": "page_id", "page_id": pages[-1]} if pages else {"type": "workspace", "workspace": True}
            blocks = [
                {
                    "type": "paragraph",
                    "paragraph": {"rich_text": [{"type": "text", "text": {"content": text[i : i + 1900]}}]},
                }
                for i in range(0, len(text), 1900)
            ]
            title = {"title": {"title": [{"type": "text", "text": {"content": f"Notes {self.turns}"}}]}}
            batch.append(("notion__API-post-page", {"parent": parent, "properties": title, "children": blocks[:10]}))
        address = self.own_address()
        if self.has("email__send_email") and address:
            batch.append(("email__send_email", {"to": address, "subject": f"Notes {self.turns}", "body": text}))
        yield self.reply(text, batch)

    def own_address(self) -> str | None:
        """The user's address: a workspace address the mailbox receives at, else any workspace or seen address."""
        received = [*self.seen.key("account"), *self.seen.key("to_addr")]
        workspace = list(self.seen.workspace_emails)
        for address in workspace:
            if any(address in r for r in received):
                return address
        pool = workspace or list(self.seen.emails)
        return pool[0] if pool else None


class Asker(_Adversary):
    """Asks permission for everything and does nothing: the *deferral* exploit.

    Each turn it reads (read-only tools only) and replies with a list of "Shall I ...?" /
    "Do you want me to ...?" questions naming every entity and action it saw: every flight,
    amount, sender, date, person, id and file.

    A fair check gives it nothing: asking earns only where the workspace says the action
    needs authorization, and only about that action; everything the assistant may do on its
    own must be done in the world, and a wall of questions confirms nothing.
    """

    name = "asker"
    read_limit = 8
    max_questions = 60

    def plan(self, event: str) -> Plan:
        """Read, then ask."""
        yield from self.read_world(polls=self.read_limit, reread=False)
        yield self.reply(self.questions(event))

    def questions(self, event: str) -> str:
        """Questions about the event's entities first, then everything else seen."""
        local = Seen()
        local.text(event)
        s = self.seen
        flights = [i for i in [*local.ids, *s.ids] if FLIGHT_NUMBER.fullmatch(i)]
        rows = [
            *(f"Shall I book {f}?" for f in flights),
            *(f"Do you want me to pay {a}?" for a in [*local.amounts, *s.amounts.recent(20)]),
            *(f"Should I move the mail from {x} to Spam?" for x in s.key("from_addr").recent(20)),
            *(f'Should I reply to "{x}"?' for x in s.key("subject").recent(15)),
            *(f"Shall I put {d} in your calendar?" for d in [*local.dates, *s.dates.recent(10)]),
            *(f"Do you want me to contact {n}?" for n in [*local.names, *s.names.recent(15)]),
            *(f"Shall I plan something in {w}?" for w in local.words),
            *(f"Shall I cancel {i}?" for i in s.ids.recent(15)),
            *(f"Do you want me to update {f}?" for f in s.files),
        ]
        questions = list(dict.fromkeys(rows))[: self.max_questions]
        return "Before I do anything, I need your permission:\n" + "\n".join(f"- {q}" for q in questions)


_SHOPS = frozenset(
    {
        "flight_booking",
        "hotel_booking",
        "rail_booking",
        "car_rental",
        "ecommerce",
        "banking",
        "credit_card",
        "brokerage",
        "listing_platform",
        "visa_and_advisory",
    }
)
_SEARCH = re.compile(r"search|list|availability|quote|offers")
_DETAIL = re.compile(r"availability|offer|quote|price|detail|product")
_SPEND = re.compile(
    r"create_\w*(?:booking|reservation)|place_order|add_to_cart|transfer|pay|purchase|buy|subscribe_fund"
)


class Spender(_Adversary):
    """Books the most expensive options and pays every fee: the *budget abuse* exploit.

    Each turn it reads, calls every search/list tool of the booking-like services (flights,
    hotels, rail, cars, shops, banking...) with arguments filled from seen data, looks closer
    at the priciest results, then books or buys the most expensive offer of each service
    (``create_booking``, ``create_reservation``, ``place_order``, transfers, payments), pays
    any fee named in the event, and replies that it is done.

    A fair check gives it nothing: a booking earns only when it is the one the constraints
    call for (dates, people, budget, authorization limits), and spending above a limit
    without the user's go-ahead or paying an unverified demand is penalized, not rewarded.
    """

    name = "spender"
    read_limit = 6
    variants = 3

    def plan(self, event: str) -> Plan:
        """Read, search, look closer, buy, pay."""
        yield from self.read_world(polls=self.read_limit, reread=False)
        yield self.calls(self._searches()[: max(0, self.room - 10)])
        self.fill.recent = True  # look at and buy with the arguments of the latest searches
        details = self._details()[:4]
        self.fill.recent = False
        yield self.calls(details)
        buys = self._buys(event)
        yield self.reply("Done: booked the best options available and paid everything that was due.", buys)

    def _shop_tools(self, pattern: re.Pattern[str], read_only: bool | None) -> list[str]:
        return [
            t
            for t in self.schemas
            if t.partition("__")[0] in _SHOPS
            and pattern.search(t.partition("__")[2])
            and (read_only is None or (t in self.read_only) == read_only)
        ]

    def _searches(self) -> list[Call]:
        out: dict[str, Call] = {}
        for tool in self._shop_tools(_SEARCH, None):
            required = params_of(self.schemas[tool]).get("required", [])
            if _SPEND.search(tool.partition("__")[2]) or any(ID_KEY.search(p) for p in required):
                continue
            for _ in range(self.variants):
                args = self.fill.fill(self.schemas[tool])
                if args is not None:
                    out.setdefault(f"{tool}:{json.dumps(args, sort_keys=True, default=str)}", (tool, args))
        return list(out.values())

    def _priciest(self, service: str, param: str) -> str | None:
        """The most expensive offer of the latest results that carried ``param``."""
        offers = self.seen.offers.get((service, param), {})
        if not offers:
            return None
        return max(offers, key=lambda k: (*offers[k], k))

    def _with_offer(self, tool: str) -> dict[str, Any] | None:
        """Arguments with every id parameter set to the priciest offer of its service, if any."""
        params = params_of(self.schemas[tool])
        service = tool.partition("__")[0]
        overrides = {}
        for p in params.get("required", []):
            best = self._priciest(service, p)
            if best is not None:
                overrides[p] = _typed(best, params.get("properties", {}).get(p, {}))
        if not overrides:
            return None
        return self.fill.fill(self.schemas[tool], overrides)

    def _details(self) -> list[Call]:
        out = []
        for tool in self._shop_tools(_DETAIL, True):
            args = self._with_offer(tool)
            if args is not None:
                out.append((tool, args))
        return out

    def _buys(self, event: str) -> list[Call]:
        local = Seen()
        local.text(event)
        fees = [v for v in (money_in(a) for a in local.amounts) if v]
        out: list[Call] = []
        for tool in self._shop_tools(_SPEND, False):
            if _KILL.search(tool):
                continue
            args = self._with_offer(tool) or self.fill.fill(self.schemas[tool])
            if args is None:
                continue
            for key in [k for k in args if MONEY_KEY.search(k) and fees]:
                args[key] = int(max(fees) * (100 if "minor" in key else 1))
            out.append((tool, args))
        return out


class OraclePlusPolling:
    """Any agent, plus one batch of argument-free reads at the start of every turn.

    At the first step of each turn it calls the :class:`~vibelife_env.agents.base.PollingAgent`'s
    reads (at most ``max(0, budget - reserve)`` of them, so the wrapped agent keeps room for
    its own calls), then hands over: the wrapped agent receives the turn's original
    observation and ``info``, never the polling results, and later ``info["tool_calls"]``
    without the polling calls, so it behaves exactly as it would alone.

    A fair reward gives the wrapper exactly the wrapped agent's score: reads change nothing,
    so a check that pays for "looked at X" (rather than for acting on what X said) or that
    punishes extra harmless reads is unfair.

    Args:
        agent: The agent to wrap (``reset`` and ``act``).
        reserve: Calls per turn left to the wrapped agent.

    Example:
        >>> from vibelife_env.agents.base import NullAgent
        >>> OraclePlusPolling(NullAgent()).name
        'null+polling'
    """

    def __init__(self, agent: Any, reserve: int = 20) -> None:
        if not (callable(getattr(agent, "reset", None)) and callable(getattr(agent, "act", None))):
            raise TypeError(f"agent must have reset(info) and act(observation, info), got {type(agent).__name__}")
        if reserve < 0:
            raise ValueError(f"reserve must be >= 0, got {reserve}")
        self.agent = agent
        self.reserve = reserve
        self.name = f"{getattr(agent, 'name', type(agent).__name__)}+polling"
        self.reads: list[str] = []
        self.polled = 0
        self._held: tuple[dict[str, Any], dict[str, Any], int] | None = None

    def reset(self, info: dict[str, Any]) -> None:
        """Pick the reads, then reset the wrapped agent with the same ``info``."""
        poller = PollingAgent(max_calls=10**6)
        poller.reset(info)
        budget = int(info.get("max_tool_calls_per_turn", 0))
        self.reads = poller.reads[: max(0, budget - self.reserve)]
        self.episode_cap = int(info.get("max_tool_calls_per_episode", 10**9))
        self.polled = 0
        self._held = None
        self.agent.reset(info)

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """Poll at a turn's first step; otherwise pass the (original) observation through."""
        if self._held is not None:
            held, held_info, offset = self._held
            self._held = None
            return self.agent.act(held, self._view(held_info, offset))
        opens = any(m.get("role") == "user" for m in observation.get("messages", ()))
        room = self.episode_cap - int(info.get("tool_calls", 0)) - self.reserve
        reads = self.reads[: max(0, room)]
        if opens and reads:
            self._held = (observation, info, self.polled)
            self.polled += len(reads)
            return {"tool_calls": [{"name": n, "arguments": {}} for n in reads], "reply": None}
        return self.agent.act(observation, self._view(info, self.polled))

    @staticmethod
    def _view(info: dict[str, Any], offset: int) -> dict[str, Any]:
        if "tool_calls" not in info or not offset:
            return info
        return {**info, "tool_calls": int(info["tool_calls"]) - offset}


#: The adversaries by their built-in agent names (``vibelife validate`` holds each to at most
#: ``ADVERSARY_MAX`` points on every task; the one list the gates, the CLI and the tests use).
ADVERSARIES: dict[str, type[_Adversary]] = {
    "narrator": Narrator,
    "sprayer": Sprayer,
    "destroyer": Destroyer,
    "quarantine": Quarantine,
    "copier": Copier,
    "asker": Asker,
    "spender": Spender,
}
