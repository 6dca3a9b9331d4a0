"""Roles resolve over every shape the services allow: here, a round trip is two legs of one booking."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym

import vibelife_env  # noqa: F401
from vibelife_env.checks import state

FIXTURE = Path(__file__).parent / "data" / "trajectories" / "family_trip-test2.json"


def test_a_round_trip_booking_is_two_legs_of_one_pnr():
    """The audited agent booked out and home as one round-trip offer (one PNR, two segments)."""
    fixture = json.loads(FIXTURE.read_text())
    env = gym.make(fixture["env_id"], instance=fixture["instance"], level=fixture.get("level", "guided"))
    env.reset(seed=fixture["reset_seed"])
    for action in fixture["actions"][:40]:
        env.step(action)
    with env.unwrapped.episode.check_context(None) as ctx:
        legs = state.flight_legs(ctx)
        flights = [c for c in state.charges(ctx) if c.kind == "flight" and c.live]
    assert len(flights) == 1 and len(legs) == 2  # one booking, both flights
    out, back = legs
    assert out.pnr == back.pnr == flights[0].ref and (out.segment_idx, back.segment_idx) == (0, 1)
    assert (out.origin, out.dest) == (back.dest, back.origin) and out.depart < back.depart
    assert out.charge is back.charge  # money is the booking's: sum charges, never legs


def test_a_block_added_to_the_seeded_home_page_is_a_note():
    """Notes appended as blocks to the page the workspace names count; the page's seeded text does not."""
    env = gym.make("VibeLife-career-equity-offer-v0", instance=0)
    env.reset(seed=0)
    base = env.unwrapped
    initial = dict(base.task.workspace_files)
    with base.episode.check_context(None) as ctx:
        assert state.notes(ctx, initial, exclude_pages=("pg_home",)) == []  # nothing written yet
    block = {"type": "paragraph", "paragraph": {"rich_text": [{"text": {"content": "Vesting cliff: 12 months."}}]}}
    result = base.world.call("notion__API-patch-block-children", {"block_id": "pg_home", "children": [block]})
    assert "error" not in result, result
    with base.episode.check_context(None) as ctx:
        found = state.notes(ctx, initial, exclude_pages=("pg_home",))
    assert [n.key for n in found] == ["pg_home"] and found[0].text.strip() == "Vesting cliff: 12 months."


def test_a_row_of_a_notion_database_is_a_note():
    """A log kept as a Notion database (one row per entry, with date and number columns) is
    notes as much as a page is: each row reads as its database's title and ``name: value`` lines
    (the music-grade audit kept its practice log that way and the checks did not see it)."""
    env = gym.make("VibeLife-career-equity-offer-v0", instance=0)
    env.reset(seed=0)
    base = env.unwrapped
    initial = dict(base.task.workspace_files)
    made = base.world.call(
        "notion__API-create-a-database",
        {
            "parent": {"type": "page_id", "page_id": "pg_home"},
            "title": [{"type": "text", "text": {"content": "Practice log"}}],
            "properties": {"Name": {"title": {}}, "Date": {"date": {}}, "Minutes": {"number": {}}},
        },
    )
    assert "error" not in made, made
    row = {
        "Name": {"title": [{"text": {"content": "Scales and the set piece"}}]},
        "Date": {"date": {"start": "2026-10-12"}},
        "Minutes": {"number": 35},
    }
    added = base.world.call(
        "notion__API-post-page", {"parent": {"type": "database_id", "database_id": made["id"]}, "properties": row}
    )
    assert "error" not in added, added
    with base.episode.check_context(None) as ctx:
        found = state.notes(ctx, initial, exclude_pages=("pg_home",))
    rows = [n for n in found if n.key == added["id"]]  # (the home page gains the database's block too)
    assert [n.title for n in rows] == ["Scales and the set piece"]
    assert rows[0].text.splitlines() == [
        "Practice log",
        "Name: Scales and the set piece",
        "Date: 2026-10-12",
        "Minutes: 35",
    ]


def test_a_meal_on_board_or_the_taxi_is_not_the_flights_event():
    from datetime import datetime, timedelta, timezone

    tz = timezone(timedelta(hours=8))
    dep = datetime(2026, 5, 11, 14, 0, tzinfo=tz)
    delayed = dep + timedelta(hours=3)

    def ev(i, summary, start, hours):
        return state.Event(f"e{i}", summary, start, start + timedelta(hours=hours), "", "", False)

    flight = ev(1, "Flight MU523 KIX-PVG", delayed, 2.5)
    meal = ev(2, "Meal: lunch on board MU523", delayed + timedelta(hours=1), 0.5)
    taxi = ev(3, "Taxi to KIX for MU523", dep - timedelta(hours=4), 1)
    stale = ev(4, "Flight MU523", dep, 2.5)
    other = ev(5, "Flight CZ390", delayed, 2)
    assert state.flight_events([flight, meal, taxi, other], "MU523", delayed, dep) == [flight]
    assert state.flight_events([stale, flight, meal], "MU523", delayed, dep) == [stale, flight]  # a stale copy counts
    point = ev(6, "MU523 departs", delayed, 0)
    assert state.flight_events([point], "MU523", delayed, dep) == [point]


def test_what_a_cancelled_train_kept_is_still_spent():
    live = state.Charge("rail_booking", "RB1", 100.0, "CNY", None, True, False, "train")
    penalised = state.Charge("rail_booking", "RB2", 39.5, "CNY", None, False, True, "train", kept=7.9)
    free = state.Charge("rail_booking", "RB3", 50.0, "CNY", None, False, True, "train")
    assert state.live_total([live, penalised, free]) == 107.9


def test_a_quiet_turn_is_short_but_a_question_gets_its_answer():
    from vibelife_env.checks.context import CheckContext, EpisodeRecord, Opened

    record = EpisodeRecord()
    long = "x" * (state.QUIET_REPLY_MAX + 1)
    record.add_reply(0, "ok", Opened("review", "cron_fire", "2026-05-04T09:00:00+08:00"))
    record.add_reply(0, long, Opened("wakeup_wk_1", "cron_fire", "2026-05-04T10:00:00+08:00", wakeup=True))
    record.add_reply(1, long, Opened("ask", "user_message", "2026-05-05T09:00:00+08:00", asks=True))
    record.add_reply(2, long, Opened("review2", "cron_fire", "2026-05-06T09:00:00+08:00"))
    ctx = CheckContext(None, record)  # type: ignore[arg-type]  # replies only: no world needed
    assert state.short_replies(ctx, 0) and state.short_replies(ctx, 1)  # own wake-up; an answered question
    verdict = state.short_replies(ctx, 2)
    assert not verdict and "the reply to review2 is 401 characters" in verdict.reason
