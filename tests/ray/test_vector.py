"""RayVectorEnv: reset/step batching, seeds, autoreset modes, attribute access, close."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import vibelife_env  # noqa: F401
from vibelife_env.vector import RayVectorEnv

DEMO = "VibeLife-demo-errands-v0"
SILENT = {"tool_calls": [], "reply": ""}


def _run_to_end(envs, n: int):
    """Silent actions until every sub-env reports the end of its episode."""
    for _ in range(20):
        obs, rewards, terminated, truncated, infos = envs.step([SILENT] * n)
        if terminated.all():
            return obs, rewards, terminated, truncated, infos
    raise AssertionError("episodes did not end")


def test_make_vec_reset_step_and_next_step_autoreset():
    envs = gym.make_vec(DEMO, num_envs=3, vectorization_mode="vector_entry_point", num_workers=2)
    try:
        assert isinstance(envs.unwrapped, RayVectorEnv) and envs.unwrapped.num_workers == 2
        assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
        obs, infos = envs.reset(seed=7)
        assert isinstance(obs, tuple) and len(obs) == 3
        assert all(envs.single_observation_space.contains(o) for o in obs)
        assert list(infos["event_id"]) == ["S0_user_request"] * 3 and infos["_event_id"].all()
        _, rewards, terminated, truncated, infos = _run_to_end(envs, 3)
        assert rewards.dtype == np.float64 and not truncated.any()
        assert "final_score" in infos and infos["_final_score"].all()
        obs, rewards, terminated, _, infos = envs.step([SILENT] * 3)  # next-step autoreset
        assert not terminated.any() and (rewards == 0).all()
        assert list(infos["event_id"]) == ["S0_user_request"] * 3
        assert obs[0]["messages"][0]["role"] == "system"
    finally:
        envs.close()
        envs.close()  # idempotent


def test_seeds_spread_over_sub_envs_and_attributes():
    envs = RayVectorEnv(DEMO, num_envs=2, num_workers=1)
    local = gym.make(DEMO).unwrapped
    try:
        envs.reset(seed=3)
        digests = envs.call("snapshot")
        for i, snap in enumerate(digests):
            local.reset(seed=3 + i)
            assert snap.world.rng_state == local.snapshot().world.rng_state
        assert digests[0].world.rng_state != digests[1].world.rng_state
        assert envs.get_attr("current_stage") == (0, 0)
        envs.set_attr("strict_mutations", [True, False])
        assert envs.get_attr("strict_mutations") == (True, False)
        with pytest.raises(ValueError, match="expected 2 values"):
            envs.set_attr("strict_mutations", [True])
        envs.step_async([SILENT, SILENT])
        with pytest.raises(RuntimeError, match="step_async called twice"):
            envs.step_async([SILENT, SILENT])
        _, _, _, _, infos = envs.step_wait(timeout=30)
        assert list(infos["stage"]) == [1, 1]
    finally:
        envs.close()


def test_disabled_and_same_step_autoreset():
    envs = RayVectorEnv(DEMO, num_envs=2, num_workers=2, autoreset_mode="Disabled")
    try:
        envs.reset(seed=0)
        _run_to_end(envs, 2)
        with pytest.raises(Exception, match="reset_mask"):
            envs.step([SILENT, SILENT])
        obs, infos = envs.reset(options={"reset_mask": np.array([True, False])})
        assert infos["_event_id"].tolist() == [True, False]
    finally:
        envs.close()
    envs = RayVectorEnv(DEMO, num_envs=2, num_workers=1, autoreset_mode=AutoresetMode.SAME_STEP)
    try:
        envs.reset(seed=0)
        obs, _, terminated, _, infos = _run_to_end(envs, 2)
        assert infos["_final_obs"].all() and "final_score" in infos["final_info"]
        assert list(infos["event_id"]) == ["S0_user_request"] * 2  # already reset
    finally:
        envs.close()
