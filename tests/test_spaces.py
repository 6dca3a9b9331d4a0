"""``action_space.contains`` admits exactly the actions ``step`` accepts, in every documented form."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector.utils import batch_space

import vibelife_env
from vibelife_env import ActionError
from vibelife_env.spaces import PerEnvTuple

DEMO = "VibeLife-demo-errands-v0"
READ = {"name": "email__get_emails", "arguments": {"folder": "INBOX"}}
OPENAI_CALL = {
    "id": "c1",
    "type": "function",
    "function": {"name": "email__get_emails", "arguments": '{"folder": "INBOX"}'},
}

#: Every form the README and ``vibelife_env.actions`` document.
DOCUMENTED = {
    "plain, calls and reply": {"tool_calls": [READ], "reply": "Done."},
    "plain, calls only (README)": {"tool_calls": [READ]},
    "plain, reply only (README)": {"reply": "All set."},
    "plain, reply None": {"tool_calls": [READ], "reply": None},
    "plain, silent reply": {"tool_calls": [], "reply": ""},
    "plain, empty": {},
    "plain, JSON text arguments": {"tool_calls": [{"name": "email__get_emails", "arguments": '{"folder": "INBOX"}'}]},
    "plain, no arguments": {"tool_calls": [{"name": "assistant__list_wakeups"}]},
    "plain, args alias and id": {"tool_calls": [{"id": "x", "name": "assistant__list_wakeups", "args": {}}]},
    "plain, tuple of calls": {"tool_calls": (READ,)},
    "plain, arguments not JSON (an error result, not an ActionError)": {
        "tool_calls": [{"name": "email__get_emails", "arguments": "{oops"}]
    },
    "OpenAI, tool calls": {"role": "assistant", "content": None, "tool_calls": [OPENAI_CALL]},
    "OpenAI, calls with narration": {"role": "assistant", "content": "Checking.", "tool_calls": [OPENAI_CALL]},
    "OpenAI, calls and end_turn": {
        "role": "assistant",
        "content": "Done.",
        "tool_calls": [OPENAI_CALL],
        "end_turn": True,
    },
    "OpenAI, reply": {"role": "assistant", "content": "All set."},
    "OpenAI, null content": {"role": "assistant", "content": None},
    "OpenAI, refusal and name": {"role": "assistant", "content": "", "refusal": None, "name": "bot"},
    "OpenAI, content without role": {"content": "All set."},
    "bare reply string": "All set.",
    "numpy string": np.str_("ok"),
}

MALFORMED = {
    "unknown key": {"replies": "hi"},
    "reply not a string": {"reply": 3},
    "tool_calls not a list": {"tool_calls": READ},
    "tool_calls a string": {"tool_calls": "email__get_emails"},
    "call without a name": {"tool_calls": [{"arguments": {}}]},
    "call with an empty name": {"tool_calls": [{"name": "", "arguments": {}}]},
    "call not a dict": {"tool_calls": ["email__get_emails"]},
    "arguments a number": {"tool_calls": [{"name": "email__get_emails", "arguments": 5}]},
    "function not a dict": {"tool_calls": [{"function": "email__get_emails"}]},
    "call id not a string": {"tool_calls": [{"id": 7, "name": "email__get_emails"}]},
    "OpenAI, wrong role": {"role": "user", "content": "hi"},
    "OpenAI, content not a string": {"role": "assistant", "content": ["hi"]},
    "both reply and content": {"role": "assistant", "content": "a", "reply": "b"},
    "a list": ["hi"],
    "None": None,
    "an int": 3,
    "bytes": b"hi",
}


@pytest.fixture(scope="module")
def env():
    e = gym.make(DEMO)
    yield e
    e.close()


@pytest.mark.parametrize("name", DOCUMENTED)
def test_every_documented_form_is_contained_and_steps(env, name):
    action = DOCUMENTED[name]
    assert env.action_space.contains(action)
    assert action in env.action_space
    env.reset(seed=0)
    env.step(action)  # no ActionError


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_actions_are_not_contained_and_do_not_step(env, name):
    action = MALFORMED[name]
    assert not env.action_space.contains(action)
    env.reset(seed=0)
    with pytest.raises(ActionError):
        env.step(action)


def test_samples_are_contained_and_step(env):
    env.action_space.seed(3)
    env.reset(seed=0)
    for _ in range(5):
        action = env.action_space.sample()
        assert env.action_space.contains(action)
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset(seed=0)


def test_every_registered_env_uses_the_same_action_space():
    first = gym.make(DEMO).action_space
    for env_id in vibelife_env.registered_ids():
        space = gym.make(env_id).action_space
        assert space == first and type(space) is type(first)


def test_a_batch_contains_both_batch_forms(env):
    batch = batch_space(env.action_space, 2)
    assert isinstance(batch, PerEnvTuple) and len(batch) == 2
    assert batch.contains(({"reply": ""}, {"role": "assistant", "content": "hi"}))
    assert batch.contains([{"tool_calls": [READ]}, "ok"])
    assert batch.contains({"tool_calls": ([READ], []), "reply": (None, "")})
    assert batch.contains({"tool_calls": np.array([[READ], []], dtype=object)})
    assert not batch.contains(({"reply": ""},))  # one action for two sub-envs
    assert not batch.contains({"reply": "hi"})  # a single action, not a batch
    assert not batch.contains({"reply": ("", 3)})  # the second action is malformed
    assert not batch.contains("hi")
    assert batch.contains(batch.sample())
    obs_batch = batch_space(env.observation_space, 2)
    obs, _ = env.reset(seed=0)
    assert obs_batch.contains((obs, obs)) and not obs_batch.contains(obs)
