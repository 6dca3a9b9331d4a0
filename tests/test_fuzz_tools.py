"""Bounded, seeded fuzzing of every tool of the flagship and the demo (a few thousand calls).

Arguments are drawn from each tool's JSON schema, mixed with hostile values (wrong types,
64-bit overflows, 5,000-digit integers, 10 MB strings, 2,000-deep nesting, circular
structures, ``set``/``bytes``, lone surrogates, missing and extra keys). Rules checked:

- nothing escapes a tool call; through ``env.step`` only :class:`ActionError` may, for a
  malformed action;
- a call that returns an error leaves ``world.digest()`` unchanged (rows, workspace,
  clock, generator);
- every error has a code of the vocabulary and a short message free of Python internals.

``benchmarks/fuzz_tools.py`` runs the same fuzzer longer.
"""

from __future__ import annotations

import contextlib
import json
import random

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 (registers the environments)
from vibelife_env.errors import ActionError
from vibelife_env.services.fuzzing import ArgumentFuzzer, fuzz_world, is_error, result_problems, world_values

ENVS = {"VibeLife-travel-japan-v0": 2500, "VibeLife-demo-errands-v0": 1500}


@pytest.fixture
def make_env():
    made = []

    def build(env_id: str):
        env = gym.make(env_id)
        made.append(env)
        return env

    yield build
    for env in made:
        env.close()


@pytest.mark.parametrize(("env_id", "calls"), sorted(ENVS.items()))
def test_world_calls_never_raise_and_failures_change_nothing(make_env, env_id, calls):
    env = make_env(env_id)
    env.reset(seed=0)
    report = fuzz_world(env.unwrapped.world, random.Random(20260417), calls)
    assert report.calls == calls
    assert report.errors > calls // 4  # the fuzzer does reach the refusals...
    assert report.calls - report.errors > calls // 20  # ...and calls that succeed
    assert not report.problems, "\n".join(report.problems[:20])


def _step_results(obs: dict) -> list:
    return [json.loads(m["content"]) for m in obs["messages"] if m.get("role") == "tool"]


@pytest.mark.parametrize("env_id", sorted(ENVS))
def test_hostile_calls_through_step(make_env, env_id):
    env = make_env(env_id)
    env.reset(seed=1)
    world = env.unwrapped.world
    rng = random.Random(7)
    schemas = {s["function"]["name"]: s["function"]["parameters"] for s in world.tool_schemas()}
    names = sorted(n for n in schemas if n.split("__", 1)[0] in (*world.services, "workspace"))
    strings, columns = world_values(world, rng)
    fuzzer = ArgumentFuzzer(rng, strings, columns, hostile_rate=0.2)
    budget = env.unwrapped.max_calls_turn - 1
    used, called = 0, 0
    for _ in range(4 * budget):
        if used == budget:  # a fresh episode rather than a reply that moves the timeline on
            env.reset(seed=1)
            used = 0
        name = rng.choice(names)
        args = fuzzer.arguments(schemas[name])
        if isinstance(args, dict) and rng.random() < 0.3:  # the JSON-text form, when there is one
            with contextlib.suppress(TypeError, ValueError, RecursionError):  # not JSON data: keep the dict
                args = json.dumps(args, ensure_ascii=False)
        before = env.unwrapped.world.digest()
        try:
            obs, *_ = env.step({"tool_calls": [{"name": name, "arguments": args}]})
        except ActionError:
            assert env.unwrapped.world.digest() == before
            continue
        used += 1
        called += 1
        for result in _step_results(obs):
            assert not result_problems(result), (name, result_problems(result))
            if is_error(result):
                assert env.unwrapped.world.digest() == before, (name, result)
    assert called > 3 * budget  # ActionError only for a non-object, non-string ``arguments``


@pytest.mark.parametrize(
    "arguments",
    [
        '{"n": ' + "9" * 5000 + "}",
        "[" * 100_000,
        '{"x": ' + "[" * 40 + "]" * 40 + "}",
        '{"query": "\\ud83d"}',
        '{"query": NaN}',
        "{not json",
        *(json.dumps({"query": v}) for v in ("x" * 10_000_000, "%" * 60_000)),
    ],
    ids=["digits", "brackets", "deep", "surrogate", "nan", "invalid", "10MB", "like"],
)
def test_malformed_argument_text_is_a_result_not_an_exception(make_env, arguments):
    env = make_env("VibeLife-demo-errands-v0")
    env.reset(seed=0)
    before = env.unwrapped.world.digest()
    obs, *_ = env.step({"tool_calls": [{"name": "calendar__search_events", "arguments": arguments}]})
    (result,) = _step_results(obs)
    assert result["code"] == "BAD_ARG" and not result_problems(result)
    assert env.unwrapped.world.digest() == before


def test_a_reply_with_lone_surrogates_is_kept_as_valid_text():
    env = gym.make("VibeLife-demo-errands-v0", render_mode="ansi")
    env.reset(seed=0)
    env.step({"reply": "done \ud83d"})
    transcript = env.unwrapped.render()
    env.close()
    assert "done \ufffd" in transcript
    transcript.encode("utf-8")
