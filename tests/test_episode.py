"""The episode engine: exact snapshots at any step, isolated mutation failures, the agent's
view of ``info``, and agent-scheduled wake-ups."""

from __future__ import annotations

import copy
import json
import pickle
import random
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import vibelife_env
from vibelife_env.agents import make_agent
from vibelife_env.episode import AGENT_INFO_KEYS, agent_view
from vibelife_env.multiagent import VibeLifeParallelEnv
from vibelife_env.registration import builtin_tasks_dir
from vibelife_env.rollout import run_episode
from vibelife_env.runner import AgentFactory, EpisodeJob, EpisodeRunner
from vibelife_env.world import World

DEMO = "VibeLife-demo-errands-v0"
OWN = ["VibeLife-demo-errands-v0", "VibeLife-family-grandma-birthday-v0", "VibeLife-travel-japan-v0"]


class RandomWriter:
    """A seeded random policy that changes the world: files, calendar events, wake-ups, replies."""

    name = "random"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def reset(self, info: dict[str, Any]) -> None:
        self.reads = [n for n in info["read_only_tools"] if not n.startswith("assistant__")][:30]
        self.tools = {t["function"]["name"] for t in info["tools"]}

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> Any:
        r = self.rng
        if r.random() < 0.35:
            return {"tool_calls": [], "reply": r.choice(["", "ok", "Noted, I'll keep an eye on it."])}
        calls = []
        for _ in range(r.randint(1, 3)):
            roll = r.random()
            if roll < 0.3:
                calls.append(
                    {
                        "name": "workspace__append_file",
                        "arguments": {"path": f"n{r.randint(0, 3)}.md", "content": f"x{r.random()}"},
                    }
                )
            elif roll < 0.5 and "calendar__create_event" in self.tools:
                day = r.randint(1, 28)
                calls.append(
                    {
                        "name": "calendar__create_event",
                        "arguments": {
                            "summary": f"e{r.randint(0, 99)}",
                            "start": f"2026-05-{day:02d}T10:00:00+08:00",
                            "end": f"2026-05-{day:02d}T11:00:00+08:00",
                        },
                    }
                )
            elif roll < 0.55:
                calls.append(
                    {
                        "name": "assistant__schedule_wakeup",
                        "arguments": {
                            "at": f"2026-0{r.randint(4, 6)}-{r.randint(1, 28):02d}T08:00:00+08:00",
                            "note": "check",
                        },
                    }
                )
            elif roll < 0.65:
                calls.append(
                    {"name": "email__send_email", "arguments": {"to": "a@b.example", "subject": "s", "body": "b"}}
                )
            else:
                calls.append({"name": r.choice(self.reads), "arguments": {}})
        return {"tool_calls": calls, "reply": None}


def _play(env: Any, agent: Any, seed: int) -> tuple[list[Any], list[str], list[float], str]:
    """Run to the end; actions, observations (JSON), rewards and the final world digest."""
    obs, info = env.reset(seed=seed)
    agent.reset(agent_view(info))
    actions, observations, rewards = [], [json.dumps(obs, sort_keys=True)], []
    done = False
    while not done:
        action = copy.deepcopy(agent.act(obs, agent_view(info)))
        actions.append(copy.deepcopy(action))
        obs, reward, term, trunc, info = env.step(action)
        observations.append(json.dumps(obs, sort_keys=True))
        rewards.append(reward)
        done = term or trunc
    return actions, observations, rewards, env.unwrapped.world.digest()


def _continue(env: Any, actions: list[Any]) -> tuple[list[str], list[float], str]:
    observations, rewards = [], []
    for action in actions:
        obs, reward, *_ = env.step(copy.deepcopy(action))
        observations.append(json.dumps(obs, sort_keys=True))
        rewards.append(reward)
    return observations, rewards, env.unwrapped.world.digest()


@pytest.mark.parametrize("env_id", OWN)
@pytest.mark.parametrize("agent_name", ["oracle", "random"])
def test_snapshots_at_random_steps_are_exact(env_id: str, agent_name: str) -> None:
    seed = 3
    agent = RandomWriter(11) if agent_name == "random" else make_agent("oracle", gym.make(env_id).unwrapped.task)
    actions, observations, rewards, final = _play(gym.make(env_id).unwrapped, agent, seed)
    picks = sorted(random.Random(env_id + agent_name).sample(range(1, len(actions)), k=min(3, len(actions) - 1)))
    for k in picks:
        env = gym.make(env_id).unwrapped
        env.reset(seed=seed)
        for action in actions[:k]:
            env.step(copy.deepcopy(action))
        snap = env.snapshot()
        digest = env.world.digest()
        assert World.from_snapshot(snap.world).digest() == digest
        copies = {
            "restore": gym.make(env_id).unwrapped,
            "pickle": gym.make(env_id).unwrapped,
            "fork": env.fork(),
        }
        copies["restore"].reset(seed=99)
        copies["restore"].step(
            {"tool_calls": [{"name": "workspace__write_file", "arguments": {"path": "junk.md", "content": "junk"}}]}
        )
        copies["restore"].restore(snap)
        copies["pickle"].reset(options={"snapshot": pickle.loads(pickle.dumps(snap))})
        expected = (observations[k + 1 :], rewards[k:], final)
        for how, other in copies.items():
            assert other.world.digest() == digest, f"{how} at step {k}"
            assert _continue(other, actions[k:]) == expected, f"{how} at step {k} diverged"
        assert _continue(env, actions[k:]) == expected  # the original, after being snapshotted


def test_snapshot_after_a_write_keeps_the_write() -> None:
    """The reproduction of the issue: a snapshot right after the first write used to lose it."""
    e = gym.make(DEMO).unwrapped
    e.reset(seed=0)
    args = {"summary": "x", "start": "2026-05-06T15:30:00+08:00", "end": "2026-05-06T16:30:00+08:00"}
    e.step({"tool_calls": [{"name": "calendar__create_event", "arguments": args}]})
    assert World.from_snapshot(e.snapshot().world).digest() == e.world.digest()
    assert any(
        r["summary"] == "x"
        for r in World.from_snapshot(e.snapshot().world).services["calendar"].query("SELECT summary FROM events")
    )


def test_snapshot_inside_a_sandbox_is_refused() -> None:
    e = gym.make(DEMO).unwrapped
    e.reset(seed=0)
    with e.world.sandbox(), pytest.raises(RuntimeError, match="open atomic"):
        e.world.snapshot()
    e.world.snapshot()  # fine again once closed


FAILING_EVENTS = """
stages:
  0:
    - id: E0
      time: 2026-04-17T09:00:00+08:00
      kind: user_message
      body: hello
  1:
    - id: M_ok
      time: 2026-04-18T08:00:00+08:00
      kind: mutation
      apply:
        - server: calendar
          sql: "INSERT INTO events (event_id, calendar_id, summary, start_dt, end_dt, created_at, updated_at) VALUES ('ev_m', 'primary', 'from the world', '2026-04-20T09:00:00+08:00', '2026-04-20T10:00:00+08:00', 'x', 'x');"
    - id: M_bad
      time: 2026-04-18T09:00:00+08:00
      kind: mutation
      apply:
        - server: calendar
          sql: "INSERT INTO events (event_id, calendar_id, summary, start_dt, end_dt, created_at, updated_at) VALUES ('ev_bad', 'primary', 'half', '2026-04-21T09:00:00+08:00', '2026-04-21T10:00:00+08:00', 'x', 'x');"
        - workspace_file: {content: "half-written", destination: HALF.md}
      postconditions:
        - workspace_path: HALF.md
          contains: ["never there"]
    - id: E1
      time: 2026-04-18T10:00:00+08:00
      kind: world
      body: check
"""


def _bundle(tmp_path: Path, events: str) -> Path:
    root = tmp_path / "bundle"
    (root / "envs" / "calendar" / "mini").mkdir(parents=True)
    (root / "envs" / "calendar" / "mini" / "init.sql").write_text(
        "INSERT INTO calendars (calendar_id, user_id, name, timezone, is_primary, created_at) "
        "VALUES ('primary', 'me', 'Me', 'Asia/Shanghai', 1, '2026-01-01T00:00:00Z');",
        encoding="utf-8",
    )
    (root / "workspace").mkdir()
    (root / "workspace" / "USER.md").write_text("me", encoding="utf-8")
    (root / "task.toml").write_text(
        '[metadata]\nname = "mini"\ncategory = "test"\n[scenario]\ntimezone = "Asia/Shanghai"\n'
        '[dependencies]\nservers = ["calendar"]\n',
        encoding="utf-8",
    )
    (root / "event.yaml").write_text(events, encoding="utf-8")
    (root / "checks.py").write_text(
        "from vibelife_env.checks import CheckSet\nchecks = CheckSet()\n\n@checks.final(weight=1)\n"
        "def f(ctx):\n    return True\n\nCHECKS = checks\n",
        encoding="utf-8",
    )
    return root


def _calendar_summaries(world: World) -> set[str]:
    return {r["summary"] for r in world.services["calendar"].query("SELECT summary FROM events")}


def test_a_failed_mutation_rolls_back_only_itself(tmp_path: Path) -> None:
    env = vibelife_env.VibeLifeEnv(_bundle(tmp_path, FAILING_EVENTS))
    env.reset(seed=0)
    args = {"summary": "agent work", "start": "2026-04-19T09:00:00+08:00", "end": "2026-04-19T10:00:00+08:00"}
    env.step(
        {
            "tool_calls": [
                {"name": "calendar__create_event", "arguments": args},
                {"name": "workspace__write_file", "arguments": {"path": "plan.md", "content": "mine"}},
            ]
        }
    )
    _, _, _, _, info = env.step({"reply": "done"})
    assert info["mutations_applied"] == ["M_ok"] and info["mutation_errors"][0].startswith("M_bad")
    assert _calendar_summaries(env.world) == {"agent work", "from the world"}
    assert env.world.workspace.read("plan.md") == "mine" and env.world.workspace.read("HALF.md") is None
    with pytest.raises(vibelife_env.errors.MutationError, match="M_bad"):
        strict = vibelife_env.VibeLifeEnv(_bundle(tmp_path / "s", FAILING_EVENTS), strict_mutations=True)
        strict.reset(seed=0)
        strict.step({"reply": ""})


def test_own_mutations_survive_an_agent_that_takes_their_ids() -> None:
    """The demo's phishing mail used a fixed id that an imported mail could take first."""
    env = gym.make(DEMO, strict_mutations=True, max_tool_calls_per_turn=200).unwrapped
    env.reset(seed=0)
    send = {"name": "email__send_email", "arguments": {"to": "me@example.com", "subject": "note", "body": "x"}}
    env.step({"tool_calls": [send] * 120})
    taken = env.world.services["email"].query("SELECT MAX(id) AS top FROM messages")[0]["top"]
    assert taken > 101  # the id the phishing mutation used to insert
    _, _, _, _, info = env.step({"reply": "ok"})  # strict: a failing mutation would raise here
    assert info["mutations_applied"] and not info["mutation_errors"]


def test_agents_never_see_grading_or_mutation_data() -> None:
    seen: list[set[str]] = []

    class Spy:
        name = "spy"

        def reset(self, info: dict[str, Any]) -> None:
            seen.append(set(info))

        def act(self, obs: dict[str, Any], info: dict[str, Any]) -> Any:
            seen.append(set(info))
            return {"tool_calls": [], "reply": ""}

    run_episode(gym.make(DEMO), Spy(), seed=0)
    leaked = set().union(*seen) - AGENT_INFO_KEYS
    assert not leaked
    assert not {"check_results", "score", "mutations_applied", "checks", "final_score"} & set().union(*seen)
    full = gym.make(DEMO).unwrapped
    full.reset(seed=0)
    assert "mutations_applied" in full.step({"reply": ""})[4]  # the env's own info keeps it for logging


def _null_factory() -> Any:
    return make_agent("null")


def test_runner_accepts_an_agent_factory() -> None:
    runner = EpisodeRunner(AgentFactory(_null_factory), num_workers=0)
    [result] = list(runner.run([EpisodeJob(DEMO, seed=0)]))
    assert result.ok and result.result.score == 0.0


def test_grpo_start_state_holds_the_oracle_world_at_that_turn() -> None:
    pytest.importorskip("torch", reason="the train extra is not installed")
    from vibelife_env.training.grpo import GRPOConfig, start_state

    env_id = "VibeLife-travel-japan-v0"
    snap = start_state(gym.make(env_id), GRPOConfig(envs=[env_id], start_turn=4), seed=0)
    env = gym.make(env_id).unwrapped
    obs, info = env.reset(seed=0)
    oracle = make_agent("oracle", env.task)
    oracle.reset(agent_view(info))
    while info["turn"] < 4:
        obs, _, _, _, info = env.step(oracle.act(obs, agent_view(info)))
    assert World.from_snapshot(snap.world).digest() == env.world.digest()
    booked = World.from_snapshot(snap.world).services["flight_booking"].query("SELECT COUNT(*) AS n FROM bookings")
    assert booked[0]["n"] > 0  # the oracle's bookings are in the start state


# ------------------------------------------------------------------ wake-ups
def _schedule(at: str, note: str = "re-check the forecast") -> dict[str, Any]:
    return {"tool_calls": [{"name": "assistant__schedule_wakeup", "arguments": {"at": at, "note": note}}]}


def test_a_scheduled_wakeup_opens_a_turn_at_its_time() -> None:
    env = gym.make(DEMO).unwrapped
    obs, info = env.reset(seed=0)
    start = info["time"]
    obs, *_ = env.step(_schedule("2026-05-04T12:00:00+08:00"))
    assert json.loads(obs["messages"][0]["content"])["wakeup"]["wakeup_id"] == "wk_1"
    obs, _, _, _, info = env.step({"reply": "I'll look again at noon."})
    assert info["time"] == "2026-05-04T12:00:00+08:00" and info["event_id"] == "wakeup_wk_1"
    assert (
        "re-check the forecast" in obs["messages"][-1]["content"]
        and "scheduled by you" in obs["messages"][-1]["content"]
    )
    assert info["time"] > start
    listed = env.world.call("assistant__list_wakeups", {"include_done": True})
    assert listed["wakeups"][0]["status"] == "fired"


@pytest.mark.parametrize(
    ("at", "fragment"),
    [
        ("2026-05-04T08:59:00+08:00", "not after now"),
        ("2027-01-01T00:00:00+08:00", "end of the timeline"),
        ("soon", "ISO 8601"),
    ],
)
def test_wakeups_never_before_now_or_past_the_timeline(at: str, fragment: str) -> None:
    env = gym.make(DEMO).unwrapped
    env.reset(seed=0)
    before = env.world.digest()
    obs, *_ = env.step(_schedule(at))
    result = json.loads(obs["messages"][0]["content"])
    assert result["code"] == "BAD_ARG" and fragment in result["error"]
    assert env.world.digest() == before


def test_wakeups_are_bounded_per_episode() -> None:
    env = gym.make(DEMO, max_wakeups=2).unwrapped
    env.reset(seed=0)
    codes = []
    for minute in range(3):
        obs, *_ = env.step(_schedule(f"2026-05-04T1{minute}:00:00+08:00"))
        codes.append(json.loads(obs["messages"][0]["content"]).get("code"))
    assert codes[:2] == [None, None] and codes[2] is not None


def test_wakeup_schedule_is_part_of_snapshots_and_digest() -> None:
    env = gym.make(DEMO).unwrapped
    env.reset(seed=0)
    before = env.world.digest()
    env.step(_schedule("2026-05-04T12:00:00+08:00"))
    assert env.world.digest() != before
    other = env.fork()
    assert other.world.scheduler.pending()[0].note == "re-check the forecast"
    _, _, _, _, info = other.step({"reply": ""})
    assert info["event_id"] == "wakeup_wk_1"


def test_wakeups_reach_only_the_persona_that_scheduled_them() -> None:
    env = VibeLifeParallelEnv(builtin_tasks_dir() / "family" / "grandma_birthday")
    obs, infos = env.reset(seed=0)
    assert infos["lina"]["time"].startswith("2026-06-01")
    env.step({"lina": _schedule("2026-06-02T08:00:00+08:00", "call the restaurant"), "hao": ""})
    obs, _, _, _, infos = env.step({"lina": "", "hao": ""})
    assert infos["lina"]["event_id"] == "wakeup_wk_1" and infos["lina"]["time"] == "2026-06-02T08:00:00+08:00"
    assert "call the restaurant" in obs["lina"]["messages"][-1]["content"]
    assert infos["hao"]["event_id"] is None and obs["hao"]["messages"] == ()


# --------------------------------------------------- roles resolved from state
ROLE_EVENTS = """
stages:
  0:
    - id: E0
      time: 2026-04-17T09:00:00+08:00
      kind: user_message
      body: book something
  1:
    - id: M_move
      time: 2026-04-18T08:00:00+08:00
      kind: mutation
      apply:
        - script: "world.py:move_users_event"
          args: {hours: 2}
    - id: M_bad
      time: 2026-04-18T08:30:00+08:00
      kind: mutation
      apply:
        - script: "world.py:half_then_fail"
    - id: E1
      time: 2026-04-18T10:00:00+08:00
      kind: notification
      facts: "world.py:event_facts"
      body: "Your event {summary} now starts at {start}."
"""

ROLE_MODULE = """
def _users_event(ctx):
    rows = ctx.sql("calendar", "SELECT * FROM events ORDER BY created_at, event_id")
    return rows[0] if rows else None


def move_users_event(ctx, hours):
    event = _users_event(ctx)  # the role: whatever event the user made, resolved now
    if event is None:
        return
    from datetime import datetime, timedelta
    start = datetime.fromisoformat(event["start_dt"]) + timedelta(hours=hours)
    end = datetime.fromisoformat(event["end_dt"]) + timedelta(hours=hours)
    ctx.world.services["calendar"].execute(
        "UPDATE events SET start_dt = ?, end_dt = ? WHERE event_id = ?",
        (start.isoformat(), end.isoformat(), event["event_id"]),
    )


def half_then_fail(ctx):
    ctx.world.workspace.put("HALF.md", "half")
    raise RuntimeError("the world could not do it")


def event_facts(ctx):
    event = _users_event(ctx)
    return {"summary": event["summary"] if event else "(none)", "start": event["start_dt"] if event else "-"}
"""


def test_script_mutations_and_event_facts_follow_what_the_agent_did(tmp_path: Path) -> None:
    root = _bundle(tmp_path, ROLE_EVENTS)
    (root / "world.py").write_text(ROLE_MODULE, encoding="utf-8")
    for summary, day in (("Dentist", "19"), ("Haircut", "20")):  # two agents, two different choices
        env = vibelife_env.VibeLifeEnv(root)
        env.reset(seed=0)
        args = {"summary": summary, "start": f"2026-04-{day}T09:00:00+08:00", "end": f"2026-04-{day}T10:00:00+08:00"}
        env.step({"tool_calls": [{"name": "calendar__create_event", "arguments": args}]})
        obs, _, _, _, info = env.step({"reply": "booked"})
        assert info["mutations_applied"] == ["M_move"] and info["mutation_errors"][0].startswith("M_bad")
        assert obs["messages"][-1]["content"].endswith(
            f"Your event {summary} now starts at 2026-04-{day}T11:00:00+08:00."
        )
        assert env.world.workspace.read("HALF.md") is None  # the failing script rolled back alone
