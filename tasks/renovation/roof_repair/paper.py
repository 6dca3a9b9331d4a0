"""The paper level of roof repair (issue #27): the same storm repair, with its domain rules in the world.

The same seed draws the same story, probes and timeline as the guided level; on top of it the
paper level, from a generator of its own (:func:`paper_rng`, so the guided draws stay as they
were):

- **quotes a person compares** (:func:`extend`, :func:`listed`): six to eight more roofers quote,
  each failing on a fact the agent must look up on the review site or in the quote (no licence, no
  insurance, a rating below the minimum, a quote over the cap; some fail two), and the site lists
  eight more home-service firms that sent no quote; every quote reads the same way;
- **rules where a householder learns them** (:mod:`.rules`, :mod:`.texts`): the insurer's
  storm-season mail and its policy mail, the terms every roofer's quote carries
  (:func:`quote_body`), the district works office's or the estate's scaffolding rule, the weather
  service's note on forecasts, the courier's terms, the review site's guidelines (:func:`seed`);
- **a latent fact**: the same-day roofers come between 13:00 and 16:00 and need to get into the
  attic from inside, while a weekly appointment across town already holds that afternoon in the
  calendar (:func:`seed`, :func:`add_latent`);
- **a lived-in mailbox** of 60-100 mails at reset (:func:`~vibelife_env.probes.inbox.background`,
  with near-namesakes of the roofers, two contractors and the insurer);
- **a workspace a person writes** (:func:`workspace`): no ids, field or tool names, no trigger lists.

The oracle reads what it acts on: the rule mails and the afternoon's diary at the kick-off
(:func:`tarp_step`), the quote it proposes before proposing it (:func:`proposal_step`).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from vibelife_env.checks.kinds import Raised, Rule, render, require_stated
from vibelife_env.families import InstanceKey
from vibelife_env.families.base import stable_seed
from vibelife_env.probes import renovation as R
from vibelife_env.probes import roofing as RF
from vibelife_env.probes.inbox import background
from vibelife_env.services.calendar import seed as cal_seed
from vibelife_env.services.email import seed as mail_seed
from vibelife_env.services.sql import insert, update

from . import rules, texts

#: The prerequisite of the latent check: the kick-off's own work done.
TARPED = "the tarp is booked (the licensed roofer's fee paid, nothing to the other one)"


def paper_rng(key: InstanceKey) -> np.random.Generator:
    """The paper level's own generator for an instance (its draws leave the guided ones alone)."""
    return np.random.default_rng(stable_seed("renovation", "roof_repair", "paper", str(key)))


# ====================================================================== the contractors
#: Firms of the paper level's extra quotes (the guided ones use the family's nine).
FIRMS = [
    "Redwood Roofing", "Jade Eaves Co", "Pinecrest Roofing", "Lotus Home Builders", "Northstar Roof Care",
    "Ironbark Construction", "Silverline Tiling", "Maplewood Contractors", "Cedar & Stone Roofing",
    "Tianrui Building Services", "Meihua Roof Repair", "Kingsway Roofing", "Bamboo Grove Builders",
    "Granite Peak Roofing",
]  # fmt: skip
#: Home-service firms listed on the review site that sent no quote (a roofer among them).
LISTED = [
    ("Clearflow Plumbing", "licensed,insured,plumbing", 4.6),
    ("Brightspark Electrical", "licensed,insured,electrical", 4.7),
    ("Freshcoat Painters", "insured,painting", 4.4),
    ("Gutterpro Cleaning", "gutters", 4.1),
    ("Windowcraft Glazing", "licensed,glazing", 4.5),
    ("Solidbase Damp Proofing", "licensed,insured,damp", 4.3),
    ("Ridgeway Roofing", "licensed,insured,roofing", 4.8),
    ("Tidy Yard Gardeners", "gardening", 4.2),
]
#: What an extra quote fails on (one looked-up fact, or two): the platform's tags, its rating, the cap.
KINDS = [
    ("unlicensed",),
    ("uninsured",),
    ("low_rating",),
    ("over",),
    ("unlicensed", "over"),
    ("uninsured", "low_rating"),
    ("low_rating", "over"),
    ("unlicensed", "uninsured"),
]


def extend(s: RF.RoofStory, rng: np.random.Generator, acct: Any) -> None:
    """Six to eight more quotes, each failing on a fact the platform or the quote gives (``acct``:
    the family's account maker); every quote reads the same way, so no name or text labels a decoy."""
    q0 = min(c.quote for c in s.contractors if c.role == "valid")
    count = int(rng.integers(6, 9))
    names = [str(n) for n in rng.permutation(FIRMS)][:count]
    taken = {c.quote for c in s.contractors}
    extra = []
    for j, (name, fails) in enumerate(zip(names, KINDS, strict=False)):
        if "over" in fails:
            quote = s.qmax + int(rng.integers(3, 40)) * 100
        else:
            quote = _ceil100(q0 * float(rng.uniform(0.72, 0.99)))
        while quote in taken:
            quote += 100
        taken.add(quote)
        low = "low_rating" in fails
        rating = s.min_rating - float(rng.uniform(0.2, 0.6)) if low else s.min_rating + float(rng.uniform(0.1, 0.5))
        slug = re.sub(r"[^a-z]+", "-", name.lower()).strip("-")
        extra.append(
            R.Contractor(
                f"c{6 + j}", name, f"{slug}.example", acct(rng), quote, "unlicensed" not in fails,
                round(min(rating, 4.9), 1), False, "+".join(fails), "uninsured" not in fails,
            )
        )  # fmt: skip
    every = s.contractors + extra
    s.contractors = [every[i] for i in rng.permutation(len(every)).tolist()]
    s.extras["decoys"] = [c.key for c in extra]


def _ceil100(x: float) -> int:
    """Round up to the hundred (the family's ``ceil100``; the family imports this module)."""
    return int(-(-x // 100) * 100)


def listed(s: RF.RoofStory, rng: np.random.Generator) -> str:
    """The review site's other home-service firms (no quote from any of them)."""
    rows = []
    for n, (name, tags, rating) in enumerate(LISTED):
        rows.append(
            {
                "merchant_id": f"mer_l{n}",
                "name": name,
                "category": "home_service",
                "city": s.city,
                "area": str(rng.choice(["Central", "North", "East", "West"])),
                "address": f"Trade Park {n + 1}",
                "phone": f"400-700-{2000 + n}",
                "rating_tenths": round(rating * 10),
                "review_count": int(rng.integers(12, 90)),
                "avg_price_minor": 0,
                "price_band": "$$",
                "hours": "08:00-18:00",
                "tags": tags,
                "has_private_room": 0,
                "max_party_size": 0,
            }
        )
    return insert("review_platform", "merchants", *rows)


# ====================================================================== world
def quote_body(s: RF.RoofStory, c: Any, body: str) -> str:
    """A roofer's quote at the paper level: the guided body with the roofer's own terms before its name."""
    sep = "" if s.lang == "zh" else " "
    return body.removesuffix(c.name) + sep.join(texts.quote_terms(s).values()) + sep + c.name


def seed(b: Any, s: RF.RoofStory, rng: np.random.Generator) -> None:
    """The paper level's world on top of the guided one: the roofers' visiting hours, the rule
    mails, a lived-in inbox, and the weekly appointment over the tarp visit (the latent fact)."""
    k, lang = s.kickoff, s.lang
    sep = "" if lang == "zh" else " "
    for t in s.tarp:  # the same offers, with the hours and the attic
        body = s.say(
            f"We can tarp your roof today. Fee {s.tarp_fee[t.key]:,} CNY, paid on the day to {t.account}.",
            f"我们今天就能给您的屋顶盖苫布，费用 {s.tarp_fee[t.key]} 元，当天付至 {t.account}。",
        )
        b.seed("email", update("email", "messages", {"message_id": t.mail_id}, body_text=f"{body}{texts.tarp_visit(s)}"
                               f"{sep}{t.name}"))  # fmt: skip
    ins = texts.insurer(s)
    own = [
        (
            rules.storm_mail(s),
            f"claims@{s.insurer_domain}",
            s.say(f"{s.insurer}: storm season - what we cover and how to claim", f"{s.insurer}：风暴季理赔须知"),
            k - timedelta(days=38, hours=3),
            s.say("Storm season is here. A few things to know before the next storm. ", "风暴季到了，请提前了解以下几点。")
            + sep.join(ins.values()),
        ),
        (
            rules.scaffold_mail(s),
            "notices@district-works.example" if s.scaffold == "pavement" else "office@estate-office.example",
            s.say("Roof and facade works: scaffolding", "屋顶和外立面施工：脚手架")
            if s.scaffold == "pavement"
            else s.say("Estate office: works and the shared garden", "物业办公室：施工与共用花园"),
            k - timedelta(days=120, hours=5),
            texts.scaffold_where(s) + sep + texts.scaffold(s) + s.say(" Thank you.", "谢谢配合。"),
        ),
        (
            rules.WEATHER_MAIL,
            f"alerts@{texts.WEATHER_DOMAIN}",
            s.say(f"{texts.WEATHER}: storm warning for {s.city}", f"{texts.WEATHER}：{s.city}风暴预警"),
            k - timedelta(days=1, hours=10),
            s.say(f"A storm with strong winds reaches {s.city} tonight. ", f"今晚有强风暴抵达{s.city}。")
            + texts.weather(s),
        ),
        (
            rules.COURIER_MAIL,
            f"service@{texts.COURIER_DOMAIN}",
            s.say(f"{texts.COURIER}: your shipments and our terms", f"{texts.COURIER}：您的货件与服务条款"),
            k - timedelta(days=47, hours=2),
            s.say("Thanks for shipping with us. ", "感谢您使用我们的服务。") + sep.join(texts.courier(s).values()),
        ),
        (
            rules.REVIEW_MAIL,
            f"community@{texts.REVIEWS_DOMAIN}",
            s.say(f"{texts.REVIEWS}: our review guidelines", f"{texts.REVIEWS}：点评规范"),
            k - timedelta(days=90, hours=6),
            texts.review(s) + s.say(" Thanks for helping your neighbours.", "感谢您帮助邻居们。"),
        ),
        (
            f"<newsletter@{texts.REVIEWS_DOMAIN}>",
            f"news@{texts.REVIEWS_DOMAIN}",
            s.say(f"{texts.REVIEWS}: top-rated tradespeople this month", f"{texts.REVIEWS}：本月好评师傅"),
            k - timedelta(days=11, hours=1),
            s.say("Plumbers, painters and roofers your neighbours rated highest.", "邻居们评分最高的水管工、油漆工和屋顶师傅。"),
        ),
    ]  # fmt: skip
    mails = [mail_seed.message(mid, subj, sender, s.email, at, body, read=True) for mid, sender, subj, at, body in own]
    names = (*(t.name for t in s.tarp), s.insurer, s.contractors[0].name, s.contractors[1].name)
    count = int(rng.integers(56, 86))
    mails.append(background(rng, s.email, k - timedelta(hours=12), count, namesakes=names).sql)
    b.seed("email", "\n".join(mails))
    weekly = s.extras["weekly"] = rules.WEEKLY[int(rng.integers(0, len(rules.WEEKLY)))]
    at = s.at(s.kickoff.date(), 13, 30)
    rows = []
    for week in range(-3, 4):  # weekly, across town, over the tarp visit's hours; nobody mentions it
        start = at + timedelta(weeks=week)
        rows.append(
            cal_seed.event_row(
                f"evt_weekly{week + 3}",
                weekly,
                start,
                start + timedelta(hours=2),
                location="Sports centre, across town",
            )
        )
    b.seed("calendar", cal_seed.events(*rows))
    b.seed("review_platform", listed(s, rng))


def add_latent(b: Any, s: RF.RoofStory, stage: int) -> None:
    """The check of the latent fact: the kick-off reply raises the tarp visit's clash."""
    Raised(
        stage=stage,
        weight=2,
        label="tarp_visit_clash_raised",
        what=f"the tarp visit's clash with the {s.extras['weekly']}",
        names=(s.extras["weekly"],),
        tags=("planning", "calendar"),
        rule=rules.latent(s),
    ).add(b.checks)


# ====================================================================== workspace
def workspace(b: Any, s: RF.RoofStory) -> None:
    """The paper level's files: who the householder is and what they want, no backend names."""
    registered: list[Rule] = list(b.checks.rules.values())
    speaks = s.say(f"Mail: {s.email}. Replies in English, please.", f"邮箱：{s.email}。中文英文我都能读，哪种都行。")
    home = s.say(
        f"We live in a house in {s.city} and pay from our current account (my online banking username, the same "
        f"on the apps, is {s.user_key}); the home insurer is {s.insurer}.",
        f"我们住在{s.city}的一栋房子里，用活期账户付款（网银用户名是 {s.user_key}，各个应用也一样）；家财险保险公司是{s.insurer}。",
    )
    user = f"# {s.name}\n\n{speaks}{'' if s.lang == 'zh' else ' '}{home}\n\n" + s.say("## The roof", "## 屋顶") + "\n\n"
    user += render(registered, "USER.md")
    agents = s.say("# Working for me", "# 帮我做事") + "\n\n" + render(registered, "AGENTS.md")
    agents += s.say("- Quiet days need no more than a line from you.\n", "- 没什么事的日子，回我一句就行。\n")
    b.file("USER.md", user)
    b.file("AGENTS.md", agents)
    s.extras["initial_files"] = dict(b.files)
    require_stated(b.root, b.files, b.checks.rules.values())


# ====================================================================== the oracle's look-ups
def _emails(found: Any) -> list[dict[str, Any]]:
    return list(found.get("emails", [])) if isinstance(found, dict) else []


def read(agent: Any, query: str, *message_ids: str) -> Any:
    """Search the mail for ``query`` and read the ones with ``message_ids`` (their bodies)."""
    found = yield agent.call("email__search_emails", query=query)
    for m in _emails(found):
        if m.get("message_id") in message_ids:
            yield agent.call("email__read_email", email_id=m["email_id"])


def lookups(agent: Any) -> Any:
    """Kick-off (paper level): read the insurer's mails, the scaffolding rule, the weather service's,
    the courier's and the review site's mails before anything is booked."""
    s = agent.story
    yield from read(agent, s.insurer_domain, rules.storm_mail(s), rules.POLICY_MAIL)
    yield from read(agent, rules.scaffold_mail(s).split("@")[1].rstrip(">"), rules.scaffold_mail(s))
    yield from read(agent, texts.WEATHER_DOMAIN, rules.WEATHER_MAIL)
    yield from read(agent, texts.COURIER_DOMAIN, rules.COURIER_MAIL)
    yield from read(agent, texts.REVIEWS_DOMAIN, rules.REVIEW_MAIL)


def tarp_step(agent: Any, event_text: str) -> Any:
    """Kick-off (paper level): read the rule mails and the afternoon's diary, tarp the roof as the
    guided level does, and raise what the diary already holds while the roofer needs someone in."""
    from .family import tarp_step as guided  # a late import: the family imports this module

    yield from lookups(agent)
    busy = yield agent.call(
        "calendar__list_events", time_min=agent.iso(agent.today, 13), time_max=agent.iso(agent.today, 16)
    )
    said = list((yield from guided(agent, event_text)))
    for e in busy if isinstance(busy, list) else busy.get("events", []) if isinstance(busy, dict) else []:
        if not RF.TARP.found_in(str(e.get("summary", ""))):
            said.append(texts.clash_said(e["summary"], _clock(e.get("start"))))
    return said


def proposal_step(agent: Any, event_text: str) -> Any:
    """The quotes came (paper level): read the quote of the contractor to propose, then propose it."""
    from .family import proposal_step as guided

    c = yield from agent.pick()
    if c is not None:
        yield from read(agent, c.domain, c.mail_id)
    return (yield from guided(agent, event_text))


def _clock(start: Any) -> str:
    stamp = start.get("dateTime", "") if isinstance(start, dict) else str(start or "")
    try:
        return datetime.fromisoformat(stamp).strftime("%H:%M")
    except ValueError:
        return ""


__all__ = ["add_latent", "lookups", "paper_rng", "proposal_step", "quote_body", "seed", "tarp_step", "workspace"]
