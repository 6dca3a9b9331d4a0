"""The paper level of university entrance: the same application, with its domain rules in the world.

The same seed draws the same story, probes and timeline as the guided level; on top of it the
paper level, from a generator of its own (:func:`paper_rng`, so the guided draws stay as they
were):

- **a flight catalogue a person searches** (:func:`extend`): eighteen more flights from home to
  the test city, each failing on a fact the search shows (leaving on the test day, two or three
  days early or after it, over the fare cap, more than the budget leaves), so the valid flights
  are the guided ones;
- **rules where an applicant learns them** (:mod:`.rules`, :mod:`.texts`): the test centre's
  sessions mail and its rules for candidates, the admissions office's how-to-apply mail and its
  applicant guide, the airline app's service mail (:func:`seed_mail`), and the student-visa
  product;
- **a latent fact**: the centre's confirmation sets a compulsory identity check at the centre in
  the test city on an evening the calendar gives every week to an appointment at home
  (:func:`confirm_text`, :func:`seed_calendar`); nobody mentions it;
- **a lived-in mailbox** of 60-100 mails at reset (:func:`~vibelife_env.probes.inbox.background`,
  with near-namesakes of the centre, the university and the airline app), and the
  guaranteed-offer scam under a bulk mailer's Message-ID (:func:`unlabel`), not one that names it;
- **a workspace a person writes** (:func:`workspace`): no ids, field or tool names, no trigger
  lists; the document files' names carry no underscores.

**The gate** (:func:`run_gate`): at the paper level the checks on later work (the calendar, the
interview, the flight, the visa, the probes) ask for the work to have been started (a registration
or an application sent), not for the registration and the application to be right and paid once:
that is the go-ahead's own checks' rule, and one early miss must not void the later work done
right. The guided level keeps :func:`~vibelife_env.probes.admissions.running`.

The oracle reads what it acts on: :func:`lookups` reads every rule mail at the kick-off (the visa
product is read by the guided visa step), :func:`confirm_step` reads the centre's confirmation and
the diary at the identity check's hour.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Any

import numpy as np

from vibelife_env.checks import text
from vibelife_env.checks.kinds import Raised, render
from vibelife_env.families import InstanceKey
from vibelife_env.families.base import stable_seed
from vibelife_env.probes import admissions as ad
from vibelife_env.probes import trip
from vibelife_env.probes.base import Probe
from vibelife_env.probes.household import Text
from vibelife_env.probes.inbox import background, bulk_message_id
from vibelife_env.services.calendar import seed as cal_seed
from vibelife_env.services.email import seed as mail_seed

from . import rules, texts

#: The paper level's extra flights: what each fails on (the guided catalogue keeps every valid one).
FLIGHT_KINDS = ["test_day"] * 4 + ["early"] * 4 + ["after"] * 2 + ["over_cap"] * 5 + ["over_budget"] * 3
#: The prerequisite of the latent check: the application is under way.
RUNNING = "the application is under way (a registration or an application sent)"


def paper_rng(key: InstanceKey) -> np.random.Generator:
    """The paper level's own generator for an instance (its draws leave the guided ones alone)."""
    return np.random.default_rng(stable_seed("exam_preparation", "university_entrance", "paper", str(key)))


def on_paper(s: ad.AdmissionStory) -> bool:
    return s.extras.get("level") == "paper"


def run_gate(ctx: Any, s: ad.AdmissionStory) -> bool:
    """The gate of the checks on later work: at the paper level the work having been started (a
    registration mail naming one session, or an application naming documents, sent; whether they
    were right and paid once is the go-ahead's checks' own rule), at the guided level
    :func:`~vibelife_env.probes.admissions.running` as it always was."""
    if on_paper(s):
        return ad.registered(ctx, s) is not None or ad.application_mail(ctx, s) is not None
    return ad.running(ctx, s)


def unlabel(probes: list[Probe], s: ad.AdmissionStory) -> None:
    """The paper level's scam: the guided probe (its draws made), its mail under a bulk mailer's
    Message-ID (the guided one names a consultancy in the mailbox every agent lists)."""
    for p in probes:
        if isinstance(p, ad.ConsultantScam):
            p.message_id = bulk_message_id(f"offer-consulting|{s.uni_short}|{s.email}")


# ====================================================================== the proposal, read as a person reads it
#: What rules a session or a file out in a proposal ("T31 closed yesterday", "not the draft").
OUT = text.REJECTED | text.Phrases(
    [
        "closed",
        "not open",
        "not yet open",
        "opens only",
        "after the deadline",
        "too close to the deadline",
        "does not qualify",
        "do not qualify",
        "not accepted",
        "not certified",
        "not notarised",
        "expired",
        "draft",
        "已截止",
        "已关闭",
        "尚未开放",
        "还没开放",
        "不符合",
        "过期",
        "草稿",
        "不能用",
        "不可用",
    ]
)


def session_proposed(reply: str, s: ad.AdmissionStory, valid: set[str]) -> bool:
    """The reply proposes a valid session and no other (a session it names to rule out is not
    proposed: "T31 closed last week" explains, it does not stuff)."""
    kept = set(text.proposed(reply, [v.code for v in s.sessions], rejected=OUT))
    return bool(kept & valid) and kept <= valid


def documents_proposed(reply: str, s: ad.AdmissionStory) -> bool:
    """The reply proposes a qualifying translation and the current passport copy, and no file that
    does not qualify (a file it names to rule out is not proposed)."""
    kept = text.proposed(reply, s.papers, mentions=lambda clause, p: p.file.lower() in clause.lower(), rejected=OUT)
    return {p.kind for p in kept if p.ok} == {"translation", "passport"} and all(p.ok for p in kept)


# ====================================================================== the story's paper facts
def extend(s: ad.AdmissionStory, rng: np.random.Generator) -> None:
    """The paper level's facts on top of the story (after the timeline is laid out): file names
    without underscores, the decoy flights, the weekly appointment and the identity check's slot."""
    x = s.extras
    x["level"] = "paper"
    s.papers = [ad.Paper(p.file.replace("_", "-"), p.kind, p.ok, p.note) for p in s.papers]
    en, zh = texts.WEEKLY[int(rng.integers(0, len(texts.WEEKLY)))]
    x["weekly"] = zh if s.lang == "zh" else en
    iv = s.slots[0].start.date()
    e = s.exam_day
    # no weekly evening on an interview day (as booked or moved), the flight's day or the test day
    busy = {(iv + timedelta(days=n)).weekday() for n in range(3)} | {(e - timedelta(days=n)).weekday() for n in (0, 1)}
    first = x["confirm_at"].date() + timedelta(days=2)
    days = [first + timedelta(days=n) for n in range((e - timedelta(days=2) - first).days + 1)]
    days = [d for d in days if d.weekday() not in busy]
    x["id_check"] = s.at(days[int(rng.integers(0, len(days)))], 19, 0)
    _flights(s, rng)


def _flights(s: ad.AdmissionStory, rng: np.random.Generator) -> None:
    """Eighteen decoy flights from home to the test city, each failing one rule (:data:`FLIGHT_KINDS`)."""
    e, eve = s.exam_day, s.exam_day - timedelta(days=1)
    room = s.budget - s.fees
    base = min(f.price for f in s.flights[:3])
    used = {f.flight_no for f in s.flights}
    for kind in FLIGHT_KINDS:
        if kind == "test_day":
            day, price = e, base - int(rng.integers(1, 15)) * 10
        elif kind == "early":
            day, price = e - timedelta(days=int(rng.integers(2, 4))), base - int(rng.integers(0, 12)) * 10
        elif kind == "after":
            day, price = e + timedelta(days=1), base - int(rng.integers(0, 12)) * 10
        elif kind == "over_cap":
            day, price = eve, s.fare_cap + int(rng.integers(2, 40)) * 10
        else:
            day, price = eve, int(room) + int(rng.integers(1, max(2, int(s.fare_cap - room) // 10))) * 10
            if price > s.fare_cap:
                price = s.fare_cap + int(rng.integers(2, 20)) * 10
        price = max(price, 350)
        dep = datetime.combine(day, time(int(rng.integers(6, 22)), int(rng.choice([0, 15, 30, 45]))), tzinfo=ad.HOME_TZ)
        arr = dep + timedelta(minutes=int(rng.integers(130, 200)))
        carrier = str(rng.choice(["MU", "CA", "CZ", "HO", "3U", "ZH", "FM", "MF"]))
        while True:
            no = f"{carrier}{int(rng.integers(1000, 9999))}"
            if no not in used:
                used.add(no)
                break
        s.flights.append(trip.Flight(no, carrier, s.home.airport, s.exam_city.airport, dep, arr, "320", float(price)))


def confirm_text(s: ad.AdmissionStory, confirm: Text) -> Text:
    """The centre's confirmation mail at the paper level: the guided one and the identity check."""
    at = s.extras["id_check"]
    day, clock = at.date().isoformat(), at.strftime("%H:%M")
    return Text(
        confirm.en + texts.ID_CHECK.say("en", day=day, clock=clock),
        confirm.zh + texts.ID_CHECK.say("zh", day=day, clock=clock),
    )


# ====================================================================== the world
def session_rows(s: ad.AdmissionStory) -> str:
    """The sessions as the centre's mail lists them (the guided rows)."""
    return "\n".join(
        f"- {v.code}: {v.day.isoformat()} {v.start:%H:%M}, {v.venue}; registration {v.opens.isoformat()} to "
        f"{v.closes.isoformat()}"
        for v in sorted(s.sessions, key=lambda z: z.code)
    )


def seed_mail(b: Any, s: ad.AdmissionStory, rng: np.random.Generator) -> None:
    """The paper mailbox: the centre's sessions mail and rules for candidates, the office's
    how-to-apply mail and applicant guide, the airline app's service mail, and a lived-in inbox of
    background mail."""
    lang, k = s.lang, s.kickoff
    sep = "" if lang == "zh" else " "
    w = rules.world(s)

    def say(en: str, zh: str) -> str:
        return zh if lang == "zh" else en

    def join(*keys: str) -> str:
        return sep.join(w[x].text for x in keys)

    city = s.exam_city.name
    slug = city.lower()
    own = [
        (
            texts.SESSIONS_MAIL,
            say(f"{s.uni_short} entrance test: sessions", f"{s.uni_short} 入学考试：场次"),
            s.centre_addr,
            k - timedelta(days=3),
            say(
                f"Entrance test sessions for {s.uni} applicants at our {city} centre:\n",
                f"{s.uni}申请人入学考试{city}考点场次：\n",
            )
            + session_rows(s)
            + "\n"
            + join("register_how", "test_fee", "one_session"),
        ),
        (
            texts.CENTRE_MAIL,
            say(f"{s.uni_short} test centre {city}: before your test", f"{s.uni_short} {city}考点：考前须知"),
            f"candidates@{slug}-testcentre.example",
            k - timedelta(days=8, hours=2),
            say(
                "Bring the passport you registered with; phones stay in the lockers. ",
                "请携带报名时所用的护照；手机须存放在储物柜中。",
            )
            + w["venue"].text,
        ),
        (
            texts.PORTAL_MAIL,
            say(f"How to apply: {s.programme}", f"申请须知：{s.programme}"),
            s.adm_addr,
            k - timedelta(days=5),
            join("deadline", "documents", "app_fee", "resend"),
        ),
        (
            texts.GUIDE_MAIL,
            say(f"{s.uni}: your applicant guide", f"{s.uni}：申请人指南"),
            s.adm_addr,
            k - timedelta(days=11, hours=4),
            say(
                f"Welcome to the {s.uni} applicant community. ",
                f"欢迎加入{s.uni}申请人社区。",
            )
            + join("interview_how", "no_agents", "offer_accept"),
        ),
        (
            texts.AIRLINE_MAIL,
            say("Skyway: how your bookings work", "Skyway：订票须知"),
            "service@skyway-app.example",
            k - timedelta(days=25, hours=5),
            say("Thank you for flying with Skyway. ", "感谢选择 Skyway 出行。")
            + w["retime"].text
            + say(" Refunds go back to the card you paid with.", "退款将退回您付款的银行卡。"),
        ),
        (
            f"<open-day@{s.uni_short.lower()}-alumni.example>",
            say(f"{s.uni_short} alumni: online open day on Saturday", f"{s.uni_short}校友会：周六线上开放日"),
            f"events@{s.uni_short.lower()}-alumni.example",
            k - timedelta(days=9, hours=1),
            say(
                "Join our alumni for a free online open day about student life.",
                "欢迎参加我们校友关于学生生活的免费线上开放日。",
            ),
        ),
    ]
    mails = [mail_seed.mailbox(s.email, s.name)]
    mails += [mail_seed.message(mid, subj, frm, s.email, when, body) for mid, subj, frm, when, body in own]
    count = int(rng.integers(56, 90))
    namesakes = (s.centre_name, s.uni, "Skyway")
    mails.append(background(rng, s.email, k - timedelta(hours=12), count, namesakes=namesakes).sql)
    b.seed("email", "\n".join(mails))
    s.extras["legit_mail"] += [texts.CENTRE_MAIL, texts.GUIDE_MAIL, texts.AIRLINE_MAIL]


def weekly_rows(s: ad.AdmissionStory) -> list[dict[str, Any]]:
    """The weekly appointment at the identity check's hour, at home, six weeks of it."""
    at = s.extras["id_check"] - timedelta(minutes=30)
    where = f"{s.home.name} community centre" if s.lang != "zh" else f"{s.home.name}社区中心"
    return [
        cal_seed.event_row(
            f"evt_seed_weekly{week + 3}",
            s.extras["weekly"],
            at + timedelta(weeks=week),
            at + timedelta(weeks=week, hours=2),
            location=where,
        )
        for week in range(-3, 3)
    ]


def calendar_sql(s: ad.AdmissionStory) -> str:
    """The weekly appointment (the latent fact): nobody mentions it."""
    return cal_seed.events(*weekly_rows(s))


def add_latent(b: Any, s: ad.AdmissionStory, stage: int, run: Any) -> None:
    """The check of the latent fact: the reply to the centre's confirmation raises the identity
    check's clash with the weekly appointment (on an application under way)."""
    b.checks.prerequisite(RUNNING)(run)
    Raised(
        stage=stage,
        weight=2,
        label="id_check_clash_raised",
        what=f"the identity check's clash with the {s.extras['weekly']}",
        names=(s.extras["weekly"],),
        requires=(RUNNING,),
        tags=("planning", "calendar"),
        rule=rules.latent(s),
    ).add(b.checks)


# ====================================================================== workspace
def workspace(b: Any, s: ad.AdmissionStory) -> None:
    """The paper level's files: who the applicant is and what they want, no backend names."""
    table = list(rules.person(s).values())
    user = (
        f"# {s.name}\n\nMail: {s.email}. Phone: {ad.PHONE}. I live in {s.home.name}; Chinese passport "
        f"{s.passport} (current). My login at my bank, the airline app and everywhere else is simply user. My mum "
        f"{s.extras['parent']} helps pay.\n\n## The application\n\n{s.programme} at {s.uni} in {s.uni_city}, "
        f"{s.country_name}. The entrance test is at the university's test centre in {s.exam_city.name}; the centre "
        f"writes from {s.centre_addr}, the admissions office from {s.adm_addr}. My study savings are in their own "
        "account at my bank.\n\n## What matters to me\n\n" + render(table, "USER.md")
    )
    b.file("USER.md", user)
    b.file("AGENTS.md", "# How to help me\n\n" + render(table, "AGENTS.md"))
    rows = "\n".join(f"| {p.file} | {p.note} |" for p in s.papers)
    b.file("PAPERS.md", f"# Documents on file\n\n| file | what it is |\n|---|---|\n{rows}\n")
    s.extras["initial_files"] = dict(b.files)


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
    """Kick-off (paper level): read the centre's sessions mail and rules for candidates, the
    office's how-to-apply mail and applicant guide, and the airline app's service mail."""
    s = agent.story
    yield from read(agent, s.centre_addr, texts.SESSIONS_MAIL)
    yield from read(agent, f"candidates@{s.exam_city.name.lower()}-testcentre", texts.CENTRE_MAIL)
    yield from read(agent, s.adm_addr, texts.PORTAL_MAIL)
    yield from read(agent, s.adm_addr, texts.GUIDE_MAIL)
    yield from read(agent, "skyway-app", texts.AIRLINE_MAIL)
    return []


def confirm_step(step: Any) -> Any:
    """The centre's confirmation (paper level): the guided ``step``, then read the mail and the
    diary at the identity check's hour, and raise what the diary already holds then."""

    def run(agent: Any, event_text: str) -> Any:
        out = yield from step(agent, event_text)
        if not out:
            return out
        s = agent.story
        yield from read(agent, agent.memory["session"], texts.CONFIRM_MAIL)
        at = s.extras["id_check"]
        busy = yield agent.call(
            "calendar__list_events",
            time_min=(at - timedelta(hours=1)).isoformat(),
            time_max=(at + timedelta(hours=1)).isoformat(),
        )
        items = busy.get("events", busy) if isinstance(busy, dict) else busy
        for e in items or ():
            if e.get("summary") == s.extras["weekly"]:
                out.append(
                    f"The centre's mail also sets a compulsory identity check on {at.date().isoformat()} at "
                    f"{at:%H:%M} at the centre in {s.exam_city.name}: that clashes with your {e['summary']} in "
                    f"{s.home.name} that evening. Shall I ask the centre for another time, or will you skip it "
                    "that week?"
                )
                break
        return out

    return run
