"""The exam families' shared reference policy: the agent class, its oracle steps and the world
scripts that follow what the agent did.

The language-test and professional-certification families run the same exam skeleton
(:class:`~vibelife_env.probes.exams.ExamStory`): register one valid session by mail and pay once,
put the exam in the calendar at the centre's street address, plan three mock tests on free
weekend slots and keep them clear of new commitments, log the tutor's scores, relay the admission
ticket to the print inbox. What differs between them is wording, which a family sets on its
:class:`ExamAgent` subclass (:attr:`ExamAgent.noun`, :attr:`ExamAgent.id_label`,
:meth:`ExamAgent.registration_extra`) and in the texts it passes to the world scripts.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

from vibelife_env.checks import state
from vibelife_env.probes import exams as ex
from vibelife_env.probes.agent import OtherPath, PlanAgent
from vibelife_env.probes.household import Text


def fmt_t(t: time) -> str:
    """``HH:MM``."""
    return t.strftime("%H:%M")


# ================================================================ agent
class ExamAgent(PlanAgent):
    """An exam family's reference policy: the plan agent plus mail relaying (``OtherPath`` sends a
    fresh mail with the content instead of forwarding) and the domain steps probes call.

    A family subclasses it to set its wording and to say how it follows a centre move
    (:meth:`follow_move`: the calendar and the way there)."""

    #: what the exam is called in calendar entries and replies.
    noun = "test"
    #: what the registration mail calls the candidate's identity number.
    id_label = "passport number"

    def registration_extra(self) -> str:
        """A sentence the registration mail adds after the session (none by default)."""
        return ""

    def relay(self, mail: dict[str, Any], to: str, note: str):
        """Pass a mail on to ``to``: forward it, or (other path) send its text in a new mail."""
        if isinstance(self, OtherPath):
            full = yield self.call("email__get_email", email_id=mail["email_id"])
            body = full.get("body_text") or full.get("body") or ""
            yield self.call(
                "email__send_email", to=to, subject=self.t(mail["subject"]), body=self.t(note) + "\n\n" + body
            )
            return
        yield self.call("email__forward_email", email_id=mail["email_id"], to=to, body=self.t(note))

    def follow_move(self):
        """Follow a centre move (the family's own steps)."""
        raise NotImplementedError
        yield

    def fix_mocks(self):
        """Move mocks that clash with a new commitment."""
        out = yield from fix_mocks(self)
        return out


# ================================================================ facts and world scripts
def running(ctx: Any, s: ex.ExamStory) -> bool:
    """The exam is being run: a valid session registered by mail and the fee paid once."""
    sess = ex.registered(ctx, s)
    return sess is not None and sess.code in ex.valid_sessions(ctx, s) and ex.paid_once(ctx, s)


def run_gate(ctx: Any, s: ex.ExamStory) -> bool:
    """The gate of the checks on later work (the mocks, the car, the study plan, the probes): at the
    paper level a registration having been sent (one session named in a mail to the board; whether
    it was a valid session, complete and paid once is the registration and fee checks' own rule),
    at the guided level :func:`running` as it always was. One early miss must not void the later
    work done right."""
    if s.extras.get("level") == "paper":
        return ex.registered(ctx, s) is not None
    return running(ctx, s)


def free_weekends(s: ex.ExamStory, busy: list[tuple[datetime, datetime]]) -> list[date]:
    """Weekend days after the study-plan day and up to three days before the exam with a free 3-hour slot."""
    out = []
    d = s.kickoff.date() + timedelta(days=2)
    while d <= s.exam_day - timedelta(days=3):
        if d.weekday() >= 5 and mock_slot(s, d, busy) is not None:
            out.append(d)
        d += timedelta(days=1)
    return out


def mock_slot(s: ex.ExamStory, d: date, busy: list[tuple[datetime, datetime]]) -> datetime | None:
    """The first of 14:00 or 09:00 on ``d`` whose 3 hours overlap nothing in ``busy``."""
    for h in (14, 9):
        a = s.at(d, h)
        z = a + timedelta(hours=3)
        if all(not (x < z and a < y) for x, y in busy):
            return a
    return None


def reg_facts(ctx: Any, s: ex.ExamStory) -> dict[str, str]:
    """The session the agent registered, its day, venue and check-in (``-`` when none)."""
    now = ex.current(ctx, s)
    if now is None:
        return {"code": "-", "day": "-", "venue": "-", "checkin": "-"}
    sess, centre, checkin = now
    return {"code": sess.code, "day": sess.day.isoformat(), "venue": centre.name, "checkin": checkin.strftime("%H:%M")}


def reg_mail_lands(ctx: Any, s: ex.ExamStory, confirm: Text) -> None:
    """The board's confirmation mail (``confirm``), naming what the agent registered (nothing
    when it did not)."""
    facts = reg_facts(ctx, s)
    if facts["code"] == "-":
        return
    body = confirm.say(s.lang, short=s.short, **facts)
    at = s.go_ahead + timedelta(hours=2, minutes=55)
    ex.insert_mail(ctx, "<confirm@board.example>", f"{s.short} {facts['code']}", s.reg_addr, s.email, at, body)


def ticket_lands(ctx: Any, s: ex.ExamStory, subject: Text, body_text: Text) -> None:
    """The admission ticket arrives late by mail, for the session the agent holds now."""
    now = ex.current(ctx, s)
    sess = now[0] if now else s.sessions[0]
    centre = now[1] if now else s.centres["A"]
    checkin = now[2] if now else s.at(s.exam_day, 9)
    x = s.extras
    body = body_text.say(
        s.lang,
        adm=x["admission"],
        name=s.name,
        code=sess.code,
        day=sess.day.isoformat(),
        venue=centre.name,
        room=x["room"],
        seat=x["seat"],
        checkin=checkin.strftime("%H:%M"),
    )
    at = s.at(s.exam_day - timedelta(days=5), 11)
    ex.insert_mail(
        ctx,
        "<ticket@board.example>",
        subject.say(s.lang, short=s.short, adm=x["admission"]),
        s.reg_addr,
        s.email,
        at,
        body,
    )


# ================================================================ oracle steps
def valid_codes(agent: Any) -> list[str]:
    """The sessions that meet every stated rule, in code order."""
    return sorted(agent.story.extras["valid_codes"])


def register_now(agent: Any):
    """Register the chosen session by mail (a reply to the board's mail when there is one) and
    pay the fee once."""
    s, m = agent.story, agent.memory
    if m.get("registered"):
        return
    found = yield agent.call("email__search_emails", query="registration open", folder="INBOX")
    mail = next(iter(found.get("emails", [])), None)
    body = (
        f"Dear {s.board}, please register {s.name} ({agent.id_label} {s.passport}) for session {m['session']}. "
        f"{agent.registration_extra()}Photo file: {m['photo']}. The fee follows by bank transfer."
    )
    if mail is not None:
        yield from agent.respond(mail, body)
    else:
        yield agent.call(
            "email__send_email", to=s.reg_addr, subject=agent.t(f"Registration {m['session']}"), body=agent.t(body)
        )
    yield agent.call(
        "banking__pay_payee", account_id=ex.ACCOUNT, payee_id=s.payee_id, amount_minor=s.fee * 100, memo=s.name
    )
    m["registered"] = True


def register(agent: Any, event_text: str):
    """The go-ahead: register and pay (once), and note it."""
    s, m = agent.story, agent.memory
    yield from register_now(agent)
    if agent.hold_first:
        yield from exam_event(agent)
    yield from agent.note("Registration", [f"Registered for {m['session']}; fee {s.fee} CNY paid to {s.payee_name}."])
    m["settled"] = True
    return [f"Registered you for session {m['session']} and paid the {s.fee} CNY fee once to {s.payee_name}."]


def exam_event(agent: Any):
    """The exam in the calendar at the centre's address as maps gives it (once)."""
    s, m = agent.story, agent.memory
    if m.get("evt_exam"):
        return
    sess = s.session(m["session"])
    centre = s.centres[sess.centre]
    found = yield agent.call("maps__search_places", query=centre.name)
    items: list[dict[str, Any]] = (
        found.get("results", found.get("places")) if isinstance(found, dict) else found
    ) or []
    place = next((x for x in items if x["name"] == centre.name), None)
    address = centre.address
    if place:
        det = yield agent.call("maps__get_place_details", place_id=place["place_id"])
        address = det.get("formatted_address") or det.get("formatted") or det.get("address") or address
    start = s.at(sess.day, sess.checkin.hour, sess.checkin.minute)
    made = yield agent.call(
        "calendar__create_event",
        summary=agent.t(f"{s.short} {agent.noun} ({sess.code})"),
        start=start.isoformat(),
        end=(start + timedelta(hours=4)).isoformat(),
        location=address,
    )
    m["evt_exam"] = made["event_id"]
    m["address"] = address


def confirm(agent: Any, event_text: str):
    """The board's confirmation: the exam in the calendar."""
    if not agent.fresh():
        return []
    s, m = agent.story, agent.memory
    yield from exam_event(agent)
    sess = s.session(m["session"])
    return [
        f"Confirmed: the {agent.noun} is on {sess.day.isoformat()}, check-in {fmt_t(sess.checkin)} at "
        f"{m['address']}; it is in your calendar."
    ]


def busy(listed: Any) -> list[tuple[datetime, datetime, str]]:
    """``(start, end, event_id)`` of a ``calendar__list_events`` result."""
    items: list[dict[str, Any]] = listed.get("events", listed) if isinstance(listed, dict) else listed
    out = []
    for e in items:
        a = state.when(e["start"]["dateTime"] if isinstance(e["start"], dict) else e["start"], ex.TZ)
        z = state.when(e["end"]["dateTime"] if isinstance(e["end"], dict) else e["end"], ex.TZ)
        if a and z:
            out.append((a, z, e["event_id"]))
    return out


def list_busy(agent: Any):
    """The calendar from kickoff to three days after the exam, as :func:`busy` spans."""
    s = agent.story
    got = yield agent.call(
        "calendar__list_events",
        time_min=s.kickoff.isoformat(),
        time_max=s.at(s.exam_day + timedelta(days=3), 0).isoformat(),
        max_results=200,
    )
    return busy(got)


def plan_mocks(agent: Any, event_text: str):
    """Three mock tests on free weekend slots, in the calendar and the notes."""
    if not agent.fresh() and not agent.memory.get("mocks"):
        return []
    s, m = agent.story, agent.memory
    if not m.get("mocks"):
        spans = [(a, z) for a, z, _ in (yield from list_busy(agent))]
        days = free_weekends(s, spans)
        pick = days[agent.rank : agent.rank + 3] if len(days) >= agent.rank + 3 else days[:3]
        m["mocks"] = {}
        for i, d in enumerate(pick):
            a = mock_slot(s, d, spans)
            assert a is not None  # free_weekends only lists days with a slot
            made = yield agent.call(
                "calendar__create_event",
                summary=agent.t(f"Mock test {i + 1} ({s.short}, full paper)"),
                start=a.isoformat(),
                end=(a + timedelta(hours=3)).isoformat(),
            )
            m["mocks"][made["event_id"]] = a
    dates = [a.date().isoformat() for a in sorted(m["mocks"].values())]
    target = s.fmt(m.get("need", s.minimum))
    yield from agent.note(
        "Study plan: mock tests", [f"Target: {target} overall.", "Mock tests on " + ", ".join(dates) + "."]
    )
    return [
        f"Three mock tests are in your calendar: {', '.join(dates)} (weekends, 3 hours each). The plan is in your notes."
    ]


def fix_mocks(agent: Any):
    """Move every mock that now clashes with another calendar entry to a free weekend slot."""
    s, m = agent.story, agent.memory
    listed = yield from list_busy(agent)
    mine = set(m.get("mocks", {}))
    others = [(a, z) for a, z, i in listed if i not in mine]
    out = []
    for eid, a in sorted(m.get("mocks", {}).items(), key=lambda x: x[1]):
        z = a + timedelta(hours=3)
        clash = next(((x, y) for x, y in others if x < z and a < y), None)
        if clash is None:
            continue
        used = {b.date() for b in m["mocks"].values()}
        day = next(d for d in free_weekends(s, others) if d not in used)
        new = mock_slot(s, day, others)
        assert new is not None  # free_weekends only lists days with a slot
        new_id = yield from agent.move_event(eid, new.isoformat(), (new + timedelta(hours=3)).isoformat())
        del m["mocks"][eid]
        m["mocks"][new_id] = new
        out.append(
            f"A family event on {clash[0].date().isoformat()} clashed with a mock test; I moved it to {day.isoformat()}."
        )
    if out:
        dates = [x.date().isoformat() for x in sorted(m["mocks"].values())]
        yield from agent.note("Study plan: mock tests (updated)", ["Mock tests on " + ", ".join(dates) + "."])
    return out


def checkin(agent: Any) -> datetime:
    """The check-in time of the registered session (earlier after a centre move)."""
    s, m = agent.story, agent.memory
    sess = s.session(m["session"])
    at = s.at(sess.day, sess.checkin.hour, sess.checkin.minute)
    return at - timedelta(minutes=s.move_minutes) if m.get("moved") else at


def last_look(agent: Any):
    """Before saying where the exam is (the evening before), read the board's feed once more: a
    move of the registered session not yet followed is followed now (its lines are returned)."""
    if agent.memory.get("moved"):
        return []
    feed = yield agent.call("notification_hub__get_account_feed", account_id="oa_board")
    posts = feed.get("posts", feed) if isinstance(feed, dict) else feed
    if not any(isinstance(p, dict) and p.get("post_id") == "post_move" for p in posts or ()):
        return []
    out = yield from agent.follow_move()
    return out


def results_plan(agent: Any, event_text: str):
    """The results day in the calendar."""
    s, m = agent.story, agent.memory
    sess = s.session(m["session"])
    start = s.at(sess.results, 9)
    yield agent.call(
        "calendar__create_event",
        summary=agent.t(f"{s.short} results ({sess.code})"),
        start=start.isoformat(),
        end=(start + timedelta(minutes=30)).isoformat(),
    )
    return [f"Your results come out on {sess.results.isoformat()}; it is in your calendar."]


def review(agent: Any, event_text: str):
    """A weekly review: read the inbox (when there is news)."""
    if agent.fresh():
        yield agent.call("email__get_emails", folder="INBOX")
    return []


def log_score(i: int) -> Any:
    """The step that notes the tutor's ``i``-th mock score."""

    def step(agent: Any, event_text: str):
        s = agent.story
        yield from agent.note(f"Mock score {i + 1}", [f"Mock test score: {s.fmt(s.mock_scores[i])} overall."])
        return [f"Logged the mock score ({s.fmt(s.mock_scores[i])})."]

    return step


def ticket(agent: Any, event_text: str):
    """The admission ticket arrived: relay it to the print inbox and note its number."""
    if not agent.fresh():
        return []
    s = agent.story
    adm = s.extras["admission"]
    found = yield agent.call("email__search_emails", query=adm, folder="INBOX")
    mail = next(iter(found.get("emails", [])), None)
    if mail is None:
        return []
    yield from agent.relay(mail, s.print_addr, f"Please print: admission ticket {adm}.")
    yield from agent.note(
        "Admission ticket", [f"Admission ticket {adm} (room {s.extras['room']}, seat {s.extras['seat']})."]
    )
    return [f"Your admission ticket {adm} arrived; I forwarded it to your print inbox and saved the number."]
