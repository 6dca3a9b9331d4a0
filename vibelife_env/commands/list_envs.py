"""``vibelife list``: registered environment ids (and where their bundles are)."""

from __future__ import annotations

import argparse
import sys

import gymnasium as gym

import vibelife_env
from vibelife_env.commands import register_bundle_dir


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bundles", default=None, help="register every bundle under this directory first")
    p.add_argument("--prefix", default="VibeLife", help="id prefix for --bundles (default VibeLife)")


def main(args: argparse.Namespace) -> int:
    if args.bundles:
        found = register_bundle_dir(args.bundles, prefix=args.prefix)
        print(f"{len(found)} bundle(s) under {args.bundles}", file=sys.stderr)
    for eid in vibelife_env.registered_ids(prefix=f"{args.prefix}-"):
        kwargs = gym.registry[eid].kwargs
        print(f"{eid:<60} {kwargs.get('task_dir') or kwargs.get('family_dir')}")
    return 0
