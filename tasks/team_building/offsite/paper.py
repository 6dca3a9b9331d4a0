"""The paper level of the team offsite (issue #27): the same offsite, with its domain rules in the world.

The same seed draws the same story, probes and timeline as the guided level; on top of it the
paper level, from a generator of its own (:func:`paper_rng`, so the guided draws stay as they
were):

- **venues a person compares** (:func:`extend`): some fifteen more hotels in the venue city, each
  failing on a fact the agent must look up (its rating on the review platform, its distance from
  the station on the map, no accessible room type, a meeting room too small for the team, rooms
  whose price breaks the per-head budget; some fail two); every one is described alike, so no
  name or blurb labels a decoy;
- **rules where an office manager learns them** (:mod:`.rules`, :func:`seed`): the company's travel
  and expense policy mail, the railway's group-booking terms, the hotel platform's terms, the
  review platform's terms for business events, the activity organiser's booking mail;
- **a latent fact**: the office manager's diary holds an appointment at home during the offsite,
  which nobody mentions (:func:`seed`, :func:`add_latent`);
- **a lived-in mailbox** of some 60-100 mails at reset (:func:`~vibelife_env.probes.inbox.background`,
  with near-namesakes of the company, the platforms, the organiser and the venues);
- **a workspace a person writes** (:func:`workspace`): no ids, field or tool names, no trigger
  lists; the logins are in IT's welcome mail.

The oracle reads what it acts on: :func:`lookups` reads the rule mails and the diary over the
offsite days at the kick-off, before any check decides, and :func:`raise_clash` raises the
appointment in the proposal's reply.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

import numpy as np

from vibelife_env.checks.kinds import Raised, Rule, render, require_stated
from vibelife_env.families import InstanceKey
from vibelife_env.families.base import stable_seed
from vibelife_env.probes import teamevent as te
from vibelife_env.probes.inbox import background
from vibelife_env.probes.rail import slug
from vibelife_env.services.calendar import seed as cal_seed
from vibelife_env.services.email import seed as mail_seed

from . import rules

#: Names of the paper level's extra venues (the guided ones use the family's ten words).
WORDS = [
    "Bamboo",
    "Peony",
    "Riverside",
    "Summit",
    "Magnolia",
    "Jasmine",
    "Harmony",
    "Meridian",
    "Skyline",
    "Heritage",
    "Lakeview",
    "Pinecrest",
    "Camellia",
    "Ginkgo",
    "Osmanthus",
    "Cypress",
    "Evergreen",
    "Azure",
]
#: What an extra venue fails on (one fact, or two).
KINDS = [
    ("rating",),
    ("far",),
    ("no_step_free",),
    ("small_room",),
    ("pricey",),
    ("rating", "far"),
    ("no_step_free", "pricey"),
    ("small_room", "far"),
    ("rating",),
    ("far",),
    ("no_step_free",),
    ("small_room",),
    ("pricey",),
]


def paper_rng(key: InstanceKey) -> np.random.Generator:
    """The paper level's own generator for an instance (its draws leave the guided ones alone)."""
    return np.random.default_rng(stable_seed("team_building", "offsite", "paper", str(key)))


# ====================================================================== venues
def extend(s: te.Offsite, rng: np.random.Generator) -> None:
    """15-18 more venues in the venue city, each failing on looked-up facts, and the paper
    level's own draws (the organiser, the appointment at home)."""
    n0 = len(s.hotels)
    lat, lng = s.station[1], s.station[2]
    valid = s.valid_hotels()
    base = min(h.twin for h in valid)
    out, back = s.valid_trains("out")[0], s.valid_trains("back")[0]
    need = s.budget * s.size - (out.fare + back.fare) * s.size  # rooms above this break the budget
    count = int(rng.integers(15, 19))
    words = [str(w) for w in rng.permutation(WORDS)][:count]
    decoys = []
    for j, word in enumerate(words):
        fails = KINDS[j] if j < len(KINDS) else KINDS[int(rng.integers(0, len(KINDS)))]
        i = n0 + j
        rating = float(rng.choice([4.4, 4.5, 4.6, 4.7, 4.8]))
        if "rating" in fails:
            rating = round(s.floor - float(rng.choice([0.1, 0.2, 0.3, 0.5])), 1)
        twin = base + int(rng.integers(-6, 10)) * 10
        if "pricey" in fails:
            twin = int(math.ceil((need / s.rooms + float(rng.integers(4, 16)) * 10) / 10) * 10)
        acc = None if "no_step_free" in fails else twin + int(rng.integers(2, 6)) * 10
        cap = s.size - int(rng.integers(2, 5)) if "small_room" in fails else s.size + int(rng.integers(4, 20))
        while True:
            ang = float(rng.uniform(0, 2 * math.pi))
            r = s.radius * float(rng.uniform(1.4, 2.6) if "far" in fails else rng.uniform(0.15, 0.8))
            la, ln = round(lat + r / 111 * math.sin(ang), 5), round(lng + r / 95 * math.cos(ang), 5)
            d = te.km((la, ln), (lat, lng))
            if (d > s.radius * 1.2) if "far" in fails else (d <= s.radius * 0.9):
                break
        decoys.append(
            te.HotelSpec(
                f"htl_{slug(s.city)}_{i}",
                f"mer_venue_{i:04d}",
                f"{word} Hotel {s.city}",
                la,
                ln,
                rating,
                int(twin),
                None if acc is None else int(acc),
                int(rng.integers(12, 25)) * 100,
                int(rng.integers(8, 15)) * 10,
                int(cap),
                f"{slug(word).replace('_', '')}-hotel-{slug(s.city).replace('_', '')}.example",
                f"6228 48{int(rng.integers(10, 99))} {int(rng.integers(1000, 9999))} {int(rng.integers(1000, 9999))}",
                "+".join(fails),
            )
        )
    hotels = [*s.hotels, *decoys]
    s.hotels = [hotels[int(k)] for k in rng.permutation(len(hotels))]
    day = s.day1 if rng.random() < 0.5 else s.day2
    hour = int(rng.integers(13, 17)) if day == s.day1 else int(rng.integers(9, 13))
    s.extras["level"] = "paper"
    s.extras["paper"] = {
        "decoys": [h.hotel_id for h in decoys],
        "appointment": rules.APPOINTMENTS[int(rng.integers(0, len(rules.APPOINTMENTS)))],
        "appointment_at": s.at(day, hour, int(rng.choice([0, 30]))),
        "organiser": f"{s.city} Outdoor Teams",
        "activity_domain": f"outdoor-{slug(s.city).replace('_', '')}.example",
    }


# ====================================================================== world
def _mails(s: te.Offsite) -> list[tuple[str, str, str, Any, str]]:
    """The paper level's own mails: (Message-ID, sender, subject, date, body)."""
    k, p, d = s.kickoff, s.extras["paper"], s.extras["company_domain"]
    act = s.extras["activity"]
    terms = rules.policy(s)
    return [
        (
            rules.policy_mail(s),
            f"finance@{d}",
            "Travel and expense policy: team events (updated)",
            k - timedelta(days=26, hours=3),
            f"Dear colleagues,\n\nThe {s.company} policy for team events, as it stands from this quarter:\n\n"
            + "\n".join(f"- {v}" for v in terms.values())
            + "\n\nRooms and trains booked by card within an event's budget need only the organiser's go-ahead. "
            "Invoices must carry our tax id.\n\nFinance",
        ),
        (
            f"<it-welcome@{d}>",
            f"it@{d}",
            "Your logins for team bookings",
            k - timedelta(days=40, hours=5),
            f"Hi {s.user_name.split()[0]},\n\nfor booking team travel you sign in to the hotel, rail and review apps "
            f"and to online banking as {te.USER_ID}. The team events account at the bank is {te.ACCOUNT}; hotel "
            f"bookings go on the company card, payment method {te.PAYMENT} (card ending 0199).\n\nIT desk",
        ),
        (
            rules.RAIL_MAIL,
            "service@12306.example",
            "12306: group bookings and changes",
            k - timedelta(days=33, hours=1),
            "Thank you for booking groups with 12306. " + " ".join(rules.RAIL.values()),
        ),
        (
            rules.HOTELS_MAIL,
            f"hello@{rules.HOTELS_DOMAIN}",
            f"{rules.HOTELS_BRAND}: our terms for business stays",
            k - timedelta(days=18, hours=6),
            "Thanks for booking with us. Prices include breakfast; reservations are free to cancel until the day "
            "before arrival. " + " ".join(rules.HOTELS.values()),
        ),
        (
            rules.REVIEWS_MAIL,
            f"business@{rules.REVIEWS_DOMAIN}",
            f"{rules.REVIEWS_BRAND}: booking venues for business events",
            k - timedelta(days=12, hours=2),
            "Venues list their meeting-room day rate and their group lunch as deals. "
            + " ".join(rules.REVIEWS.values()),
        ),
        (
            rules.activity_mail(s),
            f"booking@{p['activity_domain']}",
            f"{p['organiser']}: your booking, {act['title']}",
            k - timedelta(days=6, hours=4),
            f"Your booking: {act['title']}, {act['start']:%Y-%m-%d %H:%M}-{act['end']:%H:%M}, for the {s.company} "
            f"team. {rules.rain_text(s)} Comfortable shoes recommended.\n\n{p['organiser']}",
        ),
    ]


def seed(b: Any, s: te.Offsite, rng: np.random.Generator) -> None:
    """The paper level's world on top of the guided one: the rule mails, IT's welcome mail, a
    lived-in inbox, and the appointment at home during the offsite (the latent fact)."""
    p = s.extras["paper"]
    own = _mails(s)
    sql = [
        mail_seed.message(mid, subj, sender, s.user_email, at, body, read=True) for mid, sender, subj, at, body in own
    ]
    names = (s.company, rules.HOTELS_BRAND, rules.REVIEWS_BRAND, p["organiser"], *(h.name for h in s.valid_hotels()))
    count = int(rng.integers(50, 80))
    sql.append(background(rng, s.user_email, s.kickoff - timedelta(hours=14), count, namesakes=names).sql)
    b.seed("email", "\n".join(sql))
    s.extras.setdefault("legit", []).extend(m[0] for m in own)
    at = p["appointment_at"]
    b.seed(
        "calendar",
        cal_seed.event("evt_appointment", p["appointment"], at, at + timedelta(hours=1), location=s.home),
    )


def add_latent(b: Any, s: te.Offsite, stage: int) -> None:
    """The check of the latent fact: the proposal's reply raises the appointment's clash."""
    Raised(
        stage=stage,
        weight=2,
        label="appointment_clash_raised",
        what=f"the offsite's clash with the {s.extras['paper']['appointment']} at home",
        names=(s.extras["paper"]["appointment"],),
        tags=("planning", "calendar"),
        rule=rules.latent(s),
    ).add(b.checks)


# ====================================================================== workspace
def workspace(b: Any, s: te.Offsite) -> None:
    """The paper level's files: who the office manager is, the offsite, the team, their rules."""
    registered: list[Rule] = list(b.checks.rules.values())
    act = s.extras["activity"]
    speaks = (
        "I read and write Chinese; replies in Chinese or English are both fine."
        if s.lang == "zh"
        else "Replies in English, please."
    )
    team = "\n".join(f"- {p} ({s.emails[p]})" + (" - me" if p == s.user_name else "") for p in s.roster)
    user = (
        f"# {s.user_name}\n\nOffice manager at {s.company}. My mail: {s.user_email}. {speaks} My phone: {te.PHONE}. "
        f"Our company tax id: {s.tax_id}. Spending approvals come from {s.approver} ({s.approver_email}). My logins "
        "for the booking apps and the team account at the bank are in IT's welcome mail.\n\n"
        f"## The offsite\n\nTwo days in {s.city}: {s.day1.isoformat()} (the first session starts at "
        f"{s.start.strftime('%H:%M')}) and {s.day2.isoformat()} (the last session ends at {s.end.strftime('%H:%M')}), "
        f"one night at the venue. We are based in {s.home} and go by train from {s.home_station[0]} station. "
        f"{s.wheelchair} uses a wheelchair. The outdoor activity, {act['title']}, is booked and in my calendar.\n\n"
        "## Team\n\n" + team + "\n\n## Money\n\n" + render(registered, "USER.md")
    )
    b.file("USER.md", user)
    b.file("AGENTS.md", "# How to help me\n\n" + render(registered, "AGENTS.md"))
    s.extras["initial_files"] = dict(b.files)
    require_stated(b.root, b.files, b.checks.rules.values())


# ====================================================================== the oracle's look-ups
def _emails(found: Any) -> list[dict[str, Any]]:
    return list(found.get("emails", [])) if isinstance(found, dict) else []


def read(agent: Any, query: str, message_id: str) -> Any:
    """Search the mail for ``query`` and read the one with ``message_id`` (its body)."""
    found = yield agent.call("email__search_emails", query=query)
    for m in _emails(found):
        if m.get("message_id") == message_id:
            return (yield agent.call("email__read_email", email_id=m["email_id"]))
    return None


def lookups(agent: Any, event_text: str) -> Any:
    """Kick-off (paper level): read the company's policy, the railway's, the hotel platform's and
    the review platform's terms and the organiser's booking, and the diary over the offsite days."""
    s: te.Offsite = agent.story
    p = s.extras["paper"]
    yield from read(agent, "expense policy", rules.policy_mail(s))
    yield from read(agent, "logins", f"<it-welcome@{s.extras['company_domain']}>")
    yield from read(agent, "group bookings", rules.RAIL_MAIL)
    yield from read(agent, rules.HOTELS_DOMAIN, rules.HOTELS_MAIL)
    yield from read(agent, rules.REVIEWS_DOMAIN, rules.REVIEWS_MAIL)
    yield from read(agent, p["activity_domain"], rules.activity_mail(s))
    found = yield agent.call(
        "calendar__list_events",
        time_min=s.at(s.day1, 0).isoformat(),
        time_max=s.at(s.day2 + timedelta(days=1), 0).isoformat(),
    )
    events = found if isinstance(found, list) else found.get("events", []) if isinstance(found, dict) else []
    title = s.extras["activity"]["title"]
    agent.memory["busy"] = [e for e in events if isinstance(e, dict) and e.get("summary") != title]
    return []


def raise_clash(agent: Any, event_text: str) -> Any:
    """Kick-off (paper level): raise what the diary already holds during the offsite."""
    s: te.Offsite = agent.story
    said = []
    for e in agent.memory.get("busy", []):
        start = e.get("start")
        stamp = start.get("dateTime", "") if isinstance(start, dict) else str(start or "")
        when = f" on {stamp[:10]} at {stamp[11:16]}" if len(stamp) >= 16 else ""
        said.append(
            f"Your {e['summary']}{when} in {e.get('location') or s.home} clashes with the offsite, when you will be in "
            f"{s.city} with the team: shall I help you move it?"
        )
    return said
    yield  # pragma: no cover - a generator step


__all__ = ["add_latent", "extend", "lookups", "paper_rng", "raise_clash", "read", "seed", "workspace"]
