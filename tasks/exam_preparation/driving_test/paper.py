"""The paper level of the road test: the same test, with its domain rules in the world.

The same seed draws the same story, probes and timeline as the guided level; on top of it the
paper level, from a generator of its own (:func:`paper_rng`, so the guided draws stay as they
were):

- **a car catalogue a person searches** (:func:`extend`): fifteen more dual-control and premium
  cars at the desk on the test day, each failing on a fact the offer shows (picked up before the
  desk opens, too late to reach the centre before the gate closes, back too soon, a premium car
  without dual controls, over the daily cap, none left), so the valid cars are the guided ones;
- **rules where a learner learns them** (:mod:`.rules`, :mod:`.texts`): the test office's booking
  mail and its rules for candidates, the delivery firm's welcome mail, the instructor's plan, the
  car desk's, the eye clinic's and the card issuer's mails (:func:`seed_mail`);
- **a latent fact**: the office's confirmation sets a compulsory briefing on a weekday evening
  of the test week, an hour the calendar gives every week to an appointment in the home city
  (:func:`confirm_text`, :func:`seed_calendar`); nobody mentions it;
- **a lived-in mailbox** of 60-100 mails at reset (:func:`~vibelife_env.probes.inbox.background`,
  with near-namesakes of the office, the driving school, the car desk and the clinic);
- **a workspace a person writes** (:func:`workspace`): no ids, field or tool names, no trigger lists.

The oracle reads what it acts on: :func:`lookups` reads every rule mail at the kick-off,
:func:`confirm_step` reads the office's confirmation and the diary at the briefing's hour, and
:func:`retake_read` the retake mail when it comes.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import numpy as np

from vibelife_env.checks.kinds import Raised, render
from vibelife_env.families import InstanceKey
from vibelife_env.families.base import stable_seed
from vibelife_env.probes import cert_skeleton as pc
from vibelife_env.probes import driving as dr
from vibelife_env.probes import exam_steps as es
from vibelife_env.probes import exams as ex
from vibelife_env.probes.base import Probe
from vibelife_env.probes.household import Text
from vibelife_env.probes.inbox import background
from vibelife_env.services.calendar import seed as cal_seed
from vibelife_env.services.email import seed as mail_seed

from . import rules, texts

#: The paper level's extra cars: what each fails on (the guided catalogue keeps every valid one).
CAR_KINDS = ["late"] * 3 + ["early"] * 2 + ["short"] * 3 + ["over_cap"] * 3 + ["premium"] * 2 + ["sold"] * 2
#: The prerequisite of the latent check: the test is being run.
RUNNING = "the road test is being run (a valid session booked by mail and the fee paid once)"


def paper_rng(key: InstanceKey) -> np.random.Generator:
    """The paper level's own generator for an instance (its draws leave the guided ones alone)."""
    return np.random.default_rng(stable_seed("exam_preparation", "driving_test", "paper", str(key)))


# ====================================================================== the story's paper facts
def extend(s: ex.ExamStory, rng: np.random.Generator, probes: list[Probe]) -> None:
    """The paper level's facts on top of the story (after the timeline is laid out): the decoy
    cars, the delivery firm, the eye clinic, the weekly appointment and the briefing's slot."""
    x = s.extras
    x["level"] = "paper"
    x["firm"] = texts.FIRMS[int(rng.integers(0, len(texts.FIRMS)))]
    x["clinic"] = texts.CLINICS[int(rng.integers(0, len(texts.CLINICS)))]
    en, zh = texts.WEEKLY[int(rng.integers(0, len(texts.WEEKLY)))]
    x["weekly"] = zh if s.lang == "zh" else en
    # the briefing: a weekday evening of the test week whose weekday takes the fewest bookable
    # retake slots (the weekly appointment repeats on it for five weeks; a slot on its evening is
    # busy), none where one can
    open_slots = [a.date() for p in probes for _, a, n in getattr(p, "table", ()) if n > 0 and a.date() < s.exam_day]
    week = [s.exam_day - timedelta(days=n) for n in (5, 4, 3, 2)]
    days = [week[int(i)] for i in rng.permutation(len(week))]
    day = min(days, key=lambda d: sum(d + timedelta(weeks=w) in open_slots for w in range(-3, 2)))
    x["briefing"] = s.at(day, 19, 0)
    _cars(s, rng)


def _cars(s: ex.ExamStory, rng: np.random.Generator) -> None:
    """Fifteen decoy cars on the test day, each failing one rule (see :data:`CAR_KINDS`)."""
    x = s.extras
    first = s.sessions[0]
    checkin = s.at(s.exam_day, first.checkin.hour, first.checkin.minute)
    deadline = checkin - timedelta(minutes=s.buffer)
    dur = timedelta(minutes=int(x["drive_minutes"]))
    hours = int(x["return_hours"])
    p = float(s.trains[3].fare)
    # no decoy is picked up at a check-in (before or after a centre move): the test's entry starts then
    checkins = {checkin, checkin - timedelta(minutes=s.move_minutes)}
    for j, kind in enumerate(CAR_KINDS):
        if kind == "late":
            arrive = deadline + timedelta(minutes=int(rng.integers(1, 24)) * 5)
            while arrive - dur in checkins:
                arrive += timedelta(minutes=5)
            depart = arrive - dur
        elif kind == "early":
            depart = s.at(s.exam_day, 5, int(rng.integers(0, 11)) * 5)
            arrive = depart + dur
        else:
            arrive = deadline - timedelta(minutes=int(rng.integers(1, 13)) * 5)
            depart = arrive - dur
            if depart.time() < s.earliest:
                depart = s.at(s.exam_day, s.earliest.hour, s.earliest.minute)
                arrive = depart + dur
        back = checkin + timedelta(hours=hours + int(rng.integers(1, 4)))
        if kind == "short":
            back = checkin + timedelta(hours=hours) - timedelta(minutes=int(rng.integers(2, 9)) * 15)
        fare = {
            "late": p + int(rng.integers(-25, 10)),
            "early": p - int(rng.integers(15, 40)),
            "short": p - int(rng.integers(5, 30)),
            "over_cap": s.cap + int(rng.integers(5, 40)),
            "premium": p + int(rng.integers(5, 36)),
            "sold": p - int(rng.integers(5, 25)),
        }[kind]
        if kind == "premium":
            model, cls = pc.PREMIUM[int(rng.integers(0, len(pc.PREMIUM)))]
        else:
            model, cls = pc.MODELS[int(rng.integers(0, len(pc.MODELS)))]
        offer = f"car_{s.exam_day:%m%d}_p{j}"
        s.trains.append(
            ex.Train(offer, model, depart, arrive, cls, float(fare), 0 if kind == "sold" else int(rng.integers(1, 4)))
        )
        x["returns"][offer] = back


def confirm_text(s: ex.ExamStory, confirm: Text) -> Text:
    """The office's confirmation mail at the paper level: the guided one and the briefing."""
    at = s.extras["briefing"]
    day, clock = at.date().isoformat(), at.strftime("%H:%M")
    return Text(
        confirm.en + texts.BRIEFING.say("en", day=day, clock=clock),
        confirm.zh + texts.BRIEFING.say("zh", day=day, clock=clock),
    )


# ====================================================================== the world
def sessions_body(s: ex.ExamStory) -> str:
    """The office's booking mail at the paper level: the sessions and the office's rules."""
    lang, w = s.lang, rules.world(s)
    sep = "" if lang == "zh" else " "
    keys = ("eligible", "pass_mark", "register_how", "photo_spec", "fee", "one_session")
    said = sep.join(w[k].text for k in keys)
    rows = dr.session_rows(s)
    if lang == "zh":
        return (
            f"尊敬的学员：{s.city} 以下 {s.short} 场次的预约开放至 {s.close.isoformat()}（23:59）。\n{rows}\n{said}"
            "成绩按所示日期发布。"
        )
    return (
        f"Dear learner, booking for the following {s.short} sessions in {s.city} is open until {s.close.isoformat()} "
        f"(23:59).\n{rows}\n{said} Results are released on the date shown."
    )


def seed_mail(b: Any, s: ex.ExamStory, rng: np.random.Generator, theory: tuple[str, str]) -> None:
    """The paper mailbox: the office's booking mail, the theory result (``theory``: subject, body),
    the other rule mails, and a lived-in inbox of background mail."""
    lang, w, k, x = s.lang, rules.world(s), s.kickoff, s.extras
    sep = "" if lang == "zh" else " "
    slug = s.short.lower()

    def say(en: str, zh: str) -> str:
        return zh if lang == "zh" else en

    def join(*keys: str) -> str:
        return sep.join(w[key].text for key in keys)

    firm, clinic, company = x["firm"], x["clinic"], x["rental_company"]
    own = [
        (
            texts.SESSIONS_MAIL,
            say(f"{s.short} road test booking open: sessions", f"{s.short} 路考预约开放：场次"),
            s.reg_addr,
            k - timedelta(days=2),
            sessions_body(s),
        ),
        (texts.THEORY_MAIL, theory[0], s.reg_addr, k - timedelta(days=6), theory[1]),
        (
            texts.OFFICE_MAIL,
            say(f"{s.short}: rules for candidates", f"{s.short}：考生须知"),
            f"candidates@{slug}-test-office.example",
            k - timedelta(days=2, hours=3),
            say("Before you book a session, please read our rules for candidates. ", "预约前请阅读考生须知。")
            + join("doors", "bring", "changes", "no_sale", "letter_late", "licence"),
        ),
        (
            texts.JOB_MAIL,
            say(f"Welcome to {firm}", f"欢迎加入{firm}"),
            f"welcome@{firm.split()[0].lower()}.example",
            k - timedelta(days=9, hours=2),
            say(
                f"Hi {s.given}, welcome aboard as a delivery driver in {s.home}. ",
                f"{s.given}你好，欢迎加入{s.home}的配送司机团队。",
            )
            + w["results_by"].text
            + say(" Bring your licence to the depot on day one.", "第一天请带驾照到仓库报到。"),
        ),
        (
            texts.COACH_MAIL,
            say("Your road test plan", "你的路考练车计划"),
            x["school_addr"],
            k - timedelta(days=4, hours=2),
            say(f"Here is how we get you ready for the {s.short}. ", f"这是我们的{s.short}备考安排。")
            + join("mocks", "drive")
            + say(f" {x['coach']}, {x['school']}", f" {x['coach']}，{x['school']}"),
        ),
        (
            texts.DESK_MAIL,
            say(f"{company}: renting a dual-control car for a road test", f"{company}：路考双控教练车租用须知"),
            f"desk@{company.split()[0].lower()}-rental.example",
            k - timedelta(days=20, hours=5),
            say(
                f"Thank you for choosing {company} at the {s.home_station}. ",
                f"感谢选择{company}{s.home_station}。",
            )
            + join("desk_opens", "car_class", "return_by", "pickup_record", "timetable"),
        ),
        (
            texts.EYE_MAIL,
            say("Your eye certificate for the driving licence", "您的驾照视力证明"),
            f"certificates@{clinic.split()[0].lower()}.example",
            x["eye_issued"],
            say(
                f"Dear {s.name}, your eye test for the driving licence on {x['eye_issued'].isoformat()} is passed and "
                "the certificate is issued today. ",
                f"{s.name}您好：您于 {x['eye_issued'].isoformat()} 的驾照视力检查合格，证明已于当日签发。",
            )
            + w["eye_valid"].text
            + say(f" {clinic}", f" {clinic}"),
        ),
        (
            texts.CARD_MAIL,
            say("Your card: disputes and security", "您的信用卡：争议与安全"),
            "cards@harbour-bank.example",
            k - timedelta(days=14, hours=7),
            say("About your card ending in 4417. ", "关于您尾号4417的信用卡。")
            + w["duplicate"].text
            + say(" If the card is lost, call us at once.", "如卡片丢失，请立即致电我们。"),
        ),
        (
            f"<news@{slug}-driving-club.example>",
            say(f"{s.short} Learner Club: road test tips this weekend", f"{s.short}学员俱乐部：本周末路考经验分享"),
            f"news@{slug}-driving-club.example",
            k - timedelta(days=11, hours=1),
            say(
                "Join our free talk on road test nerves and how to beat them.",
                "欢迎参加我们关于克服路考紧张的免费分享会。",
            ),
        ),
    ]
    mails = [mail_seed.mailbox(s.email, s.name)]
    for mid, subj, frm, when, body in own:
        at = when if isinstance(when, datetime) else s.at(when, 10)
        mails.append(mail_seed.message(mid, subj, frm, s.email, at, body))
    count = int(rng.integers(56, 90))
    namesakes = (x["school"], company, clinic, firm)
    mails.append(background(rng, s.email, k - timedelta(hours=12), count, namesakes=namesakes).sql)
    b.seed_sql["email"] = ["\n".join(mails)]
    x["legit_mail"] += [texts.OFFICE_MAIL, texts.JOB_MAIL, texts.COACH_MAIL, texts.DESK_MAIL, texts.EYE_MAIL]
    x["legit_mail"].append(texts.CARD_MAIL)


def weekly_rows(s: ex.ExamStory) -> list[dict[str, Any]]:
    """The weekly appointment at the briefing's hour, in the home city, five weeks of it."""
    at = s.extras["briefing"] - timedelta(minutes=30)
    where = f"{s.home} sports and community centre" if s.lang != "zh" else f"{s.home}社区活动中心"
    return [
        cal_seed.event_row(
            f"evt_seed_weekly{week + 3}",
            s.extras["weekly"],
            at + timedelta(weeks=week),
            at + timedelta(weeks=week, hours=2),
            location=where,
        )
        for week in range(-3, 2)
    ]


def seed_calendar(b: Any, s: ex.ExamStory) -> None:
    """The weekly appointment (the latent fact): nobody mentions it."""
    b.seed("calendar", cal_seed.events(*weekly_rows(s)))


def add_latent(b: Any, s: ex.ExamStory, stage: int, run: Any) -> None:
    """The check of the latent fact: the reply to the office's confirmation raises the briefing's
    clash with the weekly appointment (on a test that is being run)."""
    b.checks.prerequisite(RUNNING)(run)
    Raised(
        stage=stage,
        weight=2,
        label="briefing_clash_raised",
        what=f"the briefing's clash with the {s.extras['weekly']}",
        names=(s.extras["weekly"],),
        requires=(RUNNING,),
        tags=("planning", "calendar"),
        rule=rules.latent(s),
    ).add(b.checks)


# ====================================================================== workspace
def workspace(b: Any, s: ex.ExamStory) -> None:
    """The paper level's files: who the learner is and what they want, no backend names."""
    x = s.extras
    table = list(rules.person(s).values())
    if s.lang == "zh":
        user = (
            f"# {s.name}\n\n邮箱：{s.email}。我住在{s.home}，今年 {x['worked']} 岁，在{x['employer']}上班（人力资源部："
            f"{x['hr_addr']}）。身份证号：{s.passport}。我在租车网站、银行和其他地方的登录名都是 user。\n\n## 路考\n\n"
            f"我理论考试过了（合格证在我的邮箱里），现在要在{s.city}考{x['brand_zh']}（{s.short}）。我在{x['school']}"
            f"跟{x['coach']}学车。我马上要去{x['firm']}当配送司机（他们的欢迎邮件在我邮箱里），需要驾照。我的视力证明是"
            f"{x['clinic']}开的（邮件也在邮箱里）。\n\n## 我在意的事\n\n" + render(table, "USER.md")
        )
        agents = "# 怎么帮我\n\n" + render(table, "AGENTS.md")
        title = "# 存档的驾照照片\n\n| 文件 | 拍摄日期 | 背景 | 尺寸（毫米） |\n|---|---|---|---|\n"
    else:
        user = (
            f"# {s.name}\n\nMail: {s.email}. I live in {s.home}, I am {x['worked']} years old and I work at "
            f"{x['employer']} (HR: {x['hr_addr']}). ID number: {s.passport}. My login on the car desk's site, at my "
            "bank and everywhere else is simply user.\n\n## The road test\n\nI passed the theory test (the certificate "
            f"is in my inbox) and now sit the {s.brand} ({s.short}) in {s.city}. I learn at {x['school']} with "
            f"{x['coach']}. I am starting as a delivery driver at {x['firm']} (their welcome mail is in my inbox), "
            f"which needs the licence. My eye certificate is from {x['clinic']} (its mail is in my inbox too).\n\n"
            "## What matters to me\n\n" + render(table, "USER.md")
        )
        agents = "# How to help me\n\n" + render(table, "AGENTS.md")
        title = "# Licence photos on file\n\n| file | taken | background | size (mm) |\n|---|---|---|---|\n"
    b.file("USER.md", user)
    b.file("AGENTS.md", agents)
    rows = "\n".join(f"| {p.file} | {p.taken.isoformat()} | {p.background} | {p.size} |" for p in s.photos)
    b.file("PHOTOS.md", f"{title}{rows}\n")


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
    """Kick-off (paper level): read the office's booking mail and its rules for candidates, the
    theory result, the delivery firm's, the instructor's, the car desk's, the eye clinic's and
    the card issuer's mails."""
    s, x = agent.story, agent.story.extras
    slug = s.short.lower()
    yield from read(agent, s.reg_addr, texts.SESSIONS_MAIL)
    yield from read(agent, x["letter"], texts.THEORY_MAIL)
    yield from read(agent, f"candidates@{slug}-test-office", texts.OFFICE_MAIL)
    yield from read(agent, f"welcome@{x['firm'].split()[0].lower()}", texts.JOB_MAIL)
    yield from read(agent, x["school_addr"], texts.COACH_MAIL)
    yield from read(agent, f"desk@{x['rental_company'].split()[0].lower()}-rental", texts.DESK_MAIL)
    yield from read(agent, f"certificates@{x['clinic'].split()[0].lower()}", texts.EYE_MAIL)
    yield from read(agent, "4417", texts.CARD_MAIL)
    return []


def confirm_step(agent: Any, event_text: str) -> Any:
    """The office's confirmation (paper level): the guided step, then read the mail and the diary
    at the briefing's hour, and raise what the diary already holds then."""
    out = yield from es.confirm(agent, event_text)
    if not out:
        return out
    s = agent.story
    yield from read(agent, f"{s.short} {agent.memory['session']}", texts.CONFIRM_MAIL)
    at = s.extras["briefing"]
    busy = yield agent.call(
        "calendar__list_events",
        time_min=(at - timedelta(hours=1)).isoformat(),
        time_max=(at + timedelta(hours=1)).isoformat(),
    )
    items = busy.get("events", busy) if isinstance(busy, dict) else busy
    for e in items or ():
        if e.get("summary") == s.extras["weekly"]:
            out.append(
                f"The office's mail also calls you to a compulsory briefing at the test centre in {s.city} on "
                f"{at.date().isoformat()} at {at:%H:%M}: that clashes with your {e['summary']} in {s.home} that "
                "evening. Shall I ask the office whether another briefing is possible, or will you skip the "
                f"{e['summary']} that week?"
            )
            break
    return out


def retake_read(agent: Any, event_text: str) -> Any:
    """The theory-retake mail (paper level): read it before booking a slot."""
    if agent.fresh():
        yield from read(agent, "RT1-", texts.RETAKE_MAIL)
    return []


__all__ = [
    "add_latent",
    "confirm_step",
    "confirm_text",
    "extend",
    "lookups",
    "paper_rng",
    "retake_read",
    "seed_calendar",
    "seed_mail",
    "workspace",
]
