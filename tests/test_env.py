"""VibeLifeEnv through the Gymnasium API, on the demo task."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import vibelife_env
from vibelife_env import ActionError
from vibelife_env.agents import KeywordStuffer, NullAgent, PollingAgent, make_agent
from vibelife_env.rollout import run_episode

DEMO = "VibeLife-demo-errands-v0"


@pytest.fixture
def env():
    e = gym.make(DEMO)
    yield e
    e.close()


def test_registered_without_loading():
    assert DEMO in vibelife_env.registered_ids()
    assert gym.registry[DEMO].entry_point == "vibelife_env.env:VibeLifeEnv"


def test_unknown_env_id_is_a_clear_error():
    with pytest.raises(gym.error.Error, match="VibeLife-demo-nope"):
        gym.make("VibeLife-demo-nope-v0")


@pytest.mark.parametrize("env_id", vibelife_env.registered_ids())
def test_check_env_passes_on_every_registered_id(env_id):
    check_env(gym.make(env_id).unwrapped)


def test_cli_imports_only_the_command_it_runs():
    code = (
        "import sys, io, contextlib\n"
        "from vibelife_env.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()): main(['list'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('vibelife_env.commands.')), 'ray' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['vibelife_env.commands.list_envs'] False"


def test_spaces_sample_and_contain(env):
    env.action_space.seed(1)
    action = env.action_space.sample()
    assert env.action_space.contains(action)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)


def test_reset_observation_has_system_prompt_and_first_event(env):
    obs, info = env.reset(seed=0)
    roles = [m["role"] for m in obs["messages"]]
    assert roles == ["system", "user"]
    assert "USER.md" in obs["messages"][0]["content"]
    assert "[message from Chen Jie @ 2026-05-04T09:00:00+08:00]" in obs["messages"][1]["content"]
    assert info["task_id"] == "demo/errands" and info["stage"] == 0
    names = {t["function"]["name"] for t in info["tools"]}
    assert {"email__send_email", "calendar__create_event", "workspace__write_file"} <= names
    assert obs["time"] == "2026-05-04T09:00:00+08:00"


def test_tool_calls_without_reply_keep_the_turn(env):
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(
        {"tool_calls": [{"name": "email__get_emails", "arguments": {"folder": "INBOX"}}]}
    )
    assert reward == 0 and not terminated and not truncated
    (msg,) = obs["messages"]
    assert msg["role"] == "tool" and msg["name"] == "email__get_emails" and "pick a new slot" in msg["content"]
    assert info["stage"] == 0 and info["time"] == "2026-05-04T09:00:00+08:00"


def test_openai_shaped_action(env):
    env.reset(seed=0)
    obs, *_ = env.step(
        {
            "role": "assistant",
            "content": "Let me look.",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "calendar__list_events", "arguments": "{}"}}
            ],
        }
    )
    assert obs["messages"][0]["tool_call_id"] == "c1"
    obs, *_ = env.step({"role": "assistant", "content": "Done."})  # no tool calls: closes the turn
    assert obs["messages"][-1]["role"] == "user"


def test_reply_advances_clock_and_scores_stage(env):
    env.reset(seed=0)
    obs, reward, terminated, _, info = env.step({"tool_calls": [], "reply": ""})
    assert info["stage"] == 1 and info["time"] == "2026-05-05T18:00:00+08:00"
    assert {r["id"] for r in info["check_results"]} == {
        "s0_event_respects_afternoon_rule",
        "s0_clinic_confirmed_one_slot",
    }
    assert reward == 0.0 and not terminated
    # the two silent mutations happened on the way, with no turn of their own
    assert info["mutations_applied"] == ["S1_clinic_moves_slot", "S1_phishing"]
    assert obs["messages"][0]["name"] == "cron_fire"


@pytest.mark.parametrize("agent_name", ["oracle", "null", "polling", "stuffer", "stale", "reckless"])
def test_rewards_sum_to_final_score(env, agent_name):
    result = run_episode(env, make_agent(agent_name, env.unwrapped.task), seed=3)
    assert result.terminated and not result.truncated
    assert sum(result.rewards) * 100 == pytest.approx(result.score)
    assert 0.0 <= result.score <= 100.0


def test_oracle_scores_100_and_baselines_fail(env):
    task = env.unwrapped.task
    assert run_episode(env, make_agent("oracle", task), seed=0).score == pytest.approx(100.0)
    for agent in (NullAgent(), PollingAgent(), KeywordStuffer()):
        assert run_episode(env, agent, seed=0).score < 30
    assert run_episode(env, make_agent("stale", task), seed=0).score <= 75
    assert run_episode(env, make_agent("reckless", task), seed=0).score <= 75


def _trajectory(seed):
    e = gym.make(DEMO)
    result = run_episode(e, make_agent("oracle", e.unwrapped.task), seed=seed)
    return result.messages, result.rewards, e.unwrapped.world.digest()


def test_same_seed_same_trajectory_byte_for_byte():
    assert _trajectory(7) == _trajectory(7)


def test_different_seeds_are_still_valid_episodes():
    msgs_a, rewards_a, _ = _trajectory(1)
    msgs_b, rewards_b, _ = _trajectory(2)
    assert rewards_a == rewards_b  # the oracle is robust to seed-dependent ids


def test_step_after_end_and_before_reset_raise():
    e = gym.make(DEMO).unwrapped
    with pytest.raises(RuntimeError, match="reset"):
        e.step({"reply": ""})
    run_episode(e, NullAgent(), seed=0)
    with pytest.raises(RuntimeError, match="over"):
        e.step({"reply": ""})


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (42, "must be a dict"),
        ({"tool_calls": "email__get_emails"}, "must be a list"),
        ({"tool_calls": [{"arguments": {}}]}, "name must be a non-empty string"),
        ({"tool_calls": [], "reply": 5}, "reply"),
        ({"tool_calls": [], "bogus": 1}, "unknown keys"),
        ({"role": "user", "content": "hi"}, "role 'assistant'"),
    ],
)
def test_malformed_action_raises_and_leaves_world_unchanged(env, action, message):
    env.reset(seed=0)
    before = env.unwrapped.world.digest()
    with pytest.raises(ActionError, match=message):
        env.step(action)
    assert env.unwrapped.world.digest() == before


@pytest.mark.parametrize(
    ("call", "code"),
    [
        ({"name": "email__no_such_tool", "arguments": {}}, "UNKNOWN_TOOL"),
        ({"name": "nosuchservice__x", "arguments": {}}, "UNKNOWN_TOOL"),
        ({"name": "plainname", "arguments": {}}, "UNKNOWN_TOOL"),
        ({"name": "email__read_email", "arguments": {}}, "BAD_ARG"),
        ({"name": "email__get_emails", "arguments": {"page": "first"}}, "BAD_ARG"),
        ({"name": "email__get_emails", "arguments": "{not json"}, "BAD_ARG"),
        ({"name": "calendar__create_event", "arguments": {"summary": ["x"], "start": "a", "end": "b"}}, "BAD_ARG"),
        ({"name": "workspace__write_file", "arguments": {"path": "../../etc/passwd", "content": "x"}}, "BAD_PATH"),
        ({"name": "workspace__write_file", "arguments": {"path": "/etc/passwd", "content": "x"}}, "BAD_PATH"),
        ({"name": "workspace__write_file", "arguments": {"path": "bin.dat", "content": "a\x00b"}}, "BINARY_CONTENT"),
        (
            {"name": "workspace__write_file", "arguments": {"path": "big.md", "content": "x" * 300_000}},
            "FILE_TOO_LARGE",
        ),
        ({"name": "email__read_email", "arguments": {"email_id": "999"}}, "EMAIL_NOT_FOUND"),
    ],
)
def test_bad_tool_calls_return_errors_and_change_nothing(env, call, code):
    env.reset(seed=0)
    before = env.unwrapped.world.digest()
    obs, reward, terminated, truncated, info = env.step({"tool_calls": [call]})
    result = obs["messages"][0]["content"]
    assert f'"code": "{code}"' in result, result
    assert env.unwrapped.world.digest() == before
    assert not (terminated or truncated)


def test_workspace_alias_paths_and_round_trip(env):
    env.reset(seed=0)
    env.step(
        {
            "tool_calls": [
                {"name": "workspace__write_file", "arguments": {"path": "/workspace/notes/a.md", "content": "hi"}}
            ]
        }
    )
    obs, *_ = env.step({"tool_calls": [{"name": "workspace__read_file", "arguments": {"path": "notes/a.md"}}]})
    assert '"content": "hi"' in obs["messages"][0]["content"]


def test_turn_budget_refuses_calls_and_keeps_the_turn_open():
    e = gym.make(DEMO, max_tool_calls_per_turn=3)
    obs, info = e.reset(seed=0)
    assert "at most 3 tool calls per turn and 300 over the whole episode" in obs["messages"][0]["content"]
    calls = [{"name": "email__get_folders", "arguments": {}}] * 5
    before = e.unwrapped.world.digest()
    obs, reward, terminated, truncated, info = e.step({"tool_calls": calls})
    assert not (terminated or truncated) and "truncated_reason" not in info
    results = [json.loads(m["content"]) for m in obs["messages"]]
    assert [r.get("code") for r in results] == [None, None, None, "TURN_BUDGET", "TURN_BUDGET"]
    assert "reply to the user to end this turn" in results[3]["error"].lower()
    assert results[0]["tool_calls_left"] == "2 in this turn, 299 in the episode"  # low budget: results say so
    assert info["calls_refused"] == 2 and info["calls_left"] == {"turn": 0, "episode": 297}
    assert (
        e.unwrapped.world.digest() == before and len(e.unwrapped.record.traces[0]) == 3
    )  # refused: not run, not traced
    assert e.unwrapped.in_turn
    obs, *_ = e.step({"tool_calls": calls[:1]})  # still refused, the turn still open for the reply
    assert json.loads(obs["messages"][0]["content"])["code"] == "TURN_BUDGET"
    obs, reward, terminated, truncated, info = e.step({"reply": "ok"})
    assert e.unwrapped.turn == 1 and info["calls_left"]["turn"] == 3  # the next turn starts afresh


def test_snapshot_restore_fork_are_exact(env):
    env.reset(seed=0)
    base = env.unwrapped
    oracle = make_agent("oracle", base.task)
    snap = base.snapshot()
    digest = base.world.digest()
    blob = pickle.dumps(snap)  # crosses process boundaries
    fork = base.fork()
    assert fork.world.digest() == digest
    run_episode(env, oracle, seed=0)
    assert base.world.digest() != digest
    assert fork.world.digest() == digest  # the fork was not touched
    base.restore(pickle.loads(blob))
    assert base.world.digest() == digest


def test_group_rollouts_from_one_snapshot_match():
    e = gym.make(DEMO).unwrapped
    e.reset(seed=5)
    snap = e.snapshot()
    scores = []
    for _ in range(2):
        obs, info = e.reset(options={"snapshot": snap})
        agent = make_agent("oracle", e.task)
        agent.reset(info)
        done = False
        total = 0.0
        while not done:
            obs, r, term, trunc, info = e.step(agent.act(obs, info))
            total += r
            done = term or trunc
        scores.append((total, e.world.digest()))
    assert scores[0] == scores[1] and scores[0][0] == pytest.approx(1.0)


def test_ansi_render_shows_transcript():
    e = gym.make(DEMO, render_mode="ansi")
    run_episode(e, make_agent("oracle", e.unwrapped.task), seed=0)
    text = e.render()
    assert "email__reply_email" in text and "Thursday 7 May 16:00" in text


def test_bad_render_mode():
    with pytest.raises(ValueError, match="render_mode"):
        gym.make(DEMO, render_mode="human")


def test_repeated_resets_rewind_exactly_like_a_fresh_env():
    e = gym.make(DEMO).unwrapped
    runs = []
    for _ in range(3):  # the 2nd and 3rd resets rewind the same world instead of rebuilding it
        result = run_episode(e, make_agent("oracle", e.task), seed=11)
        runs.append((result.messages, result.rewards, e.world.digest()))
    fresh = gym.make(DEMO).unwrapped
    result = run_episode(fresh, make_agent("oracle", fresh.task), seed=11)
    assert runs[0] == runs[1] == runs[2] == (result.messages, result.rewards, fresh.world.digest())


def test_reset_after_restore_starts_from_the_task_not_the_snapshot():
    e = gym.make(DEMO).unwrapped
    e.reset(seed=0)
    e.step({"tool_calls": [{"name": "workspace__write_file", "arguments": {"path": "x.md", "content": "x"}}]})
    snap = e.snapshot()
    e.restore(snap)
    e.reset(seed=0)
    assert "x.md" not in e.world.workspace.files
    fresh = gym.make(DEMO).unwrapped
    fresh.reset(seed=0)
    assert e.world.digest() == fresh.world.digest()
