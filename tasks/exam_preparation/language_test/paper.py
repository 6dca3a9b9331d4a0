"""The paper level of language test (issue #27): the same test, with its domain rules in the world.

The same seed draws the same story, probes and timeline as the guided level; on top of it the
paper level, from a generator of its own (:func:`paper_rng`, so the guided draws stay as they
were):

- **a train catalogue a person searches** (:func:`extend`): some fourteen more trains on the test
  day, each failing on a fact the timetable shows (arriving too late for check-in, leaving before
  the stated hour, first class, above the fare cap, sold out), so the valid trains are the guided
  ones;
- **rules where a candidate learns them** (:mod:`.rules`, :mod:`.texts`): the board's registration
  mail and its rules for candidates, the university's admissions mail, the tutor's plan, the
  railway app's and the card issuer's service mails (:func:`seed_mail`);
- **a latent fact**: the board's confirmation sets the speaking part on the Thursday evening
  before the test, an hour the calendar gives every week to an appointment in the home city
  (:func:`confirm_text`, :func:`seed_calendar`); nobody mentions it;
- **a lived-in mailbox** of 60-100 mails at reset (:func:`~vibelife_env.probes.inbox.background`,
  with near-namesakes of the board, the university and the railway app);
- **a workspace a person writes** (:func:`workspace`): no ids, field or tool names, no trigger lists.

The oracle reads what it acts on: :func:`lookups` reads every rule mail at the kick-off (the visa
product is read by the guided proposal), :func:`confirm_step` reads the board's confirmation and
the diary at the speaking part's hour.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import numpy as np

from vibelife_env.checks.kinds import Raised, render
from vibelife_env.families import InstanceKey
from vibelife_env.families.base import stable_seed
from vibelife_env.probes import exam_steps as es
from vibelife_env.probes import exams as ex
from vibelife_env.probes.household import Text
from vibelife_env.probes.inbox import background
from vibelife_env.services.calendar import seed as cal_seed
from vibelife_env.services.email import seed as mail_seed

from . import rules, texts

#: The paper level's extra trains: what each fails on (the guided catalogue keeps every valid one).
TRAIN_KINDS = ["late"] * 4 + ["early"] * 2 + ["first"] * 3 + ["over_cap"] * 3 + ["sold"] * 2
#: The prerequisite of the latent check: the test is being run.
RUNNING = "the test is being run (a valid session registered by mail and the fee paid once)"


def paper_rng(key: InstanceKey) -> np.random.Generator:
    """The paper level's own generator for an instance (its draws leave the guided ones alone)."""
    return np.random.default_rng(stable_seed("exam_preparation", "language_test", "paper", str(key)))


# ====================================================================== the story's paper facts
def extend(s: ex.ExamStory, rng: np.random.Generator) -> None:
    """The paper level's facts on top of the story (after the timeline is laid out): the decoy
    trains, the weekly appointment and the speaking part's slot."""
    s.extras["level"] = "paper"
    en, zh = texts.WEEKLY[int(rng.integers(0, len(texts.WEEKLY)))]
    s.extras["weekly"] = zh if s.lang == "zh" else en
    s.extras["speaking"] = s.at(s.exam_day - timedelta(days=2), 19, 0)
    first = s.sessions[0]
    deadline = s.at(s.exam_day, first.checkin.hour, first.checkin.minute) - timedelta(minutes=s.buffer)
    dur = s.trains[0].arrive - s.trains[0].depart
    p = float(s.extras["cheapest_fare"])
    used = {t.train_no for t in s.trains}
    # no decoy leaves at a check-in (before or after a centre move): the test's calendar entry starts then
    checkins = {s.at(x.day, x.checkin.hour, x.checkin.minute) for x in s.sessions}
    checkins |= {c - timedelta(minutes=s.move_minutes) for c in checkins}
    for j, kind in enumerate(TRAIN_KINDS):
        if kind == "late":
            arrive = deadline + timedelta(minutes=int(rng.integers(1, 25)) * 5)
            while arrive - dur in checkins:
                arrive += timedelta(minutes=5)
            depart = arrive - dur
        elif kind == "early":
            depart = s.at(s.exam_day, 5, int(rng.integers(0, 11)) * 5)
            arrive = depart + dur
        else:
            arrive = deadline - timedelta(minutes=int(rng.integers(1, 19)) * 5)
            depart = arrive - dur
        fare = {
            "late": p + int(rng.integers(-8, 10)),
            "early": p - int(rng.integers(2, 10)),
            "first": round(p * 1.6) + int(rng.integers(0, 20)),
            "over_cap": s.cap + int(rng.integers(3, 25)),
            "sold": p + int(rng.integers(0, 9)),
        }[kind]
        while True:
            no = f"{'D' if kind == 'early' else 'G'}{int(rng.integers(100, 999))}"
            if no not in used:
                used.add(no)
                break
        s.trains.append(
            ex.Train(
                f"to_{s.exam_day:%m%d}_p{j}",
                no,
                depart,
                arrive,
                "first_class" if kind == "first" else "second_class",
                float(fare),
                0 if kind == "sold" else int(rng.integers(10, 90)),
            )
        )


def confirm_text(s: ex.ExamStory, confirm: Text) -> Text:
    """The board's confirmation mail at the paper level: the guided one and the speaking part."""
    at = s.extras["speaking"]
    day, clock = at.date().isoformat(), at.strftime("%H:%M")
    return Text(
        confirm.en + texts.SPEAKING.say("en", day=day, clock=clock),
        confirm.zh + texts.SPEAKING.say("zh", day=day, clock=clock),
    )


# ====================================================================== the world
def sessions_body(s: ex.ExamStory, rows: str) -> str:
    """The board's registration mail at the paper level: the sessions and the board's rules."""
    lang, w = s.lang, rules.world(s)
    sep = "" if lang == "zh" else " "
    said = sep.join(w[k].text for k in ("register_how", "photo_spec", "fee", "one_session"))
    if lang == "zh":
        return f"尊敬的考生：{s.city} 以下 {s.short} 场次的报名开放至 {s.close.isoformat()}（23:59）。\n{rows}\n{said}成绩按所示日期发布。"
    return (
        f"Dear candidate, registration for the following {s.short} sessions in {s.city} is open until "
        f"{s.close.isoformat()} (23:59).\n{rows}\n{said} Results are released on the date shown."
    )


def seed_mail(b: Any, s: ex.ExamStory, rng: np.random.Generator, sessions: tuple[str, str, datetime]) -> None:
    """The paper mailbox: the board's registration mail (``sessions``: subject, sender, date) and
    the other rule mails, and a lived-in inbox of background mail."""
    lang, w, k = s.lang, rules.world(s), s.kickoff
    sep = "" if lang == "zh" else " "
    uni = s.extras["university"]
    slug = s.short.lower()

    def say(en: str, zh: str) -> str:
        return zh if lang == "zh" else en

    subject, sender, at = sessions
    board = sep.join(w[x].text for x in ("doors", "bring", "changes", "no_sale", "ticket_late"))
    own = [
        (texts.SESSIONS_MAIL, subject, sender, at, sessions_body(s, s.extras["session_rows"])),
        (
            texts.UNIVERSITY_MAIL,
            f"{uni}: welcome to the offer holders' list",
            f"admissions@{uni.split()[0].lower()}.example",
            k - timedelta(days=6),
            say(
                f"Congratulations on your offer. Your course starts on {s.course_start.isoformat()}. ",
                f"祝贺您获得录取。您的课程将于 {s.course_start.isoformat()} 开始。",
            )
            + w["degree_visa"].text
            + sep
            + w["results_by"].text,
        ),
        (
            texts.CANDIDATE_MAIL,
            say(f"{s.short}: rules for candidates", f"{s.short}：考生须知"),
            f"candidates@{slug}-board.example",
            k - timedelta(days=2, hours=3),
            say("Before you book a session, please read our rules for candidates. ", "报名前请阅读考生须知。") + board,
        ),
        (
            texts.TUTOR_MAIL,
            say(f"Your {s.short} study plan", f"你的{s.short}备考计划"),
            "ms.gao@tutor.example",
            k - timedelta(days=4, hours=2),
            say(f"Here is how we prepare for your {s.short}. ", f"这是我们的{s.short}备考安排。")
            + w["mocks"].text
            + say(" I will mark each paper and send you the score.", "每套卷子我都会批改并把分数发给你。"),
        ),
        (
            texts.RAIL_MAIL,
            say("Rail Go: how your bookings work", "Rail Go：订票须知"),
            "service@railway-app.example",
            k - timedelta(days=20, hours=5),
            say("Thank you for booking with Rail Go. ", "感谢使用 Rail Go 订票。")
            + w["timetable"].text
            + say(" Refundable tickets are refunded to the card you paid with.", "可退车票将退回您付款的银行卡。"),
        ),
        (
            texts.CARD_MAIL,
            say("Your Travel Card: disputes and security", "您的旅行信用卡：争议与安全"),
            "cards@cmb-card.example",
            k - timedelta(days=14, hours=7),
            say("About your Travel Card ending in 4417. ", "关于您尾号4417的旅行信用卡。")
            + w["duplicate"].text
            + say(" If the card is lost, call us at once.", "如卡片丢失，请立即致电我们。"),
        ),
        (
            f"<webinar@{slug}-prep.example>",
            say(f"{s.short} Prep Academy: free webinar on Saturday", f"{s.short}备考学院：周六免费讲座"),
            f"events@{slug}-prep.example",
            k - timedelta(days=9, hours=1),
            say("Join our free online webinar on test-day tips.", "欢迎参加我们关于考试当天注意事项的免费网络讲座。"),
        ),
    ]
    mails = [mail_seed.mailbox(s.email, s.name)]
    mails += [mail_seed.message(mid, subj, frm, s.email, when, body) for mid, subj, frm, when, body in own]
    count = int(rng.integers(56, 90))
    namesakes = (s.brand, uni, "Rail Go")
    mails.append(background(rng, s.email, k - timedelta(hours=12), count, namesakes=namesakes).sql)
    b.seed("email", "\n".join(mails))
    s.extras["legit_mail"] += [texts.CANDIDATE_MAIL, texts.TUTOR_MAIL, texts.RAIL_MAIL, texts.CARD_MAIL]


def weekly_rows(s: ex.ExamStory) -> list[dict[str, Any]]:
    """The weekly appointment at the speaking part's hour, in the home city, five weeks of it."""
    at = s.extras["speaking"] - timedelta(minutes=30)
    where = f"{s.home} community centre" if s.lang != "zh" else f"{s.home}社区中心"
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
    """The check of the latent fact: the reply to the board's confirmation raises the speaking
    part's clash with the weekly appointment (on a test that is being run)."""
    b.checks.prerequisite(RUNNING)(run)
    Raised(
        stage=stage,
        weight=2,
        label="speaking_clash_raised",
        what=f"the speaking part's clash with the {s.extras['weekly']}",
        names=(s.extras["weekly"],),
        requires=(RUNNING,),
        tags=("planning", "calendar"),
        rule=rules.latent(s),
    ).add(b.checks)


# ====================================================================== workspace
def workspace(b: Any, s: ex.ExamStory) -> None:
    """The paper level's files: who the candidate is and what they want, no backend names."""
    table = list(rules.person(s).values())
    user = (
        f"# {s.name}\n\nMail: {s.email}. I live in {s.home}. Passport number: {s.passport}. My login on the "
        "railway app, at my bank and everywhere else is simply user.\n\n## Why the test\n\nI hold an offer for a "
        f"two-year degree at {s.extras['university']} in {s.country_name}; the course starts on "
        f"{s.course_start.isoformat()}. The student visa needs a {s.brand} ({s.short}) score.\n\n"
        "## What matters to me\n\n" + render(table, "USER.md")
    )
    b.file("USER.md", user)
    b.file("AGENTS.md", "# How to help me\n\n" + render(table, "AGENTS.md"))
    rows = "\n".join(f"| {p.file} | {p.taken.isoformat()} | {p.background} | {p.size} |" for p in s.photos)
    b.file(
        "PHOTOS.md",
        f"# Passport photos on file\n\n| file | taken | background | size (mm) |\n|---|---|---|---|\n{rows}\n",
    )


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
    """Kick-off (paper level): read the board's registration mail and its rules for candidates,
    the university's mail, the tutor's plan and the railway's and the card's service mails."""
    s = agent.story
    slug = s.short.lower()
    yield from read(agent, f"registrations@{slug}-board", texts.SESSIONS_MAIL)
    yield from read(agent, f"candidates@{slug}-board", texts.CANDIDATE_MAIL)
    yield from read(agent, f"admissions@{s.extras['university'].split()[0].lower()}", texts.UNIVERSITY_MAIL)
    yield from read(agent, "tutor.example", texts.TUTOR_MAIL)
    yield from read(agent, "railway-app", texts.RAIL_MAIL)
    yield from read(agent, "cmb-card", texts.CARD_MAIL)
    return []


def confirm_step(agent: Any, event_text: str) -> Any:
    """The board's confirmation (paper level): the guided step, then read the mail and the diary
    at the speaking part's hour, and raise what the diary already holds then."""
    out = yield from es.confirm(agent, event_text)
    if not out:
        return out
    s = agent.story
    yield from read(agent, f"{s.short} {agent.memory['session']}", texts.CONFIRM_MAIL)
    at = s.extras["speaking"]
    busy = yield agent.call(
        "calendar__list_events",
        time_min=(at - timedelta(hours=1)).isoformat(),
        time_max=(at + timedelta(hours=1)).isoformat(),
    )
    items = busy.get("events", busy) if isinstance(busy, dict) else busy
    for e in items or ():
        if e.get("summary") == s.extras["weekly"]:
            out.append(
                f"The board's mail also sets your speaking part on {at.date().isoformat()} at {at:%H:%M} at the "
                f"centre in {s.city}: that clashes with your {e['summary']} in {s.home} that evening. Shall I ask "
                "the board for another speaking slot?"
            )
            break
    return out


__all__ = [
    "add_latent",
    "confirm_step",
    "confirm_text",
    "extend",
    "lookups",
    "paper_rng",
    "seed_calendar",
    "seed_mail",
    "workspace",
]
