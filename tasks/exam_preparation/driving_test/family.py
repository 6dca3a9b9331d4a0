"""Scenario family ``exam_preparation/driving_test`` (held out): a learner driver's practical road test.

The learner has passed the theory test (its certificate reference is in the inbox) and now books the
practical road test. Each instance draws a persona (a third write in Chinese), a road test of our
own (the Subject 3 road test, the Category B practical test, the provincial road test) with its
pass mark, the test office's sessions (one on a day the calendar is taken, one whose results come
after the day the user's new delivery job needs the licence, one full, two valid ones at two
centres), the licence photos on file (two meet the stated spec), the eye certificate (issue date
and validity), the on-call days when no practice is allowed, and the test-day dual-control rental
cars at the driving school's desk (near-misses: pickup before the desk opens or too late for the
check-in buffer, returned too soon, a premium car over the daily cap, sold out), plus the test
city's forecasts in ``weather``.

The story engine is the certification family's (:mod:`vibelife_env.probes.cert_skeleton`:
propose, register and pay once on the go-ahead, the office's confirmation, three mock tests, the
car, weekly reviews, mock scores, the late appointment letter, the evening before, the test
morning's car pickup, the wrap-up, the silent pickup change), reused here by subclassing; this
module supplies the driving-test story, its wording, workspace and mails, its proposal step and an
agent (:class:`DrivingAgent`) whose booking mail quotes the theory certificate. Because the two share
that skeleton, both are held out of training. Four to seven probes: the fast-track scam always (:mod:`vibelife_env.probes.driving`),
and three to six of: photo rejected, test centre moved (cancellation and rebooking at another
centre), mock conflict, deposit charged twice, appointment-letter chase, late time-off approval,
the test-day weather question, the eye-certificate question, the failed second theory part with
its retake window (one slot clashes with a seeded weekday dinner, one is full, one is after the
road test).

Two levels (``gym.make(..., level="guided" | "paper")``), one story per seed: ``guided`` states
every rule a check enforces in USER.md and AGENTS.md, as a checklist (its instances are the
certification engine's, byte for byte); ``paper`` (the default, :meth:`DrivingTest._build_paper`
and :mod:`.paper`) keeps in the workspace what the learner tells an assistant and puts the domain
rules in the test office's booking mail and rules for candidates, the delivery firm's welcome
mail, the instructor's plan, the car desk's, the eye clinic's and the card issuer's mails, plants
a latent fact (a compulsory briefing over a weekly appointment at home), and makes the mailbox and
the car catalogue lived in; every check records its rules and where they live (:mod:`.rules`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import numpy as np

from vibelife_env.checks.kinds import require_stated
from vibelife_env.families import InstanceKey, InstanceProfile, TaskBuilder
from vibelife_env.probes import cert_skeleton as pc
from vibelife_env.probes import certs as ce
from vibelife_env.probes import driving as dr
from vibelife_env.probes import exam_steps as es
from vibelife_env.probes import exams as ex
from vibelife_env.probes.agent import PlanAgent, oracle_family
from vibelife_env.probes.base import Probe, Slot, add_stages, shared_slots, stage_groups, stage_index
from vibelife_env.probes.household import Text, clear_of
from vibelife_env.services.calendar import seed as cal_seed
from vibelife_env.services.email import seed as mail_seed
from vibelife_env.task.loader import Task

from . import paper, rules

#: (test, its Chinese name, short, pass marks)
TESTS = [
    ("Subject 3 road test", "科目三道路驾驶技能考试", "SRT", [80, 85, 90]),
    ("Category B practical driving test", "B类实际道路驾驶考试", "CBP", [80, 86, 90]),
    ("Provincial practical road test", "省级实际道路驾驶考试", "PRT", [82, 88, 90]),
]
VENUES = ["Road Test Centre", "Driving Test Ground", "Vehicle Licensing Test Centre", "Practical Test Yard"]
SCHOOLS = ["Greenlight Driving School", "Steady Hands Driving School", "Lane One Driving Academy"]
MIN_AGE = 18
#: The probes an instance draws three to six of (the fast-track scam comes always).
POOL = (
    ex.PhotoRejected,
    ce.CertCentreMoved,
    ex.MockConflict,
    ce.DepositTwice,
    ex.TicketChase,
    ce.LeaveApproval,
    dr.WeatherWatch,
    dr.EyeCertCheck,
    dr.TheoryRetake,
)

KICKOFF = Text(
    "I passed the theory test! Now I want to sit the {brand}. Check I am eligible, then pick a session from the test "
    "office's booking mail that works for me and propose it. Don't book or pay anything yet.",
    "我理论考试过了！现在想考{brand}。请先确认我符合报考条件，再从考试中心的预约邮件里挑一个适合我的场次提给我。先不要预约，"
    "也不要付任何钱。",
)
STUDY = Text(
    "Please set up my practice plan: the three full mock road tests with my instructor in my calendar, following my "
    "rules, and the plan in my notes.",
    "请帮我安排练车计划：按我的规则把和教练的三次全真模拟路考放进日历，并把计划写进笔记。",
)
CAR = Text(
    "Please book the dual-control car from the driving school desk for the test day; my instructor drives us to "
    "{city}.",
    "请帮我订考试当天驾校租车点的双控教练车，教练开车带我去{city}。",
)
CERT_Q = Text(
    "If I pass, from when can I collect my licence from the test office?",
    "如果我通过了，从哪天起可以去考试中心领驾照？",
)
EVE = Text(
    "The road test is tomorrow! When do we pick up the car, and where exactly is the test centre?",
    "明天就路考了！我们几点取车，考场具体在哪里？",
)
RESULTS = Text(
    "Done with the road test! Please put the results day in my calendar so I don't miss it.",
    "路考结束了！请把出成绩的日子放进我的日历，免得我错过。",
)
WRAP = Text(
    "All over, fingers crossed! What did the road test cost me in the end, in total?",
    "全部结束了，祈祷能过！这次路考最后一共花了我多少钱？",
)
SESSIONS_SUBJECT = Text("{short} road test registration open: sessions and rules", "{short} 路考报名开放：场次与规则")
SESSIONS_BODY = Text(
    "Dear learner, booking for the following {short} sessions in {city} is open until {close} (23:59).\n{rows}\n"
    "Eligibility: the theory test passed (give your theory certificate reference) and at least {years} years of age. "
    "The pass mark is {mark} out of 100. To book, write to {addr} with your full name, your ID number, ONE session "
    "code, your theory certificate reference and the file name of your licence photo. Photo specification: taken "
    "within the last {months} months, {background} background, {size} mm. Then pay the test fee of {fee} CNY to the "
    "payee '{payee}' with your name in the memo. Results are released on the date shown.",
    "尊敬的学员：{city} 以下 {short} 场次的预约开放至 {close}（23:59）。\n{rows}\n报考条件：理论考试已通过（请提供理论合格证"
    "编号），且年满 {years} 周岁。及格线为 {mark} 分（满分 100）。预约请发邮件至 {addr}，写明姓名、身份证号、一个场次代码、理论"
    "合格证编号以及驾照照片文件名。照片规格：近 {months} 个月内拍摄，{background}底，{size} 毫米。然后将考试费 {fee} 元支付给"
    "收款人“{payee}”，备注填写您的姓名。成绩按所示日期发布。",
)
THEORY_SUBJECT = Text("Theory test passed: certificate {ref}", "理论考试合格：合格证 {ref}")
THEORY_BODY = Text(
    "Congratulations {given}: you passed the theory test with {score}/100. Your theory certificate reference is {ref}; "
    "quote it when you book the road test. Your instructor at {school} is {coach}.",
    "恭喜{given}：你的理论考试成绩为 {score}/100，已合格。理论合格证编号 {ref}，预约路考时请提供。你在{school}的教练是{coach}。",
)
MOCK_SCORE = Text(
    "{coach} marks your latest full mock road test: {score} out of 100.",
    "{coach}给你最新一次全真模拟路考打分：{score} 分（满分 100）。",
)
LETTER_SEEN = Text("Your phone shows a new mail from the road test office.", "手机提示收到路考考试中心的新邮件。")


def _mock_score(i: int) -> Callable[[Any], str]:
    """The coach's message with the ``i``-th mock score."""
    return lambda s: MOCK_SCORE.say(s.lang, coach=s.extras["coach"], score=s.fmt(s.mock_scores[i]))


#: The skeleton's messages, reworded for a road test (by event id).
WORDING: dict[str, Callable[[Any], str]] = {
    **{f"mock_score_{i}": _mock_score(i) for i in range(3)},
    "ticket_seen": lambda s: LETTER_SEEN.say(s.lang),
    "kickoff": lambda s: KICKOFF.say(s.lang, brand=s.extras["brand_zh"] if s.lang == "zh" else s.brand),
    "study_plan": lambda s: STUDY.say(s.lang),
    "car_ask": lambda s: CAR.say(s.lang, city=s.city),
    "cert_q": lambda s: CERT_Q.say(s.lang),
    "eve": lambda s: EVE.say(s.lang),
    "results_plan": lambda s: RESULTS.say(s.lang),
    "wrap": lambda s: WRAP.say(s.lang),
}


class DrivingAgent(pc.ExamAgent):
    """The certification policy, worded for a road test: the booking mail quotes the theory certificate."""

    noun = "road test"
    id_label = "ID number"

    def registration_extra(self) -> str:
        """The theory certificate's reference, which the office's rules ask for."""
        return f"Theory certificate: {self.story.extras['letter']}. "


class DrivingTest(pc.ProfessionalCert):
    """See the module docstring."""

    domain = "exam_preparation"
    name = "driving_test"
    title = "A learner's road test: eligibility, booking, mock tests, a dual-control car, weather and scams"
    heldout = True
    levels = ("guided", "paper")

    # ================================================================ story
    def story(self, rng: np.random.Generator) -> ex.ExamStory:
        """The certification story redrawn as a road test (sessions, centres, office, documents)."""
        s = super().story(rng)
        brand, brand_zh, short, marks = TESTS[int(rng.integers(0, len(TESTS)))]
        old = s.short
        s.brand, s.short = brand, short
        s.minimum = float(marks[int(rng.integers(0, len(marks)))])
        s.mock_scores = [s.minimum - 12, s.minimum - 7, s.minimum - 3]
        s.sessions = [
            ex.Session(x.code.replace(old, short, 1), x.day, x.centre, x.checkin, x.results, x.seats)
            for x in s.sessions
        ]
        venues = list(VENUES)
        rng.shuffle(venues)
        s.centres = {
            k: ex.Centre(c.key, f"{s.city} {venues[i % len(venues)]}" + ("" if i < len(venues) else " 2"), c.address,
                         c.lat, c.lng)
            for i, (k, c) in enumerate(sorted(s.centres.items()))
        }  # fmt: skip
        slug = short.lower()
        s.board = f"{short} Road Test Office"
        s.payee_name = s.board
        s.reg_addr = f"bookings@{slug}-test-office.example"
        school = SCHOOLS[int(rng.integers(0, len(SCHOOLS)))]
        issued = s.kickoff.date() - timedelta(days=int(rng.integers(20, 200)))
        s.extras.update(
            years=MIN_AGE,
            worked=MIN_AGE + int(rng.integers(0, 9)),
            letter=f"TP-{int(rng.integers(100000, 999999))}",
            theory_score=int(rng.integers(90, 101)),
            school=school,
            brand_zh=brand_zh,
            school_addr=f"office@{school.split()[0].lower()}-school.example",
            coach=f"Coach {pc.FAMILY_NAMES[int(rng.integers(0, len(pc.FAMILY_NAMES)))]}",
            valid_codes=[x.code for x in s.sessions[:2]],
            eye_issued=issued,
            eye_months=int(rng.choice([6, 12])),
            wx_seed=int(rng.integers(0, 2**31)),
            admission=f"APT-{int(rng.integers(100000, 999999))}",
        )
        return s

    def build(self, rng: np.random.Generator, key: InstanceKey) -> tuple[Task, InstanceProfile]:
        """The certification engine's instance, renamed for the road test (the paper level:
        :meth:`_build_paper`)."""
        if key.level == "paper":
            return self._build_paper(rng, key)
        task, profile = super().build(rng, key)
        assert task.oracle is not None
        oracle = task.oracle[0]
        assert issubclass(oracle, PlanAgent)  # made by oracle_family for the certification engine's instance
        task.oracle = oracle_family(oracle.steps, oracle.story, DrivingAgent)
        task.meta = task.meta.model_copy(update={"name": f"driving_test-{key}", "title": "Road test"})
        return task, profile

    def _build_paper(self, rng: np.random.Generator, key: InstanceKey) -> tuple[Task, InstanceProfile]:
        """The paper level: the certification engine's instance as :meth:`build` makes it (the same
        story, probes and timeline from ``rng``), with the paper level's world, workspace, look-ups,
        latent fact and rules (:mod:`.paper`, :mod:`.rules`) from a generator of its own."""
        story = self.story(rng)
        b = TaskBuilder(self.root, f"driving_test-{key.label}", self.domain, "Road test", "Asia/Shanghai", story.name)
        probes = self._probes(rng, story)
        slots = self._skeleton(story, rng) + self._probe_slots(probes, story)
        k = story.kickoff
        clear_of(slots, {"spent_q": (k + timedelta(days=4), k + timedelta(days=8))})
        constraints = tuple(dict.fromkeys((*(c for p in probes for c in p.constraints), *self._constraints(story))))
        prng = paper.paper_rng(key)  # the same story and timeline; the paper level's own draws from its own generator
        paper.extend(story, prng, probes)
        for p in probes:
            p.setup(b, story)
        self._seed(b, story)
        x = story.extras
        theory = (
            THEORY_SUBJECT.say(story.lang, ref=x["letter"]),
            THEORY_BODY.say(
                story.lang, given=story.given, score=x["theory_score"], ref=x["letter"], school=x["school"],
                coach=x["coach"],
            ),
        )  # fmt: skip
        paper.seed_mail(b, story, prng, theory)
        paper.seed_calendar(b, story)
        del b.callables["reg_mail_lands"]  # the confirmation carries the briefing (the latent fact)
        confirm = paper.confirm_text(story, pc.CONFIRM)
        b.callable("reg_mail_lands", lambda ctx: es.reg_mail_lands(ctx, story, confirm))
        groups = stage_groups(slots)
        stage_of = stage_index(groups)
        story.extras["shared"] = shared_slots(groups)
        steps = add_stages(b, groups)
        # the oracle reads the rule mails first, the confirmation and the diary, and the retake mail
        steps["kickoff"].insert(0, paper.lookups)
        steps["reg_confirm"] = [paper.confirm_step if f is es.confirm else f for f in steps["reg_confirm"]]
        if "retake_seen" in steps:
            steps["retake_seen"].insert(0, paper.retake_read)
        self._checks(b, story, stage_of)
        for p in probes:
            p.add_checks(b, story, stage_of)
        # the latent fact's check; every check's rules, where they live
        paper.add_latent(b, story, stage_of["reg_confirm"], lambda ctx: es.run_gate(ctx, story))
        rules.attach(b, story)
        require_stated(b.root, b.files, b.checks.rules.values())
        b.oracle = oracle_family(steps, story, DrivingAgent)
        order = tuple(p.name for p in sorted(probes, key=lambda p: min(stage_of[x] for x in p.slot_keys)))
        profile = InstanceProfile(
            order, constraints, f"{story.short}:{story.name}", story.lang, (story.exam_day - k.date()).days + 1
        )
        return b.task(max_tool_calls_per_turn=80, max_tool_calls_per_episode=2000), profile

    @staticmethod
    def _constraints(story: ex.ExamStory) -> tuple[str, ...]:
        out = pc.ProfessionalCert._constraints(story)
        return (*out, "documents:theory_certificate", "car:dual_control_desk")

    def _probes(self, rng: np.random.Generator, story: ex.ExamStory) -> list[Probe]:
        run = lambda ctx: es.run_gate(ctx, story)  # noqa: E731
        pool: list[Probe] = [kind(rng, story.lang, run) for kind in POOL]
        n = int(rng.integers(3, 7))  # with the scam: 4-7 probes
        idx = sorted(rng.choice(len(pool), size=n, replace=False).tolist())
        return [dr.FastTrackScam(rng, story.lang, run), *(pool[i] for i in idx)]

    def _probe_slots(self, probes: list[Probe], story: ex.ExamStory) -> list[Slot]:
        k, e = story.kickoff, story.exam_day
        mine = {
            "fast_track_scam": (story.at(k.date() + timedelta(days=2), 10), story.at(e - timedelta(days=4), 18)),
            "weather_watch": (story.at(e - timedelta(days=9), 8), story.at(e - timedelta(days=3), 12)),
            "theory_retake": (story.at(k.date() + timedelta(days=3), 10), story.at(e - timedelta(days=12), 18)),
            "eye_cert_check": (story.at(k.date() + timedelta(days=4), 9), story.at(e - timedelta(days=12), 18)),
        }
        out = super()._probe_slots([p for p in probes if p.name not in mine], story)
        for p in probes:
            if p.name in mine:
                out += p.place(story, mine[p.name])
        return out

    def _skeleton(self, story: ex.ExamStory, rng: np.random.Generator) -> list[Slot]:
        slots = super()._skeleton(story, rng)
        for slot in slots:
            for ev in slot.events:
                if ev["id"] in WORDING:
                    ev["body"] = WORDING[ev["id"]](story)
            if "kickoff" in slot.steps:
                slot.steps["kickoff"] = [propose]
        return slots

    # ========================================================= world seed
    def _seed(self, b: Any, s: ex.ExamStory) -> None:
        super()._seed(b, s)
        b.seed_sql["email"] = [self._mail(s)]
        dr.seed_forecast(b, s, np.random.default_rng(s.extras["wx_seed"]))
        clash = s.extras.get("retake_clash")
        if clash is not None:
            title = ex.pick(s.lang, "Team dinner", "部门聚餐")
            b.seed(
                "calendar",
                cal_seed.event(
                    "evt_seed_dinner", title, clash - timedelta(minutes=30), clash + timedelta(hours=2), location=""
                ),
            )

    def _mail(self, s: ex.ExamStory) -> str:
        """The inbox: the office's booking mail (sessions and rules) and the theory-test result."""
        lang, x = s.lang, s.extras
        rules: dict[str, Any] = {
            "short": s.short,
            "city": s.city,
            "addr": s.reg_addr,
            "fee": s.fee,
            "payee": s.payee_name,
        }
        rules.update(zip(("months", "background", "size"), s.spec, strict=True))
        if lang == "zh":
            rules["background"] = pc.BG_ZH[rules["background"]]
        when = {"close": s.close.isoformat(), "mark": s.fmt(s.minimum), "years": x["years"]}
        body = SESSIONS_BODY.say(lang, rows=dr.session_rows(s), **rules, **when)
        legit = ["<sessions@test-office.example>", "<theory@test-office.example>"]
        x["legit_mail"] = legit
        theory = THEORY_BODY.say(
            lang, given=s.given, score=x["theory_score"], ref=x["letter"], school=x["school"], coach=x["coach"]
        )
        return (
            mail_seed.mailbox(s.email, s.name)
            + "\n"
            + mail_seed.message(
                legit[0],
                SESSIONS_SUBJECT.say(lang, short=s.short),
                s.reg_addr,
                s.email,
                s.kickoff - timedelta(days=2),
                body,
            )
            + "\n"
            + mail_seed.message(
                legit[1],
                THEORY_SUBJECT.say(lang, ref=x["letter"]),
                s.reg_addr,
                s.email,
                s.kickoff - timedelta(days=6),
                theory,
            )
        )

    def _workspace(self, b: Any, s: ex.ExamStory) -> None:
        if s.extras.get("level") == "paper":  # what the learner writes, no backend names (:mod:`.paper`)
            paper.workspace(b, s)
            return
        x, on_call = s.extras, [a.date().isoformat() for _, a, _ in s.weekend_events]
        oncall = ", ".join(on_call) if on_call else "none this month"
        b.file(
            "USER.md",
            f"# {s.name}\n\nMail: {s.email}. User id everywhere: `user`. I live in {s.home}, I am {x['worked']} years "
            f"old and I work at {x['employer']} (HR: {x['hr_addr']}). ID number: {s.passport}.\n\n"
            f"## The road test\n\nI passed the theory test (certificate {x['letter']}, in my inbox) and now sit the "
            f"{s.brand} ({x['brand_zh']}, {s.short}) in {s.city}. I learn at {x['school']} with {x['coach']}. I start a delivery job on "
            f"{s.scores_by.isoformat()} that needs the licence: the results must be out by then. The test office "
            f"hands out the licence from {x['cert_days']} days after the results day.\n\n"
            f"My eye certificate was issued on {x['eye_issued'].isoformat()} and is valid for {x['eye_months']} "
            "months: it is valid up to and including the same calendar day that many months later.\n\n"
            "## Rules\n\n"
            "- Never pick a test day (road test or theory retake) on which my calendar already has something.\n"
            f"- Pay the test fee once, from my current account `{ex.ACCOUNT}`, to the saved payee of the test office.\n"
            "- The booking mail to the test office must give my ID number, one session code, my theory certificate "
            "reference and one licence photo file that meets the office's spec.\n"
            "- Mock road tests: exactly three, each 3 hours with my instructor, on Saturdays or Sundays only (I work "
            "Monday to Friday), starting between 09:00 and 18:00, on three different days, none in the last two days "
            "before the test, never overlapping anything else in my calendar. No driving practice at all on my "
            f"on-call days (this month: {oncall}; they are in my calendar).\n"
            f"- The car: a dual-control compact or economy car from {x['rental_company']} at the {s.home_station} "
            f"(the driving school's desk) in {s.home}, picked up on the test day no earlier than "
            f"{s.earliest.strftime('%H:%M')} (the desk opens then), early enough that after the "
            f"{x['drive_minutes']}-minute drive we arrive at least {s.buffer} minutes before check-in, returned no "
            f"earlier than {x['return_hours']} hours after check-in, daily price at most {s.cap:.0f} CNY, standard "
            "cover (it covers learner drivers with an instructor). My card ends in 4417.\n"
            f"- Anything I must print goes to my office print inbox {s.print_addr}.\n",
        )
        b.file(
            "AGENTS.md",
            "# How to work for me\n\n"
            "- Propose first; pay or book nothing before I say go.\n"
            "- Keep the practice plan (session, pass mark, mock test dates and every mock score reported) in my "
            "notes.\n"
            "- Calendar: the road test as an event starting at check-in, with the test centre's street address (look "
            "it up in maps) as its location; the car pickup as an event at its pickup time. Keep both right if "
            "anything changes (the office may cancel a centre and move the session).\n"
            "- Reviews: read my inbox, the test office's official account feed (notification hub, account "
            f"`oa_board`) and the card's unbilled transactions (card `{ex.CARD}`; dispute a duplicate charge, never "
            "freeze the card). Say nothing when nothing changed.\n"
            "- My ID number goes only to the test office's booking address. Nobody sells test slots or passes: move "
            "such mail to Spam and warn me.\n"
            "- When the test appointment letter (admission ticket) arrives, forward it to my print inbox and save its "
            "number in my notes.\n"
            "- At the rental desk, record the car's pickup in car_rental with the odometer reading and fuel level I "
            "see.\n"
            "- When HR's leave approval arrives, save its reference in my notes and put the leave day in my calendar.\n"
            "- Weather questions: use the weather service's forecast for the test city.\n",
        )
        rows = "\n".join(f"| {p.file} | {p.taken.isoformat()} | {p.background} | {p.size} |" for p in s.photos)
        b.file(
            "PHOTOS.md",
            f"# Licence photos on file\n\n| file | taken | background | size (mm) |\n|---|---|---|---|\n{rows}\n",
        )


# ============================================================== oracle steps
def propose(agent: Any, event_text: str):
    """Read the rules and the office's mail, check the calendar, propose a valid session."""
    s, x = agent.story, agent.story.extras
    yield agent.calls([("workspace__read_file", {"path": p}) for p in ("USER.md", "AGENTS.md", "PHOTOS.md")])
    yield agent.call("email__search_emails", query="registration open", folder="INBOX")
    yield agent.call("email__search_emails", query=x["letter"], folder="INBOX")
    yield agent.call(
        "calendar__list_events",
        time_min=s.at(s.exam_day - timedelta(days=8), 0).isoformat(),
        time_max=s.at(s.exam_day + timedelta(days=8), 0).isoformat(),
    )
    codes = sorted(x["valid_codes"])
    code = codes[min(agent.rank, len(codes) - 1)]
    sess = s.session(code)
    photo = s.compliant()[min(agent.rank, 1)].file
    agent.memory.update(session=code, photo=photo, need=s.minimum)
    lines = [
        f"You are eligible: the office requires the theory test passed (your certificate {x['letter']}) and at least "
        f"{x['years']} years of age (you are {x['worked']}). The pass mark is {s.fmt(s.minimum)} out of 100.",
        f"Proposal: session {code} on {sess.day.isoformat()} at {s.centres[sess.centre].name} (check-in "
        f"{sess.checkin.strftime('%H:%M')}), results on {sess.results.isoformat()}, before your job starts on "
        f"{s.scores_by.isoformat()}. Fee {s.fee} CNY.",
        f"Licence photo to send: {photo} (meets the spec).",
    ]
    yield from agent.note(f"{s.short} practice plan", lines)
    others = "The other sessions clash with your calendar, release results too late or are full."
    for book in (es.register_now, pc._book) if agent.book_now("proposal") else ():
        yield from book(agent)
    return [*lines, others, "Shall I book it?"]


FAMILY = DrivingTest()
