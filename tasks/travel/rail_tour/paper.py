"""The paper level of the rail tour (issue #27): the same tour, with its domain rules in the world.

The same seed draws the same story, probes and timeline as the guided level; on top of it the
paper level, from a generator of its own (:func:`paper_rng`, so the guided draws stay as they
were):

- **rules where a traveller learns them** (:mod:`.rules`): the railway's mail on how its tickets
  work, the hotel platform's mail before a stay, the city metro's notice on closures, the weather
  service's note on advisories and, with a parent along, the family doctor's note (:func:`seed`);
- **the world seen, not told**: a leg going on sale is what the railway's timetable page shows
  that morning (:func:`observe`): a world observation where the guided level sends the app's
  notification;
- **a latent fact**: the user's calendar holds an appointment back home on a day of the tour;
  nobody mentions it, and the proposal must raise the clash (:func:`seed`, :func:`add_latent`);
- **a lived-in mailbox** of 60-100 mails at reset (:func:`~vibelife_env.probes.inbox.background`,
  with near-namesakes of the railway, the hotel platform and the metro);
- **a workspace a person writes** (:func:`workspace`): no ids, field or tool names, no trigger lists;
- **no Message-ID labels its mail**: the probes' mails (the fake refund, the fare hold, the
  hotel's cancellation, the certificate) carry a bulk mailer's number (:func:`disguise`).

The oracle reads what it acts on: every rule mail and the tour's days in the calendar before it
proposes (:func:`propose_step`).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np

from vibelife_env.checks.kinds import Raised, render
from vibelife_env.families import InstanceKey
from vibelife_env.families.base import stable_seed
from vibelife_env.probes import ledger, rail
from vibelife_env.probes.base import Slot
from vibelife_env.probes.inbox import background, bulk_message_id
from vibelife_env.services.calendar import seed as cal_seed
from vibelife_env.services.email import seed as mail_seed

from . import rules

#: Appointments the user's calendar may hold back home on a day of the tour (the latent fact).
APPOINTMENTS = ("Dentist appointment", "Eye test at the optician", "Car service drop-off", "Piano lesson")


def paper_rng(key: InstanceKey) -> np.random.Generator:
    """The paper level's own generator for an instance (its draws leave the guided ones alone)."""
    return np.random.default_rng(stable_seed("travel", "rail_tour", "paper", str(key)))


# ====================================================================== the probes
def disguise(probes: list[Any], key: InstanceKey) -> None:
    """Every probe mail's Message-ID becomes a bulk mailer's number (the guided ones name what the
    mail is: the fake refund's kind, the fare hold, the hotel's overbooking, the certificate)."""
    for p in probes:
        if isinstance(getattr(p, "message_id", None), str):
            p.message_id = bulk_message_id(f"rail_tour|{key}|{p.name}")


# ====================================================================== the timeline
def observe(s: rail.RailStory, slots: list[Slot]) -> None:
    """A leg going on sale becomes a world observation: the railway's timetable page as seen that
    morning (same time, same id), where the guided level sends the app's notification."""
    for slot in slots:
        for e in slot.events:
            if e.get("kind") != "notification":
                continue
            if e["id"].startswith("presale_"):
                leg = s.legs[int(e["id"].split("_")[1])]
                day, a, b = leg.day.isoformat(), leg.origin.name, leg.dest.name
                e["kind"], e["source"] = "world", "timetable"
                e["body"] = _say(
                    s,
                    f"On the 12306 timetable page this morning: trains for {day}, {a} → {b}, now show seats for sale.",
                    f"今天早上12306时刻表页面显示：{day} {a}→{b} 的车次已有余票可售。",
                )


def _say(s: rail.RailStory, en: str, zh: str) -> str:
    return zh if s.lang == "zh" else en


# ====================================================================== world
def seed(b: Any, s: rail.RailStory, rng: np.random.Generator) -> None:
    """The paper level's world on top of the guided one: the rule mails, a lived-in inbox, and an
    appointment back home on a day of the tour (the latent fact)."""
    k = s.kickoff
    mails = []
    keys = ["railway", "hotels", "metro", "weather"]
    if any(p.role == "parent" for p in s.party):
        keys.append("doctor")
    for n, key in enumerate(keys):
        sender, subject, subject_zh = rules.SENDERS[key]
        said = "\n".join(f"- {v}" for v in rules.world_texts(s)[key].values())
        body = f"{_opening(key, s)}\n\n{said}\n\n{_closing(key, s)}"
        at = k - timedelta(days=int(rng.integers(4, 40)), hours=int(rng.integers(0, 10)), minutes=7 * n)
        mails.append(
            mail_seed.message(
                rules.mail_id(key, s), subject_zh if s.lang == "zh" else subject, sender, s.email, at, body, read=True
            )
        )
    names = ("Staywell Hotels", "City Metro", "Weather Service")
    count = int(rng.integers(56, 92))
    bg = background(rng, s.email, k - timedelta(hours=2), count, namesakes=names)
    mails.append(bg.sql)
    b.seed("email", "\n".join(mails))
    s.extras["legit_seed"] = [*s.extras.get("legit_seed", []), *(rules.mail_id(x, s) for x in keys), *bg.namesakes]
    s.extras["paper_mail"] = [rules.SENDERS[x][0] for x in keys]
    # the latent fact: an appointment back home while the party is away (not on a travel day, not
    # on the day a question asks about)
    travel = {g.day for g in s.legs}
    days = [
        s.depart_day + timedelta(days=i)
        for i in range(1, (s.return_day - s.depart_day).days)
        if s.depart_day + timedelta(days=i) not in travel
        and s.depart_day + timedelta(days=i) != s.extras.get("tomorrow")
    ]
    day = days[int(rng.integers(0, len(days)))] if days else s.depart_day + timedelta(days=1)
    title = APPOINTMENTS[int(rng.integers(0, len(APPOINTMENTS)))]
    start = s.at(day, int(rng.choice([9, 10, 14, 16])), int(rng.choice([0, 30])))
    s.extras.update(clash_title=title, clash_day=day, clash_start=start)
    row = cal_seed.event_row(
        "evt_home_appt", title, start, start + timedelta(hours=1), location=f"{s.home.name}, near home"
    )
    b.seed("calendar", cal_seed.events(row))


def _opening(key: str, s: rail.RailStory) -> str:
    if s.lang == "zh":
        return {
            "railway": f"{s.user.name}您好，感谢您乘坐中国铁路12306。下次出行前请了解以下几点：",
            "hotels": f"{s.user.given}您好，您通过Staywell预订的住宿快到了。出发前请留意：",
            "metro": "本季全网继续施工，请提前规划：",
            "weather": "您关注了出行目的地的天气预警。预警说明如下：",
            "doctor": f"{s.user.given}您好，出行前我们谈过，给家人留个便条：",
        }[key]
    return {
        "railway": f"Dear {s.user.name}, thank you for travelling with China Railway 12306. A few things to know "
        "before your next journey:",
        "hotels": f"Hello {s.user.given}, your stays booked through Staywell are coming up. Before you go:",
        "metro": "Track works continue across the network this season. Please plan ahead:",
        "weather": "You follow our advisories for the places you travel to. How they work:",
        "doctor": f"Dear {s.user.given}, as discussed before your tour, a note for the family:",
    }[key]


def _closing(key: str, s: rail.RailStory) -> str:
    if s.lang == "zh":
        return {
            "railway": "您的积分：2,380。祝您旅途愉快！",
            "hotels": "期待您的光临。Staywell团队",
            "metro": "感谢您乘坐城市地铁。",
            "weather": "注意安全。气象服务",
            "doctor": "祝旅途顺利，周医生",
        }[key]
    return {
        "railway": "Your travel points: 2,380. Have a good journey!",
        "hotels": "We look forward to hosting you. The Staywell team",
        "metro": "Thank you for travelling with City Metro.",
        "weather": "Stay safe. Weather Service",
        "doctor": "Best wishes for the trip, Dr Zhou",
    }[key]


def add_latent(b: Any, s: rail.RailStory, kickoff: int, go_ahead: int) -> None:
    """The check of the latent fact: the proposal (or the booking reply at the latest) raises the
    appointment back home that falls during the tour."""
    title = s.extras["clash_title"]
    Raised(
        stage=go_ahead,
        since=kickoff,
        weight=2,
        label="home_appointment_clash_raised",
        what=f"the clash of the {title} back home with the tour",
        names=(title,),
        tags=("planning", "calendar"),
        rule=rules.latent(s),
    ).add(b.checks)


# ====================================================================== workspace
def workspace(b: Any, s: rail.RailStory) -> None:
    """The paper level's files: who the traveller is and what they want, no backend names."""
    u = s.user
    said = rules.person(s)
    party = ", ".join(f"{p.name} ({p.role})" for p in s.party)
    stops = "\n".join(
        f"- {x.city.name}: arrive {x.check_in.isoformat()}, leave {x.check_out.isoformat()} ({x.nights} nights)"
        for x in s.stays
    )
    plans = "\n".join(f"- {a.day.isoformat()} {a.start.strftime('%H:%M')}: {a.title} ({a.city})" for a in s.activities)
    speaks = "I read Chinese and English: write to me in either." if s.lang == "zh" else "Replies in English, please."
    mine = [r for r in said.values() if r.source == "USER.md"]
    b.file(
        "USER.md",
        f"# {u.name}\n\nMy mail is {u.email}, my phone {rail.PHONE}; we live in {s.home.name} "
        f"(our station is {s.station(s.home)}). {speaks}\n\n"
        f"## The tour\n\nLeaving {s.home.name} on {s.depart_day.isoformat()}, home on {s.return_day.isoformat()}.\n\n"
        f"{stops}\n\nTravellers: {party}."
        + "".join(f"\n\n{f}" for f in s.extras.get("facts", []))
        + f"\n\nAlready planned on the way:\n\n{plans}\n\n"
        "## What matters to us\n\n" + render(mine, "USER.md"),
    )
    how = [r for r in said.values() if r.source == "AGENTS.md" and r.key != "ledger"]
    b.file(
        "AGENTS.md",
        "# How to help with this tour\n\n"
        + render(how)
        + "- On a day with nothing for me, a line or no reply at all is best.\n\n"
        + said["ledger"].text,
    )
    b.file("ledger.md", ledger.EMPTY.replace("amount_cny", "amount (CNY)"))
    s.extras["initial_files"] = dict(b.files)


# ====================================================================== the oracle
def read_mail(agent: Any, sender: str):
    """Find the mail from ``sender`` and read it; returns it or ``None``."""
    found = yield agent.call("email__search_emails", query=sender, folder="INBOX")
    mail = next((m for m in found.get("emails", []) if m.get("from_addr") == sender), None)
    if mail is None:
        return None
    return (yield agent.call("email__read_email", email_id=mail["email_id"]))


def propose_step(propose: Any) -> Any:
    """The kick-off at the paper level: read every rule mail and the tour's days in the calendar,
    propose as the guided oracle does, and raise the appointment back home."""

    def step(agent: Any, event_text: str):
        s = agent.story
        for sender in s.extras["paper_mail"]:
            yield from read_mail(agent, sender)
        found = yield agent.call(
            "calendar__list_events",
            time_min=s.at(s.depart_day, 0).isoformat(),
            time_max=s.at(s.return_day, 23, 59).isoformat(),
        )
        items = found.get("events", []) if isinstance(found, dict) else found
        title = s.extras["clash_title"]
        seen = any(e.get("summary") == title for e in items)
        out = yield from propose(agent, event_text)
        if seen:
            day, hhmm = s.extras["clash_day"].isoformat(), s.extras["clash_start"].strftime("%H:%M")
            out = [*out[:-1], f"One clash: your {title} on {day} at {hhmm} in {s.home.name} falls while we are "
                   "away on the tour, so it needs moving.", out[-1]]  # fmt: skip
        return out

    return step
