"""PettingZoo ParallelEnv over the family task: API conformance, routing, per-agent rewards."""

from __future__ import annotations

import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test
from pettingzoo.utils.conversions import parallel_to_aec

import vibelife_env
from vibelife_env.agents import NullAgent, load_oracle
from vibelife_env.errors import TaskLoadError
from vibelife_env.multiagent import VibeLifeParallelEnv
from vibelife_env.registration import builtin_tasks_dir

FAMILY = builtin_tasks_dir() / "family" / "grandma_birthday"


def _play(env: VibeLifeParallelEnv, make_agent, seed: int = 0) -> dict[str, float]:
    obs, infos = env.reset(seed=seed)
    agents = {p: make_agent(p) for p in env.agents}
    for p, agent in agents.items():
        agent.reset(infos[p])
    returns = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        obs, rewards, _, _, infos = env.step({p: agents[p].act(obs[p], infos[p]) for p in env.agents})
        for p, r in rewards.items():
            returns[p] += r
    return returns


def _oracle(env: VibeLifeParallelEnv):
    def make(persona: str):
        agent = load_oracle(env.task)
        agent.persona = persona
        return agent

    return make


def test_pettingzoo_conformance():
    parallel_api_test(VibeLifeParallelEnv(FAMILY), num_cycles=100)
    parallel_seed_test(lambda: VibeLifeParallelEnv(FAMILY), num_cycles=20)
    aec = parallel_to_aec(VibeLifeParallelEnv(FAMILY))
    aec.reset(seed=0)
    seen = set()
    for agent in aec.agent_iter(max_iter=50):
        _, _, term, trunc, _ = aec.last()
        seen.add(agent)
        aec.step(None if term or trunc else "")
    assert seen == {"lina", "hao"}


def test_events_and_tool_results_are_routed_per_persona():
    env = VibeLifeParallelEnv(FAMILY)
    obs, infos = env.reset(seed=0)
    assert infos["lina"]["event_id"] == "S0_lina_book_dinner" and infos["hao"]["event_id"] == "S0_hao_present"
    assert "from Li Hao" not in obs["lina"]["messages"][-1]["content"]
    read = {"tool_calls": [{"name": "workspace__read_file", "arguments": {"path": "FAMILY.md"}}], "reply": None}
    obs, *_, infos = env.step({"lina": read, "hao": ""})
    assert [m["role"] for m in obs["lina"]["messages"]] == ["tool"] and obs["hao"]["messages"] == ()
    obs, *_, infos = env.step({"lina": "", "hao": {"tool_calls": [{"name": "x__y", "arguments": {}}]}})
    assert infos["hao"]["waiting"] and not infos["lina"]["waiting"]
    assert obs["hao"]["messages"] == obs["lina"]["messages"]  # the check-in goes to both
    assert infos["hao"]["event_id"] == infos["lina"]["event_id"] == "S1_evening_checkin"
    assert env.world.clock.iso().startswith("2026-06-03T19:00")


def test_per_agent_and_team_rewards():
    env = VibeLifeParallelEnv(FAMILY)
    returns = _play(env, _oracle(env))
    assert returns == pytest.approx({"lina": 1.0, "hao": 1.0}) and env.team_score == 100.0
    assert _play(env, lambda p: NullAgent()) == {"lina": 0.0, "hao": 0.0}

    def hao_only(persona):  # Hao's assistant works, Li Na's stays silent
        return _oracle(env)(persona) if persona == "hao" else NullAgent()

    returns = _play(env, hao_only)
    scores = env.scores()
    # Hao's own checks (8 of the 21 weight that count for him) pass; every team check needs
    # Li Na's assistant (family calendar, mail), so neither earns any team weight.
    assert scores == pytest.approx({"lina": 0.0, "hao": 100 * 8 / 21})
    assert returns["hao"] == pytest.approx(scores["hao"] / 100)


def test_single_agent_oracle_and_baselines_on_the_family_task():
    from vibelife_env.agents import make_agent
    from vibelife_env.rollout import run_episode

    env = vibelife_env.VibeLifeEnv(FAMILY)
    scores = {n: run_episode(env, make_agent(n, env.task), seed=0).score for n in ("oracle", "null", "stuffer")}
    assert scores == {"oracle": 100.0, "null": 0.0, "stuffer": 0.0}


def test_unknown_persona_is_rejected():
    with pytest.raises(TaskLoadError, match="not one of the personas"):
        VibeLifeParallelEnv(FAMILY, personas=["someone"])
