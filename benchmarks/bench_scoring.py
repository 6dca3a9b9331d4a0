"""Scoring cost after a long adversarial episode, per bundle of a VibeLifeBench checkout.

Usage::

    python benchmarks/bench_scoring.py /path/to/checkout/eval_set [--calls 1000] [--only SUBSTRING]
    python benchmarks/bench_scoring.py /path/to/checkout/eval_set --verify [--only SUBSTRING]

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

``--sharing off`` times the rubric runtime without its speed-ups (stage-file parses
shared within a scoring pass, pure rubric helpers memoized:
:mod:`vibelife_env.release.parsed`, :mod:`vibelife_env.release.purity`).

``--verify`` checks that those speed-ups change no result: it runs every bundle with the
null, polling and keyword-stuffer baselines, three write-heavy adversaries (sprayer,
copier, destroyer) and the ``--calls`` read sprayer above, three times in fresh processes
(``--dump``): without sharing, with it, and with shared parses made read-only
(``frozen``: a rubric that changed one in place would raise). It compares every check's
pass/fail, the scores and the rubric errors; exit status 1 on any difference.

Without a checkout path the script explains itself and exits with status 0, so it can be
run blindly in CI.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import gymnasium as gym

import vibelife_env
from vibelife_env.agents.adversaries import Copier, Destroyer
from vibelife_env.agents.adversaries import Sprayer as WriteSprayer
from vibelife_env.agents.base import KeywordStuffer, NullAgent, PollingAgent
from vibelife_env.release import parsed, rubric_env
from vibelife_env.rollout import run_episode

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


class Reader:
    """:class:`Sprayer` as a rollout agent (``reset(info)``, ``act(obs, info)``)."""

    name = "reader"

    def __init__(self, task: Any, calls: int) -> None:
        self.inner = Sprayer(per_turn=math.ceil(calls / _turns(task)))
        self.files = sorted(task.workspace_files)

    def reset(self, info: dict[str, Any]) -> None:
        self.inner.reset(info, self.files)

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        return self.inner.act()


#: The agents of ``--verify``: baselines, write-heavy adversaries and the read sprayer.
AGENTS: dict[str, Any] = {
    "null": NullAgent,
    "polling": PollingAgent,
    "stuffer": KeywordStuffer,
    "writer": WriteSprayer,
    "copier": Copier,
    "destroyer": Destroyer,
}


def check_results(eid: str, calls: int) -> dict[str, Any]:
    """Per agent (:data:`AGENTS` and the read sprayer): score, each check's pass/fail and the
    rubric errors of one episode."""
    out: dict[str, Any] = {}
    for name in [*AGENTS, "reader"]:
        if name == "reader":
            env = gym.make(eid, max_tool_calls_per_turn=100_000, max_tool_calls_per_episode=1_000_000)
            agent: Any = Reader(env.unwrapped.task, calls)
        else:
            env = gym.make(eid)
            agent = AGENTS[name]()
        r = run_episode(env, agent, seed=0, record=False)
        out[name] = {
            "score": r.score,
            "checks": {c["id"]: bool(c["passed"]) for c in r.checks},
            "errors": sorted(r.check_errors),
            "calls": r.tool_calls,
        }
    return out


def verify(path: str, only: str, calls: int) -> int:
    """Dump check results without sharing, with it and frozen (fresh processes); compare them."""
    dumps: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("off", "on", "frozen"):
            out = Path(tmp) / f"{mode}.json"
            cmd = [sys.executable, __file__, path, "--only", only, "--calls", str(calls), "--sharing", mode]
            subprocess.run([*cmd, "--dump", str(out)], check=True)
            dumps[mode] = json.loads(out.read_text(encoding="utf-8"))
    base, differ = dumps["off"], 0
    print(f"{'bundle':52} {'agent':8} {'checks':>6} {'passed':>6} {'score':>6}  same with sharing / frozen")
    for eid, agents in base.items():
        for agent, want in agents.items():
            same = [dumps[m][eid][agent] == want for m in ("on", "frozen")]
            differ += not all(same)
            print(
                f"{eid.removeprefix('VibeLife-').removesuffix('-v0')[:52]:52} {agent:8} {len(want['checks']):>6} "
                f"{sum(want['checks'].values()):>6} {want['score']:>6.2f}  {'/'.join('yes' if x else 'NO' for x in same)}",
                flush=True,
            )
    runs = sum(len(a) for a in base.values())
    print(f"\n{runs} runs; {differ} differ in a check result, the score or the rubric errors")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", help="a checkout's eval_set (or any folder of bundles)")
    parser.add_argument("--calls", type=int, default=1000, help="tool calls per episode (about)")
    parser.add_argument("--only", default="", help="run only bundles whose id contains this")
    parser.add_argument("--sharing", choices=("on", "off", "frozen"), default="on", help="the rubric speed-ups")
    parser.add_argument("--verify", action="store_true", help="compare check results with and without sharing")
    parser.add_argument("--dump", help="write the check results of every agent to this JSON file")
    args = parser.parse_args(argv)
    if not args.path:
        print(
            "bench_scoring: no checkout given, nothing to measure.\n"
            "Pass the path of a VibeLifeBench checkout (or its eval_set folder), e.g.\n"
            "    python benchmarks/bench_scoring.py /path/to/vibelifebench/eval_set"
        )
        return 0
    if args.verify:
        return verify(args.path, args.only, args.calls)
    rubric_env.SHARING = args.sharing != "off"
    parsed.FROZEN = args.sharing == "frozen"
    root = Path(args.path)
    root = root / "eval_set" if (root / "eval_set").is_dir() else root
    ids = [i for i in vibelife_env.register_bundles(root) if args.only in i]
    if args.dump:
        Path(args.dump).write_text(json.dumps({eid: check_results(eid, args.calls) for eid in ids}), encoding="utf-8")
        return 0
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
