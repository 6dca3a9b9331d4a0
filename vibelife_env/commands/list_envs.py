"""``vibelife list``: registered environment ids (and where their bundles are)."""

from __future__ import annotations

import argparse

import gymnasium as gym

import vibelife_env


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bundles", default=None, help="register every bundle under this directory first")
    p.add_argument("--prefix", default="VibeLife", help="id prefix for --bundles (default VibeLife)")


def main(args: argparse.Namespace) -> int:
    if args.bundles:
        vibelife_env.register_bundles(args.bundles, prefix=args.prefix)
    for eid in vibelife_env.registered_ids(prefix=f"{args.prefix}-"):
        print(f"{eid:<60} {gym.registry[eid].kwargs.get('task_dir')}")
    return 0
