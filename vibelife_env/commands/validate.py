"""``vibelife validate [--all | IDS]``: oracle, baselines and ablations against thresholds."""

from __future__ import annotations

import argparse

import gymnasium as gym

import vibelife_env
from vibelife_env.registration import builtin_tasks_dir
from vibelife_env.validation import THRESHOLDS, validate_env


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("ids", nargs="*", help="env ids to validate")
    p.add_argument("--all", action="store_true", help="every own task (bundles shipped under tasks/)")
    p.add_argument("--seed", type=int, default=0)


def own_task_ids() -> list[str]:
    """Registered ids whose bundle lives in the package's tasks/ folder."""
    root = str(builtin_tasks_dir().resolve())
    return [
        i for i in vibelife_env.registered_ids() if str(gym.registry[i].kwargs.get("task_dir", "")).startswith(root)
    ]


def main(args: argparse.Namespace) -> int:
    ids = own_task_ids() if args.all else args.ids
    if not ids:
        raise SystemExit("name env ids or pass --all")
    unknown = [i for i in ids if i not in gym.registry]
    if unknown:
        raise SystemExit(f"unknown env ids: {', '.join(unknown)}")
    agents = ["oracle", *THRESHOLDS]
    print(f"{'env':<40}" + "".join(f"{a:>10}" for a in agents) + "  verdict")
    failed = 0
    for env_id in ids:
        v = validate_env(env_id, args.seed)
        cells = "".join(f"{v.scores[a]:>10.2f}" if a in v.scores else f"{'-':>10}" for a in agents)
        print(f"{env_id:<40}{cells}  {'ok' if v.ok else 'FAIL'}")
        for problem in v.problems:
            print(f"    - {problem}")
        failed += not v.ok
    bounds = ", ".join(f"{a} {'<=' if k == 'max' else 'loses >='} {b:g}" for a, (k, b) in THRESHOLDS.items())
    print(f"thresholds: oracle = 100, {bounds}")
    return 1 if failed else 0
