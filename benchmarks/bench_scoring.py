"""Scoring cost after a long adversarial episode, per bundle of a VibeLifeBench checkout.

Usage::

    python benchmarks/bench_scoring.py /path/to/checkout/eval_set [--calls 1000] [--only SUBSTRING]

For each bundle an adversarial *sprayer* makes about ``--calls`` read-only tool calls over
the episode, spread evenly over its turns: every argument-free read tool of every enabled
service and a ``workspace__read_file`` of each workspace file, round-robin, so each turn
adds many calls with large results to the stage trace. Budgets are lifted so the episode
is never truncated. Reported per bundle:

- ``calls``: tool calls made; ``trace MB``: the episode record as JSON;
- ``final s``: the last ``step()`` (the last stage's checks and the cross-stage, final
  and tool-quality tiers), target <= 1 s;
- ``worst s``: the slowest ``step()`` of the episode (a stage closing, usually);
- ``snapshot ms``: median of 5 ``env.unwrapped.snapshot()`` taken mid-episode (at the
  first turn after half the calls), target <= 2 ms.

Without a checkout path the script explains itself and exits with status 0, so it can be
run blindly in CI.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym

import vibelife_env

FINAL_TARGET_S = 1.0
SNAPSHOT_TARGET_MS = 2.0


class Sprayer:
    """Read-only spray: about ``per_turn`` calls with large results every turn, then a reply.

    Args:
        per_turn: Calls to make in each turn.
        batch: Calls per ``step()`` (the turn stays open between batches).
    """

    name = "sprayer"

    def __init__(self, per_turn: int, batch: int = 20) -> None:
        self.per_turn = per_turn
        self.batch = batch
        self.cycle: Any = iter(())
        self.done_in_turn = 0

    def reset(self, info: dict[str, Any], files: list[str]) -> None:
        """Pick every argument-free read-only tool and every workspace file."""
        read_only = set(info.get("read_only_tools", []))
        calls = [
            {"name": s["function"]["name"], "arguments": {}}
            for s in info.get("tools", [])
            if s["function"]["name"] in read_only and not s["function"]["parameters"].get("required")
        ]
        calls += [{"name": "workspace__read_file", "arguments": {"path": f}} for f in files]
        self.cycle = itertools.cycle(calls or [{"name": "workspace__list_files", "arguments": {}}])
        self.done_in_turn = 0

    def act(self) -> dict[str, Any]:
        """The next batch of calls, or the reply that closes the turn."""
        if self.done_in_turn >= self.per_turn:
            self.done_in_turn = 0
            return {"tool_calls": [], "reply": "Checked everything again; nothing to report."}
        n = min(self.batch, self.per_turn - self.done_in_turn)
        self.done_in_turn += n
        return {"tool_calls": [next(self.cycle) for _ in range(n)], "reply": None}


def _turns(task: Any) -> int:
    return max(1, sum(1 for e in task.events if e.opens_turn))


def bench(eid: str, target_calls: int) -> dict[str, Any]:
    """One sprayed episode of ``eid``; timings of the last step, the worst step and a snapshot."""
    env = gym.make(eid, max_tool_calls_per_turn=100_000, max_tool_calls_per_episode=1_000_000)
    task = env.unwrapped.task
    agent = Sprayer(per_turn=math.ceil(target_calls / _turns(task)))
    _, info = env.reset(seed=0)
    agent.reset(info, sorted(task.workspace_files))
    steps: list[float] = []
    snapshot_ms: float | None = None
    terminated = truncated = False
    info_out: dict[str, Any] = {}
    while not (terminated or truncated):
        calls = sum(len(t) for t in env.unwrapped.record.traces.values())
        if snapshot_ms is None and calls >= target_calls // 2 and agent.done_in_turn == 0:
            times = []
            for _ in range(5):
                start = time.perf_counter()
                env.unwrapped.snapshot()
                times.append(time.perf_counter() - start)
            snapshot_ms = 1000 * statistics.median(times)
        action = agent.act()
        start = time.perf_counter()
        _, _, terminated, truncated, info_out = env.step(action)
        steps.append(time.perf_counter() - start)
    record = env.unwrapped.record
    trace_bytes = len(json.dumps({"r": record.replies, "t": record.traces}, default=str))
    return {
        "id": eid.removeprefix("VibeLife-").removesuffix("-v0"),
        "calls": sum(len(t) for t in record.traces.values()),
        "trace_mb": trace_bytes / 2**20,
        "final_s": steps[-1],
        "worst_s": max(steps),
        "snapshot_ms": snapshot_ms if snapshot_ms is not None else float("nan"),
        "score": info_out.get("score", float("nan")),
        "check_errors": len(info_out.get("check_errors", [])),
        "truncated": truncated,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", help="a checkout's eval_set (or any folder of bundles)")
    parser.add_argument("--calls", type=int, default=1000, help="tool calls per episode (about)")
    parser.add_argument("--only", default="", help="run only bundles whose id contains this")
    args = parser.parse_args(argv)
    if not args.path:
        print(
            "bench_scoring: no checkout given, nothing to measure.\n"
            "Pass the path of a VibeLifeBench checkout (or its eval_set folder), e.g.\n"
            "    python benchmarks/bench_scoring.py /path/to/vibelifebench/eval_set"
        )
        return 0
    root = Path(args.path)
    root = root / "eval_set" if (root / "eval_set").is_dir() else root
    ids = [i for i in vibelife_env.register_bundles(root) if args.only in i]
    print(
        f"{'bundle':52} {'calls':>6} {'trace MB':>8} {'final s':>8} {'worst s':>8} {'snapshot ms':>11} "
        f"{'score':>6} {'exc':>3}"
    )
    over = []
    for eid in ids:
        r = bench(eid, args.calls)
        flag = " TRUNCATED" if r["truncated"] else ""
        print(
            f"{r['id'][:52]:52} {r['calls']:>6} {r['trace_mb']:>8.1f} {r['final_s']:>8.3f} {r['worst_s']:>8.3f} "
            f"{r['snapshot_ms']:>11.2f} {r['score']:>6.2f} {r['check_errors']:>3}{flag}",
            flush=True,
        )
        if r["final_s"] > FINAL_TARGET_S:
            over.append(r["id"])
    print(f"\nfinal-step target <= {FINAL_TARGET_S:g} s; over target: {', '.join(over) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
