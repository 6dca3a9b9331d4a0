"""Fingerprints of generated family instances: prove a refactor changed no instance.

A family refactor (typed seed helpers in place of SQL strings, check kinds in place of
closures, a folder split) must leave every generated instance as it was. This module hashes
each instance part by part, so a difference names what moved:

- ``meta``: the task's meta (name, title, timezone, services, budgets, ...);
- ``timeline``: every stage's events, field by field, but the text of SQL mutations, which
  is ``timeline_sql``;
- ``workspace``: the files the agent starts with;
- ``world``: the seeded world after ``reset(seed=0)`` (every service's rows, the workspace,
  the clock and the wake-ups: :meth:`~vibelife_env.world.World.digest`), so seed SQL written
  another way that makes the same rows hashes the same;
- ``checks``: every check's id, tier, stage, weight, tags, description and prerequisites;
- ``oracle`` (with ``--oracle``): the world after the oracle's episode and every check's
  verdict and reason, so a check rewritten as a kind is proven to judge the same;
- ``policies`` (with ``--policies``): every gated policy's score and the checks it passes
  (the oracle, its variants, the ten adversaries, the ablations), reasons left out: a check
  rewritten in other words (a kind, a declared prerequisite in place of an ANDed gate) that
  judges every policy as before moves ``checks`` (its description) and nothing else.

Usage::

    python -m vibelife_env.fingerprint --out before.json            # every family
    python -m vibelife_env.fingerprint --out after.json --compare before.json
    python -m vibelife_env.fingerprint --family city --train 0:50 --oracle --out f.json
    python -m vibelife_env.fingerprint --policies --out after.json --compare before.json --ignore checks

The default covers the four test instances of every shipped family and train seeds 0-3
(``--train A:B`` widens it) at the guided level (``--level paper``: the families that render
the paper level, at it); ``--procs N`` spreads families over processes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

#: The parts hashed without ``--oracle`` and with it.
PARTS = ("meta", "timeline", "timeline_sql", "workspace", "world", "checks")
ORACLE_PARTS = (*PARTS, "oracle")
#: With ``--policies``: every gated policy's verdicts (which checks pass, and the score), without
#: the reasons' wording; a check rewritten in other words (a check kind, a prerequisite in place of
#: an ANDed gate) that judges every policy the same keeps this part and changes only ``checks``.
POLICY_PART = "policies"


def _sha(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def instance_fingerprint(
    env_id: str, split: str, index: int, oracle: bool = False, policies: bool = False, level: str = "guided"
) -> dict[str, str]:
    """The part hashes of one instance at ``level`` (see the module docstring)."""
    import gymnasium as gym

    import vibelife_env  # noqa: F401  (registers the families)
    from vibelife_env.env import base_env

    env = gym.make(env_id, split=split, instance=index, level=level)
    try:
        core = base_env(env)
        task = core.task
        timeline, statements = _timeline(task)
        assert task.suite is not None, f"{env_id} {split}-{index}: a family instance always has checks"
        out = {
            "meta": _sha(task.meta.model_dump(mode="json")),
            "timeline": _sha(timeline),
            "timeline_sql": _sha(statements),
            "workspace": _sha(dict(sorted(task.workspace_files.items()))),
            "checks": _sha(
                [[c.id, c.tier, c.stage, c.weight, sorted(c.tags), c.description, list(c.requires)] for c in task.suite]
            ),
        }
        env.reset(seed=0)
        assert core.world is not None  # reset opened it
        out["world"] = core.world.digest()[:16]
        if oracle:
            out["oracle"] = _oracle(env, core)
        if policies:
            out[POLICY_PART] = _policies(env_id, split, index, core.task, level)
        return out
    finally:
        env.close()


def _timeline(task: Any) -> tuple[list[Any], list[str]]:
    """The events field by field, with the text of SQL mutations set apart (a statement
    written another way that makes the same rows changes only ``timeline_sql``; the oracle
    part, which replays the timeline, proves the rows)."""
    events, statements = [], []
    for stage in task.stages:
        for e in stage.events:
            dump = e.model_dump(mode="json", warnings=False)
            for op in dump.get("apply") or []:
                if isinstance(op, dict) and "sql" in op:
                    statements.append(op.pop("sql"))
            events.append([stage.index, dump])
    return events, statements


def _oracle(env: Any, core: Any) -> str:
    from vibelife_env.agents.oracle import load_oracle
    from vibelife_env.rollout import run_episode

    result = run_episode(env, load_oracle(core.task), seed=0, record=False)
    return _sha([core.world.digest(), result.score, result.checks, result.mutation_errors, result.check_errors])


def _policies(env_id: str, split: str, index: int, task: Any, level: str) -> str:
    """Per gated policy (the validation's list, the generated tool paths left out): its score and
    the ids of the checks it passes."""
    import gymnasium as gym

    from vibelife_env.rollout import run_episode
    from vibelife_env.validation import policies

    verdicts = {}
    for name, _role, _gate, make, strict in policies(task):
        env = gym.make(
            env_id, split=split, instance=index, level=level, strict_mutations=strict, explain_failures=False
        )
        try:
            result = run_episode(env, make(), seed=0, record=False)
        finally:
            env.close()
        verdicts[name] = [round(result.score, 6), sorted(c["id"] for c in result.checks if c["passed"])]
    return _sha(verdicts)


def _family_fingerprints(job: tuple[str, list[tuple[str, int]], bool, bool, str]) -> dict[str, dict[str, str]]:
    env_id, keys, oracle, policies, level = job
    out = {}
    for split, index in keys:
        try:
            out[f"{split}-{index}"] = instance_fingerprint(env_id, split, index, oracle, policies, level)
        except Exception as exc:
            out[f"{split}-{index}"] = {"error": f"{type(exc).__name__}: {exc}"}
    return out


def fingerprints(
    env_ids: Iterable[str],
    train: range = range(4),
    oracle: bool = False,
    procs: int = 1,
    policies: bool = False,
    level: str = "guided",
) -> dict[str, dict[str, dict[str, str]]]:
    """``{env id: {"test-0": {part: hash}, ...}}`` over the test instances and ``train`` seeds at ``level``."""
    keys = [("test", k) for k in range(4)] + [("train", k) for k in train]
    jobs = [(e, keys, oracle, policies, level) for e in env_ids]
    if procs > 1:
        with ProcessPoolExecutor(procs) as pool:
            results = list(pool.map(_family_fingerprints, jobs))
    else:
        results = [_family_fingerprints(j) for j in jobs]
    return {e: r for (e, *_), r in zip(jobs, results, strict=True)}


def compare(before: dict[str, Any], after: dict[str, Any], ignore: Iterable[str] = ()) -> list[str]:
    """One line per instance part that differs, is missing or appeared (``ignore``: parts left out)."""
    skip = set(ignore)
    lines = []
    for env_id in sorted(set(before) | set(after)):
        b, a = before.get(env_id, {}), after.get(env_id, {})
        for key in sorted(set(b) | set(a)):
            if key not in a or key not in b:
                lines.append(f"{env_id} {key}: only {'before' if key in b else 'after'}")
                continue
            for part in sorted((set(b[key]) | set(a[key])) - skip):
                if b[key].get(part) != a[key].get(part):
                    lines.append(f"{env_id} {key} {part}: {b[key].get(part)} -> {a[key].get(part)}")
    return lines


def _span(text: str) -> range:
    start, _, stop = text.partition(":")
    return range(int(start), int(stop)) if stop else range(int(start), int(start) + 1)


def main(argv: list[str] | None = None) -> int:
    """Command line; see the module docstring. Returns 1 when ``--compare`` finds a difference."""
    parser = argparse.ArgumentParser(prog="python -m vibelife_env.fingerprint", description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="write the fingerprints here (JSON)")
    parser.add_argument("--compare", help="a fingerprint file to compare against")
    parser.add_argument("--family", action="append", default=[], help="only env ids containing this (repeatable)")
    parser.add_argument("--train", default="0:4", help="train seeds A:B (default 0:4)")
    parser.add_argument("--oracle", action="store_true", help="also hash the oracle's episode and verdicts")
    parser.add_argument(
        "--policies", action="store_true", help="also hash every gated policy's verdicts (slow: ~20 episodes each)"
    )
    parser.add_argument("--ignore", action="append", default=[], help="with --compare: leave this part out")
    parser.add_argument("--procs", type=int, default=1)
    parser.add_argument(
        "--level", choices=("guided", "paper"), default="guided", help="the level (paper: the families that render it)"
    )
    args = parser.parse_args(argv)

    import gymnasium as gym

    from vibelife_env.families.loader import load_family
    from vibelife_env.suite import builtin_families

    env_ids = [e for e in builtin_families() if not args.family or any(f in e for f in args.family)]
    if args.level != "guided":
        env_ids = [e for e in env_ids if args.level in load_family(gym.spec(e).kwargs["family_dir"]).levels]
    prints = fingerprints(env_ids, _span(args.train), args.oracle, args.procs, args.policies, args.level)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(prints, fh, indent=1, sort_keys=True)
    count = sum(len(v) for v in prints.values())
    errors = [f"{e} {k}: {p['error']}" for e, v in prints.items() for k, p in v.items() if "error" in p]
    print(f"{count} instances of {len(prints)} families -> {args.out} (all: {_sha(prints)})")
    for line in errors:
        print("build error:", line)
    if args.compare:
        with open(args.compare, encoding="utf-8") as fh:
            before = json.load(fh)
        before = {e: v for e, v in before.items() if e in prints}
        diffs = compare(before, prints, args.ignore)
        print(f"{len(diffs)} differences against {args.compare}")
        for line in diffs[:200]:
            print(" ", line)
        return 1 if diffs or errors else 0
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
