"""``vibelife rollout``: generate a JSONL rollout dataset, optionally on Ray workers.

One line per episode: task and env id, seed, the chat transcript in OpenAI message format,
the tool schemas, per-step rewards, per-check results, score and env version. Episodes
complete in any order; lines are written sorted by (env as given, seed), so the same
arguments give a byte-identical file whatever the number of workers.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym

import vibelife_env
from vibelife_env.runner import EpisodeJob, EpisodeRunner
from vibelife_env.vector import make_env, resolve_env_kwargs


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--env", action="append", required=True, help="environment id (repeat for several)")
    p.add_argument("--agent", default="oracle", help="built-in agent: null, polling, stuffer, oracle, stale, reckless")
    p.add_argument("--episodes", type=int, default=1, help="episodes per environment (seeds SEED..SEED+N-1)")
    p.add_argument("--workers", type=int, default=0, help="Ray actors; 0 runs in-process without Ray")
    p.add_argument("--out", required=True, help="output JSONL file")
    p.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    p.add_argument("--ray-address", default=None, help="Ray cluster address (default: local Ray)")
    p.add_argument("--bundles", default=None, help="also register the bundles under this directory")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def dataset_line(env_id: str, tools: list[dict[str, Any]], result: Any) -> str:
    """One JSON line: the episode's ``to_dict()`` plus env id and tool schemas.

    Retries of dead workers are reported on stderr, not in the line, so that a retried
    episode leaves the file byte-identical.
    """
    row = {"env_id": env_id, **result.to_dict(), "tools": tools}
    return json.dumps(row, ensure_ascii=False, sort_keys=True)


def main(args: argparse.Namespace) -> int:
    if args.bundles:
        vibelife_env.register_bundles(args.bundles)
    if args.episodes < 1:
        raise SystemExit(f"--episodes must be >= 1, got {args.episodes}")
    if args.workers < 0:
        raise SystemExit(f"--workers must be >= 0, got {args.workers}")
    unknown = [e for e in args.env if e not in gym.registry]
    if unknown:
        raise SystemExit(f"unknown env id(s) {unknown}; registered: {', '.join(vibelife_env.registered_ids())}")
    try:
        runner = EpisodeRunner(args.agent, num_workers=args.workers, ray_address=args.ray_address)
    except (TypeError, ValueError) as exc:
        raise SystemExit(f"--agent: {exc}") from None
    envs: list[str] = list(dict.fromkeys(args.env))
    tools = {e: make_env(**resolve_env_kwargs(e, {})).tool_schemas() for e in envs}
    runs = [(e, seed) for e in envs for seed in range(args.seed, args.seed + args.episodes)]
    jobs = [EpisodeJob(e, seed) for e, seed in runs]
    lines: dict[int, str] = {}
    failures: list[str] = []
    retried: list[str] = []
    try:
        from tqdm import tqdm

        bar = tqdm(total=len(jobs), unit="ep", disable=args.no_progress, file=sys.stderr)
        for r in runner.run(jobs):
            bar.update(1)
            env_id, seed = runs[r.index]
            result = r.result if r.ok else None
            if result is not None:
                lines[r.index] = dataset_line(env_id, tools[env_id], result)
                if r.attempts > 1:
                    retried.append(f"{env_id} seed {seed}")
                bar.set_postfix(score=f"{result.score:.1f}")
            else:
                failures.append(f"{env_id} seed {seed}: {r.error}")
        bar.close()
    finally:
        runner.close()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8", newline="\n") as fh:
        for index in sorted(lines):  # jobs are already in (env, seed) order
            fh.write(lines[index] + "\n")
    print(f"wrote {len(lines)} episodes to {out}", file=sys.stderr)
    for episode in retried:
        print("retried once after a worker died:", episode, file=sys.stderr)
    for f in failures:
        print("failed:", f, file=sys.stderr)
    return 1 if failures else 0
