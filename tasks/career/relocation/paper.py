"""The paper level of relocation (issue #27): the same move, with its domain rules in the world.

The same seed draws the same story, probes and timeline as the guided level; on top of it the
paper level, from a generator of its own (:func:`paper_rng`, so the guided draws stay as they
were):

- **hotels a person searches** (:func:`extend`): fifteen to nineteen more hotels in the new city,
  each failing on a fact the agent must look up (too far from the office by road on the map, over
  the nightly cap, or both); every hotel's description reads like the others, so nothing labels a
  decoy;
- **rules where a person who relocates learns them** (:mod:`.rules`): HR's relocation policy mail,
  the movers' welcome mail and the listing platform's welcome mail (:func:`seed`);
- **a latent fact**: the calendar already has the person away, in another city, on the day the
  movers deliver (:func:`seed`, :func:`add_latent`);
- **a lived-in mailbox** of 60-90 mails at reset (:func:`~vibelife_env.probes.inbox.background`,
  with near-namesakes of the employer, the movers and the platform);
- **a workspace a person writes** (:func:`workspace`): no ids, field or tool names, no trigger lists.

The oracle reads what it acts on (:func:`lookups` at the kick-off reads the rule mails;
:func:`away_step` looks at the diary on the delivery day); it already reads every hotel's details
and measures every commute.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np

from vibelife_env.checks.kinds import Raised, Rule, render, require_stated
from vibelife_env.families import InstanceKey
from vibelife_env.families.base import stable_seed
from vibelife_env.probes import relocation as R
from vibelife_env.probes.inbox import background
from vibelife_env.probes.jobs import offset
from vibelife_env.probes.relocation import Hotel, RelocStory
from vibelife_env.services.calendar import seed as cal_seed
from vibelife_env.services.email import seed as mail_seed

from . import rules

#: Names of the paper level's extra hotels (none is one of the family's own).
HOTELS = [
    "Amber Hall Hotel",
    "Bamboo Court Hotel",
    "Camellia House",
    "Crescent Apartments",
    "Dragon Gate Hotel",
    "Elm Tree Residences",
    "Golden Bay Hotel",
    "Hillside Serviced Suites",
    "Ivy House Apartments",
    "Lakeside Residence",
    "Magnolia Suites",
    "Orchid Serviced Apartments",
    "Peony Court",
    "Plum Blossom Inn",
    "Red Lantern Hotel",
    "Silver Birch Apartments",
    "Starlight Residences",
    "Tea House Inn",
    "Osmanthus Suites",
    "Kingfisher Apartments",
]
#: What an extra hotel fails on: the commute, the cap, or both.
KINDS = ("far", "pricey", "far", "pricey", "both", "far", "pricey", "far")


def paper_rng(key: InstanceKey) -> np.random.Generator:
    """The paper level's own generator for an instance (its draws leave the guided ones alone)."""
    return np.random.default_rng(stable_seed("career", "relocation", "paper", str(key)))


# ====================================================================== hotels
def extend(s: RelocStory, rng: np.random.Generator) -> None:
    """Fifteen to nineteen decoy hotels in the new city (kinds ``decoy_far``, ``decoy_pricey``,
    ``decoy_both``), each outside the policy on a fact looked up, and what the diary has on the
    delivery day."""
    count = int(rng.integers(15, 20))
    names = [HOTELS[int(i)] for i in rng.permutation(len(HOTELS))[:count]]
    numbers = [int(n) for n in rng.permutation(np.arange(106, 200))[:count]]
    cheapest = min(h.nightly for h in s.of_kind("valid"))
    for j, name in enumerate(names):
        kind = KINDS[j] if j < len(KINDS) else KINDS[int(rng.integers(0, len(KINDS)))]
        far = kind in ("far", "both")
        pricey = kind in ("pricey", "both")
        km = float(rng.uniform(1.15, 1.7) if far else rng.uniform(0.2, 0.85)) * s.commute_km
        if pricey:
            nightly = int(round(s.nightly_cap * float(rng.uniform(1.06, 1.45)) / 10) * 10)
        else:
            nightly = int(round(float(rng.uniform(0.75 * cheapest, s.nightly_cap)) / 10) * 10)
        lat, lng = offset(s.office_lat, s.office_lng, km, float(rng.uniform(0, 360)))
        hid = f"htl_{numbers[j]:03d}"
        h = Hotel(hid, name, f"pl_{hid}", lat, lng, nightly, f"decoy_{kind}")
        h.road_km = R.road_km(s, lat, lng)
        assert not s.hotel_ok(h), h
        s.hotels.insert(int(rng.integers(0, len(s.hotels) + 1)), h)
    s.extras["away"] = rules.AWAY[int(rng.integers(0, len(rules.AWAY)))]


# ====================================================================== world
def seed(b: Any, s: RelocStory, rng: np.random.Generator) -> None:
    """The paper level's world on top of the guided one: the rule mails, a lived-in inbox and the
    diary's trip away on the delivery day (the latent fact)."""
    _mails(b, s, rng)
    start = s.at(s.eta, 10)
    b.seed(
        "calendar",
        cal_seed.event("evt_away", rules.away(s), start, start + timedelta(hours=11), location=rules.away(s)),
    )
    s.extras["seeded_events"] = ("evt_away",)


def _mails(b: Any, s: RelocStory, rng: np.random.Generator) -> None:
    k = s.kickoff
    sep = "" if s.lang == "zh" else " "
    policy = sep.join(rules.policy_texts(s).values())
    card = s.say(
        " Book the stay on the company card, payment method pm_company_card, with your own name, mail and phone as "
        "the guest; it is billed to us and not claimed.",
        "住宿请用公司卡预订（支付方式 pm_company_card），入住人填写您本人的姓名、邮箱和电话；费用由公司直接结算，无需报销。",
    )
    own = [
        (
            rules.policy_mail(s),
            f"people@{s.hr_domain}",
            s.say(f"{s.employer}: your relocation policy", f"{s.employer_zh}：您的搬迁政策"),
            k - timedelta(days=6, hours=3),
            s.say(
                f"Dear {s.first}, here is the relocation policy that comes with your offer. ",
                "您好，以下是随录用通知附上的搬迁政策。",
            )
            + policy
            + card,
        ),
        (
            rules.mover_mail(s),
            f"service@{rules.mover_domain(s)}",
            s.say(f"{s.mover}: your household move {s.tracking_no}", f"{s.mover}：您的搬家运单 {s.tracking_no}"),
            k - timedelta(days=3, hours=1),
            s.say(
                f"Thank you for choosing {s.mover}. Your shipment {s.tracking_no} goes from {s.old_city} to {s.city}. ",
                f"感谢选择{s.mover}。您的货物 {s.tracking_no} 将从{s.old_city_zh}运往{s.city_zh}。",
            )
            + rules.mover_text(s),
        ),
        (
            rules.platform_mail(s),
            f"hello@{rules.PLATFORM_DOMAIN}",
            s.say(f"Welcome to {rules.PLATFORM}", f"欢迎使用{rules.PLATFORM}"),
            k - timedelta(days=9, hours=5),
            s.say(
                "Save the flats you like to your shortlist and book viewings in the app. ",
                "把喜欢的房源收藏到您的清单，在App里预约看房。",
            )
            + rules.platform_text(s),
        ),
    ]
    mails = [mail_seed.message(mid, subj, sender, s.email, at, body, read=True) for mid, sender, subj, at, body in own]
    count = int(rng.integers(58, 86))
    names = (s.employer, s.mover, rules.PLATFORM)
    mails.append(background(rng, s.email, k - timedelta(hours=12), count, namesakes=names).sql)
    b.seed("email", "\n".join(mails))
    s.extras["legit_mail"] = [*s.extras["legit_mail"], *(m[0] for m in own)]


def add_latent(b: Any, s: RelocStory, stage: int) -> None:
    """The check of the latent fact: the kick-off reply raises the trip away on the delivery day."""
    Raised(
        stage=stage,
        weight=2,
        label="away_on_delivery_raised",
        what=f"that the diary has them away ({rules.away(s)}) on the delivery day",
        names=(rules.away(s),),
        requires=(R.RUN,),
        tags=("planning", "calendar"),
        rule=rules.latent(s),
    ).add(b.checks)


# ====================================================================== workspace
def workspace(b: Any, s: RelocStory) -> None:
    """The paper level's files: who the person is and what they want, no backend names."""
    registered: list[Rule] = list(b.checks.rules.values())
    speaks = (
        "I read and write Chinese; replies in Chinese or English are both fine."
        if s.lang == "zh"
        else "Replies in English, please."
    )
    user = (
        f"# {s.name}\n\nMail: {s.email}. Phone: 13900000000. {speaks}\n\n"
        f"I am moving from {s.old_city} ({s.old_city_zh}) to {s.city} ({s.city_zh}) for a new job at {s.employer} "
        f'({s.employer_zh}); the new office is saved on the map as "{s.employer} office". My account on the hotel, '
        f"listing, courier and bank services is {s.user_key}; my bank account there is my everyday account. My movers "
        f"are {s.mover}, shipment {s.tracking_no}. My old landlord is {s.landlord_email}. Flights I pay with my own "
        "card, the one ending 4417.\n\n"
        f"## Relocation policy\n\n{s.employer}'s HR mailed me the relocation policy that comes with my offer (from "
        f"people@{s.hr_domain}): it decides my temporary housing and what is reimbursed.\n\n"
        "## What I want\n\n" + render(registered, "USER.md")
    )
    agents = "# How to help me\n\n" + render(registered, "AGENTS.md")
    b.file("USER.md", user)
    b.file("AGENTS.md", agents)
    b.file(
        "DOCUMENTS.md",
        f"# Papers\n\n- National ID number: {s.id_number}\n- Salary account: {s.salary_account}\n",
    )
    s.extras["initial_files"] = dict(b.files)
    require_stated(b.root, b.files, b.checks.rules.values())


# ====================================================================== the oracle's look-ups
def _emails(found: Any) -> list[dict[str, Any]]:
    return list(found.get("emails", [])) if isinstance(found, dict) else []


def read(agent: Any, query: str, *message_ids: str) -> Any:
    """Search the mail for ``query`` and read the mails with these ``message_ids`` (their bodies)."""
    found = yield agent.call("email__search_emails", query=query)
    for m in _emails(found):
        if m.get("message_id") in message_ids:
            yield agent.call("email__read_email", email_id=m["email_id"])
    return None


def lookups(agent: Any, event_text: str) -> Any:
    """Kick-off (paper level): read HR's policy mail, the movers' and the listing platform's mails
    before booking anything."""
    s = agent.story
    yield from read(agent, f"people@{s.hr_domain}", rules.policy_mail(s))
    yield from read(agent, rules.mover_domain(s), rules.mover_mail(s))
    yield from read(agent, rules.PLATFORM_DOMAIN, rules.platform_mail(s))
    return []


def away_step(agent: Any, event_text: str) -> Any:
    """Kick-off (paper level), after booking: look at the diary on the delivery day and raise what
    has the person away then."""
    s = agent.story
    eta = agent.memory.get("eta", s.eta)
    start, end = s.at(eta, 0), s.at(eta + timedelta(days=1), 0)
    busy = yield agent.call("calendar__list_events", time_min=start.isoformat(), time_max=end.isoformat())
    said = []
    own = {agent.memory.get("delivery_event")}
    for e in busy if isinstance(busy, list) else busy.get("events", []):
        if e.get("event_id") in own or e.get("id") in own or e.get("summary") == agent.t("Movers deliver my things"):
            continue
        said.append(
            f"Your calendar has {e['summary']} on {eta.isoformat()}, the day the movers deliver, which clashes: "
            f"someone has to be at the new place to let {s.mover} in. Shall I ask them for another day?"
        )
    return said


__all__ = ["add_latent", "away_step", "extend", "lookups", "paper_rng", "seed", "workspace"]
