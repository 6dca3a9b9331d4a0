"""Tool-path variants generated from the services: the same behaviour, reached another way.

A check about a role (the booking, the note, the answer to a mail) must accept every path
the tools allow to that state, not only the one the oracle's author took. Hand-written
variants only vary what their authors imagined; :class:`PathVariant` wraps any agent and
rewrites each of its calls to one tool into the other calls that reach the same state:

- ``hold-then-ticket``: a flight bought outright is first held (``create_booking(hold=True)``),
  the hold released, then bought, so a cancelled hold sits beside the ticket;
- ``note-as-blocks``: a note written as a new Notion page is appended to the parent page
  as blocks instead (a heading with the page's title, then its content);
- ``append-as-rewrite``: a workspace append is a read of the file and a write of the whole;
- ``move-as-recreate``: an event the agent made is moved by creating it anew (its fields,
  the change applied) and deleting the old one; the agent keeps using the old id, which the
  wrapper maps to the new one in its later calls and replies (and shows the replaced one
  under a retired name, so it never sees one id twice);
- ``modify-as-rebook``: a stay the agent booked is changed by booking the changed stay anew
  and cancelling the old one, while cancelling is free (otherwise the roads cost differently
  and the original call is made);
- ``reply-as-new-mail``: a reply is a new mail to the sender with a ``Re:`` subject.

The wrapped agent sees the result of the call it made (the ticket, the page it asked for:
the parent page, whose id later notes reuse), never the extra calls, and
``info["tool_calls"]`` without them, so it behaves as it would alone. A fair reward gives
the variant the wrapped agent's score; ``vibelife validate`` runs each path on the oracle
wherever the oracle makes the call the path rewrites.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

from vibelife_env.actions import tool_result

#: A rewrite: receives the original arguments, yields ``(tool, arguments)`` calls one at a
#: time (receiving each parsed result) and returns the result the wrapped agent gets.
Rewrite = Callable[[dict[str, Any], "Known"], Generator[tuple[str, dict[str, Any]], Any, Any]]


@dataclass
class Known:
    """What the wrapper knows of the episode: the objects the agent created (id -> the
    create call's arguments) and the world's time at the last observation."""

    made: dict[str, dict[str, Any]]
    now: str = ""


@dataclass(frozen=True)
class ToolPath:
    """An alternative way to reach what one tool call reaches."""

    name: str
    tool: str
    rewrite: Rewrite
    description: str
    #: Which calls of ``tool`` it rewrites: ``when(arguments, made)`` (``made``: what the agent created).
    when: Callable[[dict[str, Any], dict[str, Any]], bool] = lambda args, made: True

    def applies(self, call: dict[str, Any], made: dict[str, Any] | None = None) -> bool:
        """Whether this path rewrites ``call`` (``{"name", "arguments"}``); ``made``: the ids of
        the objects the agent created itself (only those are recreated)."""
        return call.get("name") == self.tool and self.when(call.get("arguments") or {}, made or {})


def _failed(result: Any) -> bool:
    return isinstance(result, dict) and "error" in result


def _hold_then_ticket(args: dict[str, Any], known: Known) -> Generator[tuple[str, dict[str, Any]], Any, Any]:
    held = yield ("flight_booking__create_booking", {**args, "hold": True})
    if not _failed(held) and held.get("pnr"):
        yield ("flight_booking__cancel_booking", {"pnr": held["pnr"]})
    return (yield ("flight_booking__create_booking", args))


def _heading(text: str) -> dict[str, Any]:
    return {"type": "heading_2", "heading_2": {"rich_text": [{"type": "text", "text": {"content": text}}]}}


def _page_title(properties: Any) -> str:
    """The plain text of a page's title property (any property of type title)."""
    if not isinstance(properties, dict):
        return ""
    for prop in properties.values():
        parts = prop.get("title") if isinstance(prop, dict) else None
        if isinstance(parts, list):
            return "".join(
                str((p.get("text") or {}).get("content", "") or p.get("plain_text", ""))
                for p in parts
                if isinstance(p, dict)
            )
    return ""


def _note_as_blocks(args: dict[str, Any], known: Known) -> Generator[tuple[str, dict[str, Any]], Any, Any]:
    parent = args["parent"]["page_id"]
    children = [_heading(_page_title(args.get("properties")) or "Note"), *(args.get("children") or [])]
    added = yield ("notion__API-patch-block-children", {"block_id": parent, "children": children})
    if _failed(added):
        return added
    return {"object": "page", "id": parent, "parent": args["parent"], "appended_blocks": len(children)}


def _append_as_rewrite(args: dict[str, Any], known: Known) -> Generator[tuple[str, dict[str, Any]], Any, Any]:
    old = yield ("workspace__read_file", {"path": args["path"]})
    text = "" if _failed(old) else str(old.get("content", "") if isinstance(old, dict) else old)
    return (yield ("workspace__write_file", {"path": args["path"], "content": text + str(args.get("content", ""))}))


def _reply_as_new_mail(args: dict[str, Any], known: Known) -> Generator[tuple[str, dict[str, Any]], Any, Any]:
    mail = yield ("email__read_email", {"email_id": args["email_id"]})
    if _failed(mail) or not isinstance(mail, dict):
        return (yield ("email__reply_email", args))
    subject = str(mail.get("subject") or "")
    send = {
        "to": str(mail.get("reply_to") or mail.get("from_addr") or mail.get("from") or ""),
        "subject": subject if subject.lower().startswith("re:") else f"Re: {subject}",
        "body": args["body"],
    }
    send.update({k: args[k] for k in ("html_body", "cc", "bcc") if args.get(k)})
    return (yield ("email__send_email", send))


@dataclass(frozen=True)
class Renamed:
    """A rewrite's result that replaced an object: the agent keeps calling it ``old``."""

    result: Any
    old: str
    new: str


_EVENT_FIELDS = ("summary", "start", "end", "description", "location", "calendar_id", "attendees", "reminders")


def _move_as_recreate(args: dict[str, Any], known: Known) -> Generator[tuple[str, dict[str, Any]], Any, Any]:
    old = yield ("calendar__get_event", {"event_id": args["event_id"]})
    if _failed(old) or not isinstance(old, dict):
        return (yield ("calendar__update_event", args))
    fields = {k: old[k] for k in _EVENT_FIELDS if old.get(k) not in (None, "", [])}
    for k in ("start", "end"):  # get_event's {"dateTime": ...} is create_event's plain string
        if isinstance(fields.get(k), dict):
            fields[k] = fields[k].get("dateTime") or fields[k].get("date")
    fields.update({k: v for k, v in args.items() if k != "event_id" and v is not None})
    fields = {k: v for k, v in fields.items() if v != ""}  # "" clears a field
    made = yield ("calendar__create_event", fields)
    if _failed(made) or not isinstance(made, dict) or not made.get("event_id"):
        return made
    yield ("calendar__delete_event", {"event_id": args["event_id"]})
    return Renamed(made, args["event_id"], str(made["event_id"]))


def _modify_as_rebook(args: dict[str, Any], known: Known) -> Generator[tuple[str, dict[str, Any]], Any, Any]:
    """Book the changed stay anew and cancel the old one, where cancelling is still free
    (otherwise the two roads cost differently, and the original call is made)."""
    old_id = args["reservation_id"]
    old = yield ("hotel_booking__get_reservation", {"reservation_id": old_id})
    free = isinstance(old, dict) and old.get("refundable") and str(old.get("refundable_until") or "") > known.now
    made_with = known.made.get(old_id) or {}
    if _failed(old) or not free or not made_with or old.get("status") not in ("confirmed", "modified"):
        return (yield ("hotel_booking__modify_reservation", args))
    stay = {
        "check_in": args.get("new_check_in") or old["check_in"],
        "check_out": args.get("new_check_out") or old["check_out"],
    }
    room = args.get("new_room_type") or old["room_type"]
    found = yield ("hotel_booking__get_room_availability", {"hotel_id": old["hotel_id"], **stay, "guests": 1})
    plans = found.get("rate_plans", found.get("plans", [])) if isinstance(found, dict) else found
    plan = next(
        (
            p
            for p in plans or ()
            if isinstance(p, dict) and p.get("room_type") == room and p.get("flavor") == old.get("flavor")
        ),
        None,
    )
    if plan is None:
        return (yield ("hotel_booking__modify_reservation", args))
    book = {k: made_with[k] for k in ("guest_profile", "payment_method_id", "special_requests") if made_with.get(k)}
    made = yield ("hotel_booking__create_reservation", {"rate_plan_id": plan["rate_plan_id"], **book})
    if _failed(made) or not isinstance(made, dict) or not made.get("reservation_id"):
        return made
    yield ("hotel_booking__cancel_reservation", {"reservation_id": old_id})
    new = yield ("hotel_booking__get_reservation", {"reservation_id": made["reservation_id"]})
    view = new if isinstance(new, dict) and not _failed(new) else made
    total = int(view.get("total_charged") or 0)
    result = {"reservation_id": old_id, "fees": 0, "price_delta": total - int(old.get("total_charged") or 0),
              "updated_reservation": {**view, "reservation_id": old_id}}  # fmt: skip
    return Renamed(result, old_id, str(made["reservation_id"]))


PATHS: dict[str, ToolPath] = {
    p.name: p
    for p in (
        ToolPath(
            "hold-then-ticket",
            "flight_booking__create_booking",
            _hold_then_ticket,
            "a flight is held, the hold released, then bought",
            when=lambda args, made: not args.get("hold"),
        ),
        ToolPath(
            "note-as-blocks",
            "notion__API-post-page",
            _note_as_blocks,
            "a note page is appended to its parent page as blocks",
            when=lambda args, made: isinstance(args.get("parent"), dict) and bool(args["parent"].get("page_id")),
        ),
        ToolPath(
            "append-as-rewrite",
            "workspace__append_file",
            _append_as_rewrite,
            "a workspace append is a read and a write of the whole file",
        ),
        ToolPath(
            "move-as-recreate",
            "calendar__update_event",
            _move_as_recreate,
            "an event the agent made is moved by creating it anew and deleting the old one",
            when=lambda args, made: (
                args.get("event_id") in made and not args.get("status") and not args.get("calendar_id")
            ),
        ),
        ToolPath(
            "modify-as-rebook",
            "hotel_booking__modify_reservation",
            _modify_as_rebook,
            "a stay the agent booked is changed by booking it anew and cancelling the old, while that is free",
            when=lambda args, made: args.get("reservation_id") in made,
        ),
        ToolPath(
            "reply-as-new-mail",
            "email__reply_email",
            _reply_as_new_mail,
            "a reply is a new mail to the sender with a Re: subject",
        ),
    )
}


class PathVariant:
    """``agent`` with every call that ``path`` applies to rewritten (see the module docstring).

    Attributes:
        rewrites: How many calls were rewritten this episode (0: the path never applied).
    """

    def __init__(self, agent: Any, path: ToolPath | str) -> None:
        if not (callable(getattr(agent, "reset", None)) and callable(getattr(agent, "act", None))):
            raise TypeError(f"agent must have reset(info) and act(observation, info), got {type(agent).__name__}")
        if isinstance(path, str):
            if path not in PATHS:
                raise ValueError(f"unknown tool path {path!r}; known: {sorted(PATHS)}")
            path = PATHS[path]
        self.agent = agent
        self.path = path
        self.name = f"{getattr(agent, 'name', type(agent).__name__)}~{path.name}"
        self.reset_state()

    def reset_state(self) -> None:
        """Forget the episode: counts, the agent's own events, renamed ids, a rewrite under way."""
        self.rewrites = 0
        self._extra = 0
        self._plan: Generator[dict[str, Any], Any, dict[str, Any] | None] | None = None
        self._seen: dict[str, Any] = {}
        self._known = Known(made={})
        self._last_calls: list[dict[str, Any]] = []
        self._alias: dict[str, str] = {}  # the id the agent knows -> the id in the world
        self._retired: set[str] = set()  # world ids of the objects rewrites replaced

    def reset(self, info: dict[str, Any]) -> None:
        """Reset the wrapped agent with the same ``info``."""
        self.reset_state()
        self.agent.reset(info)

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """The wrapped agent's action, or the next call of a rewrite in progress."""
        self._note_made(observation)
        if self._plan is not None:
            try:
                return self._plan.send(observation)
            except StopIteration as done:
                self._plan = None
                if done.value is not None:  # the turn's closing reply
                    return done.value
                observation = self._seen  # the wrapped agent's own calls' results
        action = self.agent.act(self._to_agent(observation), self._view(info))
        action = self._to_world(action)
        calls = list(action.get("tool_calls") or []) if isinstance(action, dict) else []
        if not any(self.path.applies(c, self._known.made) for c in calls):
            self._last_calls = calls
            return action
        self._plan = self._run(calls, action.get("reply"), observation)
        return next(self._plan)

    def _run(
        self, calls: list[dict[str, Any]], reply: str | None, observation: dict[str, Any]
    ) -> Generator[dict[str, Any], Any, dict[str, Any] | None]:
        """Play ``calls`` in order, rewriting the ones the path applies to; then either close the
        turn with ``reply`` (returned) or leave in :attr:`_seen` one observation with a result
        per original call for the wrapped agent (returns ``None``)."""
        messages: list[dict[str, Any]] = []
        last = observation
        for call in calls:
            if not self.path.applies(call, self._known.made):
                self._last_calls = [call]
                last = yield {"tool_calls": [call], "reply": None}
                messages.extend(_tool_messages(last))
                continue
            original = dict(call.get("arguments") or {})
            program = self.path.rewrite(dict(original), self._known)
            fell_back = False
            result: Any = None
            made = 0
            try:
                tool, args = next(program)
                while True:
                    made += 1
                    self._last_calls = []  # the rewrite's own calls: it tracks what they make
                    fell_back = fell_back or (tool == call["name"] and args == original)
                    last = yield {"tool_calls": [{"name": tool, "arguments": args}], "reply": None}
                    self._known.now = (
                        str(last.get("time") or self._known.now) if isinstance(last, dict) else self._known.now
                    )
                    found = _tool_messages(last)
                    tool, args = program.send(tool_result(found[-1]["content"]) if found else None)
            except StopIteration as done:
                result = done.value
            self._extra += made - 1
            self.rewrites += not (
                fell_back and made == 1
            )  # a rewrite that found the other road closed made the call itself
            if isinstance(result, Renamed):
                known = next((k for k, v in self._alias.items() if v == result.old), result.old)
                self._alias[known] = result.new
                self._retired.add(result.old)
                self._known.made[result.new] = self._known.made.get(result.old, {})
                result = result.result
            messages.append({"role": "tool", "name": call["name"], "content": json.dumps(result, default=str)})
        self._seen = {**last, "messages": messages}
        return {"tool_calls": [], "reply": reply} if reply is not None else None

    def _note_made(self, observation: Any) -> None:
        """Remember the world's time and the ids of what the agent's last calls created
        (calendar events, hotel reservations), with the arguments that created them."""
        if not isinstance(observation, dict):
            return
        self._known.now = str(observation.get("time") or self._known.now)
        results = _tool_messages(observation)
        if len(results) != len(self._last_calls):
            self._last_calls = []
            return
        for call, message in zip(self._last_calls, results, strict=True):
            key = _CREATES.get(str(call.get("name")))
            made = tool_result(message.get("content", "")) if key else None
            if key and isinstance(made, dict) and made.get(key):
                self._known.made[str(made[key])] = dict(call.get("arguments") or {})
        self._last_calls = []

    def _to_world(self, action: Any) -> Any:
        """The agent's action with the ids it knows replaced by the world's (calls and reply)."""
        if not self._alias or not isinstance(action, dict):
            return action
        out = dict(action)
        table = {**self._alias, **{f"{gone}{RETIRED}": gone for gone in self._retired}}
        out["tool_calls"] = [
            {**c, "arguments": _swap(c.get("arguments") or {}, table)} for c in action.get("tool_calls") or []
        ]
        if isinstance(action.get("reply"), str):
            out["reply"] = _swap(action["reply"], table)
        return out

    def _to_agent(self, observation: dict[str, Any]) -> dict[str, Any]:
        """The observation with the world's ids replaced by the ones the agent knows."""
        if not self._alias:
            return observation
        # the world's new object takes the known id; the replaced one (still in the world, cancelled
        # or deleted) is shown under a retired name, so the agent never sees one id twice
        back = {real: known for known, real in self._alias.items()}
        back.update({gone: f"{gone}{RETIRED}" for gone in self._retired})
        messages = []
        for m in observation.get("messages", ()):
            if m.get("role") == "tool":
                m = {**m, "content": json.dumps(_swap(tool_result(m.get("content", "")), back), default=str)}
            messages.append(m)
        return {**observation, "messages": messages}

    def _view(self, info: dict[str, Any]) -> dict[str, Any]:
        if "tool_calls" not in info or not self._extra:
            return info
        return {**info, "tool_calls": int(info["tool_calls"]) - self._extra}


#: The suffix under which the agent sees an object a rewrite replaced (see ``PathVariant._to_agent``).
RETIRED = "~replaced"

#: Tools that create an object the agent may later change, and the id field of their result.
_CREATES = {"calendar__create_event": "event_id", "hotel_booking__create_reservation": "reservation_id"}


def _swap(value: Any, table: dict[str, str]) -> Any:
    """``value`` with every id of ``table``'s keys replaced where it stands as a whole token in
    a string (a ledger line, a reply), recursively."""
    if isinstance(value, str):
        if value in table:
            return table[value]
        for key in sorted(table, key=len, reverse=True):  # "x~replaced" before "x"
            if key in value:
                value = re.sub(rf"(?<![\w~-]){re.escape(key)}(?![\w~-])", table[key], value)
        return value
    if isinstance(value, list):
        return [_swap(v, table) for v in value]
    if isinstance(value, dict):
        return {k: _swap(v, table) for k, v in value.items()}
    return value


def _tool_messages(observation: Any) -> list[dict[str, Any]]:
    if not isinstance(observation, dict):
        return []
    return [m for m in observation.get("messages", ()) if m.get("role") == "tool"]


class CallLog:
    """``agent`` unchanged, with the names of the tools it called kept in :attr:`tools`
    (``vibelife validate`` learns from the oracle's run which paths apply)."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name = getattr(agent, "name", type(agent).__name__)
        self.tools: set[str] = set()

    def reset(self, info: dict[str, Any]) -> None:
        self.tools = set()
        self.agent.reset(info)

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        action = self.agent.act(observation, info)
        if isinstance(action, dict):
            self.tools.update(str(c.get("name")) for c in action.get("tool_calls") or ())
        return action
