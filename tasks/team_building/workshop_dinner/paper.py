"""The paper level of the workshop dinner (issue #27): the same evening, with its domain rules in the world.

The same seed draws the same story, probes and timeline as the guided level; on top of it the
paper level, from a generator of its own (:func:`paper_rng`, so the guided draws stay as they
were):

- **restaurants a person compares** (:func:`extend`): some fifteen more restaurants in the city,
  each failing on a fact the agent must look up (its rating on the review platform, a diet of the
  team or step-free access missing from what it caters for, its distance from the meeting room on
  the map, a price per head that breaks the budget once the service charge is added, a maximum
  party smaller than the team; some fail two); every one is named alike and the merchant ids are
  dealt out anew over all of them, so no name or id labels a decoy;
- **rules where a team lead learns them** (:mod:`.rules`, :func:`seed`): finance's team-events
  expense policy mail, the review platform's terms for group bookings, the card issuer's terms;
- **a latent fact**: the team lead's diary holds an appointment elsewhere on the workshop day,
  which nobody mentions (:func:`seed`, :func:`add_latent`);
- **a lived-in mailbox** of some 60-90 mails at reset (:func:`~vibelife_env.probes.inbox.background`,
  with near-namesakes of the company, the platforms, the meeting room and the restaurants);
- **a workspace a person writes** (:func:`workspace`): no ids, field or tool names, no trigger
  lists; the logins are in IT's welcome mail.

The oracle reads what it acts on: :func:`lookups` reads the rule mails, IT's welcome mail and the
diary over the workshop day at the kick-off, before any check decides, and :func:`raise_clash`
raises the appointment in the proposal's reply.
"""

from __future__ import annotations

import dataclasses
import math
from datetime import timedelta
from typing import Any

import numpy as np

from vibelife_env.checks.kinds import Raised, Rule, render, require_stated
from vibelife_env.families import InstanceKey
from vibelife_env.families.base import stable_seed
from vibelife_env.probes import dinner as D
from vibelife_env.probes.inbox import background
from vibelife_env.probes.teamevent import DIETS, km
from vibelife_env.services.calendar import seed as cal_seed
from vibelife_env.services.email import seed as mail_seed

from . import rules

#: First words of the paper level's extra restaurants (the guided ones use ``dinner.FOODS``).
WORDS = [
    "Camellia",
    "Ginkgo",
    "Orchid",
    "Maple",
    "Chestnut",
    "Saffron",
    "Ginger",
    "Sesame",
    "Jasmine",
    "Cypress",
    "Persimmon",
    "Lychee",
    "Mulberry",
    "Tangerine",
    "Apricot",
    "Juniper",
    "Plum",
    "Rosewood",
]
#: What an extra restaurant fails on (one fact, or two).
FLAWS = [
    ("rating",),
    ("diet",),
    ("step_free",),
    ("far",),
    ("price",),
    ("small",),
    ("rating", "far"),
    ("diet", "price"),
    ("step_free", "small"),
    ("far", "price"),
    ("rating", "diet"),
]


def paper_rng(key: InstanceKey) -> np.random.Generator:
    """The paper level's own generator for an instance (its draws leave the guided ones alone)."""
    return np.random.default_rng(stable_seed("team_building", "workshop_dinner", "paper", str(key)))


# ====================================================================== restaurants
def _spot(rng: np.random.Generator, s: D.Workshop, far: bool) -> tuple[float, float]:
    """A point near the meeting room (within the walk) or beyond it (``far``), checked on the map's distance."""
    assert s.room is not None
    lat0, lng0 = s.room.lat, s.room.lng
    while True:
        ang = float(rng.uniform(0, 2 * math.pi))
        r = s.walk_km * float(rng.uniform(1.35, 2.6) if far else rng.uniform(0.2, 0.85)) / 111.0
        lat = round(lat0 + r * math.sin(ang), 5)
        lng = round(lng0 + r * math.cos(ang) / math.cos(math.radians(lat0)), 5)
        d = km((lat, lng), (lat0, lng0))
        if (d > s.walk_km * 1.2) if far else (d <= s.walk_km * 0.9):
            return lat, lng


def extend(s: D.Workshop, rng: np.random.Generator) -> None:
    """14-17 more restaurants in the city, each failing on looked-up facts, the merchant ids dealt
    out anew over all of them, and the paper level's own draws (the appointment elsewhere)."""
    needs = sorted(s.needs(s.kickoff))
    diets = [t for t in needs if t != D.STEP_FREE]
    spare = D.TAGS[s.extras["spare_diet"]]
    size = len(s.roster)
    top = math.floor(s.budget / (1 + D.SERVICE) / 10) * 10  # the dearest price per head within the budget
    while top * (1 + D.SERVICE) > s.budget + 0.01:
        top -= 10
    count = int(rng.integers(14, 18))
    words = [str(w) for w in rng.permutation(WORDS)][:count]
    decoys = []
    for j, word in enumerate(words):
        fails = FLAWS[j] if j < len(FLAWS) else FLAWS[int(rng.integers(0, len(FLAWS)))]
        rating = round(s.floor + float(rng.choice([0.1, 0.2, 0.3, 0.4, 0.5])), 1)
        if "rating" in fails:
            rating = round(s.floor - float(rng.choice([0.1, 0.2, 0.3, 0.5])), 1)
        tags = {*needs, spare}
        extra = [t for t in D.TAGS.values() if t not in tags]
        if extra and rng.random() < 0.5:
            tags.add(extra[int(rng.integers(0, len(extra)))])
        if "diet" in fails:
            tags.discard(diets[int(rng.integers(0, len(diets)))])
        if "step_free" in fails:
            tags.discard(D.STEP_FREE)
        price = max(60, top - int(rng.integers(0, 61)))
        if "price" in fails:
            price = top + int(rng.integers(11, 90))
        cap = size - int(rng.integers(2, 4)) if "small" in fails else size + int(rng.integers(3, 11))
        lat, lng = _spot(rng, s, "far" in fails)
        kind = D.KINDS[int(rng.integers(0, len(D.KINDS)))]
        decoys.append(
            D.Venue(
                "",
                f"{word} {kind}",
                rating,
                int(price),
                tuple(sorted(tags)),
                int(cap),
                lat,
                lng,
                f"6228 4800 66{j:02d} {int(rng.integers(1000, 9999))}",
                "+".join(fails),
            )
        )
    fake = {d.name for d in decoys}
    # the guided restaurants all seat the team plus three: their largest party is drawn as the decoys' is
    guided = [dataclasses.replace(v, capacity=size + int(rng.integers(3, 11))) for v in s.restaurants]
    every = [*guided, *decoys]
    order = [int(k) for k in rng.permutation(len(every))]
    s.restaurants = [dataclasses.replace(every[k], merchant_id=f"mer_rest_{i:02d}") for i, k in enumerate(order)]
    day = s.day
    if rng.random() < 0.5:  # during the workshop, or during the dinner
        at = s.at(day, int(rng.integers(s.start.hour + 1, 17)), int(rng.choice([0, 30])))
    else:
        at = s.at(day, 19, int(rng.choice([0, 30])))
    s.extras["level"] = "paper"
    s.extras["paper"] = {
        "decoys": [v.merchant_id for v in s.restaurants if v.name in fake],
        "appointment": rules.APPOINTMENTS[int(rng.integers(0, len(rules.APPOINTMENTS)))],
        "appointment_at": at,
    }


# ====================================================================== world
def _mails(s: D.Workshop) -> list[tuple[str, str, str, Any, str]]:
    """The paper level's own mails: (Message-ID, sender, subject, date, body)."""
    k = s.kickoff
    return [
        (
            rules.POLICY_MAIL,
            f"policy@{rules.FINANCE_DOMAIN}",
            "Expense policy: team events and team dinners (updated)",
            k - timedelta(days=24, hours=3),
            f"Dear colleagues,\n\nThe {s.company} policy for team events, as it stands from this quarter:\n\n"
            + "\n".join(f"- {v}" for v in rules.policy(s).values())
            + "\n\nThe bill of a team dinner is paid at the table on the team card. Receipts are kept for a year."
            "\n\nFinance",
        ),
        (
            rules.IT_MAIL,
            f"it@{rules.FINANCE_DOMAIN}",
            "Your logins for team bookings",
            k - timedelta(days=41, hours=5),
            f"Hi {s.user},\n\nfor booking team events you sign in to the review app and to online banking as "
            f"{D.USER_ID}. The team events account at the bank is {D.ACCOUNT}; the team card is {D.CARD} (ending "
            "7302) and pays dinner bills at the table. The workshop venue is listed on the review app under its "
            "own name.\n\nIT desk",
        ),
        (
            rules.REVIEWS_MAIL,
            f"business@{rules.REVIEWS_DOMAIN}",
            f"{rules.REVIEWS_BRAND}: booking tables and rooms for groups",
            k - timedelta(days=15, hours=2),
            "Thanks for booking groups with us. Each restaurant's page lists what it caters for (diets, allergies, "
            "step-free access) and the largest party it seats. " + " ".join(rules.REVIEWS.values()),
        ),
        (
            rules.CARD_MAIL,
            f"service@{rules.CARD_DOMAIN}",
            f"{rules.CARD_BRAND}: using your team card",
            k - timedelta(days=33, hours=6),
            "Your team card is ready for use at restaurants and venues. " + " ".join(rules.CARD.values()),
        ),
    ]


def seed(b: Any, s: D.Workshop, rng: np.random.Generator) -> None:
    """The paper level's world on top of the guided one: the rule mails, IT's welcome mail, a
    lived-in inbox, and the appointment elsewhere on the workshop day (the latent fact)."""
    p = s.extras["paper"]
    own = _mails(s)
    sql = [mail_seed.message(mid, subj, sender, s.email, at, body, read=True) for mid, sender, subj, at, body in own]
    names = (
        s.company,
        rules.REVIEWS_BRAND,
        rules.CARD_BRAND,
        "Lakeside Meeting Loft",
        *(v.name for v in s.valid()),
    )
    count = int(rng.integers(52, 78))
    sql.append(background(rng, s.email, s.kickoff - timedelta(hours=14), count, namesakes=names).sql)
    b.seed("email", "\n".join(sql))
    s.extras.setdefault("legit", []).extend(m[0] for m in own)
    at = p["appointment_at"]
    b.seed(
        "calendar",
        cal_seed.event("evt_appointment", p["appointment"], at, at + timedelta(hours=1), location="Home"),
    )


def add_latent(b: Any, s: D.Workshop, stage: int) -> None:
    """The check of the latent fact: the proposal's reply raises the appointment's clash."""
    Raised(
        stage=stage,
        weight=1,
        label="appointment_clash_raised",
        what=f"the workshop day's clash with the {s.extras['paper']['appointment']}",
        names=(s.extras["paper"]["appointment"],),
        tags=("planning", "calendar"),
        rule=rules.latent(s),
    ).add(b.checks)


# ====================================================================== workspace
def _diet(d: str) -> str:
    return next(en for en, _zh, _p in DIETS if en == d)


def workspace(b: Any, s: D.Workshop) -> None:
    """The paper level's files: who the team lead is, the workshop, the team, their rules."""
    registered: list[Rule] = list(b.checks.rules.values())
    speaks = (
        "I read and write Chinese; replies in Chinese or English are both fine."
        if s.lang == "zh"
        else "Replies in English, please."
    )
    team = "\n".join(
        f"- {n} ({s.emails[n]})"
        + (" - me" if n == s.user else "")
        + (f": needs {_diet(s.diets[n])}" if n in s.diets else "")
        for n in s.roster
    )
    user = (
        f"# {s.user}\n\nTeam lead at {s.company}. My mail: {s.email}. {speaks} Expense claims go to finance; my "
        "logins for the review app, the bank and the team card are in IT's welcome mail.\n\n"
        f"## The workshop\n\n{s.day.isoformat()} from {s.start.strftime('%H:%M')} at Lakeside Meeting Loft in "
        f"{s.city} (it is on the review app), then the team dinner at {s.dinner.strftime('%H:%M')} the same "
        f"evening.\n\n## Team\n\n{team}\n\n## The dinner\n\n" + render(registered, "USER.md")
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
    """Kick-off (paper level): read finance's policy, IT's logins, the review platform's and the
    card issuer's terms, and the diary over the workshop day."""
    s: D.Workshop = agent.story
    yield from read(agent, "expense policy", rules.POLICY_MAIL)
    yield from read(agent, "logins", rules.IT_MAIL)
    yield from read(agent, rules.REVIEWS_DOMAIN, rules.REVIEWS_MAIL)
    yield from read(agent, rules.CARD_DOMAIN, rules.CARD_MAIL)
    found = yield agent.call(
        "calendar__list_events",
        time_min=s.at(s.day, 0).isoformat(),
        time_max=s.at(s.day + timedelta(days=1), 0).isoformat(),
    )
    events = found if isinstance(found, list) else found.get("events", []) if isinstance(found, dict) else []
    agent.memory["busy"] = [e for e in events if isinstance(e, dict)]
    return []


def raise_clash(agent: Any, event_text: str) -> Any:
    """Kick-off (paper level): raise what the diary already holds on the workshop day."""
    said = []
    for e in agent.memory.get("busy", []):
        start = e.get("start")
        stamp = start.get("dateTime", "") if isinstance(start, dict) else str(start or "")
        when = f" on {stamp[:10]} at {stamp[11:16]}" if len(stamp) >= 16 else ""
        said.append(
            f"Your {e['summary']}{when} ({e.get('location') or 'elsewhere'}) clashes with the workshop day, when you "
            "will be at Lakeside Meeting Loft and then at the team dinner: shall I help you move it?"
        )
    return said
    yield  # pragma: no cover - a generator step


__all__ = ["add_latent", "extend", "lookups", "paper_rng", "raise_clash", "read", "seed", "workspace"]
