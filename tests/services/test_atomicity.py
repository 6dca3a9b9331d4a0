"""Every failed call leaves the world exactly as it was: rows, generator, clock, files."""

from __future__ import annotations

from datetime import datetime

import gymnasium as gym
import numpy as np
import pytest

import vibelife_env  # noqa: F401 (registers the environments)
from tests.conftest import SHANGHAI, table_dump
from vibelife_env.clock import VirtualClock
from vibelife_env.services.base import Service, ServiceContext, ToolError, tool
from vibelife_env.services.registry import SERVICES


class _Dice(Service):
    """A service whose tools draw from the generator and write a row before failing."""

    name = "dice"
    SCHEMA = "CREATE TABLE rolls (id INTEGER PRIMARY KEY, value INTEGER NOT NULL);"

    @tool
    def roll(self, fail: str = "") -> dict[str, int]:
        """Roll a die and store it; optionally fail afterwards.

        Args:
            fail: "" to succeed; "refuse" (ToolError), "result" (error dict) or "bug" (KeyError).
        """
        value = int(self.ctx.rng.integers(1, 7))
        self.execute("INSERT INTO rolls (value) VALUES (?)", (value,))
        if fail == "refuse":
            raise ToolError("BAD_ARG", "refused after rolling")
        if fail == "result":
            return {"error": "refused after rolling", "code": "BAD_STATE"}
        if fail == "bug":
            return {}["missing"]
        return {"value": value}


@pytest.fixture
def dice() -> _Dice:
    return _Dice(ServiceContext(VirtualClock(datetime(2026, 4, 17, 9, 0, tzinfo=SHANGHAI)), np.random.default_rng(7)))


@pytest.mark.parametrize(("mode", "code"), [("refuse", "BAD_ARG"), ("result", "BAD_STATE"), ("bug", "INTERNAL_ERROR")])
def test_a_failed_call_gives_back_rows_and_generator(dice, mode, code):
    twin = _Dice(ServiceContext(dice.ctx.clock, np.random.default_rng(7)))
    state, rows = dice.ctx.rng.bit_generator.state, table_dump(dice)
    assert dice.call("roll", {"fail": mode})["code"] == code
    assert dice.ctx.rng.bit_generator.state == state and table_dump(dice) == rows
    # the next roll is the one a world without the failed call would have made
    assert dice.call("roll", {}) == twin.call("roll", {})


def test_internal_errors_name_only_service_tool_and_type(dice):
    res = dice.call("roll", {"fail": "bug"})
    assert res == {"error": "internal error in dice.roll (KeyError); nothing was changed", "code": "INTERNAL_ERROR"}


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_services_keep_no_python_state_outside_sqlite(make_service, name):
    svc = make_service(name)
    assert set(vars(svc)) == {"ctx", "conn"}, f"{name} keeps state a failed call could not roll back"


@pytest.fixture
def make_world():
    """Fresh flagship worlds after ``reset(seed=0)``; equal actions give equal worlds."""
    envs = []

    def build():
        env = gym.make("VibeLife-travel-japan-v0")
        env.reset(seed=0)
        envs.append(env)
        return env.unwrapped.world

    yield build
    for env in envs:
        env.close()


@pytest.fixture
def world(make_world):
    return make_world()


def _book_two(world) -> str:
    search = world.call(
        "flight_booking__search_flights",
        {"origin": "PVG", "destination": "HND", "departure_date": "2026-05-01", "adults": 2, "non_stop": True},
    )
    offer = next(o for o in search["offers"] if o["itinerary"]["slices"][0]["segments"][0]["flight_no"] == "MU523")
    people = [{"type": "ADT", "given_name": n, "family_name": "Lin"} for n in ("Wei", "Mei")]
    booking = world.call(
        "flight_booking__create_booking",
        {
            "offer_id": offer["offer_id"],
            "passengers": people,
            "contact": {"email": "lin@example.com", "phone": "+86 138"},
            "payment": {"method": "CARD", "card_last4": "4242"},
        },
    )
    return booking["pnr"]


def test_failed_check_in_leaves_the_world_digest_and_later_ids_unchanged(make_world):
    world, twin = make_world(), make_world()  # the twin never sees the failed call
    for w in (world, twin):
        pnr = _book_two(w)
        w.clock.set(datetime(2026, 4, 30, 12, 0, tzinfo=SHANGHAI))
    before = world.digest()
    assert twin.digest() == before
    # passenger 0 gets a seat and a boarding-pass id from the generator, then 1A (business) fails
    bad = world.call(
        "flight_booking__check_in",
        {"pnr": pnr, "segment_idx": 0, "preferred_seats": [{"pax_idx": 1, "seat": "1A"}]},
    )
    assert bad["code"] == "SEAT_UNAVAILABLE"
    assert world.digest() == before
    args = {"pnr": pnr, "segment_idx": 0}
    assert world.call("flight_booking__check_in", args) == twin.call("flight_booking__check_in", args)
    assert world.digest() == twin.digest()


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("flight_booking__search_flights", {"origin": "PVG", "destination": "HND", "departure_date": "May 1"}),
        ("flight_booking__create_booking", {"offer_id": "ofr_none", "passengers": [], "contact": {}, "payment": {}}),
        ("email__send_email", {"to": "not-an-address", "subject": "s", "body": "b"}),
        ("workspace__write_file", {"path": "../escape.md", "content": "x"}),
        ("workspace__edit_file", {"path": "nothing.md", "old_text": "a", "new_text": "b"}),
        ("calendar__create_event", {"summary": "x", "start": "2026-05-01T10:00:00", "end": "2026-05-01T09:00:00"}),
    ],
)
def test_failed_calls_through_the_world_leave_its_digest_unchanged(world, name, args):
    world.call(
        "flight_booking__search_flights", {"origin": "PVG", "destination": "HND", "departure_date": "2026-05-01"}
    )
    before = world.digest()
    result = world.call(name, args)
    assert set(result) == {"error", "code"}
    assert world.digest() == before
