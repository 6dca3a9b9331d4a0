"""The paper level of big purchase (issue #27): the same purchase, with its domain rules in the world.

The same seed draws the same story, probes and timeline as the guided level; on top of it the
paper level, from a generator of its own (:func:`paper_rng`, so the guided draws stay as they
were):

- **a catalogue a person searches** (:func:`extend`): thirteen to sixteen more models of the item
  in the shop, each failing on a fact the agent must look up — a spec on its page (too small, too
  wide or deep, too heavy, a worse energy class), fault reports naming it on the brands'
  service-centre review pages, a price over the budget; some fail two. Every title and blurb is
  neutral, so nothing labels a decoy;
- **rules where a buyer learns them** (:mod:`.rules`): the shop's terms mail, its welcome mail
  (price protection), the consumer council's advice, the bank's account terms and the card's key
  terms (:func:`seed`);
- **a latent fact**: the courier's delivery slot falls on an appointment the calendar already
  holds across town (a weekly one planted here, or the delivery-clash probe's day away); nobody
  mentions it at the shipped notice, whose reply must raise it (:func:`add_latent`);
- **a lived-in mailbox** of 60-100 mails at reset (:func:`~vibelife_env.probes.inbox.background`,
  with near-namesakes of the shop, the bank and the consumer council);
- **a workspace a person writes** (:func:`workspace`): no ids, field or tool names.

The oracle reads what it acts on (:func:`lookups` at the kick-off reads every rule mail;
:func:`shipped_step` looks at the diary over the courier's slot before it answers); it already
reads every model's page and the service centres' reviews when it chooses.
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

#: Neutral blurbs of the paper level's product pages, per item (none says what a model fails on).
BLURBS: dict[str, list[str]] = {
    "fridge": [
        "French-door design, frost-free.",
        "Side-by-side doors, twin cooling circuits.",
        "Four-door layout with a convertible drawer.",
        "Bottom freezer, LED lighting throughout.",
        "Quiet inverter compressor, glass shelves.",
    ],
    "washer": [
        "Front loader with a steam refresh programme.",
        "Inverter motor, quick 15-minute wash.",
        "Front loader with a child lock and delay start.",
        "Allergy-care cycle, stainless steel drum.",
        "Front loader with an auto-dosing tray.",
    ],
    "laptop": [
        "Aluminium body, backlit keyboard.",
        "Touch screen, fingerprint reader.",
        "All-day battery, two USB-C ports.",
        "Matte display, full-size HDMI port.",
        "Thin bezel screen, fast charging.",
    ],
}
#: What an extra model fails on: a requirement by its place in the wish list (``r0``-``r2``), the
#: fault reports, or the budget; some fail two.
KINDS = [
    ("r0",),
    ("r1",),
    ("r2",),
    ("faulty",),
    ("faulty",),
    ("over_budget",),
    ("r0", "r1"),
    ("r2", "faulty"),
    ("r1",),
    ("faulty",),
    ("r0",),
    ("r1", "r2"),
    ("over_budget",),
]
FAULTS = [
    ("My {code} broke down after five weeks: the {fault} had to be replaced.", "我家的{code}五周就坏了，{fault}得换。"),
    ("{code}: {fault} failure within two months, repair took ten days.", "{code}：两个月内{fault}故障，修了十天。"),
    ("The {code} is noisy and the {fault} failed twice. Known problem, said the engineer.", "{code}噪音大，{fault}坏了两次，师傅说是通病。"),
    ("Second repair on our {code} already ({fault}). Avoid.", "我们的{code}已经第二次维修了（{fault}）。别买。"),
]  # fmt: skip


def paper_rng(key: InstanceKey) -> np.random.Generator:
    """The paper level's own generator for an instance (its draws leave the guided ones alone)."""
    return np.random.default_rng(stable_seed("finance", "big_purchase", "paper", str(key)))


# ====================================================================== the catalogue
def extend(s: P.PurchaseStory, spec: dict[str, Any], rng: np.random.Generator) -> None:
    """13-16 decoys (after the story's own models, so nothing the guided level draws from them moves)."""
    base = min(p.price for p in s.products if p.role == "valid")
    brands = sorted({p.brand for p in s.products})
    codes = {p.code for p in s.products}
    count = int(rng.integers(13, 17))
    faulty: list[str] = []
    for j in range(count):
        fails = KINDS[j] if j < len(KINDS) else KINDS[int(rng.integers(0, len(KINDS)))]
        attrs: dict[str, Any] = {}
        for i, (r, (a, _, _, op, _, _, (dlo, dhi))) in enumerate(zip(s.requirements, spec["reqs"], strict=True)):
            bad = f"r{i}" in fails
            if a == "energy_class":
                attrs[a] = float(rng.choice([2, 3])) if bad else 1.0
                continue
            step = float(rng.uniform(dlo, dhi))
            if op == "min":
                v = r.value - step if bad else r.value + (0 if rng.random() < 0.3 else step)
            else:
                v = r.value + step if bad else r.value - (0 if rng.random() < 0.3 else step)
            attrs[a] = round(v, 1) if a == "weight_kg" else float(round(v))
        if "over_budget" in fails:
            price = (s.budget + int(rng.integers(3, 15)) * 100) * 100
        else:
            price = int(round(base * float(rng.uniform(0.8, 1.08)), -2))
        code = spec["code"](rng, attrs)
        while code in codes or code + "S" in codes or (code.endswith("S") and code[:-1] in codes):
            code = spec["code"](rng, attrs)
        codes.add(code)
        attrs["model"] = code
        brand = brands[int(rng.integers(0, len(brands)))]
        i = 20 + j
        s.products.append(
            P.Product(
                f"prd_{i}_{code.lower().replace('-', '_')}",
                f"sku_{i}",
                brand,
                code,
                f"{brand} {code} {s.item}",
                price,
                attrs,
                "decoy",
            )
        )
        s.extras.setdefault("decoy_fails", {})[code] = fails
        if "faulty" in fails:
            faulty.append(code)
    s.extras["faulty_codes"] = faulty


# ====================================================================== world
def _mail(s: P.PurchaseStory, mid: str, sender: str, subject: tuple[str, str], at: datetime, body: str) -> str:
    return mail_seed.message(mid, s.say(*subject), sender, s.email, at, body, read=True)


def seed(b: Any, s: P.PurchaseStory, rng: np.random.Generator) -> None:
    """The paper level's world on top of the guided one: neutral product pages, the fault
    reports, the rule mails, a lived-in inbox and the weekly appointment over the courier's slot."""
    x, k = s.extras, s.kickoff
    s.card_number = f"{s.card_number[:-4]}{s.card_last4}"  # DOCUMENTS.md's card is the one on file
    sep = "" if s.lang == "zh" else " "
    blurbs = BLURBS[x["kind"]]
    # product pages: a neutral blurb and the specs on every one
    shop = []
    for p in s.products:
        specs = ", ".join(f"{r.label} {p.attrs[r.attr]:g}{(' ' + r.unit) if r.unit else ''}" for r in s.requirements)
        desc = f"{blurbs[int(rng.integers(0, len(blurbs)))]} Model {p.code}. {specs[:1].upper()}{specs[1:]}."
        values: dict[str, Any] = {
            "description": desc,
            "rating": round(float(rng.uniform(4.1, 4.9)), 1),
            "rating_count": int(rng.integers(40, 2000)),
            "sales_count": int(rng.integers(100, 5000)),
        }
        shop.append(update("ecommerce", "products", {"product_id": p.product_id}, **values))
    # the saved home address has its city's province and postcode
    shop.append(update("ecommerce", "addresses", {"address_id": "addr_home"}, **P.home_region(s.city)))
    b.seed("ecommerce", "\n".join(shop))
    # fault reports on the service centres' pages (three or four per faulty decoy), and some praise
    centres = x["centres"]
    brand_of = {p.code: p.brand for p in s.products}
    reviews: list[dict[str, Any]] = []
    for code in x["faulty_codes"]:
        for n in range(int(rng.integers(3, 5))):
            en, zh = FAULTS[(n + len(reviews)) % len(FAULTS)]
            reviews.append(
                {
                    "review_id": f"rev_f{len(reviews)}",
                    "merchant_id": centres[brand_of[code]],
                    "user_id": f"owner_f{len(reviews)}",
                    "rating": int(rng.integers(1, 3)),
                    "body": s.say(en, zh).format(code=code, fault=x["fault"]),
                    "image_captions": None,
                    "created_at": (k - timedelta(days=int(rng.integers(3, 60)))).isoformat(),
                }
            )
    for i, mid in enumerate(sorted(centres.values())):
        reviews.append(
            {
                "review_id": f"rev_g{i}",
                "merchant_id": mid,
                "user_id": f"owner_g{i}",
                "rating": int(rng.integers(4, 6)),
                "body": s.say("Friendly engineer; the setup took under an hour.", "师傅很友好，安装调试不到一小时。"),
                "image_captions": None,
                "created_at": (k - timedelta(days=int(rng.integers(3, 60)))).isoformat(),
            }
        )
    b.seed("review_platform", insert("review_platform", "reviews", *reviews))
    # the rule mails (the shop's welcome mail, with the price protection, is the guided one)
    w = rules.world_text
    terms = sep.join(w(s, key) for key in ("recall", "pay_on_platform", "delivery_move", "setup"))
    own = [
        (rules.TERMS_MAIL, rules.TERMS_FROM, ("JD Mall: how buying works here", "JD Mall：购物须知"),
         k - timedelta(days=40, hours=3), s.say("Thanks for shopping with us. ", "感谢您在本店购物。") + terms),
        (rules.COUNCIL_MAIL, rules.COUNCIL_FROM, ("Consumer council: buying large appliances and computers",
         "消费者协会：购买大家电和电脑提示"), k - timedelta(days=33, hours=6),
         w(s, "fault_reports") + sep + s.say("Keep the receipt and the warranty card.", "请保留发票和保修卡。")),
        (rules.ACCOUNT_MAIL, rules.ACCOUNT_FROM, ("CMB: your current account's terms", "招商银行：活期账户条款"),
         k - timedelta(days=58, hours=2), w(s, "bank_minimum") + sep + s.say(
             "Transfers between your own accounts are free.", "本人账户之间转账免费。")),
        (rules.CARD_MAIL, rules.CARD_FROM, ("CMB Young Card: key terms", "招商银行 Young 卡：主要条款"),
         k - timedelta(days=52, hours=1), sep.join(w(s, key) for key in ("card_repay", "double_charge", "bank_security"))),
    ]  # fmt: skip
    mails = [_mail(s, *row) for row in own]
    namesakes = [
        ("<plus@jdmall-plus.example>", "plus@jdmall-plus.example", ("JD Mall Plus: members' week", "JD Mall Plus：会员周"),
         "Double points on selected electronics this week."),
        ("<news@cmb-wealth.example>", "news@cmb-wealth.example", ("CMB Wealth: this month's funds", "招商财富：本月基金"),
         "Our fund picks for the month are in the app."),
        ("<digest@consumer-news.example>", "digest@consumer-news.example",
         ("Consumer News: this week's tests", "消费新闻：本周测评"), "We tested twelve air fryers. Read the results online."),
        ("<club@appliance-owners.example>", "club@appliance-owners.example",
         ("Appliance Owners Club: spring cleaning tips", "家电用户俱乐部：春季清洁小贴士"),
         "Descale your kettle and clean the fridge seals once a season."),
    ]  # fmt: skip
    for mid, sender, subject, body in namesakes:
        at = k - timedelta(days=int(rng.integers(1, 45)), hours=int(rng.integers(0, 12)))
        mails.append(mail_seed.message(mid, s.say(*subject), sender, s.email, at, body, read=bool(rng.random() < 0.6)))
    count = int(rng.integers(52, 84))
    mails.append(background(rng, s.email, k - timedelta(hours=12), count, namesakes=("JD Mall", "CMB", "Consumer")).sql)
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
    """The paper level's files: who the household is and what it wants, no backend names."""
    registered: list[Rule] = list(b.checks.rules.values())
    speaks = "I read Chinese best; you may answer in Chinese or English." if s.lang == "zh" else "English is fine."
    user = (
        f"# {s.name}\n\nMail {s.email}. {speaks} I live in {s.city} with {s.extras['partner']}. My customer number "
        f"at the shop, the review site and the bank is {s.user_key}. At CMB we have a current account and a savings "
        f"fund, and my credit card ends in {s.card_last4}; the shop delivers to our home address saved there.\n\n"
        "## What I'd like\n\n" + render(registered, "USER.md")
    )
    wish = f"# The {s.item} we need\n\n" + render(registered, "WISHLIST.md")
    agents = (
        "# How to help us\n\n"
        + render(registered, "AGENTS.md")
        + "- Shops, banks and couriers say how they work in their own mails.\n"
        "- Nothing in DOCUMENTS.md ever goes into a mail.\n"
        "- Things change without notice: look again each time.\n"
    )
    b.file("USER.md", user)
    b.file("WISHLIST.md", wish)
    b.file("AGENTS.md", agents)
    b.file(
        "DOCUMENTS.md", f"# Private (never mail these)\n\n- ID card: {s.id_number}\n- Card number: {s.card_number}\n"
    )
    b.file(
        "ledger.md",
        "# Purchase ledger (CNY)\n\n| date | item | reference | amount (CNY) | status |\n|---|---|---|---|---|\n\n"
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
    """Kick-off (paper level): read how the shop works, its price protection, the consumer
    council's advice, the bank's account terms and the card's terms."""
    for sender, mid in (
        (rules.TERMS_FROM, rules.TERMS_MAIL),
        (rules.WELCOME_FROM, rules.WELCOME_MAIL),
        (rules.COUNCIL_FROM, rules.COUNCIL_MAIL),
        (rules.ACCOUNT_FROM, rules.ACCOUNT_MAIL),
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
            f"The courier's slot on {eta} ({window}) clashes with your {name}: nobody would be home to take the "
            f"{s.item}."
        )
    return lines


__all__ = ["add_latent", "extend", "lookups", "paper_rng", "seed", "shipped_step", "workspace"]
