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
  wrapper maps to the new one in its later calls and replies;
- ``reply-as-new-mail``: a reply is a new mail to the sender with a ``Re:`` subject.

The wrapped agent sees the result of the call it made (the ticket, the page it asked for:
the parent page, whose id later notes reuse), never the extra calls, and
``info["tool_calls"]`` without them, so it behaves as it would alone. A fair reward gives
the variant the wrapped agent's score; ``vibelife validate`` runs each path on the oracle
wherever the oracle makes the call the path rewrites.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

from vibelife_env.episode import tool_result

#: A rewrite: receives the original arguments, yields ``(tool, arguments)`` calls one at a
#: time (receiving each parsed result) and returns the result the wrapped agent gets.
Rewrite = Callable[[dict[str, Any]], Generator[tuple[str, dict[str, Any]], Any, Any]]


@dataclass(frozen=True)
class ToolPath:
    """An alternative way to reach what one tool call reaches."""

    name: str
    tool: str
    rewrite: Rewrite
    description: str

    def applies(self, call: dict[str, Any], own: frozenset[str] | set[str] = frozenset()) -> bool:
        """Whether this path rewrites ``call`` (``{"name", "arguments"}``); ``own``: the ids of
        the calendar events the agent created itself (only those are recreated)."""
        if call.get("name") != self.tool:
            return False
        args = call.get("arguments") or {}
        if self.tool == "calendar__update_event":
            return args.get("event_id") in own and not args.get("status") and not args.get("calendar_id")
        if self.tool == "flight_booking__create_booking":
            return not args.get("hold")
        if self.tool == "notion__API-post-page":
            return isinstance(args.get("parent"), dict) and bool(args["parent"].get("page_id"))
        return True


def _failed(result: Any) -> bool:
    return isinstance(result, dict) and "error" in result


def _hold_then_ticket(args: dict[str, Any]) -> Generator[tuple[str, dict[str, Any]], Any, Any]:
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


def _note_as_blocks(args: dict[str, Any]) -> Generator[tuple[str, dict[str, Any]], Any, Any]:
    parent = args["parent"]["page_id"]
    children = [_heading(_page_title(args.get("properties")) or "Note"), *(args.get("children") or [])]
    added = yield ("notion__API-patch-block-children", {"block_id": parent, "children": children})
    if _failed(added):
        return added
    return {"object": "page", "id": parent, "parent": args["parent"], "appended_blocks": len(children)}


def _append_as_rewrite(args: dict[str, Any]) -> Generator[tuple[str, dict[str, Any]], Any, Any]:
    old = yield ("workspace__read_file", {"path": args["path"]})
    text = "" if _failed(old) else str(old.get("content", "") if isinstance(old, dict) else old)
    return (yield ("workspace__write_file", {"path": args["path"], "content": text + str(args.get("content", ""))}))


def _reply_as_new_mail(args: dict[str, Any]) -> Generator[tuple[str, dict[str, Any]], Any, Any]:
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


def _move_as_recreate(args: dict[str, Any]) -> Generator[tuple[str, dict[str, Any]], Any, Any]:
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


PATHS: dict[str, ToolPath] = {
    p.name: p
    for p in (
        ToolPath(
            "hold-then-ticket",
            "flight_booking__create_booking",
            _hold_then_ticket,
            "a flight is held, the hold released, then bought",
        ),
        ToolPath(
            "note-as-blocks",
            "notion__API-post-page",
            _note_as_blocks,
            "a note page is appended to its parent page as blocks",
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
        self._own: set[str] = set()
        self._alias: dict[str, str] = {}  # the id the agent knows -> the id in the world

    def reset(self, info: dict[str, Any]) -> None:
        """Reset the wrapped agent with the same ``info``."""
        self.reset_state()
        self.agent.reset(info)

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """The wrapped agent's action, or the next call of a rewrite in progress."""
        self._note_own(observation)
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
        if not any(self.path.applies(c, self._own) for c in calls):
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
            if not self.path.applies(call, self._own):
                last = yield {"tool_calls": [call], "reply": None}
                messages.extend(_tool_messages(last))
                continue
            self.rewrites += 1
            program = self.path.rewrite(dict(call.get("arguments") or {}))
            result: Any = None
            made = 0
            try:
                tool, args = next(program)
                while True:
                    made += 1
                    last = yield {"tool_calls": [{"name": tool, "arguments": args}], "reply": None}
                    found = _tool_messages(last)
                    tool, args = program.send(tool_result(found[-1]["content"]) if found else None)
            except StopIteration as done:
                result = done.value
            self._extra += made - 1
            if isinstance(result, Renamed):
                known = next((k for k, v in self._alias.items() if v == result.old), result.old)
                self._alias[known] = result.new
                self._own.add(result.new)
                result = result.result
            messages.append({"role": "tool", "name": call["name"], "content": json.dumps(result, default=str)})
        self._seen = {**last, "messages": messages}
        return {"tool_calls": [], "reply": reply} if reply is not None else None

    def _note_own(self, observation: Any) -> None:
        """Remember the ids of the calendar events the agent's calls created."""
        for m in _tool_messages(observation):
            if m.get("name") == "calendar__create_event":
                made = tool_result(m.get("content", ""))
                if isinstance(made, dict) and made.get("event_id"):
                    self._own.add(str(made["event_id"]))

    def _to_world(self, action: Any) -> Any:
        """The agent's action with the ids it knows replaced by the world's (calls and reply)."""
        if not self._alias or not isinstance(action, dict):
            return action
        out = dict(action)
        out["tool_calls"] = [
            {**c, "arguments": _swap(c.get("arguments") or {}, self._alias)} for c in action.get("tool_calls") or []
        ]
        if isinstance(action.get("reply"), str):
            text = action["reply"]
            for known, real in self._alias.items():
                text = text.replace(known, real)
            out["reply"] = text
        return out

    def _to_agent(self, observation: dict[str, Any]) -> dict[str, Any]:
        """The observation with the world's ids replaced by the ones the agent knows."""
        if not self._alias:
            return observation
        back = {real: known for known, real in self._alias.items()}
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


def _swap(value: Any, table: dict[str, str]) -> Any:
    """``value`` with every string equal to a key of ``table`` replaced (recursively)."""
    if isinstance(value, str):
        return table.get(value, value)
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
