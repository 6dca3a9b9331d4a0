"""Public bundles under the release's own semantics (issue #29); none of these needs a checkout.

- flight_booking's release profile: a flight's status on any date, holds that never lapse,
  tool descriptions that promise no expiry; our own service keeps ``FLIGHT_NOT_FOUND`` and
  the 24 h expiry its descriptions state;
- the profile rides in the database image, so worlds, snapshots, forks and restores keep it,
  and a world is built under it exactly for public bundles (``task.release``);
- wake-up turns stay out of the stage files the release's rubrics read, and every scripted
  turn is written under its own event id, on a stage that has both.

The episode tests play a copy of the synthetic release-layout bundle (``tests/data/bundles``)
that also enables flight_booking; the same copy without its runner (``task.py``) is one of
our own bundles, for the contrast.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Generator
from datetime import datetime
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import vibelife_env
from tests.conftest import SHANGHAI
from tests.services.test_flight_booking import CARD, CONTACT, FAMILY, SEED, _offer, _set_now
from tests.test_release import DATA, EXTRACTORS, TEA, TEA_ID, drive
from vibelife_env.clock import VirtualClock
from vibelife_env.release.rubric_env import RubricEnv
from vibelife_env.release.runtime import RESPONSE_SEPARATOR, ReleaseRuntime
from vibelife_env.release.trace import trace_rows
from vibelife_env.release.world import provider_class, world_images
from vibelife_env.services.base import ServiceContext
from vibelife_env.services.flight_booking import _profile
from vibelife_env.services.flight_booking.release import ReleaseFlightBookingService
from vibelife_env.services.flight_booking.service import FlightBookingService

OVERNIGHT = (
    "INSERT INTO flights VALUES ('NH921', 'PVG', 'NRT', '2026-05-01T23:00:00+08:00', "
    "'2026-05-02T03:00:00+09:00', '788', 2000, 'CNY', 'NH');"
)


def _service(cls: type[FlightBookingService], seed: str = SEED) -> FlightBookingService:
    """A seeded flight_booking of class ``cls`` at 2026-04-17 09:00 Shanghai (as ``make_service``)."""
    svc = cls(ServiceContext(VirtualClock(datetime(2026, 4, 17, 9, 0, tzinfo=SHANGHAI)), np.random.default_rng(0)))
    svc.load_sql(seed)
    svc.after_seed()
    return svc


@pytest.fixture
def release() -> FlightBookingService:
    return _service(ReleaseFlightBookingService, SEED + OVERNIGHT)


@pytest.fixture
def own() -> FlightBookingService:
    return _service(FlightBookingService, SEED + OVERNIGHT)


def _hold(fl: FlightBookingService, flight_no: str = "NH920") -> dict[str, Any]:
    offer = _offer(fl, flight_no)
    args = {"offer_id": offer["offer_id"], "passengers": FAMILY, "contact": CONTACT, "payment": CARD, "hold": True}
    return fl.call("create_booking", args)


def _seats_left(fl: FlightBookingService, flight_no: str = "NH920") -> int:
    row = fl.query_one(
        "SELECT seats_remaining FROM fare_buckets WHERE flight_no = ? AND cabin = 'ECONOMY'", (flight_no,)
    )
    assert row is not None
    return int(row["seats_remaining"])


# --------------------------------------------------------------------- flight status
def test_release_status_answers_any_date_of_a_known_flight(release, own):
    """As the release's ``status_service``: the flight on that date, else on any date;
    ``SCHEDULED`` without a status row; only an unknown flight number is an error."""
    other_day = release.call("get_flight_status", {"flight_no": "NH919", "date": "2026-05-01"})  # flies 05-08
    assert other_day == {
        "flight_no": "NH919",
        "date": "2026-05-01",
        "status": "SCHEDULED",
        "scheduled_depart": "2026-05-01T10:00:00+09:00",
        "scheduled_arrive": "2026-05-01T12:30:00+08:00",
        "actual_depart": None,
        "actual_arrive": None,
        "delay_min": 0,
        "gate": None,
        "terminal": None,
        "equipment": "788",
        "last_updated": "2026-04-17T09:00:00+08:00",  # the world's clock (the release: the wall clock)
    }
    own_day = release.call("get_flight_status", {"flight_no": "NH919", "date": "2026-05-08"})
    assert own_day["scheduled_depart"] == "2026-05-08T10:00:00+09:00" and own_day["status"] == "SCHEDULED"
    live = release.call("get_flight_status", {"flight_no": "NH920", "date": "2026-05-01"})
    assert live["gate"] == "B12" and live["last_updated"] == "2026-04-17T09:00:00+08:00"  # the status row's
    assert live == own.call("get_flight_status", {"flight_no": "NH920", "date": "2026-05-01"})
    # an overnight flight on its own date: the release puts its arrival clock time on that date
    night = release.call("get_flight_status", {"flight_no": "NH921", "date": "2026-05-01"})
    assert night["scheduled_depart"] == "2026-05-01T23:00:00+08:00"
    assert night["scheduled_arrive"] == "2026-05-01T03:00:00+09:00"
    assert own.call("get_flight_status", {"flight_no": "NH921", "date": "2026-05-01"})["scheduled_arrive"] == (
        "2026-05-02T03:00:00+09:00"
    )
    assert release.call("get_flight_status", {"flight_no": "XX1", "date": "2026-05-01"})["code"] == "FLIGHT_NOT_FOUND"
    assert release.call("get_flight_status", {"flight_no": "NH919", "date": "05/01"})["code"] == "BAD_ARG"
    sub = release.call("subscribe_flight_status", {"flight_no": "NH919", "date": "2026-05-01"})
    assert sub["date"] == "2026-05-01"
    assert release.call("subscribe_flight_status", {"flight_no": "XX1", "date": "2026-05-01"})["code"] == (
        "FLIGHT_NOT_FOUND"
    )


def test_own_status_keeps_flight_not_found_for_a_date_the_flight_does_not_fly(own):
    refused = own.call("get_flight_status", {"flight_no": "NH919", "date": "2026-05-01"})
    assert refused == {"error": "no flight NH919 on 2026-05-01", "code": "FLIGHT_NOT_FOUND"}
    assert own.call("subscribe_flight_status", {"flight_no": "NH919", "date": "2026-05-01"})["code"] == (
        "FLIGHT_NOT_FOUND"
    )


# --------------------------------------------------------------------------- holds
def test_release_holds_never_lapse(release):
    seats = _seats_left(release)
    booking = _hold(release)
    assert booking["status"] == "HOLD" and booking["ticket_numbers"] == [] and "hold_expires_at" not in booking
    _set_now(release, 2026, 4, 25, 9, 0)  # 8 days on: ours lapses after 24 h
    view = release.call("get_booking", {"pnr": booking["pnr"]})
    assert view["status"] == "HOLD" and "hold_expires_at" not in view
    assert [e["event"] for e in view["history"]] == ["CREATED"]
    listed = release.call("list_bookings", {"user_id": "u_lin"})["bookings"]
    assert [(b["pnr"], b["status"]) for b in listed] == [(booking["pnr"], "HOLD")]
    assert _seats_left(release) == seats - 3  # its seats stay held
    _set_now(release, 2026, 5, 1, 8, 30)  # 30 minutes before departure: still held, and holdable
    assert release.call("get_booking", {"pnr": booking["pnr"]})["status"] == "HOLD"
    assert _hold(release)["status"] == "HOLD"
    assert release.call("cancel_booking", {"pnr": booking["pnr"]})["status"] == "CANCELLED"


def test_own_holds_keep_their_24_hours(own):
    seats = _seats_left(own)
    booking = _hold(own)
    assert booking["hold_expires_at"] == "2026-04-18T09:00:00+08:00"
    _set_now(own, 2026, 4, 18, 9, 0)
    assert own.call("get_booking", {"pnr": booking["pnr"]})["status"] == "EXPIRED"
    assert _seats_left(own) == seats
    _set_now(own, 2026, 5, 1, 8, 30)
    assert _hold(own)["code"] == "HOLD_NOT_AVAILABLE"


def test_release_tool_descriptions_promise_no_expiry():
    ours, theirs = FlightBookingService.openai_tools(), ReleaseFlightBookingService.openai_tools()
    assert [t["function"]["name"] for t in ours] == [t["function"]["name"] for t in theirs]
    for mine, release in zip(ours, theirs, strict=True):
        assert mine["function"]["parameters"] == release["function"]["parameters"]
        if mine["function"]["name"] != "flight_booking__create_booking":
            assert mine == release
    own_text = FlightBookingService.tools["create_booking"].description
    release_text = ReleaseFlightBookingService.tools["create_booking"].description
    assert "24 hours" in own_text and "EXPIRED" in own_text
    assert not any(word in release_text.lower() for word in ("24", "expire", "lapse", "hold_expires_at"))
    assert "until it is cancelled" in release_text


# ------------------------------------------------------------------- the profile itself
def test_the_profile_travels_with_the_database_image(release, own):
    image, own_image = release.serialize(), own.serialize()
    assert _profile.of_image(image) == _profile.RELEASE and _profile.of_image(own_image) == _profile.OWN
    ctx = ServiceContext(VirtualClock(datetime(2026, 4, 17, 9, 0, tzinfo=SHANGHAI)))
    reopened = FlightBookingService(ctx, image)
    assert type(reopened) is ReleaseFlightBookingService and reopened.digest() == release.digest()
    assert type(FlightBookingService(ctx, own_image)) is FlightBookingService
    with pytest.raises(ValueError, match="profile ''"):
        ReleaseFlightBookingService(ctx, own_image)
    reopened.restore(own_image)
    assert type(reopened) is FlightBookingService
    reopened.restore(image)
    assert type(reopened) is ReleaseFlightBookingService
    assert FlightBookingService.stamp(own_image) is own_image  # our images are left as seeded
    stamped = ReleaseFlightBookingService.stamp(own_image)
    assert _profile.of_image(stamped) == _profile.RELEASE
    assert FlightBookingService(ctx, stamped).digest() == own.digest()  # the tables are untouched
    with pytest.raises(ValueError, match="unknown flight_booking profile"):
        _profile.stamp(own_image, "beta")


# ----------------------------------------------------------------- episodes in a world
INIT_SQL = """
INSERT INTO flights VALUES ('MU501', 'PVG', 'NRT', '2026-03-06T09:00:00+08:00', '2026-03-06T13:00:00+09:00', '738', 1500, 'CNY', 'MU');
INSERT INTO fare_buckets VALUES ('MU501', '2026-03-06', 'ECONOMY', 1500, 5);
INSERT INTO flight_status VALUES ('MU501', '2026-03-06', 'SCHEDULED', NULL, NULL, 'B2', 'T2', 0, '2026-03-01T09:00:00+08:00');
"""


@pytest.fixture(scope="module")
def ids() -> list[str]:
    return vibelife_env.register_bundles(DATA)


def _flight_bundle(root: Path, runner: bool = True) -> Path:
    """The tea-party bundle with flight_booking enabled; its runner writes the plain trace
    (``runner=False``: no ``task.py``, so it is one of our own bundles)."""
    bundle = root / "chores" / "tea_party"
    shutil.copytree(TEA, bundle)
    toml = bundle / "task.toml"
    text = toml.read_text(encoding="utf-8")
    text = text.replace(
        'servers = ["calendar", "notification_hub"]', 'servers = ["calendar", "notification_hub", "flight_booking"]'
    )
    text = text.replace('notification_hub = "tea"', 'notification_hub = "tea"\nflight_booking = "tea"')
    toml.write_text(text, encoding="utf-8")
    (bundle / "envs" / "flight_booking" / "tea").mkdir(parents=True)
    (bundle / "envs" / "flight_booking" / "tea" / "init.sql").write_text(INIT_SQL, encoding="utf-8")
    task_py = bundle / "task.py"
    if runner:
        task_py.write_text(task_py.read_text(encoding="utf-8") + EXTRACTORS["plain"], encoding="utf-8")
    else:  # without the runner, the timeline says what the runner reads into it
        task_py.unlink()
        events = bundle / "event.yaml"
        text = events.read_text(encoding="utf-8").replace("server: hub", "server: notification_hub")
        events.write_text(text.replace("time: 2026-03-03T09:00\n", "time: '2026-03-03T09:00:00+08:00'\n"))
    return bundle


#: The synthetic bundle's rubric that fails on purpose (``tests/test_release.py``).
BROKEN = "f_broken: RuntimeError: this rubric is broken on purpose"
PASSENGER = [{"type": "ADT", "given_name": "Mei", "family_name": "Chen"}]
SEARCH = {"origin": "PVG", "destination": "NRT", "departure_date": "2026-03-06", "adults": 1}


class TeaTraveller:
    """A scripted agent: holds MU501 and checks its status on a day it does not fly in the
    first turn, schedules a wake-up between the two scripted turns of stage 0, re-reads the
    hold a day later. Every turn makes calls, so each one has rows in the trace."""

    def __init__(self) -> None:
        self.seen: dict[str, Any] = {}

    def turn(self, event_id: str, info: dict[str, Any] | None = None) -> Generator[dict[str, Any], Any, None]:
        if event_id == "e0_hello":
            offers = yield _call("flight_booking__search_flights", **SEARCH)
            hold = yield _call(
                "flight_booking__create_booking",
                offer_id=offers["offers"][0]["offer_id"],
                passengers=PASSENGER,
                contact={"email": "mei@example.com", "phone": "+86 1"},
                payment={"method": "CARD", "card_last4": "4242"},
                hold=True,
            )
            self.seen["hold"] = hold
            self.seen["pnr"] = hold.get("pnr")
            self.seen["status"] = yield _call("flight_booking__get_flight_status", flight_no="MU501", date="2026-03-04")
            yield _call("assistant__schedule_wakeup", at="2026-03-02T09:30:00+08:00", note="look at the hold")
            yield _reply("R-hello")
        elif event_id.startswith("wakeup_"):
            self.seen["wake_booking"] = yield _call("flight_booking__get_booking", pnr=self.seen["pnr"])
            yield _reply("R-wake")
        elif event_id == "e0_late_hello":
            yield _call("calendar__get_event", calendar_id="primary", event_id="evt_tea")
            yield _reply("R-late")
        elif event_id == "e1_check":
            self.seen["later"] = yield _call("flight_booking__get_booking", pnr=self.seen["pnr"])
            yield _reply("R-check")
        else:
            yield _call("workspace__write_file", path="notes.md", content="16:00 开始，可能下雨")
            yield _reply("")


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}], "reply": None}


def _reply(text: str) -> dict[str, Any]:
    return {"tool_calls": [], "reply": text}


def test_public_bundle_runs_the_release_profile_and_keeps_wakeups_out_of_its_stage_files(ids, tmp_path):
    env = gym.make(TEA_ID, task_dir=str(_flight_bundle(tmp_path))).unwrapped
    agent = TeaTraveller()
    assert drive(env, agent.turn) == [BROKEN]
    assert type(env.world.services["flight_booking"]) is ReleaseFlightBookingService
    shown = next(t for t in env.tool_schemas() if t["function"]["name"] == "flight_booking__create_booking")
    assert shown["function"]["description"] == ReleaseFlightBookingService.tools["create_booking"].description
    # the world: the status of a day MU501 does not fly, and a hold that is still a hold a day on
    assert agent.seen["status"]["status"] == "SCHEDULED"
    assert agent.seen["status"]["scheduled_depart"] == "2026-03-04T09:00:00+08:00"
    assert agent.seen["hold"]["status"] == "HOLD" and "hold_expires_at" not in agent.seen["hold"]
    assert agent.seen["later"]["status"] == "HOLD"
    # our record has the wake-up turn between the two scripted turns of stage 0 ...
    turns = env.record.turns(0)
    assert [(t.opened.event_id if t.opened else None, t.wakeup) for t in turns] == [
        ("e0_hello", False),
        ("wakeup_wk_1", True),
        ("e0_late_hello", False),
    ]
    # ... the release's stage files have only the scripted turns, each under its own id
    runtime = ReleaseRuntime.for_task(env.task)
    with env.episode.check_context(None) as ctx:
        fs = RubricEnv(ctx, runtime).workspace.fs
        rows = json.loads(fs.read_file("/terrarium/agent_traces/stage_0.json"))
        text = fs.read_file("/terrarium/agent_responses/stage_0.txt").decode()
    shape = env.task.release.trace
    expected = [row for t in turns if not t.wakeup for c in t.calls for row in trace_rows(shape, t.opened.event_id, c)]
    assert rows == expected
    assert [(r["event_id"], r["name"]) for r in rows] == [
        ("e0_hello", "flight_booking__search_flights"),
        ("e0_hello", "flight_booking__create_booking"),
        ("e0_hello", "flight_booking__get_flight_status"),
        ("e0_hello", "assistant__schedule_wakeup"),
        ("e0_late_hello", "calendar__get_event"),
    ]
    assert rows[2]["result"] == agent.seen["status"] and rows[1]["result"] == agent.seen["hold"]
    assert text == RESPONSE_SEPARATOR.join(["R-hello", "R-late"])
    log = runtime.turn_log(env.record)
    assert [e["event_id"] for e in log if e["stage"] == 0] == ["e0_hello", "e0_late_hello"]
    assert not any(str(e["event_id"]).startswith("wakeup_") for e in log)


def test_the_same_bundle_without_its_runner_is_ours(ids, tmp_path):
    """Without ``task.py`` the bundle is one of our own: ours holds lapse, status refuses the date."""
    env = gym.make(TEA_ID, task_dir=str(_flight_bundle(tmp_path, runner=False))).unwrapped
    agent = TeaTraveller()
    drive(env, agent.turn)
    assert env.task.release is None and type(env.world.services["flight_booking"]) is FlightBookingService
    assert agent.seen["status"]["code"] == "FLIGHT_NOT_FOUND"
    assert agent.seen["hold"]["hold_expires_at"] == "2026-03-03T09:00:00+08:00"
    assert agent.seen["later"]["status"] == "EXPIRED"
    assert world_images(env.task) is env.task.images
    assert provider_class(env.task, "flight_booking") is FlightBookingService


def test_snapshots_and_forks_of_a_public_world_keep_the_profile(ids, tmp_path):
    env = gym.make(TEA_ID, task_dir=str(_flight_bundle(tmp_path))).unwrapped
    env.reset(seed=0)
    assert provider_class(env.task, "flight_booking") is ReleaseFlightBookingService
    assert provider_class(env.task, "calendar") is type(env.world.services["calendar"])
    images = world_images(env.task)
    assert _profile.of_image(images["flight_booking"]) == _profile.RELEASE
    assert images["calendar"] is env.task.images["calendar"]
    assert _profile.of_image(env.task.images["flight_booking"]) == _profile.OWN  # the seeded image itself
    snap = env.snapshot()
    fork = env.fork()
    assert fork.world is not None and type(fork.world.services["flight_booking"]) is ReleaseFlightBookingService
    env.reset(seed=1)
    env.restore(snap)
    assert type(env.world.services["flight_booking"]) is ReleaseFlightBookingService
    assert type(env.world.fork().services["flight_booking"]) is ReleaseFlightBookingService
