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
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym

import vibelife_env
from vibelife_env.agents import make_agent
from vibelife_env.env import base_env
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
    p.add_argument("--fail-fast", action="store_true", help="stop at the first agent exception")


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


def crashed_result(env: gym.Env, agent_name: str, seed: int, exc: Exception) -> EpisodeResult:
    """The result of an episode the agent crashed in: what was earned so far, marked truncated.

    The error goes into ``check_errors`` as ``"agent error: ..."`` so the report shows it.
    """
    base = base_env(env)
    checks = [r.to_dict() for r in base.scorer.results.values()]
    known = {c["id"] for c in checks}
    checks += [
        {"id": c.id, "tier": c.tier, "stage": c.stage, "weight": c.weight, "passed": False, "error": "not evaluated"}
        for c in base.task.checks
        if c.id not in known
    ]
    result = EpisodeResult(base.task.id, agent_name, seed, 100.0 * base.score, checks=checks, truncated=True)
    result.check_errors.append(f"agent error: {type(exc).__name__}: {exc}")
    return result


def run_attempts(
    env_id: str, agent_name: str, attempts: int, seed: int = 0, fail_fast: bool = False
) -> list[EpisodeResult]:
    """``attempts`` episodes of one agent on one registered env (seeds ``seed..seed+attempts-1``).

    An exception raised by the agent ends that attempt (see :func:`crashed_result`) unless
    ``fail_fast``; errors of the environment itself always propagate.
    """
    env = gym.make(env_id)
    try:
        agent = build_agent(agent_name, base_env(env).task)
        out = []
        for i in range(attempts):
            try:
                result = run_episode(env, _Guard(agent), seed=seed + i, record=False)
            except _AgentError as err:
                if fail_fast:
                    raise err.cause from None
                print(f"warning: {agent_name} crashed on {env_id} (seed {seed + i}): {err.cause}", file=sys.stderr)
                result = crashed_result(env, agent_name, seed + i, err.cause)
            result.agent = agent_name
            out.append(result)
        return out
    finally:
        env.close()


class _AgentError(Exception):
    """Wraps an exception raised inside the agent (not the env)."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(cause)
        self.cause = cause


class _Guard:
    """Forwards to the agent and tags its exceptions, so env errors are not mistaken for them."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name = getattr(agent, "name", type(agent).__name__)

    def reset(self, info: dict[str, Any]) -> None:
        try:
            self.agent.reset(info)
        except Exception as exc:
            raise _AgentError(exc) from exc

    def act(self, obs: Any, info: dict[str, Any]) -> Any:
        try:
            return self.agent.act(obs, info)
        except Exception as exc:
            raise _AgentError(exc) from exc


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
                runs = run_attempts(env_id, agent_name, args.attempts, args.seed, args.fail_fast)
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
