"""The paper level of e-bike (issue #27): the same purchase, with its domain rules in the world.

The same seed draws the same story, probes and timeline as the guided level; on top of it the
paper level, from a generator of its own (:func:`paper_rng`, so the guided draws stay as they
were):

- **a catalogue a person searches** (:func:`extend`): some fifteen more e-bikes in the shop, each
  failing on a fact the agent must look up — a spec on its page (no battery certificate, too
  fast for the licence-free class, too little range, too low a load), fault reports naming it on
  the service points' review pages, a seller's page that takes nothing back, a price over the
  budget; some fail two. Every title and blurb is neutral, so nothing labels a decoy; the
  commuter's wish to be able to send the bike back becomes a fifth requirement (a return window
  of at least 7 days, on every model's page);
- **rules where a buyer learns them** (:mod:`.rules`): the shop's terms mail, the traffic
  police's notice, the residents' committee's notice, the consumer council's advice, the sports
  shop's returns mail and the card's key terms (:func:`seed`);
- **a latent fact**: the courier's delivery slot falls on an appointment the calendar already
  holds across town (a weekly one planted here, or the delivery-clash probe's day away); nobody
  mentions it at the shipped notice, whose reply must raise it (:func:`add_latent`);
- **a lived-in mailbox** of 60-100 mails at reset (:func:`~vibelife_env.probes.inbox.background`,
  with near-namesakes of the shop, the sports shop and the insurer);
- **a workspace a person writes** (:func:`workspace`): no ids, field or tool names.

The oracle reads what it acts on (:func:`lookups` at the kick-off reads every rule mail;
:func:`shipped_step` looks at the diary over the courier's slot before it answers); it already
reads every model's page and the service points' reviews when it chooses.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta
from typing import Any

import numpy as np

from vibelife_env.checks.kinds import Raised, Rule, render, require_stated
from vibelife_env.families import InstanceKey
from vibelife_env.families.base import stable_seed
from vibelife_env.probes import purchase as P
from vibelife_env.probes.inbox import background
from vibelife_env.services.calendar import seed as cal_seed
from vibelife_env.services.email import seed as mail_seed
from vibelife_env.services.sql import insert, update

from . import rules

#: The return window the commuter wants (days), a fifth requirement at the paper level.
RETURN_DAYS = 7
#: Neutral blurbs of the paper level's product pages (none says what a model fails on).
BLURBS = [
    "Step-through frame, hydraulic disc brakes.",
    "Commuter frame with mudguards and a rear rack.",
    "Aluminium frame, integrated front and rear lights.",
    "Upright city geometry, puncture-resistant tyres.",
    "Removable battery, USB port on the display.",
    "Seven-speed gears and a suspension fork.",
]
KINDS_OF_BIKE = ["commuter e-bike", "city e-bike", "urban e-bike"]
#: What an extra model fails on (one fact, or two).
KINDS = [
    ("battery_cert",),
    ("top_speed_kmh",),
    ("range_km",),
    ("max_load_kg",),
    ("faulty",),
    ("returns",),
    ("faulty",),
    ("returns",),
    ("over_budget",),
    ("range_km", "max_load_kg"),
    ("top_speed_kmh", "returns"),
    ("battery_cert", "faulty"),
    ("faulty", "returns"),
]
NO_RETURNS = (
    "Sold and shipped by a marketplace seller: no returns once delivered, no price protection.",
    "由第三方卖家销售并发货：签收后不退不换，不享受价保。",
)
FAULTS = [
    "My {code} cut out twice on the way to work; the controller had to be replaced.",
    "{code}: the battery lost half its range within a month.",
    "The {code}'s brakes squeal and the motor stutters on hills. Took it back twice.",
    "Frame weld on my {code} cracked after three weeks.",
    "{code} display goes blank in the rain and the assist stops.",
]


def paper_rng(key: InstanceKey) -> np.random.Generator:
    """The paper level's own generator for an instance (its draws leave the guided ones alone)."""
    return np.random.default_rng(stable_seed("shopping", "ebike", "paper", str(key)))


# ====================================================================== the catalogue
def extend(s: P.PurchaseStory, rng: np.random.Generator) -> None:
    """The return window as a fifth requirement on every model, and 13-16 decoys (after the
    story's own models, so nothing the guided level draws from them moves)."""
    s.requirements.append(P.Requirement("returns_days", "return window", "退货期", "min", float(RETURN_DAYS), "days"))
    for p in s.products:
        p.attrs["returns_days"] = float(RETURN_DAYS)
    need, load = s.extras["need_km"], s.extras["weight"] + 10
    base = min(p.price for p in s.products if p.role == "valid")
    brands = sorted({p.brand for p in s.products})
    codes = {p.code for p in s.products}
    letters = "JKLMNPQRSTUVWXYZ"
    count = int(rng.integers(13, 17))
    faulty: list[str] = []
    no_returns: list[str] = []
    for j in range(count):
        fails = KINDS[j] if j < len(KINDS) else KINDS[int(rng.integers(0, len(KINDS)))]
        attrs: dict[str, Any] = {
            "battery_cert": 0.0 if "battery_cert" in fails else 1.0,
            "top_speed_kmh": float(rng.choice([40, 45])) if "top_speed_kmh" in fails else float(rng.choice([20, 25])),
            "range_km": float(
                need - int(rng.integers(2, 9)) if "range_km" in fails else need + int(rng.integers(0, 30))
            ),
            "max_load_kg": float(
                load - int(rng.integers(3, 15)) if "max_load_kg" in fails else load + int(rng.integers(0, 40))
            ),
            "returns_days": 0.0 if "returns" in fails else float(RETURN_DAYS),
        }
        if "over_budget" in fails:
            price = (s.budget + int(rng.integers(3, 15)) * 100) * 100
        else:
            price = int(round(base * float(rng.uniform(0.8, 1.08)), -2))
        code = f"EB-{int(rng.integers(10, 99))}{letters[j]}"
        while code in codes:
            code = f"EB-{int(rng.integers(10, 99))}{letters[j]}"
        codes.add(code)
        attrs["model"] = code
        brand = brands[int(rng.integers(0, len(brands)))]
        kind = KINDS_OF_BIKE[int(rng.integers(0, len(KINDS_OF_BIKE)))]
        i = 8 + j
        s.products.append(
            P.Product(f"prd_eb_{i}", f"sku_eb_{i}", brand, code, f"{brand} {code} {kind}", price, attrs, "decoy")
        )
        s.extras.setdefault("decoy_fails", {})[code] = fails
        if "faulty" in fails:
            faulty.append(code)
        if "returns" in fails:
            no_returns.append(code)
    s.extras["faulty_codes"] = faulty
    s.extras["no_returns"] = no_returns


# ====================================================================== world
def _mail(s: P.PurchaseStory, mid: str, sender: str, subject: tuple[str, str], at: datetime, body: str) -> str:
    return mail_seed.message(mid, s.say(*subject), sender, s.email, at, body, read=True)


def seed(b: Any, s: P.PurchaseStory, rng: np.random.Generator) -> None:
    """The paper level's world on top of the guided one: neutral product pages, the fault
    reports, the rule mails, a lived-in inbox and the weekly appointment over the courier's slot."""
    x, k = s.extras, s.kickoff
    sep = "" if s.lang == "zh" else " "
    # product pages: a neutral blurb on every one; the sellers' return policies
    shop = []
    for p in s.products:
        a = p.attrs
        desc = (
            f"{BLURBS[int(rng.integers(0, len(BLURBS)))]} Model {p.code}. GB-17761 battery certification: "
            f"{'yes' if a['battery_cert'] else 'no'}. Top assisted speed {a['top_speed_kmh']:g} km/h. Range "
            f"{a['range_km']:g} km. Maximum load {a['max_load_kg']:g} kg. Weight 24 kg. Ships boxed, front wheel and "
            "handlebar to fit."
        )
        values: dict[str, Any] = {"description": desc, "rating": round(float(rng.uniform(4.1, 4.9)), 1)}
        values["rating_count"] = int(rng.integers(40, 2000))
        if p.code in x["no_returns"]:
            values["return_policy"] = s.say(*NO_RETURNS)
        shop.append(update("ecommerce", "products", {"product_id": p.product_id}, **values))
    # the saved home address: the province and postcode of the city it is in
    shop.append(update("ecommerce", "addresses", {"address_id": "addr_home"}, **P.home_region(s.city)))
    b.seed("ecommerce", "\n".join(shop))
    # fault reports on the service points' pages (three or four per faulty model), and some praise
    centres = x["centres"]
    brand_of = {p.code: p.brand for p in s.products}
    reviews: list[dict[str, Any]] = []
    for code in x["faulty_codes"]:
        for n in range(int(rng.integers(3, 5))):
            reviews.append(
                {
                    "review_id": f"rev_f{len(reviews)}",
                    "merchant_id": centres[brand_of[code]],
                    "user_id": f"rider_f{len(reviews)}",
                    "rating": int(rng.integers(1, 3)),
                    "body": FAULTS[(n + len(reviews)) % len(FAULTS)].format(code=code),
                    "image_captions": None,
                    "created_at": (k - timedelta(days=int(rng.integers(3, 60)))).isoformat(),
                }
            )
    for i, mid in enumerate(sorted(centres.values())):
        reviews.append(
            {
                "review_id": f"rev_g{i}",
                "merchant_id": mid,
                "user_id": f"rider_g{i}",
                "rating": int(rng.integers(4, 6)),
                "body": "Friendly staff; the safety check took under an hour.",
                "image_captions": None,
                "created_at": (k - timedelta(days=int(rng.integers(3, 60)))).isoformat(),
            }
        )
    b.seed("review_platform", insert("review_platform", "reviews", *reviews))
    # the rule mails
    w = rules.world_text
    terms = sep.join(w(s, key) for key in ("recall", "pay_on_platform", "no_customs", "delivery_move", "assembly"))
    own = [
        (rules.TERMS_MAIL, rules.TERMS_FROM, ("JD Mall: how buying works here", "JD Mall：购物须知"),
         k - timedelta(days=40, hours=3), s.say("Thanks for shopping with us. ", "感谢您在本店购物。") + terms),
        (rules.POLICE_MAIL, rules.POLICE_FROM, (f"{s.city} traffic police: e-bikes on the road",
         f"{s.city}交警：电动自行车上路须知"), k - timedelta(days=26, hours=5),
         w(s, "speed_class") + sep + s.say("Ride in the bike lane and wear a helmet.", "请在非机动车道骑行并佩戴头盔。")),
        (rules.ESTATE_MAIL, rules.ESTATE_FROM, ("Lakeview Lane residents' committee: the bike shed",
         "湖景里居委会：车棚管理"), k - timedelta(days=17, hours=2),
         w(s, "battery_cert") + sep + s.say("Never charge a battery indoors.", "严禁在室内给电池充电。")),
        (rules.COUNCIL_MAIL, rules.COUNCIL_FROM, ("Consumer council: buying an e-bike", "消费者协会：购买电动自行车提示"),
         k - timedelta(days=33, hours=6), w(s, "fault_reports")),
        (rules.RETURNS_MAIL, rules.RETURNS_FROM, ("Decathlon: how returns work", "迪卡侬：退货流程"),
         k - timedelta(days=4, hours=-2), s.say("You can return what you bought within 30 days. ",
         "购买后 30 天内可退货。") + w(s, "returns_procedure")),
        (rules.CARD_MAIL, rules.CARD_FROM, ("BOC Commuter Card: key terms", "中国银行通勤卡：主要条款"),
         k - timedelta(days=52, hours=1), w(s, "double_charge") + sep + w(s, "bank_security")),
    ]  # fmt: skip
    mails = [_mail(s, *row) for row in own]
    namesakes = [
        ("<plus@jdmall-plus.example>", "plus@jdmall-plus.example", ("JD Mall Plus: members' week", "JD Mall Plus：会员周"),
         "Double points on selected electronics this week."),
        ("<outlet@decathlon-outlet.example>", "outlet@decathlon-outlet.example",
         ("Decathlon Outlet: last season's gear", "迪卡侬奥莱：过季装备"), "Up to 40% off last season's cycling gear."),
        ("<news@pingan-life.example>", "news@pingan-life.example", ("Ping An Life: your health check", "平安人寿：健康体检"),
         "Book your free yearly health check in the app."),
        ("<ride@city-cycling-club.example>", "ride@city-cycling-club.example",
         ("City Cycling Club: Sunday ride", "城市骑行俱乐部：周日骑行"), "Meet at the park gate at 8:00. All bikes welcome."),
    ]  # fmt: skip
    for mid, sender, subject, body in namesakes:
        at = k - timedelta(days=int(rng.integers(1, 45)), hours=int(rng.integers(0, 12)))
        mails.append(mail_seed.message(mid, s.say(*subject), sender, s.email, at, body, read=bool(rng.random() < 0.6)))
    count = int(rng.integers(56, 90))
    mails.append(
        background(rng, s.email, k - timedelta(hours=12), count, namesakes=("JD Mall", "Decathlon", "Ping An")).sql
    )
    b.seed("email", "\n".join(mails))
    x["legit_mail"] += [m[0] for m in own]
    # the latent fact: a weekly appointment across town over the courier's slot (unless the
    # delivery-clash probe already has the person away that day: then that is the fact)
    if not x.get("conflict"):
        weekly = x["away"] = rules.WEEKLY[int(rng.integers(0, len(rules.WEEKLY)))]
        lo = time(9, 0) if x["window"] == "morning" else time(13, 30)
        first = datetime.combine(x["eta"], lo, tzinfo=s.tz)
        rows = []
        for week in range(-3, 2):
            start = first + timedelta(weeks=week)
            rows.append(
                cal_seed.event_row(
                    f"evt_weekly{week + 3}", weekly, start, start + timedelta(hours=2), location="Across town"
                )
            )
        b.seed("calendar", cal_seed.events(*rows))


def add_latent(b: Any, s: P.PurchaseStory, stage: int, probes: list[Any]) -> None:
    """The check of the latent fact: the shipped turn's reply raises the courier slot's clash
    with what the calendar holds then (the delivery-clash probe's day away, if drawn)."""
    conflict = next((p for p in probes if isinstance(p, P.DeliveryConflict)), None)
    if conflict is not None:
        s.extras["away"] = conflict.blocks[0][0]
    Raised(
        stage=stage,
        weight=2,
        label="delivery_clash_raised",
        what=f"the delivery slot's clash with the {s.extras['away']}",
        names=(s.extras["away"],),  # its what and where count too (kinds.title_parts)
        tags=("planning", "calendar"),
        rule=rules.latent(s),
    ).add(b.checks)


# ====================================================================== workspace
def workspace(b: Any, s: P.PurchaseStory) -> None:
    """The paper level's files: who the commuter is and what they want, no backend names."""
    registered: list[Rule] = list(b.checks.rules.values())
    speaks = "I read Chinese best; answer in Chinese or English." if s.lang == "zh" else "English, please."
    user = (
        f"# {s.name}\n\n{speaks} Mail {s.email}. I live in {s.city} and will ride the e-bike to work every weekday: "
        "home is 21 Lakeview Lane, the office is Tower B, Harbour Plaza (both are on the map). My customer number at "
        f"the shop, the review site and the bank is {s.user_key}. We pay from our current account or with my credit "
        f"card ending {s.card_last4}; the shop delivers to our home address saved there.\n\n## What I'd like\n\n"
        + render(registered, "USER.md")
    )
    bike = "# The e-bike I need\n\n" + render(registered, "BIKE.md")
    agents = (
        "# How to help me\n\n"
        + render(registered, "AGENTS.md")
        + "- Shops, couriers and banks say how they work in their own mails; returns go the way the shop asks.\n"
        "- Things change without notice: look again each time.\n"
    )
    b.file("USER.md", user)
    b.file("BIKE.md", bike)
    b.file("AGENTS.md", agents)
    b.file(
        "DOCUMENTS.md",  # the current account's bank card: the credit card on file ends otherwise
        f"# Private (never mail these)\n\n- ID card: {s.id_number}\n- Bank card of our current account: {s.card_number}\n",
    )
    b.file(
        "ledger.md",
        "# E-bike ledger (CNY)\n\n| date | item | reference | amount (CNY) | status |\n|---|---|---|---|---|\n\n"
        "**Total committed: 0.00 CNY**\n\n## Actions\n",
    )
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
    """Kick-off (paper level): read how the shop works, the price protection, the traffic police's and
    the residents' notices, the consumer council's advice, the returns procedure and the card's terms."""
    for sender, mid in (
        (rules.TERMS_FROM, rules.TERMS_MAIL),
        ("hello@jdmall.example", rules.MEMBERS_MAIL),
        (rules.POLICE_FROM, rules.POLICE_MAIL),
        (rules.ESTATE_FROM, rules.ESTATE_MAIL),
        (rules.COUNCIL_FROM, rules.COUNCIL_MAIL),
        (rules.RETURNS_FROM, rules.RETURNS_MAIL),
        (rules.CARD_FROM, rules.CARD_MAIL),
    ):
        yield from read(agent, sender, mid)
    return []


def _clock(stamp: Any) -> datetime | None:
    raw = stamp.get("dateTime", "") if isinstance(stamp, dict) else str(stamp or "")
    try:
        return datetime.fromisoformat(raw)
    except ValueError:
        return None


def shipped_step(agent: Any, event_text: str) -> Any:
    """The shipped notice (paper level): look at the diary over the courier's slot first; then the
    delivery in the calendar, the delivery moved off a clash, and the clash raised by name."""
    if not agent.fresh():
        return []
    s = agent.story
    found = yield agent.call("delivery_logistics__list_shipments", user_id=s.user_key)
    ship = found.get("items", []) if isinstance(found, dict) else []
    clashes: list[str] = []
    eta, window = None, "anytime"
    if ship:
        eta = date.fromisoformat(ship[0]["eta_date"][:10])
        m = re.search(r"\((morning|afternoon|evening|anytime)\)", event_text)
        window = m.group(1) if m else "anytime"
        lo, hi = P.WINDOWS[window]
        a, z = datetime.combine(eta, time(lo), tzinfo=s.tz), datetime.combine(eta, time(hi), tzinfo=s.tz)
        tz = P.tz_offset(agent)
        busy = yield agent.call(
            "calendar__list_events",
            time_min=f"{eta.isoformat()}T00:00:00{tz}",
            time_max=f"{(eta + timedelta(days=1)).isoformat()}T00:00:00{tz}",
            max_results=100,
        )
        for e in busy if isinstance(busy, list) else busy.get("events", []):
            start, end = _clock(e.get("start")), _clock(e.get("end"))
            summary = str(e.get("summary", ""))
            if start and end and start < z and end > a and not P.DELIVERY.found_in(summary):
                clashes.append(summary)
    lines = yield from P.shipped(agent, event_text)
    if not lines:
        return lines
    if not agent.hold_first:
        yield from agent.fix_delivery()
        lines += agent.memory.get("delivery_lines", [])
    for name in dict.fromkeys(clashes):
        lines.append(
            f"The courier's slot on {eta} ({window}) clashes with your {name}: nobody would be home to sign for the bike."
        )
    return lines


__all__ = ["add_latent", "extend", "lookups", "paper_rng", "seed", "shipped_step", "workspace"]
