"""Run every bundle of a VibeLifeBench checkout with the baselines and time it.

Usage::

    python3 benchmarks/bench_bundles.py /path/to/checkout/eval_set [--resets 5]

Prints one row per bundle: stages, events, mutations, checks, total weight, null and
polling scores (0-100), median reset time, a full null-agent episode's time, rubric
exceptions (``info["check_errors"]``) and the error results rubrics received from
service tools (unknown tool, bad arguments...) that their helpers may have swallowed.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym

import vibelife_env
from vibelife_env.agents.base import NullAgent, PollingAgent
from vibelife_env.release import rubric_env
from vibelife_env.rollout import run_episode

_RUBRIC_TOOL_ERRORS: collections.Counter[str] = collections.Counter()


def _count_rubric_tool_errors() -> None:
    """Record error results of tool calls made by rubrics (through ``env.<svc>_mock``)."""
    original = rubric_env.Capability.__getattr__

    def getattr_(self: Any, name: str) -> Any:
        value = original(self, name)
        if name not in ("call_tool", "call_tool_async"):
            return value

        def record(result: Any, tool: str) -> Any:
            if isinstance(result, dict) and "error" in result and "code" in result:
                _RUBRIC_TOOL_ERRORS[f"{result['code']}:{self._provider.name}.{tool}"] += 1
            return result

        if name == "call_tool":
            return lambda tool, **kw: record(value(tool, **kw), tool)

        async def call_async(tool: str, **kw: Any) -> Any:
            return record(await value(tool, **kw), tool)

        return call_async

    rubric_env.Capability.__getattr__ = getattr_  # type: ignore[method-assign]


def bench(eid: str, resets: int) -> dict[str, Any]:
    env = gym.make(eid)
    task = env.unwrapped.task
    times = []
    for i in range(resets):
        start = time.perf_counter()
        env.reset(seed=i)
        times.append(time.perf_counter() - start)
    _RUBRIC_TOOL_ERRORS.clear()
    start = time.perf_counter()
    null = run_episode(env, NullAgent(), seed=0, record=False)
    episode = time.perf_counter() - start
    polling = run_episode(env, PollingAgent(), seed=0, record=False)
    return {
        "id": eid.removeprefix("VibeLife-").removesuffix("-v0"),
        "stages": len(task.stages),
        "events": len(task.events),
        "mutations": sum(not e.opens_turn for e in task.events),
        "checks": len(task.checks),
        "weight": task.checks.total_weight,
        "null": null.score,
        "polling": polling.score,
        "reset_ms": 1000 * statistics.median(times),
        "episode_ms": 1000 * episode,
        "check_errors": len(null.check_errors) + len(polling.check_errors),
        "mutation_errors": len(null.mutation_errors) + len(polling.mutation_errors),
        "rubric_tool_errors": dict(_RUBRIC_TOOL_ERRORS),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", help="a checkout's eval_set (or any folder of bundles)")
    parser.add_argument("--resets", type=int, default=5)
    args = parser.parse_args(argv)
    root = Path(args.path)
    root = root / "eval_set" if (root / "eval_set").is_dir() else root
    _count_rubric_tool_errors()
    ids = vibelife_env.register_bundles(root)
    head = (
        f"{'bundle':52} {'stg':>3} {'ev':>3} {'mut':>3} {'chk':>4} {'weight':>7} {'null':>6} {'poll':>6} "
        f"{'reset ms':>8} {'episode ms':>10} {'exc':>3} {'mutE':>4}"
    )
    print(head)
    tool_errors: dict[str, dict[str, int]] = {}
    for eid in ids:
        r = bench(eid, args.resets)
        print(
            f"{r['id'][:52]:52} {r['stages']:>3} {r['events']:>3} {r['mutations']:>3} {r['checks']:>4} "
            f"{r['weight']:>7.1f} {r['null']:>6.2f} {r['polling']:>6.2f} {r['reset_ms']:>8.1f} "
            f"{r['episode_ms']:>10.0f} {r['check_errors']:>3} {r['mutation_errors']:>4}",
            flush=True,
        )
        if r["rubric_tool_errors"]:
            tool_errors[r["id"]] = r["rubric_tool_errors"]
    print("\nerror results returned to rubric tool calls (null + polling runs):")
    for bundle, counts in tool_errors.items():
        print(f"  {bundle}: {counts}")
    if not tool_errors:
        print("  none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
