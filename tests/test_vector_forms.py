"""Vector envs: one batch form for sync, async and Ray; both action forms; the Ray fallback; quiet Ray."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from collections.abc import Iterator

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import SyncVectorEnv
from gymnasium.wrappers import TimeLimit

import vibelife_env  # noqa: F401
from vibelife_env.registration import MAX_EPISODE_STEPS
from vibelife_env.spaces import PerEnvTuple
from vibelife_env.vector import RayFallbackWarning, ray_init_options

DEMO = "VibeLife-demo-errands-v0"
READ = {"name": "email__get_emails", "arguments": {"folder": "INBOX"}}

#: Per step, one action per sub-env (sub-env 0 reads then replies, sub-env 1 stays silent).
SCRIPT = [
    ({"tool_calls": [READ]}, {"tool_calls": [], "reply": ""}),
    ({"tool_calls": [], "reply": "Read it."}, {"tool_calls": [], "reply": ""}),
    ({"tool_calls": [READ], "reply": None}, {"tool_calls": [], "reply": ""}),
]


def dict_of_tuples(actions: tuple[dict, ...]) -> dict[str, tuple]:
    """The same batch as one dict of per-sub-env tuples."""
    return {key: tuple(a.get(key) for a in actions) for key in ("tool_calls", "reply")}


def play(envs: gym.vector.VectorEnv, form: str) -> list:
    """Reset with seed 5, run :data:`SCRIPT`; everything observable, per step."""
    obs, infos = envs.reset(seed=5)
    assert isinstance(obs, tuple) and len(obs) == 2 and envs.observation_space.contains(obs)
    seen: list = [(obs, list(infos["event_id"]))]
    for i, actions in enumerate(SCRIPT):
        batch = actions if form == "tuple" else dict_of_tuples(actions) if form == "dict" else SCRIPT_MIXED[i]
        assert envs.action_space.contains(batch)
        obs, rewards, terminated, truncated, infos = envs.step(batch)
        assert isinstance(obs, tuple) and all(isinstance(o, dict) for o in obs)
        assert envs.observation_space.contains(obs)
        assert rewards.shape == terminated.shape == truncated.shape == (2,)
        seen.append((obs, rewards.tolist(), terminated.tolist(), truncated.tolist(), list(infos["stage"])))
    return seen


SCRIPT_MIXED = [SCRIPT[0], dict_of_tuples(SCRIPT[1]), list(SCRIPT[2])]


@pytest.fixture(scope="module")
def reference() -> list:
    """The trajectory of two plain envs, stepped one by one."""
    singles = [gym.make(DEMO) for _ in range(2)]
    obs = tuple(e.reset(seed=5 + i)[0] for i, e in enumerate(singles))
    seen: list = [(obs, ["S0_user_request"] * 2)]
    for actions in SCRIPT:
        steps = [e.step(a) for e, a in zip(singles, actions, strict=True)]
        seen.append(
            (
                tuple(s[0] for s in steps),
                [float(s[1]) for s in steps],
                [s[2] for s in steps],
                [s[3] for s in steps],
                [s[4]["stage"] for s in steps],
            )
        )
    return seen


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("form", ["tuple", "dict", "mixed"])
def test_gymnasium_vector_envs_batch_per_sub_env(mode, form, reference):
    envs = gym.make_vec(DEMO, num_envs=2, vectorization_mode=mode)
    try:
        assert isinstance(envs.observation_space, PerEnvTuple) and isinstance(envs.action_space, PerEnvTuple)
        assert envs.single_action_space == gym.make(DEMO).action_space
        assert play(envs, form) == reference
    finally:
        envs.close()


def test_bad_batches_are_clear_errors():
    envs = gym.make_vec(DEMO, num_envs=2, vectorization_mode="sync")
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="2 values"):
        envs.step(({"reply": ""},))
    with pytest.raises(ValueError, match="tuple of 2 actions"):
        envs.step({"reply": ""})
    envs.close()


def test_sync_vector_env_carries_the_time_limit():
    envs = gym.make_vec(DEMO, num_envs=2, vectorization_mode="sync")
    assert all(e.spec.max_episode_steps == MAX_EPISODE_STEPS for e in envs.envs)
    envs.close()


def test_without_ray_make_vec_falls_back_with_one_warning(monkeypatch, reference):
    monkeypatch.setitem(sys.modules, "ray", None)  # ``import ray`` now raises ImportError
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        envs = gym.make_vec(DEMO, num_envs=2, num_workers=2)
    ours = [w for w in caught if issubclass(w.category, RayFallbackWarning)]
    assert len(ours) == 1 and len(caught) == 1, [str(w.message) for w in caught]
    message = str(ours[0].message)
    assert "Ray is not installed" in message and "pip install 'vibelife-env[ray]'" in message
    assert ours[0].filename == __file__  # points at the caller's make_vec line
    try:
        assert isinstance(envs.unwrapped, SyncVectorEnv)
        assert all(isinstance(e, TimeLimit) for e in envs.unwrapped.envs)
        assert play(envs, "mixed") == reference
    finally:
        envs.close()
    with pytest.raises(ImportError, match="needs Ray"):
        gym.make_vec(DEMO, num_envs=2, ray_address="ray://head:10001")


def test_ray_init_options_are_quiet_by_default_and_overridable(monkeypatch):
    monkeypatch.delenv("VIBELIFE_RAY_VERBOSE", raising=False)
    quiet = ray_init_options()
    assert quiet["logging_level"] >= 40 and quiet["include_dashboard"] is False and quiet["address"] is None
    assert "logging_level" not in ray_init_options(verbose=True)
    assert ray_init_options(logging_level=20, log_to_driver=False)["logging_level"] == 20
    monkeypatch.setenv("VIBELIFE_RAY_VERBOSE", "1")
    assert "logging_level" not in ray_init_options("auto")
    monkeypatch.setenv("VIBELIFE_RAY_VERBOSE", "0")
    assert "logging_level" in ray_init_options()


# ---------------------------------------------------------------------------- with Ray
@pytest.fixture(scope="module")
def ray_session() -> Iterator[None]:
    """A local Ray for this module's Ray tests (shut down only if started here)."""
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    if started:
        ray.shutdown()


@pytest.mark.ray
@pytest.mark.parametrize("form", ["tuple", "dict", "mixed"])
def test_ray_vector_env_batches_like_gymnasiums(ray_session, form, reference):
    envs = gym.make_vec(DEMO, num_envs=2, num_workers=2)
    try:
        assert type(envs.unwrapped).__name__ == "RayVectorEnv"
        sync = gym.make_vec(DEMO, num_envs=2, vectorization_mode="sync")
        assert envs.observation_space == sync.observation_space and envs.action_space == sync.action_space
        assert envs.unwrapped.max_episode_steps == MAX_EPISODE_STEPS
        assert play(envs, form) == reference
    finally:
        envs.close()


@pytest.mark.ray
@pytest.mark.slow
def test_ray_start_up_lines_are_hidden_by_default(tmp_path):
    code = (
        "import gymnasium as gym, vibelife_env\n"
        f"envs = gym.make_vec({DEMO!r}, num_envs=2, num_workers=1)\n"
        "obs, _ = envs.reset(seed=0)\n"
        "envs.close()\n"
        "print('ok', len(obs))\n"
    )
    pytest.importorskip("ray")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_", "VIBELIFE_RAY"))}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok 2"
    ray_lines = [line for line in out.stderr.splitlines() if " INFO " in line or " WARNING " in line]
    assert not ray_lines, out.stderr


def test_rewards_are_float_arrays():
    envs = gym.make_vec(DEMO, num_envs=2, vectorization_mode="sync")
    envs.reset(seed=0)
    _, rewards, terminated, truncated, _ = envs.step(({"reply": ""}, {"reply": ""}))
    assert rewards.dtype == np.float64 and terminated.dtype == truncated.dtype == np.bool_
    envs.close()
