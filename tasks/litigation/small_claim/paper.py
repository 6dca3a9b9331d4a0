"""The paper level of the small claim: the same claim, with its rules in the world.

The same seed draws the same story, probes and timeline as the guided level; on top of it the
paper level, from a generator of its own (:func:`paper_rng`, so the guided draws stay as they
were):

- **rules where a claimant learns them** (:mod:`.rules`, :mod:`.texts`): the city's litigation
  service centre's guide to small claims (which court, how to file, the fee and where it goes, the
  evidence, a moved hearing), the legal aid adviser's answer (which laws and judgments, how ids
  are written, the summary at the end) and the bank's security notice (:func:`seed`); the Civil
  Code's limitation period lives in legal search;
- **a latent fact**: an appointment across town in the diary over the hearing's hour; nobody
  mentions it (:func:`seed`, :func:`add_latent`);
- **a lived-in mailbox** of 60-95 mails at reset (:func:`~vibelife_env.probes.inbox.background`,
  with near-namesakes of the defendant, the bank and the court);
- **a review site of some twenty firms**: the defendant's own name at branches in other districts
  (the district of the shop the user dealt with tells them apart) and other firms of the trades;
- **a workspace a person writes** (:func:`workspace`): no ids, field or tool names.

The oracle reads what it acts on (:func:`lookups` at the kick-off: the three rule mails and the
article on the limitation period; :func:`acceptance_step`, which looks at the diary at the
hearing's hour).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import numpy as np

from vibelife_env.checks.kinds import Raised, Rule, render, require_stated
from vibelife_env.families import InstanceKey
from vibelife_env.families.base import stable_seed
from vibelife_env.probes.claim_skeleton import KINDS
from vibelife_env.probes.inbox import background
from vibelife_env.probes.legal import ClaimStory
from vibelife_env.services import sql
from vibelife_env.services.calendar import seed as cal_seed
from vibelife_env.services.email import seed as mail_seed

from . import rules, texts

#: Appointments across town that can sit over the hearing's hour: (summary, names to raise it by).
CLASHES = [
    ("Dentist appointment (root canal)", ("Dentist", "root canal")),
    ("Physiotherapy session", ("Physiotherapy", "physio")),
    ("Parent-teacher meeting at school", ("Parent-teacher meeting", "school")),
    ("Eye test at the optician", ("Eye test", "optician")),
    ("Car service at the garage", ("Car service", "garage")),
]


def paper_rng(key: InstanceKey) -> np.random.Generator:
    """The paper level's own generator for an instance (its draws leave the guided ones alone)."""
    return np.random.default_rng(stable_seed("litigation", "small_claim", "paper", str(key)))


# ====================================================================== world
def seed(b: Any, s: ClaimStory, rng: np.random.Generator) -> None:
    """The paper level's world on top of the guided one: the rule mails, a lived-in inbox, the
    review site's other firms and the appointment over the hearing's hour."""
    k, d, w = s.kickoff, s.defendant, texts.world(s)

    def joined(keys: tuple[str, ...]) -> str:
        return " ".join(w[x] for x in keys)

    own = [
        (
            texts.court_mail(s),
            f"guide@{texts.centre_domain(s)}",
            f"{s.city} courts: your guide to small claims",
            k - timedelta(days=int(rng.integers(2, 6)), hours=3),
            "Thank you for your enquiry to the litigation service centre. " + joined(texts.COURT_RULES),
        ),
        (
            texts.aid_mail(s),
            s.adviser[1],
            f"Re: claim against {d['en']}",
            k - timedelta(hours=int(rng.integers(14, 30))),
            "Thanks for your question about the claim. " + joined(texts.AID_RULES) + f" {s.adviser[0]}",
        ),
        (
            texts.BANK_MAIL,
            f"security@{texts.BANK_DOMAIN}",
            f"{texts.BANK}: keeping your account safe",
            k - timedelta(days=int(rng.integers(10, 50)), hours=2),
            joined(texts.BANK_RULES) + " If in doubt, call the number on your card.",
        ),
    ]
    mails = [mail_seed.message(mid, subj, sender, s.email, at, body, read=True) for mid, sender, subj, at, body in own]
    count = int(rng.integers(57, 85))
    names = (d["en"], texts.BANK, s.court["en"])
    mails.append(background(rng, s.email, k - timedelta(hours=2), count, namesakes=names).sql)
    b.seed("email", "\n".join(mails))
    s.extras["legit_mail"] += [m[0] for m in own]
    summary, words = CLASHES[int(rng.integers(0, len(CLASHES)))]
    s.extras["clash"] = summary
    s.extras["clash_names"] = (summary, *words)
    h: datetime = s.extras["hearing"]
    start = h - timedelta(minutes=30)
    row = cal_seed.event_row("evt_appointment", summary, start, start + timedelta(hours=2), location="Across town")
    b.seed("calendar", cal_seed.events(row))
    _merchants(b, s, rng)


#: Other firms of the trades on the review site (English, Chinese).
FIRMS = [
    *((k["en"], k["zh"]) for k in KINDS.values()),
    ("Mingjia Renovation", "名家装修"), ("Shunda Waterproofing", "顺达防水"), ("Meijia Flooring", "美家地板"),
    ("Anju Renovation", "安居装修"), ("Qingshan Painters", "青山油漆"), ("Baijia Carpentry", "百家木作"),
    ("Xinyi Dry Cleaning", "新衣干洗"), ("Baixue Laundry", "白雪洗衣"), ("Fuguiniao Leather Care", "富贵鸟皮具护理"),
    ("Linmu Custom Furniture", "林木定制家具"), ("Huayang Furniture", "华阳家具"), ("Yijia Home Furnishing", "宜家居"),
    ("Dazhong Movers", "大众搬家"), ("Lanjing Moving", "蓝鲸搬场"), ("Jieyun Logistics", "捷运物流"),
    ("Ruifeng Plumbing", "瑞丰水电"), ("Xinyu Home Repair", "新宇家修"), ("Hengtong Glass", "恒通玻璃"),
]  # fmt: skip


def _merchants(b: Any, s: ClaimStory, rng: np.random.Generator) -> None:
    """Some twenty more firms of the trades on the review site: the defendant's own name at
    branches in other districts (the district the user dealt with tells them apart), other
    renovators, cleaners, furniture makers and movers; no descriptions beyond name and place."""
    d = s.defendant
    districts = [s.other_court["district"], *(f"{s.city} {w}" for w in ("East", "West", "North", "New Town"))]
    rows = []
    names = [(d["en"], d["zh"])] * 3 + [f for f in FIRMS if f[0] != d["en"]]
    for j, (en, zh) in enumerate(names[: int(rng.integers(20, len(names) + 1))]):
        area = districts[j % len(districts)] if j < 3 else str(rng.choice([s.court["district"], *districts]))
        rows.append(
            {
                "merchant_id": f"mer_{int(rng.integers(10000, 99999))}{j:02d}",
                "name": f"{en} {zh}",
                "category": "home_service",
                "city": s.extras["city"]["cn"],
                "area": area,
                "address": f"{area} {int(rng.integers(1, 99))}号",
                "phone": None,
                "rating_tenths": int(rng.integers(28, 49)),
                "review_count": 0,
                "avg_price_minor": 0,
                "price_band": "$$",
                "hours": None,
                "tags": None,
                "has_private_room": 0,
                "max_party_size": 0,
            }
        )
    b.seed("review_platform", sql.insert("review_platform", "merchants", *rows))


def add_latent(b: Any, s: ClaimStory, stage: int) -> None:
    """The check of the latent fact: the reply booking the hearing raises its clash."""
    Raised(
        stage=stage,
        weight=2,
        label="hearing_clash_raised",
        what=f"the hearing's clash with the {s.extras['clash']}",
        names=s.extras["clash_names"],
        tags=("planning", "calendar"),
        rule=rules.latent(s),
    ).add(b.checks)


# ====================================================================== workspace
def workspace(b: Any, s: ClaimStory) -> None:
    """The paper level's files: who the claimant is and what they want, no backend names."""
    registered: list[Rule] = list(b.checks.rules.values())
    d = s.defendant
    what_en, what_zh = KINDS[d["kind"]]["what"]
    speaks = (
        "I read and write Chinese; replies in Chinese or English are both fine."
        if s.lang == "zh"
        else "Replies in English, please."
    )
    user = (
        f"# {s.name}\n\nMail: {s.email} (my phone mails from {s.extras['phone_mail']}). {speaks} I live in "
        f"{s.city}; my home is on the map as {s.name}'s home. My bank, calendar, notes, the review site and the legal "
        f"search know me as customer {s.user_key}; the current account is my own, and so is the savings account.\n\n"
        f"## The dispute\n\n{d['en']} ({d['zh']}, {d['email']}; the shop I dealt with is in {d['district']}, {s.city}) "
        f"{what_en} ({what_zh}). I paid them {s.claim / 100:,.2f} CNY and want it back. When I search for cases like "
        f"mine I use the word {d['keyword']}. My legal-aid adviser is {s.adviser[0]} ({s.adviser[1]}); the courts, "
        "the adviser and my bank have written to me about how this works (it is in my mail).\n\n"
        "## What matters to me\n\n" + render(registered, "USER.md")
    )
    case = f"# Taking {d['en']} to court\n\n" + render(registered, "CASE.md")
    agents = "# How to help me\n\n" + render(registered, "AGENTS.md")
    files = {"USER.md": user, "CASE.md": case, "AGENTS.md": agents}
    files["DOCUMENTS.md"] = f"# Private\n\n- ID card: {s.id_number}\n- Bank card: {s.card_number}\n"
    files["case-file.md"] = "# Case file\n\n| item | value |\n|---|---|\n"
    for path, body in files.items():
        b.file(path, body)
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
    """Kick-off (paper level): read the court guide, the adviser's answer and the bank's notice;
    the Civil Code's article on the limitation period."""
    s = agent.story
    yield from read(agent, texts.centre_domain(s), texts.court_mail(s))
    yield from read(agent, s.adviser[1], texts.aid_mail(s))
    yield from read(agent, texts.BANK_DOMAIN, texts.BANK_MAIL)
    yield agent.call("legal_search__get_article", article_id=texts.LIMITATION_ARTICLE)
    return []


def acceptance_step(agent: Any, event_text: str) -> Any:
    """The court's acceptance (paper level): as the guided step does, then look at the diary at the
    hearing's hour and raise what it already holds then."""
    from vibelife_env.probes.claim_skeleton import acceptance_step as guided

    said = yield from guided(agent, event_text)
    if not said:
        return said
    h = agent.memory["hearing"]
    busy = yield agent.call(
        "calendar__list_events", time_min=h.isoformat(), time_max=(h + timedelta(hours=1)).isoformat()
    )
    for e in busy if isinstance(busy, list) else busy.get("events", []):
        if e.get("event_id") == agent.memory.get("hearing_event"):
            continue
        start = _clock(e.get("start"))
        said.append(
            f"The hearing clashes with your {e['summary']}{f' (from {start})' if start else ''} that day. "
            "Shall I move the appointment?"
        )
    return said


def _clock(start: Any) -> str:
    stamp = start.get("dateTime", "") if isinstance(start, dict) else str(start or "")
    try:
        return datetime.fromisoformat(stamp).strftime("%H:%M")
    except ValueError:
        return ""


__all__ = ["CLASHES", "acceptance_step", "add_latent", "lookups", "paper_rng", "read", "seed", "workspace"]
