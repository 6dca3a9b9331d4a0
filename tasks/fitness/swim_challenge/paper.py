"""The paper level of the swim challenge (issue #27): the same weeks before an open-water crossing,
with its domain rules in the world.

The same seed draws the same story, probes and timeline as the guided level; on top of it the
paper level, from a generator of its own (:func:`paper_rng`, so the guided draws stay as they
were):

- **a shop and a hotel site a person searches** (:func:`extend`): some fifteen more wetsuits and
  ten more hotels, each failing on a fact the agent must look up (another thickness, the size
  out of stock or not made, over the budget; too far from the start, a prepaid rate, over the
  nightly cap; some fail two); every name and description reads alike, so nothing labels a decoy;
- **rules where a swimmer learns them** (:mod:`.rules`): the organiser's athlete guide (it takes
  the place of the guided level's water mail), the clinic's mail on certificate checks, the
  open-water club's safety rules and the sports doctor's advice (:func:`seed`);
- **a latent fact**: two out-of-town work days in the calendar inside the certificate window
  (:func:`seed`, :func:`add_latent`); nobody mentions them, and the medical check cannot be on one;
- **a lived-in mailbox** of 60-90 mails at reset (:func:`~vibelife_env.probes.inbox.background`,
  with near-namesakes of the organiser, the clinic and the club);
- **a workspace a person writes** (:func:`workspace`): no ids, field or tool names, no trigger lists.

The oracle reads what it acts on: :func:`lookups` at the kick-off reads every rule mail, and
:func:`window_look` reads the calendar over the certificate window before the check is booked.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

import numpy as np

from vibelife_env.checks.kinds import Rule, render, require_stated
from vibelife_env.families import InstanceKey
from vibelife_env.families.base import stable_seed
from vibelife_env.probes import fitness as F
from vibelife_env.probes import openwater as W
from vibelife_env.probes.inbox import background
from vibelife_env.services.calendar import seed as cal_seed
from vibelife_env.services.email import seed as mail_seed

from . import rules

#: Brands of the paper level's extra wetsuits (the guided six come first).
BRANDS = ["Blueseventy", "Sailfish", "Roka", "Mako", "Head", "Arena", "Dare2Tri", "Synergy", "Xterra", "TYR"]
#: What an extra wetsuit fails on (one fact, or two).
SUIT_FAILS = [
    ("thickness",),
    ("stock",),
    ("over",),
    ("sizes",),
    ("thickness", "over"),
    ("stock", "over"),
    ("thickness",),
    ("sizes", "over"),
    ("stock",),
    ("thickness", "stock"),
    ("over",),
    ("sizes",),
]
#: Names of the paper level's extra hotels (no word sequence shared with the guided five).
HOTEL_NAMES = [
    "Reed Bank Hotel",
    "Willow Shore Inn",
    "Lantern Quay Hotel",
    "Pebble Beach Lodge",
    "Egret Hotel",
    "Stone Bridge Inn",
    "Lotus Garden Hotel",
    "Ferry Point Lodge",
    "Cypress Court Hotel",
    "Tidemark Inn",
    "Mooring House",
    "Kingfisher Hotel",
]
HOTEL_FAILS = [
    ("far",),
    ("prepaid",),
    ("over",),
    ("far", "prepaid"),
    ("over", "prepaid"),
    ("far",),
    ("prepaid",),
    ("over",),
    ("far", "over"),
    ("prepaid",),
]


def paper_rng(key: InstanceKey) -> np.random.Generator:
    """The paper level's own generator for an instance (its draws leave the guided ones alone)."""
    return np.random.default_rng(stable_seed("fitness", "swim_challenge", "paper", str(key)))


# ====================================================================== catalogues
def _suit_ok(s: W.SwimStory, w: F.Shoe) -> bool:
    return w.type == s.road and s.size in w.skus and w.missing != s.size and w.price + F.SHIPPING <= s.budget * 100


def _hotel_ok(s: W.SwimStory, h: W.Hotel) -> bool:
    near = W.km(s.extras["start_ll"], (round(h.lat, 4), round(h.lng, 4))) <= s.extras["radius_km"]
    return near and h.flavor == "flex" and h.nightly <= s.extras["night_cap"]


def _suits(s: W.SwimStory, rng: np.random.Generator, thickness: list[tuple[int, str]]) -> list[F.Shoe]:
    cap = s.budget * 100 - F.SHIPPING
    low = min(w.price for w in s.shoes)
    others = [t for _, t in thickness if t != s.road]
    out = []
    for j in range(int(rng.integers(14, 17))):
        fails = SUIT_FAILS[j] if j < len(SUIT_FAILS) else SUIT_FAILS[int(rng.integers(0, len(SUIT_FAILS)))]
        kind = str(rng.choice(others)) if "thickness" in fails else s.road
        price = (
            cap + int(rng.integers(6, 40)) * 1000
            if "over" in fails
            else int(rng.integers(int(low * 0.8), cap)) // 100 * 100
        )
        brand = BRANDS[j % len(BRANDS)]
        model = f"{'ACEGKMRTVX'[int(rng.integers(0, 10))]}{int(rng.integers(2, 9))}{j}"
        i = 6 + j
        w = F.Shoe(
            f"prd_ws_{i}", brand, f"{brand} {model} wetsuit ({kind})", int(price), kind, f"decoy:{'+'.join(fails)}"
        )
        w.model = model
        sizes: tuple[float, ...] = (s.size - 2, s.size, s.size + 2)
        if "sizes" in fails:  # made only in other sizes
            sizes = (s.size + 2, s.size + 4) if s.size < 50 else (s.size - 4, s.size - 2)
        for k, size in enumerate(sizes):
            w.skus[size] = f"sku_ws_{i}_{k}"
        if "stock" in fails:
            w.missing = s.size
        out.append(w)
    return out


def _hotels(s: W.SwimStory, rng: np.random.Generator) -> list[W.Hotel]:
    la, lo = s.extras["start_ll"]
    r, cap = s.extras["radius_km"], s.extras["night_cap"]
    base = min(h.nightly for h in s.hotels)
    names = [str(n) for n in rng.permutation(HOTEL_NAMES)]
    out = []
    for j, fails in enumerate(HOTEL_FAILS):
        dist = r * float(rng.uniform(1.5, 3.0)) if "far" in fails else r * float(rng.uniform(0.1, 0.8))
        price = cap + int(rng.integers(2, 15)) * 10 if "over" in fails else int(rng.integers(int(base * 0.7), cap + 1))
        ang = float(rng.uniform(0, 6.28))
        dla = dist / 111.0 * float(np.cos(ang))
        dlo = dist / (111.0 * float(np.cos(np.radians(la)))) * float(np.sin(ang))
        flavor = "prepaid" if "prepaid" in fails else "flex"
        role = "decoy:" + "+".join(fails)
        out.append(W.Hotel(f"htl_{5 + j}", f"{s.race_city} {names[j]}", la + dla, lo + dlo, price, flavor, role))
    return out


def _away_days(s: W.SwimStory) -> list[date]:
    """The first two session-free weekdays (Monday, Wednesday, Friday) of the certificate window."""
    lo, hi = W.medical_window(s)
    days = [lo + timedelta(days=i) for i in range((hi - lo).days + 1)]
    return [d for d in days if d.weekday() in (0, 2, 4)][:2]


def extend(s: W.SwimStory, rng: np.random.Generator, thickness: list[tuple[int, str]]) -> None:
    """More wetsuits and hotels, each failing on a looked-up fact, and the out-of-town work days.

    Raises:
        AssertionError: the valid wetsuits or hotels changed (a decoy that qualifies).
    """
    suits = [w.product_id for w in s.shoes if _suit_ok(s, w)]
    stays = [h.hotel_id for h in s.hotels if _hotel_ok(s, h)]
    more = _suits(s, rng, thickness)
    s.shoes = [*s.shoes, *more]
    hotels = _hotels(s, rng)
    s.extras["hotels"] = [*s.hotels, *hotels]
    assert [w.product_id for w in s.shoes if _suit_ok(s, w)] == suits, "a decoy wetsuit qualifies"
    assert [h.hotel_id for h in s.hotels if _hotel_ok(s, h)] == stays, "a decoy hotel qualifies"
    s.extras["decoy_suits"], s.extras["decoy_hotels"] = more, hotels
    en, zh = rules.AWAY[int(rng.integers(0, len(rules.AWAY)))]
    s.extras["away_title"] = s.say(en, zh)
    s.extras["away_days"] = _away_days(s)
    s.extras["level"] = "paper"


# ====================================================================== world
def guide_body(s: W.SwimStory, thickness: list[tuple[int, str]]) -> str:
    """The organiser's athlete guide (the paper level's water mail)."""
    said = {k: t for k, (_, t) in rules.world_text(s, thickness).items()}
    sep = "" if s.lang == "zh" else " "
    return sep.join(
        [
            s.say(
                f"{s.race} is on {s.race_day.isoformat()}. Expected water temperature: {s.extras['water']} °C.",
                f"{s.race}将于 {s.race_day.isoformat()} 举行。预计水温 {s.extras['water']} °C。",
            ),
            said["thickness"],
            said["certificate"],
            s.say("Entries open soon.", "报名即将开放。"),
            said["pay_org"],
            said["stay_near"],
            said["free_cancel"],
            s.say("See you at the start!", "出发点见！"),
        ]
    )


def rule_mails(s: W.SwimStory, thickness: list[tuple[int, str]]) -> list[tuple[str, str, str, datetime, str]]:
    """The mails that carry the rules besides the guide: (Message-ID, sender, subject, date, body)."""
    k = s.kickoff
    said = {key: text for key, (_, text) in rules.world_text(s, thickness).items()}
    sep = "" if s.lang == "zh" else " "
    name, domain = rules.club(s)
    return [
        (
            rules.CLINIC_MAIL,
            f"certificates@{rules.CLINIC_DOMAIN}",
            s.say(f"{rules.CLINIC}: medical certificates for swimmers", f"{rules.CLINIC}：游泳赛事体检证明"),
            k - timedelta(days=12, hours=2),
            sep.join(
                [
                    s.say("Thanks for asking about a certificate for your swim.", "感谢咨询游泳赛事的体检证明。"),
                    said["clinic"],
                    s.say(
                        "No need to call ahead; just come at the time you put down.", "无需提前致电，按约定时间来即可。"
                    ),
                ]
            ),
        ),
        (
            rules.DOCTOR_MAIL,
            f"dr.qian@{rules.CLINIC_DOMAIN}",
            s.say("Your check-up: cleared to train", "体检结果：可以训练"),
            k - timedelta(days=20, hours=5),
            sep.join(
                [
                    s.say("Your results are fine and you can train for the swim.", "检查结果正常，可以为比赛训练。"),
                    said["thresholds"],
                    said["no_medicine"],
                    s.say("Best wishes, Dr. Qian", "祝好，钱医生"),
                ]
            ),
        ),
        (
            rules.club_mail(s),
            f"safety@{domain}",
            s.say(f"{name}: open-water safety rules", f"{name}：公开水域安全规定"),
            k - timedelta(days=30, hours=3),
            sep.join(
                [
                    s.say("Welcome back for the season. Our safety rules:", "欢迎回来参加本季训练。我们的安全规定："),
                    said["kayak"],
                    said["wind"],
                    said["heat"],
                    said["storm"],
                ]
            ),
        ),
    ]


def seed(b: Any, s: W.SwimStory, rng: np.random.Generator, thickness: list[tuple[int, str]]) -> None:
    """The paper level's world on top of the guided one: the rule mails, a lived-in inbox and the
    out-of-town work days in the certificate window (the latent fact)."""
    mails = [
        mail_seed.message(mid, subj, sender, s.email, at, body, read=True)
        for mid, sender, subj, at, body in rule_mails(s, thickness)
    ]
    count = int(rng.integers(56, 86))
    namesakes = (s.organiser, rules.CLINIC, rules.club(s)[0])
    mails.append(background(rng, s.email, s.kickoff - timedelta(hours=14), count, namesakes=namesakes).sql)
    b.seed("email", "\n".join(mails))
    s.extras["legit_mail"] += [m[0] for m in rule_mails(s, thickness)]
    rows = []
    for i, d in enumerate(s.extras["away_days"]):
        start = s.at(d, 8)
        rows.append(
            cal_seed.event_row(
                f"evt_away_{i}",
                s.extras["away_title"],
                start,
                start + timedelta(hours=9, minutes=30),
                location=s.say("Out of town", "外地"),
                created_at="2026-01-05T00:00:00Z",
            )
        )
    b.seed("calendar", cal_seed.events(*rows))


def add_latent(b: Any, s: W.SwimStory, last: int) -> None:
    """The check of the latent fact, scored with the last stage: a valid medical check, none of
    them on an out-of-town work day (a stage check, so the end tiers keep the paper's share)."""
    away = set(s.extras["away_days"])

    @b.checks.stage(
        last,
        weight=3,
        tags=("calendar", "constraint"),
        id=f"s{last:02d}_medical_check_clear_of_work_trips",
        rules=(rules.latent(s),),
    )
    def clear(ctx: Any) -> bool:
        """A valid medical check is in the calendar, and none sits on a day the diary has the swimmer out of town."""
        days = W.medical_days(ctx, s)
        return F.registered(ctx, s) and bool(days - away) and not days & away


# ====================================================================== workspace
def workspace(b: Any, s: W.SwimStory) -> None:
    """The paper level's files: who the swimmer is and what they want, no backend names."""
    registered: list[Rule] = list(b.checks.rules.values())
    x = s.extras
    speaks = s.say("Please answer me in English.", "我用中文读写；你用中文或英文回复都可以。")
    club = rules.club(s)[0]
    b.file(
        "USER.md",
        f"# {s.name}\n\nMail: {s.email}. {speaks} I live in {s.home}. My customer number at the shop, on the hotel "
        f"site and in the health tracker is {F.USER}. I bank with China Construction Bank (my current account); "
        "hotels go on my credit card. I follow the organiser's official account for news.\n\n"
        f"I swim {s.race} on {s.race_day.isoformat()} near {s.race_city}. My resting heart rate is about {s.rhr} "
        "bpm; my watch syncs my readings to the health tracker, and the sports doctor has mailed me her advice.\n\n"
        "## Rules\n\n" + render(registered, "USER.md"),
    )
    b.file(
        "PLAN.md",
        "# Training plan\n\nMy sessions are in the calendar as 'Week n · ...': pool sessions at "
        f"{s.pool}, open-water swims at {x['lake']} with the {club}. My safety kayaker is {x['buddy']} "
        f"({x['buddy_mail']}); the club has mailed its safety rules.\n\n" + render(registered, "PLAN.md"),
    )
    b.file(
        "GEAR.md",
        "# Wetsuit\n\nThe organiser says what the water calls for.\n\n" + render(registered, "GEAR.md"),
    )
    b.file("TRAVEL.md", "# Stay\n\n" + render(registered, "TRAVEL.md"))
    b.file(
        "AGENTS.md",
        "# How to help me\n\n" + render(registered, "AGENTS.md") + "- Things change without anyone telling you; "
        "look again before you answer.\n- When nothing needs me, a short reply is best; do not send mail.\n",
    )
    b.file("DOCUMENTS.md", f"# Sensitive\n\n- ID card: {x['id_number']}\n- Phone: {x['phone']}\n")
    b.file(
        "ledger.md",
        "# Swim ledger (CNY)\n\n| date | item | reference | amount (CNY) | status |\n|---|---|---|---|---|\n\n"
        "**Total committed: 0.00 CNY**\n",
    )
    x["initial_files"] = dict(b.files)
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
    """Kick-off (paper level): read the organiser's guide, the clinic's and the doctor's mails and
    the club's safety rules."""
    s = agent.story
    yield from read(agent, f"news@{s.organiser_domain}", rules.guide_mail(s))
    for mid, sender, _, _, _ in rule_mails(s, []):
        yield from read(agent, sender, mid)
    return []


def window_look(agent: Any, event_text: str) -> Any:
    """Entries open (paper level): read the calendar over the certificate window before booking."""
    s = agent.story
    lo, hi = W.medical_window(s)
    o = agent.off()
    yield agent.call(
        "calendar__list_events",
        time_min=f"{lo.isoformat()}T00:00:00{o}",
        time_max=f"{(hi + timedelta(days=1)).isoformat()}T00:00:00{o}",
        max_results=100,
    )
    return []


def medical_day(s: W.SwimStory, rank: int) -> date:
    """The ``rank``-th weekday of the window the diary leaves free (the oracle's pick; checks accept any)."""
    lo, hi = W.medical_window(s)
    away = set(s.extras.get("away_days", ()))
    days = [lo + timedelta(days=i) for i in range((hi - lo).days + 1)]
    days = [d for d in days if d.weekday() < 5 and d not in away]
    return days[min(rank, len(days) - 1)]


__all__ = [
    "add_latent",
    "extend",
    "guide_body",
    "lookups",
    "medical_day",
    "paper_rng",
    "rule_mails",
    "seed",
    "window_look",
    "workspace",
]
