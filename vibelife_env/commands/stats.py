"""``vibelife stats [IDS | --bundles PATH]``: task statistics (paper §2.4 columns)."""

from __future__ import annotations

import argparse
import json

import gymnasium as gym

import vibelife_env
from vibelife_env.registration import find_bundles
from vibelife_env.stats import task_stats
from vibelife_env.task import load_task_cached


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("ids", nargs="*", help="env ids (default: every registered VibeLife env)")
    p.add_argument("--bundles", default=None, help="report every bundle under this directory instead")
    p.add_argument("--json", action="store_true", help="print JSON lines instead of a table")


def main(args: argparse.Namespace) -> int:
    if args.bundles:
        dirs = find_bundles(args.bundles)
    else:
        ids = args.ids or vibelife_env.registered_ids()
        unknown = [i for i in ids if i not in gym.registry]
        if unknown:
            raise SystemExit(f"unknown env ids: {', '.join(unknown)}")
        dirs = [gym.registry[i].kwargs["task_dir"] for i in ids]
    rows = [task_stats(load_task_cached(d)) for d in dirs]
    if args.json:
        for r in rows:
            print(json.dumps(r, ensure_ascii=False))
        return 0
    head = (
        f"{'task':<44}{'stages':>7}{'days':>6}{'events':>7}{'user':>5}{'mut%':>6}{'svcs':>5}{'checks':>7}{'weight':>8}"
    )
    head += "  checks stage/cross/final/tq    weight% cross+final"
    print(head)
    for r in rows:
        c = r["checks_by_tier"]
        tiers = f"{c['stage']}/{c['cross_stage']}/{c['final']}/{c['tool_quality']}"
        print(
            f"{r['task']:<44}{r['stages']:>7}{r['horizon_days']:>6.1f}{r['events']:>7}{r['user_messages']:>5}"
            f"{100 * r['mutation_share']:>6.1f}{len(r['services']):>5}{r['checks']:>7}{r['total_weight']:>8.1f}"
            f"  {tiers:<28}{100 * r['end_tier_weight_share']:>6.1f}"
        )
    return 0
