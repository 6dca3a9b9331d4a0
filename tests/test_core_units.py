"""Focused unit tests where a rule is subtle: clock, workspace paths, SQL splitting, schemas."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vibelife_env.clock import VirtualClock, parse_time
from vibelife_env.errors import ToolError
from vibelife_env.services.base import _split_sql
from vibelife_env.services.registry import canonical_name, service_class
from vibelife_env.workspace import Workspace, normalize_path


def test_clock_never_moves_backwards_and_is_tz_aware():
    clock = VirtualClock(parse_time("2026-04-17T09:00:00+08:00"))
    clock.advance_to(parse_time("2026-04-17T00:00:00Z"))  # earlier: ignored
    assert clock.iso() == "2026-04-17T09:00:00+08:00"
    clock.advance_to(parse_time("2026-04-18T00:00:00Z"))
    assert clock.iso() == "2026-04-18T08:00:00+08:00" and clock.iso_utc() == "2026-04-18T00:00:00Z"
    with pytest.raises(ValueError):
        clock.advance(timedelta(seconds=-1))
    with pytest.raises(ValueError):
        VirtualClock(datetime(2026, 1, 1))
    assert parse_time("2026-04-17").tzinfo is UTC


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("notes.md", "notes.md"),
        ("/workspace/notes.md", "notes.md"),
        ("/terrarium/openclaw/workspace/a/b.md", "a/b.md"),
        ("./a/../b.md", "b.md"),
        ("workspace/x.md", "x.md"),
    ],
)
def test_workspace_path_aliases(raw, canonical):
    assert normalize_path(raw) == canonical


@pytest.mark.parametrize("raw", ["", "../x", "a/../../x", "/etc/passwd", "/workspace/../../etc/passwd"])
def test_workspace_paths_cannot_escape(raw):
    with pytest.raises(ToolError) as err:
        normalize_path(raw)
    assert err.value.code == "BAD_PATH"


def test_workspace_edit_requires_a_unique_match_and_changes_nothing_otherwise():
    ws = Workspace({"a.md": "x x"})
    assert ws.call("edit_file", {"path": "a.md", "old_text": "x", "new_text": "y"})["code"] == "EDIT_NO_UNIQUE_MATCH"
    assert ws.files == {"a.md": "x x"}
    assert ws.call("edit_file", {"path": "a.md", "old_text": "x x", "new_text": "y"}) == {"path": "a.md", "chars": 1}


def test_sql_split_respects_quotes_comments_and_drops_transactions():
    script = "BEGIN;\n-- a; comment\nINSERT INTO t VALUES ('a;b'); INSERT INTO t VALUES (2);\nCOMMIT;\n"
    assert [s.strip() for s in _split_sql(script)] == [
        "-- a; comment\nINSERT INTO t VALUES ('a;b');",
        "INSERT INTO t VALUES (2);",
    ]


def test_failed_seed_script_applies_nothing(make_service):
    svc = make_service("notification_hub")
    with pytest.raises(Exception, match="no such table"):
        svc.load_sql("INSERT INTO official_accounts VALUES ('a','A',NULL,NULL); INSERT INTO nowhere VALUES (1);")
    assert svc.query("SELECT * FROM official_accounts") == []


def test_service_name_spellings():
    assert canonical_name("flight_booking_mock") == canonical_name("flight-booking") == "flight_booking"
    with pytest.raises(KeyError, match="unknown service 'teleport'"):
        service_class("teleport")


def test_tool_definition_without_docs_is_rejected():
    from vibelife_env.services.base import Service, tool

    with pytest.raises(TypeError, match="not described"):

        class Bad(Service):
            name = "bad"

            @tool
            def f(self, x: int) -> dict:
                """Do f."""
                return {}


def test_world_sandbox_undoes_everything():
    import gymnasium as gym

    env = gym.make("VibeLife-demo-errands-v0").unwrapped
    env.reset(seed=0)
    world = env.world
    digest = world.digest()
    with world.sandbox() as w:
        assert "error" not in w.call("email__move_email", {"email_id": "1", "target_folder": "Spam"})
        w.call(
            "calendar__create_event",
            {"summary": "x", "start": "2026-05-06T10:00:00+08:00", "end": "2026-05-06T11:00:00+08:00"},
        )
        w.call("workspace__write_file", {"path": "new.md", "content": "x"})
        w.rng.integers(0, 10)
        assert world.digest() != digest
    assert world.digest() == digest
