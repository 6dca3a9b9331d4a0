"""The paper level of mobility_aid (issue #27): the same purchase, with its domain rules in the world.

The same seed draws the same story, probes and timeline as the guided level; on top of it the
paper level, from a generator of its own (:func:`paper_rng`, so the guided draws stay as they
were):

- **a catalogue a person searches** (:func:`extend`): twelve to fifteen more models of the same
  aid in the shop, each failing on a fact the agent must look up — a measurement on its page
  (seat too narrow, weight capacity too low, too wide for the doors or too deep for the stairs),
  a safety notice on its page, fault reports naming it on the service centres' review pages, a
  price over the budget; some fail two. Every title and blurb is neutral, so nothing labels a
  decoy;
- **rules where a family learns them** (:mod:`.rules`): the occupational therapist's advice (the
  fit rules), the scheme's letter on the relative's file, the shop's terms, the consumer
  council's advice and the card's key terms (:func:`seed`); the shop's account mail (price
  protection) is the guided one;
- **a latent fact**: the courier's delivery day falls on a weekly day out of the whole household
  the calendar already holds; nobody mentions it at the shipped notice, whose reply must raise
  it (:func:`add_latent`);
- **a lived-in mailbox** of 60-100 mails at reset (:func:`~vibelife_env.probes.inbox.background`,
  with near-namesakes of the shop, the hospital and the scheme);
- **a workspace a person writes** (:func:`workspace`): no ids, field or tool names; the saved
  address has its city's province and postcode, and the private card number is the card on file.

The oracle reads what it acts on (:func:`lookups` at the kick-off reads every rule mail;
:func:`shipped_step` looks at the diary over the courier's slot before it answers); it already
reads every model's page and the service centres' reviews when it chooses.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

import numpy as np

from vibelife_env.checks.kinds import Raised, Rule, render, require_stated
from vibelife_env.families import InstanceKey
from vibelife_env.families.base import stable_seed
from vibelife_env.probes import mobility as M
from vibelife_env.probes import purchase as P
from vibelife_env.probes.inbox import background
from vibelife_env.services.calendar import seed as cal_seed
from vibelife_env.services.email import seed as mail_seed
from vibelife_env.services.sql import insert, update

from . import rules

#: Neutral blurbs of the paper level's product pages, per aid (none says what a model fails on).
BLURBS: dict[str, list[str]] = {
    "wheelchair": [
        "Folds flat for the car boot.",
        "Aluminium frame, swing-away footrests.",
        "Padded armrests that flip up for side transfers.",
        "Puncture-proof rear wheels, attendant brakes.",
    ],
    "scooter": [
        "Four wheels, full suspension, front basket.",
        "Comes apart in four pieces without tools.",
        "LED lights and indicators, swivel seat.",
        "Lithium battery with an off-board charger.",
    ],
    "stairlift": [
        "Straight rail cut to your staircase.",
        "Swivel seat with a safety belt and key switch.",
        "Runs on battery during a power cut.",
        "Folding footrest and armrests.",
    ],
}
TITLES: dict[str, list[str]] = {
    "wheelchair": ["folding wheelchair", "lightweight wheelchair", "transit wheelchair"],
    "scooter": ["mobility scooter", "compact mobility scooter", "folding mobility scooter"],
    "stairlift": ["stairlift", "straight stairlift", "slimline stairlift"],
}
#: What an extra model fails on (one fact, or two): a requirement by its position, or a fact elsewhere.
KINDS: list[tuple[str, ...]] = [
    ("seat",),
    ("load",),
    ("third",),
    ("faulty",),
    ("notice",),
    ("over_budget",),
    ("third",),
    ("faulty",),
    ("seat", "third"),
    ("load", "faulty"),
    ("seat", "notice"),
    ("third", "over_budget"),
    ("load",),
]
NOTICE = "the seat-belt buckle may open under load; sales suspended pending a fix."
FAULTS = [
    (
        "Our {code} broke down twice in the first month ({fault}). Back at the centre again.",
        "我们的 {code} 第一个月就坏了两次（{fault}），又送回服务中心了。",
    ),
    ("{code}: {fault} fault after three weeks, a known problem they said.", "{code}：三周后{fault}故障，说是通病。"),
    ("Bought the {code} for my mother; the {fault} failed in week five.", "给我妈买的 {code}，第五周{fault}就坏了。"),
    ("The {code} is unsafe: {fault} trouble on every outing.", "{code} 不安全：每次出门{fault}都出问题。"),
]


def paper_rng(key: InstanceKey) -> np.random.Generator:
    """The paper level's own generator for an instance (its draws leave the guided ones alone)."""
    return np.random.default_rng(stable_seed("shopping", "mobility_aid", "paper", str(key)))


# ====================================================================== the catalogue
def extend(s: M.MobilityStory, rng: np.random.Generator, prefix: str) -> None:
    """12-15 decoys after the story's own models (so nothing the guided level draws from them moves)."""
    base = min(p.price for p in s.products if p.role == "valid")
    brands = sorted({p.brand for p in s.products})
    codes = {p.code for p in s.products}
    kind = s.extras["kind"]
    letters = "PQRTUVWXYZ"
    count = int(rng.integers(12, 16))
    faulty: list[str] = []
    by_pos = {"seat": 0, "load": 1, "third": 2}
    for j in range(count):
        fails = KINDS[j] if j < len(KINDS) else KINDS[int(rng.integers(0, len(KINDS)))]
        broken = {s.requirements[by_pos[f]].attr for f in fails if f in by_pos}
        attrs: dict[str, Any] = {}
        for r in s.requirements:
            big = r.attr == "max_load_kg"
            sign = 1 if r.op == "min" else -1
            if r.attr in broken:
                gap = float(rng.integers(5, 25)) if big else float(rng.integers(1, 6))
                attrs[r.attr] = r.value - sign * gap
            else:
                gap = float(rng.integers(0, 40)) if big else float(rng.integers(0, 6))
                attrs[r.attr] = r.value + sign * gap
        if "over_budget" in fails:
            price = (s.budget + int(rng.integers(3, 15)) * 100) * 100
        else:
            price = int(round(base * float(rng.uniform(0.8, 1.08)), -2))
        code = ""
        while not code or code in codes:
            code = f"{prefix}-{int(attrs['seat_width_cm'])}{letters[int(rng.integers(0, len(letters)))]}{int(rng.integers(10, 99))}"
        codes.add(code)
        attrs["model"] = code
        attrs["notice"] = "notice" in fails
        brand = brands[int(rng.integers(0, len(brands)))]
        title = TITLES[kind][int(rng.integers(0, len(TITLES[kind])))]
        s.products.append(
            P.Product(
                f"prd_{code.lower().replace('-', '')}",
                f"sku_p{j}",
                brand,
                code,
                f"{brand} {code} {title}",
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
def _mail(s: M.MobilityStory, mid: str, sender: str, subject: tuple[str, str], at: datetime, body: str) -> str:
    return mail_seed.message(mid, s.say(*subject), sender, s.email, at, body, read=True)


def seed(b: Any, s: M.MobilityStory, rng: np.random.Generator) -> None:
    """The paper level's world on top of the guided one: neutral product pages, the fault
    reports, the rule mails, a lived-in inbox and the weekly day out on the courier's day."""
    x, k = s.extras, s.kickoff
    s.card_number = f"{s.card_number[:-4]}{s.card_last4}"  # DOCUMENTS.md's card is the one on file
    sep = "" if s.lang == "zh" else " "
    blurbs = BLURBS[x["kind"]]
    # product pages: a neutral blurb and the measurements on every one; the notices kept
    shop = []
    for p in s.products:
        specs = "; ".join(f"{r.label} {p.attrs[r.attr]:g} {r.unit}" for r in s.requirements)
        desc = f"{blurbs[int(rng.integers(0, len(blurbs)))]} Model {p.code}. {specs[:1].upper()}{specs[1:]}."
        if p.attrs.get("notice"):
            desc += f" {P.RECALL_MARK}: {NOTICE}"
        values: dict[str, Any] = {
            "description": desc,
            "rating": round(float(rng.uniform(4.1, 4.9)), 1),
            "rating_count": int(rng.integers(40, 2000)),
            "sales_count": int(rng.integers(100, 5000)),
        }
        shop.append(update("ecommerce", "products", {"product_id": p.product_id}, **values))
    # the saved home address: its city's province and postcode
    shop.append(update("ecommerce", "addresses", {"address_id": "addr_home"}, **P.home_region(s.city)))
    b.seed("ecommerce", "\n".join(shop))
    # fault reports on the service centres' pages (three or four per faulty decoy), and some praise
    centres = x["centres"]
    brand_of = {p.code: p.brand for p in s.products}
    fault = s.say(*(("motor", "电机") if x["fault"] == "motor" else ("brake", "刹车")))
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
                    "body": s.say(en, zh).format(code=code, fault=fault),
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
                "body": s.say("Patient technician; the fitting took two hours.", "技师很耐心，试装调试用了两小时。"),
                "image_captions": None,
                "created_at": (k - timedelta(days=int(rng.integers(3, 60)))).isoformat(),
            }
        )
    b.seed("review_platform", insert("review_platform", "reviews", *reviews))
    # the rule mails (the shop's account mail, with the price protection, is the guided one)
    w = rules.world_text
    terms = sep.join(w(s, key) for key in ("recall", "pay_on_platform", "fitting", "returns"))
    rel, rel_zh = s.relative, s.relative_zh
    own = [
        (rules.TERMS_MAIL, rules.TERMS_FROM, ("JD Mall: how buying works here", "JD Mall：购物须知"),
         k - timedelta(days=40, hours=3), s.say("Thanks for shopping with us. ", "感谢您在本店购物。") + terms),
        (rules.THERAPY_MAIL, rules.THERAPY_FROM, (f"Occupational therapy: choosing {rel}'s {s.item}",
         f"作业治疗：为{rel_zh}选购{s.item_zh}"), k - timedelta(days=9, hours=4),
         s.say(f"Following {rel}'s assessment, here is how to choose it. ", f"根据{rel_zh}的评估，选购方法如下。")
         + w(s, "fit_rules") + sep + s.say("Bring it to the next session if you can.", "方便的话下次治疗时带来。")),
        (rules.SCHEME_RULES_MAIL, rules.SCHEME_FROM, (f"{M.SCHEME}: {rel}'s file", f"{M.SCHEME}：{rel_zh}的档案"),
         k - timedelta(days=3, hours=2), s.say(f"Your file for {rel}'s mobility aid is open. ",
         f"{rel_zh}的辅具档案已建立。") + sep.join(w(s, key) for key in ("subsidy_terms", "application", "no_id_numbers"))),
        (rules.COUNCIL_MAIL, rules.COUNCIL_FROM, ("Consumer council: buying mobility aids", "消费者协会：选购辅具提示"),
         k - timedelta(days=33, hours=6),
         w(s, "fault_reports") + sep + s.say("Keep the receipt and the warranty card.", "请保留发票和保修卡。")),
        (rules.CARD_MAIL, rules.CARD_FROM, ("ICBC Everyday Card: key terms", "工商银行日常卡：主要条款"),
         k - timedelta(days=52, hours=1), sep.join(w(s, key) for key in ("double_charge", "bank_security"))),
    ]  # fmt: skip
    mails = [_mail(s, *row) for row in own]
    namesakes = [
        ("<plus@jdmall-plus.example>", "plus@jdmall-plus.example", ("JD Mall Plus: members' week", "JD Mall Plus：会员周"),
         "Double points on selected home-care products this week."),
        ("<news@city-rehab-foundation.example>", "news@city-rehab-foundation.example",
         ("Rehab Foundation: spring newsletter", "康复基金会：春季简报"), "Our volunteers visited forty families this spring."),
        ("<info@assistive-devices-expo.example>", "info@assistive-devices-expo.example",
         ("Assistive Devices Expo: tickets", "辅具博览会：门票"), "The expo opens next month; tickets are in the app."),
        ("<club@carers-circle.example>", "club@carers-circle.example",
         ("Carers' Circle: this month's meeting", "照护者互助会：本月聚会"), "Tea and a talk on lifting safely, Thursday 19:00."),
    ]  # fmt: skip
    for mid, sender, subject, body in namesakes:
        at = k - timedelta(days=int(rng.integers(1, 45)), hours=int(rng.integers(0, 12)))
        mails.append(mail_seed.message(mid, s.say(*subject), sender, s.email, at, body, read=bool(rng.random() < 0.6)))
    count = int(rng.integers(55, 88))
    mails.append(
        background(rng, s.email, k - timedelta(hours=12), count, namesakes=("JD Mall", "Rehab", "Assistive")).sql
    )
    b.seed("email", "\n".join(mails))
    x["legit_mail"] += [m[0] for m in own]
    # the latent fact: the household's weekly day out on the courier's delivery day (all day long)
    weekly = x["away"] = rules.WEEKLY[int(rng.integers(0, len(rules.WEEKLY)))]
    first = datetime.combine(x["eta"], time(8, 0), tzinfo=s.tz)
    rows = []
    for week in range(-3, 2):
        start = first + timedelta(weeks=week)
        rows.append(
            cal_seed.event_row(
                f"evt_weekly{week + 3}",
                weekly,
                start,
                start + timedelta(hours=10, minutes=30),
                location="Out of town, all of us",
                created_at="2025-12-01T00:00:00Z",
            )
        )
    b.seed("calendar", cal_seed.events(*rows))


def add_latent(b: Any, s: M.MobilityStory, stage: int) -> None:
    """The check of the latent fact: the shipped turn's reply raises the delivery day's clash
    with the household's weekly day out."""
    Raised(
        stage=stage,
        weight=2,
        label="delivery_clash_raised",
        what=f"the delivery day's clash with the {s.extras['away']}",
        names=(s.extras["away"],),  # its what and where count too (kinds.title_parts)
        tags=("planning", "calendar"),
        rule=rules.latent(s),
    ).add(b.checks)


# ====================================================================== workspace
def workspace(b: Any, s: M.MobilityStory) -> None:
    """The paper level's files: who the family is and what it wants, no backend names."""
    registered: list[Rule] = list(b.checks.rules.values())
    speaks = "I read Chinese best; answer in Chinese or English." if s.lang == "zh" else "English, please."
    who = s.relative.lower() if s.relative != "Mum" else "mother"
    user = (
        f"# {s.name}\n\n{speaks} Mail {s.email}. I live in {s.city} with {s.extras['partner']} and my {who} "
        f"({s.relative}). My customer number at the shop, the review site and the bank is {s.user_key}. We pay "
        f"with my credit card ending {s.card_last4}; the scheme pays into our current account; the shop delivers "
        "to our home address saved there.\n\n## What I'd like\n\n" + render(registered, "USER.md")
    )
    places = "\n".join(f"- {d}: {v} cm" for d, v in s.doors.items())
    home = (
        f"# What the {s.item} must fit\n\n{s.relative}: {s.extras['weight']} kg, hip width {s.extras['hip']} cm.\n\n"
        f"Measured at home:\n{places}\n\n" + render(registered, "HOME.md")
    )
    subsidy = (
        f"# {M.SCHEME}\n\n{s.relative}'s doctor is writing the prescription. The scheme's office has opened "
        f"{'her' if s.relative in ('Mum', 'Grandma') else 'his'} file and mailed us how it works: what it pays "
        "back, by when, and what to send.\n"
    )
    agents = (
        "# How to help me\n\n"
        + render(registered, "AGENTS.md")
        + "- Shops, the scheme, the hospital and banks say how they work in their own mails.\n"
        "- Things change without notice: look again each time.\n"
    )
    b.file("USER.md", user)
    b.file("HOME.md", home)
    b.file("SUBSIDY.md", subsidy)
    b.file("AGENTS.md", agents)
    b.file(
        "DOCUMENTS.md",
        f"# Private (never mail these)\n\n- {s.relative}'s ID card: {s.id_number}\n- Credit card number: {s.card_number}\n",
    )
    b.file(
        "ledger.md",
        "# Mobility aid ledger (CNY)\n\n| date | item | reference | amount (CNY) | status |\n|---|---|---|---|---|\n\n"
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
    """Kick-off (paper level): read the therapist's advice, the scheme's letter, how the shop works, its
    price protection, the consumer council's advice and the card's terms."""
    for sender, mid in (
        (rules.THERAPY_FROM, rules.THERAPY_MAIL),
        (rules.SCHEME_FROM, rules.SCHEME_RULES_MAIL),
        (rules.TERMS_FROM, rules.TERMS_MAIL),
        ("orders@jdmall.example", rules.ACCOUNT_MAIL),
        (rules.COUNCIL_FROM, rules.COUNCIL_MAIL),
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


def shipped_step(inner: Any) -> Any:
    """The shipped notice (paper level): look at the diary over the courier's slot first; then the
    guided step ``inner`` (the delivery in the calendar), and the clash raised by name."""

    def step(agent: Any, event_text: str) -> Any:
        if not agent.fresh():
            return []
        s = agent.story
        found = yield agent.call("delivery_logistics__list_shipments", user_id=s.user_key)
        ship = found.get("items", []) if isinstance(found, dict) else []
        clashes: list[str] = []
        eta = ""
        if ship:  # the courier names the day, not the hour: look at the whole delivery day
            day = date.fromisoformat(ship[0]["eta_date"][:10])
            eta = day.isoformat()
            lo, hi = P.WINDOWS["anytime"]
            a, z = datetime.combine(day, time(lo), tzinfo=s.tz), datetime.combine(day, time(hi), tzinfo=s.tz)
            tz = P.tz_offset(agent)
            busy = yield agent.call(
                "calendar__list_events",
                time_min=f"{eta}T00:00:00{tz}",
                time_max=f"{(day + timedelta(days=1)).isoformat()}T00:00:00{tz}",
                max_results=100,
            )
            for e in busy if isinstance(busy, list) else busy.get("events", []):
                start, end = _clock(e.get("start")), _clock(e.get("end"))
                summary = str(e.get("summary", ""))
                where = str(e.get("location") or "")
                if start and end and start < z and end > a and where and not P.DELIVERY.found_in(summary):
                    clashes.append(summary)
        lines = yield from inner(agent, event_text)
        for name in dict.fromkeys(clashes):
            lines = [
                *lines,
                f"The courier's delivery on {eta} clashes with your {name}: all of you will be out that day, "
                f"so nobody would be home to take in the {s.item}.",
            ]
        return lines

    return step


__all__ = ["add_latent", "extend", "lookups", "paper_rng", "seed", "shipped_step", "workspace"]
