"""``vibelife validate [--all | IDS | --family ID | --suite NAME]``: the reward gates (oracle,
variants, adversaries, ablations). ``--suite vibelife-200`` validates every test instance of
every shipped scenario family at its default level (paper where it renders it),
``--suite vibelife-200-guided`` every one at the guided level; ``--level`` overrides a suite's.

Prints one table per task (policy, role, score, gate, verdict) and a summary; exits 1 when
any gate fails. ``--json FILE`` also writes every run. On a family instance the gates
include the blast radius (:mod:`vibelife_env.blast`: what skipping each probe costs the
other probes' checks); ``--blast`` prints its table, ``--no-blast`` leaves the gate out.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import gymnasium as gym

import vibelife_env
from vibelife_env.blast import BLAST_MAX
from vibelife_env.commands import CLIError, check_env_ids, family_levels
from vibelife_env.registration import builtin_tasks_dir, register_family_dir
from vibelife_env.validation import family_instances, validate_env


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("ids", nargs="*", help="env ids to validate")
    p.add_argument("--all", action="store_true", help="every own task (bundles shipped under tasks/)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--family",
        default=None,
        help="a scenario family's env id, or its folder (tasks/_template): validate its instances",
    )
    p.add_argument(
        "--suite",
        default=None,
        help="a benchmark suite (vibelife-200, or vibelife-200-guided at the guided level): every test instance",
    )
    p.add_argument("--split", choices=("test", "train"), default="test", help="with --family: which split")
    p.add_argument("--seeds", default="0:4", help="with --family: instances A:B (test 0-3, or train seeds)")
    p.add_argument(
        "--level",
        choices=("guided", "paper"),
        default=None,
        help="with --family or --suite: the level (default: the family's, or the suite's)",
    )
    p.add_argument("--only", nargs="*", default=None, help="run only these policies (the oracle always runs)")
    p.add_argument("--json", type=Path, default=None, help="also write every run to this JSON file")
    p.add_argument("--quiet", action="store_true", help="print only the summary line per task")
    blast = p.add_mutually_exclusive_group()
    blast.add_argument(
        "--blast",
        action="store_true",
        help="print the blast-radius table of family instances (the gate runs without this flag too: the oracle "
        f"without each probe's steps may cost other probes' stage checks at most {BLAST_MAX:g} points)",
    )
    blast.add_argument("--no-blast", action="store_true", help="leave the blast-radius gate out (faster)")


def own_task_ids() -> list[str]:
    """Registered ids whose bundle lives in the package's tasks/ folder."""
    root = str(builtin_tasks_dir().resolve())
    return [
        i for i in vibelife_env.registered_ids() if str(gym.registry[i].kwargs.get("task_dir", "")).startswith(root)
    ]


def _runs(args: argparse.Namespace) -> list[tuple[str, dict]]:
    """(env id, make kwargs) to validate."""
    if args.family:
        if (Path(args.family) / "family.py").is_file():
            args.family = register_family_dir(args.family)
        check_env_ids([args.family])
        try:
            a, b = (int(x) for x in args.seeds.split(":"))
        except ValueError:
            raise CLIError(f"--seeds must look like A:B, got {args.seeds!r}") from None
        try:
            return [(args.family, kw) for kw in family_instances(args.family, args.split, range(a, b), args.level)]
        except ValueError as exc:
            raise CLIError(str(exc)) from None
    if getattr(args, "suite", None):
        from vibelife_env.commands.evaluate import load_suite

        suite = load_suite(args.suite, args.level)
        levels = family_levels(list(suite.families), args.level, {e: suite.level_of(e) for e in suite.families})
        print(suite.describe())
        return [(e, {"split": "test", "instance": k, "level": levels[e]}) for e, k in suite.instances]
    ids = own_task_ids() if args.all else args.ids
    if not ids:
        raise CLIError("name env ids, pass --all, --family ID or --suite NAME")
    return [(i, {}) for i in check_env_ids(ids)]


def main(args: argparse.Namespace) -> int:
    runs = _runs(args)
    failed = 0
    report = []
    for env_id, kwargs in runs:
        v = validate_env(
            env_id, args.seed, set(args.only) if args.only is not None else None, kwargs, blast=not args.no_blast
        )
        blasts = v.blasts
        failed += not v.ok
        report.append(
            {
                "env_id": v.env_id,
                "ok": v.ok,
                "problems": v.problems,
                "runs": [r.__dict__ | {"gate": r.gate.describe()} for r in v.runs],
                **({"blast": [b.__dict__ for b in blasts]} if blasts else {}),
            }
        )
        print(f"{v.env_id}: {'ok' if v.ok else 'FAIL'}")
        if not args.quiet:
            print(f"  {'policy':<26}{'role':<11}{'score':>8}  {'gate':<13}verdict")
            for r in v.runs:
                print(f"  {r.name:<26}{r.role:<11}{r.score:>8.2f}  {r.gate.describe():<13}{'ok' if r.ok else 'FAIL'}")
            if blasts and args.blast:
                print(f"  {'skipped probe':<40}{'score':>8}{'own':>5}{'other stage':>13}{'end tiers':>11}")
                for b in blasts:
                    print(f"  {b.probe:<40}{b.score:>8.2f}{len(b.own):>5}{b.stage_points:>13.2f}{b.end_points:>11.2f}")
        for problem in v.problems:
            print(f"    - {problem}")
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")
    print(f"{len(runs) - failed}/{len(runs)} tasks pass every gate")
    return 1 if failed else 0
