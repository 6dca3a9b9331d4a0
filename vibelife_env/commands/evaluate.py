"""``vibelife eval``: run agents over tasks several times; write ``report.html`` and ``report.json``.

Example::

    vibelife eval --agent oracle --agent null --env VibeLife-demo-errands-v0 --attempts 3 --out runs/eval

Attempt *i* of every task uses seed ``--seed + i``. Each ``--agent`` is a built-in name
(see :func:`vibelife_env.agents.make_agent`) or ``module:factory``, a callable taking the
task and returning an agent (``reset(info)`` / ``act(obs, info)``), for your own policies.
"""

from __future__ import annotations

import argparse
import importlib
import json
from pathlib import Path
from typing import Any

import gymnasium as gym

import vibelife_env
from vibelife_env.agents import make_agent
from vibelife_env.evaluation import summarize, task_info
from vibelife_env.report import render_html
from vibelife_env.rollout import EpisodeResult, run_episode


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agent", action="append", required=True, help="agent name or module:factory (repeatable)")
    p.add_argument("--env", action="append", required=True, help="environment id (repeatable)")
    p.add_argument("--attempts", type=int, default=3, help="runs per task and agent (default 3)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first attempt (default 0)")
    p.add_argument("--bins", type=int, default=3, help="timeline-position bins for pass rates (default 3)")
    p.add_argument("--out", required=True, help="output directory (report.html, report.json, episodes.jsonl)")
    p.add_argument("--bundles", default=None, help="also register the bundles under this directory")


def build_agent(name: str, task: Any) -> Any:
    """A built-in agent, or ``module:factory`` called with the task.

    Raises:
        ValueError: unknown built-in name, or a factory that cannot be imported.
    """
    if ":" not in name:
        return make_agent(name, task)
    module_name, _, attr = name.partition(":")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"--agent {name!r}: cannot load {attr!r} from module {module_name!r}: {exc}") from exc
    return factory(task)


def run_attempts(env_id: str, agent_name: str, attempts: int, seed: int = 0) -> list[EpisodeResult]:
    """``attempts`` episodes of one agent on one registered env (seeds ``seed..seed+attempts-1``)."""
    env = gym.make(env_id)
    try:
        agent = build_agent(agent_name, env.unwrapped.task)
        out = []
        for i in range(attempts):
            result = run_episode(env, agent, seed=seed + i, record=False)
            result.agent = agent_name
            out.append(result)
        return out
    finally:
        env.close()


def main(args: argparse.Namespace) -> int:
    if args.attempts < 1:
        raise SystemExit(f"--attempts must be >= 1, got {args.attempts}")
    if args.bundles:
        vibelife_env.register_bundles(args.bundles)
    unknown = [e for e in args.env if e not in gym.registry]
    if unknown:
        raise SystemExit(f"unknown env id(s) {unknown}; registered: {', '.join(vibelife_env.registered_ids())}")
    infos = {}
    for env_id in args.env:
        task = gym.spec(env_id).kwargs["task_dir"]
        info = task_info(vibelife_env.load_task(task))
        infos[info.task_id] = info
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    summaries = []
    with (out / "episodes.jsonl").open("w", encoding="utf-8") as fh:
        for agent_name in args.agent:
            results: list[EpisodeResult] = []
            for env_id in args.env:
                runs = run_attempts(env_id, agent_name, args.attempts, args.seed)
                for r in runs:
                    fh.write(json.dumps({**r.to_dict(), "env_id": env_id}, ensure_ascii=False) + "\n")
                results += runs
            summaries.append(summarize(results, infos, bins=args.bins))
    meta = {"envs": args.env, "agents": args.agent, "attempts": args.attempts, "seed": args.seed}
    (out / "report.json").write_text(json.dumps({"meta": meta, "agents": summaries}, indent=2, ensure_ascii=False))
    (out / "report.html").write_text(
        render_html(summaries, f"VibeLife evaluation: {', '.join(args.env)}", args.attempts), encoding="utf-8"
    )
    print(f"{'agent':<12}{'avg@k':>9}{'max@k':>9}{'min@k':>9}{'σ':>8}")
    for s in summaries:
        o = s["overall"]
        print(f"{s['agent']:<12}{o['avg']:>9.2f}{o['max']:>9.2f}{o['min']:>9.2f}{o['std']:>8.2f}")
    print(f"wrote {out / 'report.html'} and {out / 'report.json'}")
    return 0
