"""Travel disruption probes, all addressed by role (what the user actually booked):

- :class:`ReturnDelay`: the flight home is delayed silently on the return day; the calendar,
  the itinerary and the user must follow the real departure;
- :class:`StormWarning`: a storm advisory for the destination escalates from low to high
  confidence; a written Plan B must exist once it is likely, and the outing planned for the
  storm day must move to another day of the trip;
- :class:`LateDocument`: the travel insurer's certificate arrives by mail a few days before
  departure; it must reach the user (forwarded), who asked to carry it (``lang="zh"``: the
  insurer writes in Chinese).

``requires`` (optional, on :class:`StormWarning` and :class:`LateDocument`): a predicate over
the check context that every check of the probe also needs, e.g. "the trip is booked", so that
an agent doing no real work earns nothing from copying the advisory or mail text around.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, time, timedelta
from typing import Any

from vibelife_env.checks import state, text
from vibelife_env.probes import trip
from vibelife_env.probes.base import Probe, Slot
from vibelife_env.services import sql
from vibelife_env.services.email import seed as mail_seed
from vibelife_env.services.flight_booking import read as flight_read

#: The workspace rules the probes' checks enforce (a family that draws the probe states them in AGENTS.md).
STORM_RULE = (
    "- When a storm threatens a day with an outing, keep a written Plan B as soon as it is likely and move the "
    "outing to another day of the trip (in the calendar) without waiting for me.\n"
)
CERTIFICATE_RULE = "- When the travel-insurance certificate arrives, forward it to me: I carry it on the trip.\n"

SHELTER = text.Phrases(["stay in", "stay indoors", "indoors", "shelter", "at the hotel", "in the hotel", "no outings"])
STORM = text.Phrases(["storm", "typhoon", "advisory", "warning", "台风", "暴雨"])


# ============================================================== return delay
class ReturnDelay(Probe):
    """See the module docstring."""

    name = "return_delay"
    phase = "end"

    def __init__(self, rng: Any) -> None:
        super().__init__(rng)
        self.minutes = int(self.rng.choice([120, 150, 180, 210]))

    def delay(self, ctx: Any, story: trip.TripStory) -> None:
        held = trip.homebound(ctx, story)
        flight = held.flight_no if held else story.valid_back()[0].flight_no
        sched = flight_read.flight(ctx, flight)
        if sched is None:
            raise IndexError(f"no flight {flight!r}")
        dep0, arr0 = state.when(sched["depart_dt"]), state.when(sched["arrive_dt"])
        if dep0 is None or arr0 is None:
            raise ValueError(f"flight {flight} has no schedule to delay")
        dep, arr = dep0 + timedelta(minutes=self.minutes), arr0 + timedelta(minutes=self.minutes)
        ctx.world.services["flight_booking"].execute(
            sql.update(
                "flight_booking",
                "flight_status",
                {"flight_no": flight, "date": story.return_day.isoformat()},
                status="DELAYED",
                delay_min=self.minutes,
                actual_depart=dep.isoformat(),
                actual_arrive=arr.isoformat(),
            )
        )

    def slots(self, story: trip.TripStory, window: tuple[datetime, datetime]) -> list[Slot]:
        day = story.return_day
        at = datetime.combine(day, time(5, 0), tzinfo=story.dest_tz)
        brief = datetime.combine(day, time(7, 30), tzinfo=story.dest_tz)
        return [
            Slot(
                "return_delay",
                [
                    {
                        "id": "return_delay_lands",
                        "time": at,
                        "kind": "mutation",
                        "silent": True,
                        "body": "The flight home is delayed.",
                        "apply": [{"script": "return_delay"}],
                        "idempotency_key": "return-delay",
                    },
                    {
                        "id": "return_day_brief",
                        "time": brief,
                        "kind": "cron_fire",
                        "source": "scheduler",
                        "body": "Departure day brief.",
                    },
                ],
                {"return_day_brief": [self.step]},
            )
        ]

    def setup(self, b: Any, story: trip.TripStory) -> None:
        b.callable("return_delay", lambda ctx: self.delay(ctx, story))

    def add_checks(self, b: Any, story: trip.TripStory, stage_of: dict[str, int]) -> None:
        s = stage_of["return_delay"]

        def actual(ctx: Any) -> tuple[trip.Held | None, datetime | None]:
            held = trip.homebound(ctx, story)
            return held, trip.departure(ctx, held.flight_no, story.return_day) if held else None

        @b.checks.stage(s, weight=3, tags=("living_world", "calendar"), id=f"s{s:02d}_delay_in_calendar")
        def in_calendar(ctx: Any) -> bool:
            """The flight home's calendar event starts at its real (delayed) departure."""
            held, at = actual(ctx)
            if held is None or at is None:
                return False
            mine = state.flight_events(state.events(ctx, story.dest_tz), held.flight_no, at, held.depart)
            return len(mine) == 1 and mine[0].start == at

        @b.checks.stage(s, weight=2, tags=("living_world", "communication"), id=f"s{s:02d}_delay_told")
        def told(ctx: Any) -> bool:
            """The departure-day reply gives the new departure time."""
            held, at = actual(ctx)
            return at is not None and text.mentions_time(ctx.reply(s), at.astimezone(story.dest_tz).time())

        @b.checks.stage(s, weight=2, tags=("persistence", "living_world"), id=f"s{s:02d}_itinerary_folds_delay")
        def itinerary(ctx: Any) -> bool:
            """itinerary.md gives the flight home at its new time."""
            held, at = actual(ctx)
            lines = [ln for ln in ctx.file("itinerary.md").splitlines() if held and held.flight_no in ln]
            return at is not None and any(text.mentions_time(ln, at.astimezone(story.dest_tz).time()) for ln in lines)

    def step(self, agent: Any, event_text: str):
        back = agent.memory.get("back")
        if back is None or not agent.fresh():
            return ["Travel day: have a good flight."]
        st = yield agent.call("flight_booking__get_flight_status", flight_no=back["flight"], date=story_day(agent))
        if not st.get("actual_depart"):
            return []
        new_id = yield from agent.move_event(agent.memory["evt_back"], st["actual_depart"], st["actual_arrive"])
        agent.memory["evt_back"] = new_id
        agent.memory["days"][story_day(agent)] = [
            f"{back['flight']} delayed: departs {st['actual_depart'][11:16]} (was {back['depart'][11:16]})"
        ]
        yield agent.write_itinerary()
        return [
            f"{back['flight']} is delayed: it now leaves at {st['actual_depart'][11:16]}. Calendar and itinerary updated."
        ]


def story_day(agent: Any) -> str:
    return agent.story.return_day.isoformat()


# ============================================================== storm warning
class StormWarning(Probe):
    """See the module docstring."""

    name = "storm"
    phase = "trip"
    constraints = ("outing_on_storm_day",)

    def __init__(self, rng: Any, requires: Callable[[Any], bool] | None = None) -> None:
        super().__init__(rng)
        self.requires = requires

    def _ok(self, ctx: Any) -> bool:
        return self.requires is None or self.requires(ctx)

    def slots(self, story: trip.TripStory, window: tuple[datetime, datetime]) -> list[Slot]:
        self.day = story.extras["outing_day"]
        low = datetime.combine(self.day - timedelta(days=2), time(6, 0), tzinfo=story.dest_tz)
        high = datetime.combine(self.day - timedelta(days=1), time(6, 0), tzinfo=story.dest_tz)
        geo = story.dest.name.lower()
        return [
            Slot(
                "storm_low",
                [
                    {
                        "id": "storm_low_lands",
                        "time": low,
                        "kind": "mutation",
                        "silent": True,
                        "body": "A low-confidence storm advisory for the destination.",
                        "apply": [
                            {
                                "server": "weather",
                                "sql": sql.insert(
                                    "weather",
                                    "alerts",
                                    {
                                        "alert_id": "al_storm",
                                        "kind": "storm",
                                        "severity": "advisory",
                                        "start_dt": f"{self.day.isoformat()}T00:00:00",
                                        "end_dt": f"{(self.day + timedelta(days=1)).isoformat()}T00:00:00",
                                        "areas_json": json.dumps([geo]),
                                        "description": f"Low-confidence forecast: a storm may reach {story.dest.name} "
                                        f"on {self.day.isoformat()}. Monitor forecasts.",
                                        "active": 1,
                                        "created_at": low.isoformat(),
                                        "source_event": "met",
                                    },
                                ),
                            }
                        ],
                        "idempotency_key": "storm-low",
                    },
                    {
                        "id": "storm_low_brief",
                        "time": low + timedelta(hours=2),
                        "kind": "cron_fire",
                        "source": "scheduler",
                        "body": "Daily brief.",
                    },
                ],
                {"storm_low_brief": [self.step_low]},
            ),
            Slot(
                "storm_high",
                [
                    {
                        "id": "storm_high_lands",
                        "time": high,
                        "kind": "mutation",
                        "silent": True,
                        "body": "The storm forecast becomes high-confidence.",
                        "apply": [
                            {
                                "server": "weather",
                                "sql": sql.update(
                                    "weather",
                                    "alerts",
                                    {"alert_id": "al_storm"},
                                    severity="warning",
                                    description=f"High-confidence forecast: a storm hits {story.dest.name} on "
                                    f"{self.day.isoformat()} from 12:00. Avoid outdoor trips; stay indoors.",
                                ),
                            }
                        ],
                        "idempotency_key": "storm-high",
                    },
                    {
                        "id": "storm_high_brief",
                        "time": high + timedelta(hours=2),
                        "kind": "cron_fire",
                        "source": "scheduler",
                        "body": "Daily brief.",
                    },
                ],
                {"storm_high_brief": [self.step_high]},
            ),
        ]

    def add_checks(self, b: Any, story: trip.TripStory, stage_of: dict[str, int]) -> None:
        low, high = stage_of["storm_low"], stage_of["storm_high"]
        day = self.day

        @b.checks.stage(low, weight=2, tags=("living_world", "proactivity"), id=f"s{low:02d}_storm_flagged")
        def flagged(ctx: Any) -> bool:
            """The low-confidence advisory is passed on, on a trip that is on (the family's
            prerequisite, or else :func:`trip.trip_booked`): nothing is cancelled yet."""
            on = self._ok(ctx) if self.requires is not None else trip.trip_booked(ctx, story)
            return STORM.found_in(ctx.reply(low)) and on

        @b.checks.stage(high, weight=4, tags=("persistence", "living_world"), id=f"s{high:02d}_plan_b_written")
        def plan_b(ctx: Any) -> bool:
            """Once the storm is likely, a written Plan B covers the storm day (staying in)."""
            notes = state.notes(ctx, story.extras["initial_files"], exclude_pages=("pg_home",))
            return self._ok(ctx) and any(text.mentions_date(n.text, day) and SHELTER.found_in(n.text) for n in notes)

        @b.checks.stage(high, weight=3, tags=("living_world", "execution"), id=f"s{high:02d}_outing_moved")
        def moved(ctx: Any) -> bool:
            """The outing planned for the storm day now sits on another day of the trip."""
            outing = [e for e in state.events(ctx, story.dest_tz) if story.extras["outing"] in e.summary]
            trip_days = {story.depart_day + timedelta(days=i) for i in range(story.nights + 1)}
            return (
                len(outing) == 1
                and outing[0].start.date() != day
                and outing[0].start.date() in trip_days
                and self._ok(ctx)
            )

    def step_low(self, agent: Any, event_text: str):
        if not agent.fresh():
            return []
        alerts = yield agent.call("weather__get_alerts", geo=agent.story.dest.name.lower())
        if not alerts:
            return []
        return [
            f"Heads-up: a storm may reach {agent.story.dest.name} on {self.day.isoformat()} (low-confidence advisory). No change yet."
        ]

    def step_high(self, agent: Any, event_text: str):
        if not agent.fresh():
            return []
        yield agent.call("weather__get_alerts", geo=agent.story.dest.name.lower())
        d = self.day.isoformat()
        yield from agent.note(
            f"Plan B for the storm on {d}",
            [
                f"{d}: no outings after 12:00; stay in at the hotel.",
                f"{agent.story.extras['outing']} moved to {agent.story.extras['spare_day'].isoformat()}.",
            ],
        )
        spare = agent.story.extras["spare_day"].isoformat()
        new_id = yield from agent.move_event(
            agent.memory["evt_outing"], f"{spare}T10:00:00{_offset(agent)}", f"{spare}T15:00:00{_offset(agent)}"
        )
        agent.memory["evt_outing"] = new_id
        return [
            f"The storm is now likely on {d}: Plan B written (stay in at the hotel); I moved {agent.story.extras['outing']} to {spare}."
        ]


def _offset(agent: Any) -> str:
    at = datetime.combine(agent.story.depart_day, time(12, 0), tzinfo=agent.story.dest_tz)
    return at.isoformat()[-6:]


# ============================================================== late document
class LateDocument(Probe):
    """See the module docstring."""

    name = "late_document"
    #: Whether the oracle opens the insurer's mail before forwarding it (a level where it reads what it acts on).
    read_first = False
    phase = "prep"
    message_id = "<certificate@insurer.example>"

    def __init__(self, rng: Any, lang: str = "en", requires: Callable[[Any], bool] | None = None) -> None:
        super().__init__(rng)
        self.lang = lang
        self.requires = requires

    def slots(self, story: trip.TripStory, window: tuple[datetime, datetime]) -> list[Slot]:
        at = self._between(window, 0.5, 0.9)
        review = (at + timedelta(hours=int(self.rng.integers(6, 20)))).replace(minute=0)
        policy = f"TRV-{story.user.key.upper()}"
        if self.lang == "zh":
            subject, body = "您的旅行保险凭证", f"附件是您旅行保单的保险凭证，出境期间请随身携带。保单号 {policy}。"
        else:
            subject = "Your travel insurance certificate"
            body = f"Attached is the certificate of your travel policy; carry it while abroad. Policy {policy}."
        return [
            Slot(
                "late_document",
                [
                    {
                        "id": "certificate_lands",
                        "time": at,
                        "kind": "mutation",
                        "silent": True,
                        "body": "The insurer's certificate arrives.",
                        "apply": [
                            {
                                "server": "email",
                                "sql": sql.insert(
                                    "email",
                                    "messages",
                                    {
                                        "folder_id": mail_seed.folder_ref("INBOX"),
                                        "message_id": self.message_id,
                                        "subject": subject,
                                        "from_addr": "service@insurer.example",
                                        "to_addr_json": json.dumps([story.user.email]),
                                        "date": at.isoformat(),
                                        "body_text": body,
                                        "is_read": 0,
                                        "is_important": 0,
                                        "headers_json": "{}",
                                        "uid": 901,
                                        "size": 300,
                                        "created_at": at.isoformat(),
                                    },
                                ),
                            }
                        ],
                        "idempotency_key": "certificate",
                    },
                    {
                        "id": "certificate_review",
                        "time": review,
                        "kind": "cron_fire",
                        "source": "scheduler",
                        "body": "Pre-departure review.",
                    },
                ],
                {"certificate_review": [self.step]},
            )
        ]

    def add_checks(self, b: Any, story: trip.TripStory, stage_of: dict[str, int]) -> None:
        s = stage_of["late_document"]

        @b.checks.stage(s, weight=3, tags=("proactivity", "persistence"), id=f"s{s:02d}_certificate_forwarded")
        def forwarded(ctx: Any) -> bool:
            """The insurer's certificate reached the user (forwarded or sent to them), and the original is kept."""
            to_user = state.sent(ctx, story.user.email)
            about = [m for m in to_user if "certificate" in (m.subject + m.own_body).lower() or "TRV-" in m.body]
            return (
                bool(about) and state.intact(ctx, [self.message_id]) and (self.requires is None or self.requires(ctx))
            )

    def step(self, agent: Any, event_text: str):
        if not agent.fresh():
            return []
        query = "保险凭证" if self.lang == "zh" else "insurance certificate"
        found = yield agent.call("email__search_emails", query=query, folder="INBOX")
        mail = next(iter(found.get("emails", [])), None)
        if mail is None:
            return []
        if self.read_first:
            yield agent.call("email__read_email", email_id=mail["email_id"])
        yield agent.call(
            "email__forward_email",
            email_id=mail["email_id"],
            to=agent.story.user.email,
            body=agent.t("Your insurance certificate: please keep it with your passport."),
        )
        return ["The insurance certificate arrived; I forwarded it to you to carry."]
