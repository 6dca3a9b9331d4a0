"""``vibelife stats [IDS | --bundles PATH]``: task statistics (paper §2.4 columns).

A scenario family is reported per instance of a split (``--split``, ``--seeds`` for train)
and then summarized: the median of each column and the family's structural diversity
(:func:`vibelife_env.families.diversity`). ``--paper`` adds the distribution of everything
reported, overall and per domain, next to the paper's figures (§2.4), flagging what is
outside ±20%.

``--suite NAME`` reports a suite's test instances at the suite's level (``vibelife-200``:
each family at its default, paper where it renders it; ``vibelife-200-guided``: guided);
``--level`` reports families (or a suite) at that level, an error for a family that does
not render it. A row of a family at a given level is labelled ``<family>[test:k]:<level>``.
"""

from __future__ import annotations

import argparse
import json
import statistics
from typing import cast

import gymnasium as gym

import vibelife_env
from vibelife_env.bundle import load_task_cached
from vibelife_env.commands import CLIError, bundle_dirs, check_env_ids, family_levels
from vibelife_env.families import Level, Split, diversity
from vibelife_env.families.loader import load_family
from vibelife_env.stats import against_paper, distribution, explicitness, format_against_paper, task_stats


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("ids", nargs="*", help="env ids (default: every registered VibeLife env)")
    p.add_argument("--bundles", default=None, help="report every bundle under this directory instead")
    p.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
    p.add_argument("--split", choices=("test", "train"), default="test", help="families: which split to report")
    p.add_argument("--seeds", default="0:4", help="families: instances A:B (test 0-3, or train seeds)")
    p.add_argument(
        "--paper", action="store_true", help="the distribution overall and per domain next to the paper's (§2.4)"
    )
    p.add_argument(
        "--suite",
        default=None,
        help="a benchmark suite (vibelife-200, or vibelife-200-guided at the guided level): its test instances, "
        "next to the paper",
    )
    p.add_argument(
        "--explicitness",
        action="store_true",
        help="where each instance's rules live (workspace or world), backend hints, mailbox size",
    )
    p.add_argument(
        "--level",
        choices=("guided", "paper"),
        default=None,
        help="families: the level (default: theirs, or the suite's)",
    )


def _family_rows(
    env_id: str, split: Split, seeds: range, level: Level | None = None, explicit: bool = False
) -> tuple[list[dict], dict]:
    family = load_family(gym.registry[env_id].kwargs["family_dir"])
    rows = []
    for i in seeds:
        task = family.instance(split, i, level)
        row = explicitness(task) if explicit else task_stats(task)
        row["task"] = f"{family.id}[{split}:{i}]" + (f":{level}" if level else "")
        if not explicit:
            row["probes"] = list(family.profile(split, i, level).probes)
        rows.append(row)
    if explicit:
        keys = (
            "rules_stated",
            "rules_world",
            "rules_latent",
            "world_share",
            "backend_hints",
            "mails_at_reset",
            "catalogue",
        )
        return rows, {"family": family.id, "split": split, **{k: statistics.median(r[k] for r in rows) for k in keys}}
    profiles = [family.profile(split, i, level) for i in seeds]
    summary = {
        "family": family.id,
        "split": split,
        "instances": len(rows),
        "heldout": family.heldout,
        "diversity": diversity(profiles),
        **{
            k: statistics.median(r[k] for r in rows)
            for k in ("stages", "horizon_days", "events", "checks", "total_weight")
        },
    }
    return rows, summary


def _print_explicitness(rows: list[dict], summaries: list[dict], as_json: bool) -> int:
    if as_json:
        for r in [*rows, *summaries]:
            print(json.dumps(r, ensure_ascii=False, default=str))
        return 0
    print(
        f"{'task':<52}{'stated':>7}{'world':>6}{'latent':>7}{'unstated%':>10}{'unruled':>8}{'hints':>6}{'mails':>6}{'catalogue':>10}"
    )
    for r in rows:
        print(
            f"{r['task']:<52}{r['rules_stated']:>7}{r['rules_world']:>6}{r['rules_latent']:>7}"
            f"{100 * r['world_share']:>10.0f}"
            f"{r['checks_without_rule']:>8}{r['backend_hints']:>6}{r['mails_at_reset']:>6}{r['catalogue']:>10}"
        )
    for f in summaries:
        print(
            f"family {f['family']} ({f['split']}): median rules stated {f['rules_stated']:g}, in the world "
            f"{f['rules_world']:g}, latent {f['rules_latent']:g} ({100 * f['world_share']:.0f}% not stated), backend hints {f['backend_hints']:g}, "
            f"mails at reset {f['mails_at_reset']:g}, largest catalogue {f['catalogue']:g}"
        )
    print("(rules are counted for checks made from check kinds; 'unruled' checks are hand-written: rule not recorded)")
    return 0


def main(args: argparse.Namespace) -> int:
    summaries = []
    rows: list[dict] = []
    levels: dict[str, str | None] = {}
    if getattr(args, "suite", None):
        from vibelife_env.commands.evaluate import load_suite

        if args.ids or args.bundles:
            raise CLIError("give env ids, --bundles PATH or --suite NAME, not several")
        suite = load_suite(args.suite, args.level)
        levels = family_levels(list(suite.families), args.level, {e: suite.level_of(e) for e in suite.families})
        print(suite.describe())
        args.ids, args.split, args.seeds, args.paper = list(suite.families), "test", "0:4", True
    if args.bundles:
        if args.ids:
            raise CLIError("give env ids or --bundles PATH, not both")
        dirs = bundle_dirs(args.bundles)
    else:
        ids = check_env_ids(args.ids or vibelife_env.registered_ids())
        dirs = [gym.registry[i].kwargs["task_dir"] for i in ids if "task_dir" in gym.registry[i].kwargs]
        try:
            a, b = (int(x) for x in args.seeds.split(":"))
        except ValueError:
            raise CLIError(f"--seeds must look like A:B, got {args.seeds!r}") from None
        families = [i for i in ids if "family_dir" in gym.registry[i].kwargs]
        if args.level and not levels:  # a level a family does not render: said before anything runs
            levels = family_levels(families, args.level)
        for i in families:
            level = cast("Level | None", levels.get(i))
            fam_rows, summary = _family_rows(i, args.split, range(a, b), level, args.explicitness)
            rows += fam_rows
            summaries.append(summary)
    if args.explicitness:
        return _print_explicitness([explicitness(load_task_cached(d)) for d in dirs] + rows, summaries, args.json)
    rows = [task_stats(load_task_cached(d)) for d in dirs] + rows
    groups: dict[str, list[dict]] = {"all reported tasks": rows}
    for r in rows:
        groups.setdefault(f"domain {r['domain']}", []).append(r)
    paper = {name: against_paper(distribution(g)) for name, g in groups.items()} if args.paper and rows else {}
    if args.json:
        for r in [*rows, *summaries]:
            print(json.dumps(r, ensure_ascii=False, default=str))
        for name, table in paper.items():
            print(json.dumps({"against_paper": name, "figures": table}))
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
    for f in summaries:
        print(
            f"family {f['family']} ({f['split']}, {f['instances']} instances{', held out' if f['heldout'] else ''}): "
            f"median stages {f['stages']:g}, days {f['horizon_days']:.1f}, events {f['events']:g}, checks {f['checks']:g}; "
            f"diversity {f['diversity']:.2f}"
        )
    for name, table in paper.items():
        print()
        print(format_against_paper(table, f"{name} ({len(groups[name])}) against the paper"))
    return 0
