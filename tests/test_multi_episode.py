"""Several episodes on one env object: every registered id, three in a row, the same each time.

A second ``reset`` restores each service's database from its cached image. Deserializing
into the connection in use once crashed SQLite (a segmentation fault in a mutation's
``IN (SELECT ... json_each(...))`` on the second episode of career-relocation); each
restore now gets a fresh connection. This runs every id, so a crash anywhere shows here.
"""

from __future__ import annotations

import gymnasium as gym
import pytest

import vibelife_env

IDS = vibelife_env.registered_ids()


def _null_episode(env: gym.Env, seed: int) -> tuple[float, list[str]]:
    env.reset(seed=seed)
    terminated = truncated = False
    info: dict = {}
    while not (terminated or truncated):
        _, _, terminated, truncated, info = env.step({"reply": ""})
    return info["score"], info["mutation_errors"]


@pytest.mark.parametrize("env_id", IDS)
def test_three_episodes_on_one_env(env_id: str) -> None:
    kwargs = {"instance": 0} if "family_dir" in gym.spec(env_id).kwargs else {}
    env = gym.make(env_id, **kwargs)
    runs = [_null_episode(env, seed) for seed in (0, 1, 0)]
    assert runs[0] == runs[2]  # the same seed replays exactly after another episode
    digest = env.unwrapped.world.digest()
    _null_episode(env, 0)
    assert env.unwrapped.world.digest() == digest
