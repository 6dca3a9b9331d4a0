"""The reference policy's steps for the skeleton's turns (each probe carries its own)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any


def kickoff(agent: Any, text: str):
    s, end = agent.story, (agent.story.visit + timedelta(hours=1)).isoformat()
    found = yield agent.call("email__search_emails", query=s.invoice)
    for m in found.get("emails", [])[:1]:  # read it: the company's terms are in the body
        yield agent.call("email__read_email", email_id=m["email_id"])
    busy = yield agent.call("calendar__list_events", time_min=s.visit.isoformat(), time_max=end)
    made = yield agent.call("calendar__create_event", summary=f"{s.company} visit", start=s.visit.isoformat(), end=end)
    agent.memory["event"] = made["event_id"]
    yield from agent.note(f"Invoice {s.invoice}", [f"{s.company}: {s.invoice}, {s.amount / 100:.2f} CNY, unpaid."])
    if agent.book_now("proposal"):
        yield from pay(agent)
    said = f"The visit is in your calendar for {s.visit:%Y-%m-%d %H:%M}, {s.invoice} noted; I'll pay on your word."
    for e in (
        busy if isinstance(busy, list) else busy.get("events", [])
    ):  # someone must be home: raise what the diary already holds then
        said += f" Note: it clashes with your {e['summary']} at {e['start']['dateTime'][11:16]}; shall I ask for another time?"
    return [said]


def go_ahead(agent: Any, text: str):
    agent.memory["settled"] = True
    if agent.book_now("go_ahead"):
        yield from pay(agent)
    return [f"Paid {agent.story.invoice} ({agent.story.amount / 100:.2f} CNY) to {agent.story.company}, once."]


def wrap(agent: Any, text: str):
    return [f"Yes: {agent.story.invoice} is paid once ({agent.story.amount / 100:.2f} CNY); the calendar is right."]
    yield


def pay(agent: Any):
    s = agent.story
    paid = yield from agent.pay_saved(s.company, s.amount)
    yield from agent.note(f"Payment {s.invoice}", [f"Paid {s.invoice} to {s.company}, reference {paid['tx_id']}."])
