"""``vibelife run``: one episode of a task with a built-in agent, then the score table."""

from __future__ import annotations

import argparse

import gymnasium as gym

import vibelife_env
from vibelife_env.agents import AgentForTask
from vibelife_env.commands import CLIError, build_agent, check_env_ids, register_bundle_dir
from vibelife_env.env import base_env
from vibelife_env.rollout import run_episode

DEFAULT_ENV = "VibeLife-travel-japan-v0"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--env", default=None, help=f"environment id (default {DEFAULT_ENV}, else the first registered)")
    p.add_argument(
        "--agent",
        default="oracle",
        help="null, polling, stuffer, the adversaries (narrator, sprayer, ...), oracle, stale, reckless, openai "
        "(OPENAI_BASE_URL, VIBELIFE_MODEL), or module:factory from the current directory (default oracle)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--bundles", default=None, help="also register the bundles under this directory")
    p.add_argument("--transcript", action="store_true", help="print the episode transcript")


def print_table(result) -> None:
    """The per-stage score table."""
    print(f"{'part':<14}{'checks':>8}{'passed':>8}{'earned':>10}{'weight':>10}")
    for row in result.stage_table():
        print(f"{row['part']:<14}{row['checks']:>8}{row['passed']:>8}{row['earned']:>10.2f}{row['weight']:>10.2f}")
    print(f"score {result.score:.2f}/100   steps {result.steps}   tool calls {result.tool_calls}")


def main(args: argparse.Namespace) -> int:
    if args.bundles:
        register_bundle_dir(args.bundles)
    ids = vibelife_env.registered_ids()
    if not ids:
        raise CLIError("no environments registered")
    env_id = args.env or (DEFAULT_ENV if DEFAULT_ENV in ids else ids[0])
    check_env_ids([env_id])
    env = gym.make(env_id, render_mode="ansi")
    build_agent(args.agent, base_env(env).task)  # checks the name (and the endpoint) first
    result = run_episode(env, AgentForTask(args.agent, env), seed=args.seed)
    if args.transcript:
        print(env.render())
    print(f"{env_id} with agent {args.agent!r} (seed {args.seed})")
    print_table(result)
    for err in result.mutation_errors + result.check_errors:
        print("warning:", err)
    return 0
