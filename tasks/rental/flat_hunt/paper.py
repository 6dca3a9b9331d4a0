"""The paper level of flat hunt (issue #27): the same hunt, with its domain rules in the world.

The same seed draws the same story, probes and timeline as the guided level; on top of it the
paper level, from a generator of its own (:func:`paper_rng`, so the guided draws stay as they
were):

- **listings a person searches** (:func:`extend`): some fifteen more flats on the rental app, each
  failing on a fact the agent must look up (a rent above the cap, a long ride on maps, no agency,
  an agency whose reviews report stock photos, a short lease, no lift, no pets; some fail two);
  every description is neutral, so no title or blurb labels a decoy;
- **rules where a renter learns them** (:mod:`.rules`): the rental app's terms mail, the housing
  bureau's mail on renting, the review site's guidelines (:func:`seed`);
- **a latent fact**: the agency's lease terms fix the key handover at the flat at an hour a weekly
  appointment across town already holds in the calendar (:func:`lease_terms`, :func:`seed`);
- **a lived-in mailbox** of 60-100 mails at reset (:func:`~vibelife_env.probes.inbox.background`,
  with near-namesakes of the agencies and the app);
- **a workspace a person writes** (:func:`workspace`): no ids, field or tool names, no trigger lists.

The oracle reads what it acts on (:func:`lookups` at the kick-off, :func:`proposal_step` with the
lease terms and the diary at the handover's hour); it already reads every listing's details.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from vibelife_env.checks.kinds import Raised, Rule, render, require_stated
from vibelife_env.families import InstanceKey
from vibelife_env.families.base import stable_seed
from vibelife_env.probes.inbox import background
from vibelife_env.probes.rental import FlatStory
from vibelife_env.services.calendar import seed as cal_seed
from vibelife_env.services.email import seed as mail_seed
from vibelife_env.services.maps import surface_trip
from vibelife_env.services.sql import update

from . import rules

COMPANIES = ["Hengxin Tech", "Brightline Labs", "Yunfan Design", "Bluepeak Software", "Kaiyuan Consulting"]
#: Community names of the paper level's extra listings (the guided ones use the family's ten).
COMMUNITIES = [
    "Willow Bank",
    "Magnolia Row",
    "Peony Court",
    "Ginkgo Place",
    "Crane Garden",
    "Silver Birch Yard",
    "Camellia Heights",
    "Orchid Mansion",
    "Sunrise Terrace",
    "Moonlake Estate",
    "Peach Grove",
    "Hillside Court",
    "Golden Reed Park",
    "Azure Bay",
    "Elm Courtyard",
    "Red Maple Lane",
    "Starlight Garden",
    "Chrysanthemum Yard",
    "Linden Place",
    "Cloud Ridge",
]
DESCRIPTIONS = [
    "Bright 2-bedroom flat.",
    "South-facing 2-bedroom flat, renovated last year.",
    "Quiet 2-bedroom flat near a park.",
    "Furnished 2-bedroom flat with a balcony.",
    "2-bedroom flat, new kitchen, close to shops.",
    "Spacious 2-bedroom flat with good light.",
]
#: What an extra listing fails on (one fact, or two); ``stairs``/``no_pets`` only where that rule holds.
KINDS = [
    ("over_cap",),
    ("far",),
    ("stock",),
    ("private",),
    ("short_lease",),
    ("far", "over_cap"),
    ("private", "short_lease"),
    ("stock", "far"),
]


def paper_rng(key: InstanceKey) -> np.random.Generator:
    """The paper level's own generator for an instance (its draws leave the guided ones alone)."""
    return np.random.default_rng(stable_seed("rental", "flat_hunt", "paper", str(key)))


# ====================================================================== listings
def extend(s: FlatStory, rng: np.random.Generator, row: Callable[..., dict[str, Any]]) -> None:
    """Neutral descriptions for every listing and 14-18 decoys (``row``: the family's row maker)."""
    s.extras["office_name"] = f"{COMPANIES[int(rng.integers(0, len(COMPANIES)))]} office"
    for r in [*s.listings, s.extras["new_row"], s.extras["repost_row"]]:
        r["description"] = DESCRIPTIONS[int(rng.integers(0, len(DESCRIPTIONS)))]
    kinds = list(KINDS)
    if s.access:
        kinds += [("stairs",), ("stairs", "over_cap")]
    if s.pets:
        kinds += [("no_pets",), ("no_pets", "private")]
    lat0, lng0 = s.extras["office_ll"]
    office = {"lat": lat0, "lng": lng0, "city": s.extras["city_en"]}
    r0 = min(int(r["price_minor"]) for r in s.listings if r["listing_id"] in s.extras["valid0"])
    used = {r["listing_id"] for r in [*s.listings, s.extras["new_row"], s.extras["repost_row"]]}
    names = [str(n) for n in rng.permutation(COMMUNITIES)]
    count = int(rng.integers(14, 19))
    for j in range(count):
        fails = kinds[j] if j < len(kinds) else kinds[int(rng.integers(0, len(kinds)))]
        lid = f"lst_{s.extras['code']}{int(rng.integers(10000, 99999))}"
        while lid in used:
            lid = f"lst_{s.extras['code']}{int(rng.integers(10000, 99999))}"
        used.add(lid)
        attrs: dict[str, Any] = {"lift": True, "step_free": bool(rng.random() < 0.5), "pets_allowed": True}
        attrs["max_lease_months"] = 24
        if "short_lease" in fails:
            attrs["max_lease_months"] = s.min_lease - int(rng.integers(2, 4))
        if "stairs" in fails:
            attrs.update(lift=False, step_free=False)
        if "no_pets" in fails:
            attrs["pets_allowed"] = False
        if "over_cap" in fails:
            price = s.cap + int(rng.integers(2, 16)) * 100_00
        else:
            price = r0 - int(rng.integers(-6, 10)) * 100_00
        sign = [float(rng.choice([-1, 1])) for _ in range(2)]
        if "far" in fails:
            d = [float(rng.uniform(0.06, 0.1)), float(rng.uniform(0.05, 0.09))]
        else:
            d = [float(rng.uniform(0.008, 0.018)), float(rng.uniform(0.008, 0.018))]
        ll = (lat0 + sign[0] * d[0], lng0 + sign[1] * d[1])
        while (
            "far" in fails
            and surface_trip({"lat": ll[0], "lng": ll[1], "city": office["city"]}, office, "bicycling")[1] / 60
            <= s.commute_min + 5
        ):
            ll = (lat0 + (ll[0] - lat0) * 1.3, lng0 + (ll[1] - lng0) * 1.3)
        agent = None if "private" in fails else "ag_3" if "stock" in fails else str(rng.choice(["ag_1", "ag_2"]))
        new = row(s, lid, "+".join(fails), names[j], price, attrs, ll, agent, 12 + j)
        new["description"] = DESCRIPTIONS[int(rng.integers(0, len(DESCRIPTIONS)))]
        s.listings.append(new)
    s.extras["decoys"] = s.listings[-count:]


# ====================================================================== world
def lease_terms(s: FlatStory, body: str) -> str:
    """The agency's lease terms at the paper level: the guided body and the key handover."""
    at = s.extras["handover"]
    return body + s.say(
        f" Key handover at the flat on {at:%Y-%m-%d} at {at:%H:%M}: please come in person to sign the inventory "
        "and collect the keys.",
        f"交钥匙时间：{at:%Y-%m-%d} {at:%H:%M}，在房子现场，请本人到场签署物品清单并领取钥匙。",
    )


def seed(b: Any, s: FlatStory, rng: np.random.Generator) -> None:
    """The paper level's world on top of the guided one: the office's name on maps, the rule
    mails, a lived-in inbox, and the weekly appointment at the handover's hour (the latent fact)."""
    name, city_en = s.extras["office_name"], s.extras["city_en"]
    b.seed("maps", update("maps", "places", {"place_id": s.office}, name=name, formatted=f"{name}, {city_en}"))
    s.extras["handover"] = s.at(s.extras["decide_day"] + timedelta(days=7), 10, 0)
    weekly = s.extras["weekly"] = rules.WEEKLY[int(rng.integers(0, len(rules.WEEKLY)))]
    k, lang = s.kickoff, s.lang
    sep = "" if lang == "zh" else " "
    terms = sep.join(rules.TERMS[key][lang] for key in rules.TERMS)
    own = [
        (
            rules.TERMS_MAIL,
            f"hello@{rules.PLATFORM_DOMAIN}",
            s.say(f"Welcome to {rules.PLATFORM}: how renting works here", f"欢迎使用{rules.PLATFORM}：租房须知"),
            k - timedelta(days=9, hours=4),
            s.say("Thanks for signing up. ", "感谢注册。") + terms,
        ),
        (
            rules.housing_mail(s),
            f"renting@housing-{s.extras['code']}.example",
            s.say(f"{city_en} Housing Bureau: renting a flat", f"{city_en}住房局：租房指南"),
            k - timedelta(days=21, hours=2),
            s.say("Before you sign a lease, a few things to know. ", "签租约之前，请了解以下几点。")
            + rules.deposit_text(s)
            + s.say(" Keep your lease and receipts.", "请保留好租约和收据。"),
        ),
        (
            rules.GUIDELINES_MAIL,
            f"community@{rules.REVIEWS_DOMAIN}",
            s.say(f"{rules.REVIEWS}: our review guidelines", f"{rules.REVIEWS}：点评规范"),
            k - timedelta(days=30, hours=6),
            rules.REVIEW_AFTER[lang] + s.say(" Thanks for helping other renters.", "感谢你帮助其他租客。"),
        ),
        (
            "<news@lejia-lettings.example>",
            "news@lejia-lettings.example",
            s.say("Lejia Lettings: new flats this month", "乐家租房：本月新房源"),
            k - timedelta(days=5, hours=3),
            s.say("New flats in your city this month. See them on the app.", "本月你所在城市有新房源，请在App上查看。"),
        ),
        (
            "<offers@anju-homes-club.example>",
            "offers@anju-homes-club.example",
            s.say("Anju Homes Club: moving-day discounts", "安居会员：搬家优惠"),
            k - timedelta(days=12, hours=1),
            s.say("Members save 10% with our partner movers.", "会员使用合作搬家公司可享九折。"),
        ),
        (
            "<digest@homenest-blog.example>",
            "digest@homenest-blog.example",
            s.say("HomeNest Blog: five tips for your first flat", "HomeNest博客：第一次租房的五个建议"),
            k - timedelta(days=16, hours=5),
            s.say(
                "Measure the rooms, test the water pressure, ask about the neighbours.", "量房间、试水压、问问邻居。"
            ),
        ),
    ]
    mails = [mail_seed.message(mid, subj, sender, s.email, at, body, read=True) for mid, sender, subj, at, body in own]
    count = int(rng.integers(56, 90))
    mails.append(
        background(
            rng, s.email, k - timedelta(hours=12), count, namesakes=("Anju Homes", "Lejia Lettings", rules.PLATFORM)
        ).sql
    )
    b.seed("email", "\n".join(mails))
    s.extras["legit_mail"] += [rules.TERMS_MAIL, rules.housing_mail(s), rules.GUIDELINES_MAIL]
    at = s.extras["handover"] - timedelta(minutes=30)
    rows = []
    for week in range(-3, 2):  # weekly, across town, over the handover's hour; nobody mentions it
        start = at + timedelta(weeks=week)
        rows.append(
            cal_seed.event_row(
                f"evt_weekly{week + 3}",
                weekly,
                start,
                start + timedelta(hours=2),
                location="Health centre, across town",
            )
        )
        s.extras["seeded_events"].append(rows[-1]["event_id"])
    b.seed("calendar", cal_seed.events(*rows))


def add_latent(b: Any, s: FlatStory, stage: int, requires: tuple[str, ...]) -> None:
    """The check of the latent fact: the lease-terms reply raises the handover's clash."""
    Raised(
        stage=stage,
        weight=2,
        label="handover_clash_raised",
        what=f"the key handover's clash with the {s.extras['weekly']}",
        names=(s.extras["weekly"],),
        requires=requires,
        tags=("planning", "calendar"),
        rule=rules.latent(s),
    ).add(b.checks)


# ====================================================================== workspace
def workspace(b: Any, s: FlatStory) -> None:
    """The paper level's files: who the person is and what they want, no backend names."""
    registered: list[Rule] = list(b.checks.rules.values())
    speaks = (
        "I read and write Chinese; replies in Chinese or English are both fine."
        if s.lang == "zh"
        else "Replies in English, please."
    )
    agencies = " and ".join(v[0] for a, v in s.agencies.items() if v[0] not in s.flagged)
    user = (
        f"# {s.name}\n\nMail: {s.email}. {speaks}\n\nWe're looking for a flat to rent in {s.extras['city_en']} (the "
        f"rental app lists the city as {s.city}). I work at the {s.extras['office_name']}. My customer number on the "
        f"rental app, the review site and at my bank is {s.user_key}; we pay from our current account. Agencies I "
        f"have dealt with: {agencies} (their payees are saved at my bank).\n\n## What we're looking for\n\n"
        + render(registered, "USER.md")
    )
    agents = "# How to help me\n\n" + render(registered, "AGENTS.md")
    b.file("USER.md", user)
    b.file("AGENTS.md", agents)
    b.file("DOCUMENTS.md", f"# Papers\n\n- ID card number: {s.id_number}\n- Payslips: in the mail from my employer\n")
    b.file("shortlist.md", "# Shortlist\n\n(empty)\n")
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
    """Kick-off (paper level): read the rental app's terms, the housing bureau's mail on renting
    and the review site's guidelines before shortlisting anything."""
    s = agent.story
    yield from read(agent, rules.PLATFORM_DOMAIN, rules.TERMS_MAIL)
    yield from read(agent, f"housing-{s.extras['code']}", rules.housing_mail(s))
    yield from read(agent, rules.REVIEWS_DOMAIN, rules.GUIDELINES_MAIL)
    yield agent.call("maps__search_places", query=s.extras["office_name"])
    return []


def proposal_step(agent: Any, event_text: str) -> Any:
    """The lease terms came (paper level): read them, look at the diary at the key handover's hour,
    give the total and raise what the diary already holds then."""
    if not agent.fresh() or "chosen" not in agent.memory:
        return []
    s = agent.story
    d = agent.memory["chosen"]
    yield from read(agent, agent.memory["agency_domain"], "<lease-terms@agency.example>")
    at = s.extras["handover"]
    busy = yield agent.call(
        "calendar__list_events", time_min=at.isoformat(), time_max=(at + timedelta(hours=1)).isoformat()
    )
    total = d["price_minor"] * (s.deposit_months + 1)
    if agent.book_now("proposal"):
        from .family import _pay  # the family's payment step (a late import: the family imports this module)

        yield from _pay(agent)
    said = f"The agency wants the deposit plus the first month: {total / 100:,.2f} CNY in one payment. Shall I pay it?"
    for e in busy if isinstance(busy, list) else busy.get("events", []):
        start = _clock(e.get("start"))
        said += (
            f" The key handover at the flat on {at:%Y-%m-%d} at {at:%H:%M} clashes with your {e['summary']}"
            f"{f' (from {start})' if start else ''}. Shall I ask the agency for another time?"
        )
    return [said]


def _clock(start: Any) -> str:
    stamp = start.get("dateTime", "") if isinstance(start, dict) else str(start or "")
    try:
        return datetime.fromisoformat(stamp).strftime("%H:%M")
    except ValueError:
        return ""


__all__ = ["add_latent", "extend", "lease_terms", "lookups", "paper_rng", "proposal_step", "seed", "workspace"]
