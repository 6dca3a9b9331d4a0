"""Public-release bundles: static runner profile, replay, rubric runtime, scoring.

Uses a synthetic bundle in the release layout (``tests/data/bundles``); the last test
runs over a real checkout when ``VIBELIFE_BUNDLES`` points to one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import gymnasium as gym
import pytest

import vibelife_env
from vibelife_env.agents.base import NullAgent, PollingAgent
from vibelife_env.release import extract_renderer
from vibelife_env.release.rubric_env import RubricEnv
from vibelife_env.release.runtime import ReleaseRuntime
from vibelife_env.rollout import run_episode

DATA = Path(__file__).parent / "data" / "bundles"
TEA = DATA / "chores" / "tea_party"
TEA_ID = "VibeLife-chores-tea-party-v0"


@pytest.fixture(scope="module")
def ids() -> list[str]:
    return vibelife_env.register_bundles(DATA)


def _reply(text: str, calls: list[dict] | None = None) -> dict:
    return {"tool_calls": calls or [], "reply": text}


def test_registers_and_make_passes_task_dir(ids):
    assert TEA_ID in ids
    env = gym.make(TEA_ID)
    assert env.unwrapped.task.root == TEA.resolve()
    other = gym.make(TEA_ID, task_dir=str(TEA))  # gym forwards task_dir to VibeLifeEnv
    assert other.unwrapped.task.id == "chores/tea_party"


def test_replay_renders_as_the_runner_and_skips_what_it_skips(ids):
    env = gym.make(TEA_ID).unwrapped
    obs, info = env.reset(seed=0)
    assert "你是 Mei 的茶会助理。" in info["system_prompt"]
    shown = [obs["messages"][-1]["content"]]
    done = False
    while not done:
        obs, _, done, _, info = env.step(_reply(""))
        shown += [m["content"] for m in obs["messages"] if m["role"] == "user"]
    assert shown == [
        "[来自 mei 的消息 @ 2026-03-02T09:00:00+08:00]\n帮我准备周三的茶会。",  # (time, id) order
        "[通知 @ 2026-03-02T10:00:00+08:00，来源 提醒中心]\nCake sale reminder.",  # label table
        "[来自 mei 的消息 @ 2026-03-03T09:00]\n茶会时间有变化吗？",  # the raw time, as written
        "[世界事件，定时触发 @ 2026-03-04T09:00:00+08:00，来源 weather]\nLight rain expected at 16:00.",
    ]  # the silent world event and the cron_fire this runner does not handle never open a turn
    event = env.world.services["calendar"].call("get_event", {"calendar_id": "primary", "event_id": "evt_tea"})
    assert event["start"]["dateTime"].startswith("2026-03-04T16:00")
    assert env.world.workspace.read("guests.md").startswith("# Guest list")
    assert env.world.applied_keys == {"tea:move", "tea:notice"}  # alias 'hub' resolved; second move skipped


def test_rubrics_score_and_report_errors(ids):
    env = gym.make(TEA_ID)
    env.reset(seed=0)
    get = {"name": "calendar__get_event", "arguments": {"calendar_id": "primary", "event_id": "evt_tea"}}
    note = {"name": "workspace__write_file", "arguments": {"path": "notes.md", "content": "16:00 开始，可能下雨"}}
    steps = [
        _reply("", [get]),
        _reply("茶会已记下。"),
        _reply("时间改到 16:00 了。"),
        _reply("已更新笔记。", [note]),
    ]
    rewards, errors = [], []
    for action in steps:
        _, reward, terminated, _, info = env.step(action)
        rewards.append(reward)
        errors += info["check_errors"]
    assert terminated
    passed = {c["id"] for c in info["checks"] if c["passed"]}
    assert passed == {
        "s0_replied",
        "s0_read_calendar",
        "s1_sees_move",
        "s1_guests_file",
        "s2_notes",
        "x_hub_untouched",
        "f_async_calendar",
        "t_few_calls",
    }
    assert errors == ["f_broken: RuntimeError: this rubric is broken on purpose"]
    assert info["score"] == pytest.approx(100 * 11 / 12)
    assert sum(rewards) == pytest.approx(11 / 12)


def test_trace_and_response_files_have_the_release_shape(ids):
    env = gym.make(TEA_ID).unwrapped
    env.reset(seed=0)
    call = {"name": "calendar__get_event", "arguments": {"calendar_id": "primary", "event_id": "x"}}
    env.step({"tool_calls": [call], "reply": None})  # the turn stays open
    env.step(_reply("第一条"))
    env.step(_reply("第二条"))
    with env.episode.check_context(0) as ctx:
        _assert_release_files(RubricEnv(ctx, ReleaseRuntime.for_task(env.task)))


def _assert_release_files(env):
    rows = json.loads(env.workspace.fs.read_file("/terrarium/agent_traces/stage_0.json"))
    assert rows[0]["event_id"] == "e0_hello" and rows[0]["name"] == "calendar__get_event"
    assert rows[0]["arguments"] == {"calendar_id": "primary", "event_id": "x"} and rows[0]["success"] is False
    text = env.workspace.fs.read_file("/terrarium/agent_responses/stage_0.txt").decode()
    assert text == "第一条\n---\n第二条"
    assert not env.workspace.fs.exists("/terrarium/agent_responses/stage_1.txt")


def test_stage_files_are_rendered_once_per_episode(ids):
    """A closed stage's record never changes: later passes reuse its rendered trace file."""
    env = gym.make(TEA_ID).unwrapped
    env.reset(seed=0)
    call = {"name": "calendar__get_event", "arguments": {"calendar_id": "primary", "event_id": "evt_tea"}}
    env.step({"tool_calls": [call], "reply": None})
    env.step(_reply("好的"))
    runtime = ReleaseRuntime.for_task(env.task)
    first = runtime.stage_file(env.record.copy(), "trace", 0)
    assert runtime.stage_file(env.record.copy(), "trace", 0) is first  # another pass's copy of the record
    assert json.loads(first)[0]["name"] == "calendar__get_event"
    grown = env.record.copy()
    grown.add_call(0, {**grown.traces[0][0], "id": "late"})
    grown.add_reply(0, "再查了一次")
    assert json.loads(runtime.stage_file(grown, "trace", 0))[-1]["id"] == "late"  # a changed stage re-renders
    with env.episode.check_context(0) as ctx:
        env_a = RubricEnv.of(ctx, runtime)
        assert env_a.stage_file("trace", 0) == env_a.stage_file("trace", 0)


def test_renderer_template_reads_other_runner_styles():
    source = """
def _render_event(ev):
    time = ev.get("time", "")
    kind = ev.get("kind", "")
    event_id = ev.get("id") or "unknown_event"
    if kind == "user_message":
        tag = f"[id={event_id}; Message from {ev.get('from') or 'user'} @ {time}]"
    else:
        tag = f"[{kind} @ {time}]"
    return f"{tag}\\n{ev.get('body', '') or ''}"
"""
    renderer = extract_renderer(source)
    assert renderer is not None
    out = renderer.render({"id": "a1", "kind": "user_message", "time": "t", "body": "hi"}, 0)
    assert out == "[id=a1; Message from user @ t]\nhi"
    with pytest.raises(ValueError, match="unsupported"):
        extract_renderer("def _render_event(ev):\n    return open(ev)\n")


CHECKOUT = os.environ.get("VIBELIFE_BUNDLES")


@pytest.mark.skipif(not CHECKOUT, reason="set VIBELIFE_BUNDLES to a VibeLifeBench checkout")
def test_real_checkout_runs_with_baselines():
    root = Path(CHECKOUT or ".")
    root = root / "eval_set" if (root / "eval_set").is_dir() else root
    ids = vibelife_env.register_bundles(root)
    assert ids
    for eid in ids:
        task = gym.make(eid).unwrapped.task
        if task.meta.declared_total_weight is not None:  # same modules and weights as the runner
            assert task.checks.total_weight == pytest.approx(task.meta.declared_total_weight), eid
        if task.meta.declared_check_count is not None:
            assert len(task.checks) == task.meta.declared_check_count, eid
        for agent in (NullAgent(), PollingAgent()):
            result = run_episode(gym.make(eid), agent, seed=0, record=False)
            assert result.terminated, eid
            assert not result.mutation_errors, (eid, result.mutation_errors)
            assert not result.check_errors, (eid, agent.name, result.check_errors)
