"""Tool-path variants generated from the services (``vibelife_env.agents.paths``): each path
really takes the other road through the tools, the wrapped agent never notices, and the
validator runs a path wherever the oracle makes the call it rewrites."""

from __future__ import annotations

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401
from vibelife_env.agents.oracle import load_oracle
from vibelife_env.agents.paths import PATHS, PathVariant
from vibelife_env.agents.scripted import ScriptedAgent
from vibelife_env.env import base_env
from vibelife_env.rollout import run_episode
from vibelife_env.validation import validate_env

FLAGSHIP = "VibeLife-travel-japan-v0"
ERRANDS = "VibeLife-demo-errands-v0"


def _play(env_id: str, path: str, **kwargs):
    env = gym.make(env_id, **kwargs)
    agent = PathVariant(load_oracle(base_env(env).task), path)
    result = run_episode(env, agent, seed=0, record=False)
    return base_env(env), agent, result


@pytest.mark.parametrize("path", ["hold-then-ticket", "note-as-blocks", "reply-as-new-mail"])
def test_each_path_rewrites_the_flagship_oracle_and_keeps_full_credit(path: str) -> None:
    env, agent, result = _play(FLAGSHIP, path)
    assert agent.rewrites > 0
    assert result.score == pytest.approx(100.0), [c["id"] for c in result.checks if not c["passed"]]


def test_hold_then_ticket_leaves_a_cancelled_hold_beside_each_ticket() -> None:
    env, agent, _ = _play(FLAGSHIP, "hold-then-ticket")
    statuses = [r["status"] for r in env.world.provider("flight_booking").query("SELECT status FROM bookings")]
    assert statuses.count("CANCELLED") >= agent.rewrites
    assert any(s in ("TICKETED", "CHANGED") for s in statuses)


def test_note_as_blocks_writes_no_page_only_blocks_under_the_parent() -> None:
    plain_env, _, _ = _play(FLAGSHIP, "hold-then-ticket")  # the oracle's own notes path
    env, agent, _ = _play(FLAGSHIP, "note-as-blocks")
    pages = "SELECT COUNT(*) AS n FROM pages"
    mine, plain = env.world.provider("notion").query(pages), plain_env.world.provider("notion").query(pages)
    assert mine[0]["n"] == plain[0]["n"] - agent.rewrites


def test_a_reply_sent_as_a_new_mail_is_not_threaded() -> None:
    env, agent, _ = _play(FLAGSHIP, "reply-as-new-mail")
    sent = env.world.provider("email").query(
        "SELECT m.subject, m.in_reply_to FROM messages m JOIN folders f ON f.id = m.folder_id WHERE f.name = 'Sent'"
    )
    fresh = [m for m in sent if not m["in_reply_to"] and m["subject"].lower().startswith("re:")]
    assert len(fresh) >= agent.rewrites


class _Appender(ScriptedAgent):
    """Appends to a file, then reports what it saw: one result for its one call."""

    def on_S0_user_request(self, text):
        got = yield self.call("workspace__append_file", path="NOTES.md", content="- bought milk\n")
        self.memory["got"] = got
        page = yield self.call("workspace__read_file", path="NOTES.md")
        self.memory["text"] = page["content"] if isinstance(page, dict) else page
        yield self.reply("Done.")


def test_the_wrapped_agent_sees_only_the_result_of_the_call_it_made() -> None:
    env = gym.make(ERRANDS)
    obs, info = env.reset(seed=0)
    event = info["event_id"]
    agent = PathVariant(
        type("Appender", (_Appender,), {f"on_{event}": _Appender.on_S0_user_request})(), "append-as-rewrite"
    )
    agent.reset(info)
    seen_counts = []
    while True:
        action = agent.act(obs, info)
        obs, _, terminated, truncated, info = env.step(action)
        seen_counts.append(info["tool_calls"])
        if action.get("reply") is not None or terminated or truncated:
            break
    assert agent.rewrites == 1
    assert "error" not in agent.agent.memory["got"]
    assert agent.agent.memory["text"].endswith("- bought milk\n")
    assert agent._view({"tool_calls": 3})["tool_calls"] == 2  # the read it did not make is hidden


def test_validate_runs_a_path_only_where_the_oracle_makes_its_call() -> None:
    v = validate_env(ERRANDS)
    assert v.ok, v.problems
    names = {r.name for r in v.runs}
    assert "oracle~append-as-rewrite" in names and "oracle~reply-as-new-mail" in names
    assert "oracle~hold-then-ticket" not in names and "oracle~note-as-blocks" not in names


def test_an_unknown_path_is_named() -> None:
    with pytest.raises(ValueError, match=r"unknown tool path 'teleport'.*hold-then-ticket"):
        PathVariant(load_oracle(base_env(gym.make(ERRANDS)).task), "teleport")
    assert set(PATHS) == {
        "hold-then-ticket",
        "note-as-blocks",
        "append-as-rewrite",
        "move-as-recreate",
        "modify-as-rebook",
        "reply-as-new-mail",
    }


class _Mover(ScriptedAgent):
    """Makes an event, moves it, reads it back by the id it knows, and names that id."""

    def on_S0_user_request(self, text):
        made = yield self.call(
            "calendar__create_event",
            summary="Dentist",
            start="2026-05-10T09:00:00+08:00",
            end="2026-05-10T10:00:00+08:00",
        )
        self.memory["id"] = made["event_id"]
        yield self.call("calendar__update_event", event_id=made["event_id"], start="2026-05-11T09:00:00+08:00",
                        end="2026-05-11T10:00:00+08:00", location="Clinic")  # fmt: skip
        self.memory["back"] = yield self.call("calendar__get_event", event_id=made["event_id"])
        yield self.reply(f"Moved {made['event_id']}.")


def _drive(agent, env_id: str = ERRANDS):
    env = gym.make(env_id)
    obs, info = env.reset(seed=0)
    agent.reset(info)
    while True:
        action = agent.act(obs, info)
        obs, _, terminated, truncated, info = env.step(action)
        if action.get("reply") is not None or terminated or truncated:
            return base_env(env), action


def test_move_as_recreate_makes_a_new_event_the_agent_still_knows_by_its_old_id() -> None:
    inner = _Mover()
    event = gym.make(ERRANDS).reset(seed=0)[1]["event_id"]
    inner.__class__ = type("Mover", (_Mover,), {f"on_{event}": _Mover.on_S0_user_request})
    agent = PathVariant(inner, "move-as-recreate")
    env, last = _drive(agent)
    assert agent.rewrites == 1
    old = inner.memory["id"]
    rows = env.world.provider("calendar").query(
        "SELECT event_id, start_dt, location FROM events WHERE summary = 'Dentist'"
    )
    assert len(rows) == 1 and rows[0]["event_id"] != old  # the old one is gone, a new one made
    assert rows[0]["start_dt"].startswith("2026-05-11T09:00") and rows[0]["location"] == "Clinic"
    assert inner.memory["back"]["event_id"] == old  # the agent reads it back by the id it knows
    assert last["reply"] == f"Moved {rows[0]['event_id']}."  # and names the world's id to the user


def test_modify_as_rebook_books_the_changed_stay_anew_and_cancels_the_old() -> None:
    """The offsite's oracle changes a room to an accessible one; the path books that room anew
    (while cancelling is free) and cancels the old, and the agent, which keeps the old id, never
    sees the replaced reservation under it (a wrong count of step-free rooms would follow)."""
    env, agent, result = _play("VibeLife-team-building-offsite-v0", "modify-as-rebook", split="test", instance=2)
    assert agent.rewrites >= 1
    assert result.score == pytest.approx(100.0), [c["id"] for c in result.checks if not c["passed"]]
    rows = env.world.provider("hotel_booking").query("SELECT status, room_type FROM reservations")
    assert sum(r["status"] == "cancelled" for r in rows) >= agent.rewrites
