"""Fuzz every tool of registered environments for a while and list every broken rule.

The long version of ``tests/test_fuzz_tools.py``: same fuzzer, more calls, more seeds.

    python benchmarks/fuzz_tools.py --calls 20000 --seeds 0 1 2
    python benchmarks/fuzz_tools.py --env VibeLife-travel-japan-v0 --tools flight_booking__check_in
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import gymnasium as gym

import vibelife_env  # noqa: F401 (registers the environments)
from vibelife_env.services.fuzzing import fuzz_world

DEFAULT_ENVS = ("VibeLife-travel-japan-v0", "VibeLife-demo-errands-v0")


def main(argv: list[str] | None = None) -> int:
    """Run the fuzzer; exit status 1 when any rule was broken."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env", action="append", dest="envs", help="environment id (repeatable)")
    p.add_argument("--calls", type=int, default=5000, help="calls per environment and seed")
    p.add_argument("--seeds", type=int, nargs="+", default=[0])
    p.add_argument("--tools", nargs="+", default=None, help="only these agent-facing tool names")
    p.add_argument("--show", type=int, default=40, help="problems to print")
    args = p.parse_args(argv)
    broken = 0
    for env_id in args.envs or DEFAULT_ENVS:
        for seed in args.seeds:
            env = gym.make(env_id)
            env.reset(seed=seed)
            start = time.perf_counter()
            report = fuzz_world(env.unwrapped.world, random.Random(seed), args.calls, args.tools)
            took = time.perf_counter() - start
            env.close()
            print(
                f"{env_id} seed={seed}: {report.calls} calls, {report.errors} errors, "
                f"{len(report.problems)} problems, {took:.1f}s"
            )
            print("  codes:", ", ".join(f"{c}={n}" for c, n in report.codes.most_common()))
            for line in report.problems[: args.show]:
                print("  -", line)
            broken += len(report.problems)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
