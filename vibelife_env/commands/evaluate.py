"""``vibelife eval``: run agents over tasks several times; write ``report.html`` and ``report.json``.

Example::

    vibelife eval --agent oracle --agent null --env VibeLife-demo-errands-v0 --attempts 3 --out runs/eval
    vibelife eval --suite vibelife-200 --agent oracle --attempts 3 --workers 2 --out runs/suite
    vibelife eval --env VibeLife-travel-city-break-v0 --level guided --agent oracle --out runs/guided

Attempt *i* of every task uses seed ``--seed + i``. Each ``--agent`` is a built-in name
(see :func:`vibelife_env.agents.make_agent`) or ``module:factory``, a callable taking the
task and returning an agent (``reset(info)`` / ``act(obs, info)``), for your own policies;
the module is looked up in the current directory first.

A progress bar runs on stderr, and each episode is appended to ``OUT/episodes.jsonl`` as
it finishes (one synced line, transcript included), so Ctrl-C keeps every finished
episode; ``--resume`` runs only the missing ones and gives the same files as an
uninterrupted run. At the end ``episodes.jsonl`` is sorted (agent, env, seed as given),
each run's transcript is written to ``OUT/transcripts/`` and the report's failed checks
link to the turn of the transcript they are about.

A scenario family's env id stands for its four frozen test instances: each is a task of
the report (``<domain>/<family>-test-<k>``, ``...-test-<k>-paper`` at the paper level),
played ``--attempts`` times, and the report adds the scores of held-out families next to
those of the families one trains on. A family plays its default level (paper where it
renders it), ``--level guided|paper`` another (for every family given; a level a family
does not render is an error). ``--suite vibelife-200`` is every shipped family at its
default level, ``--suite vibelife-200-guided`` every one at the guided level (see
:mod:`vibelife_env.suite`); ``--level`` given with a suite overrides the suite's level.
``--workers N`` plays the episodes on N Ray actors (same files as in-process).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import gymnasium as gym

from vibelife_env.agents import AgentForTask
from vibelife_env.commands import (
    CLIError,
    build_agent,
    check_env_ids,
    family_levels,
    played_level,
    register_bundle_dir,
)
from vibelife_env.env import base_env
from vibelife_env.evaluation import Summary, task_info
from vibelife_env.families import TEST_INSTANCES, Level
from vibelife_env.families.loader import family_of
from vibelife_env.report import iter_html, render_transcript
from vibelife_env.rollout import EpisodeResult, JsonlAppender, Span, iter_spans, run_episode, write_in_order

EPISODES = "episodes.jsonl"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agent", action="append", required=True, help="agent name or module:factory (repeatable)")
    p.add_argument("--env", action="append", default=[], help="environment id (repeatable)")
    p.add_argument(
        "--suite",
        default=None,
        help="a benchmark suite: vibelife-200 (every shipped family at its default level, paper where it "
        "renders it) or vibelife-200-guided (every shipped family at the guided level)",
    )
    p.add_argument(
        "--level",
        choices=("guided", "paper"),
        default=None,
        help="scenario families: the level to play (default: each family's own, or the suite's)",
    )
    p.add_argument("--workers", type=int, default=0, help="Ray actors; 0 plays in this process (default)")
    p.add_argument("--attempts", type=int, default=3, help="runs per task and agent (default 3)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first attempt (default 0)")
    p.add_argument("--bins", type=int, default=3, help="timeline-position bins for pass rates (default 3)")
    p.add_argument("--out", required=True, help="output directory (report.html, report.json, episodes.jsonl)")
    p.add_argument("--bundles", default=None, help="also register the bundles under this directory")
    p.add_argument("--fail-fast", action="store_true", help="stop at the first agent exception")
    p.add_argument("--resume", action="store_true", help="keep the episodes already in OUT and run the rest")
    p.add_argument("--overwrite", action="store_true", help="start OUT afresh if it holds a run")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


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


def iter_attempts(
    env_id: str,
    agent_name: str,
    seeds: list[int],
    fail_fast: bool = False,
    record: bool = True,
    instance: int | None = None,
    level: str | None = None,
) -> Iterator[EpisodeResult]:
    """One episode of one agent on one registered env per seed, yielded as each ends
    (``instance``: the family test instance to play; ``level``: its level, default the family's).

    An exception raised by the agent ends that attempt (see :func:`crashed_result`) unless
    ``fail_fast``; errors of the environment itself always propagate.
    """
    env = gym.make(env_id, **make_kwargs(instance, level))
    try:
        agent = AgentForTask(agent_name, env)
        for seed in seeds:
            try:
                result = run_episode(env, _Guard(agent), seed=seed, record=record)
            except _AgentError as err:
                if fail_fast:
                    raise err.cause from None
                print(f"warning: {agent_name} crashed on {env_id} (seed {seed}): {err.cause}", file=sys.stderr)
                result = crashed_result(env, agent_name, seed, err.cause)
            result.agent = agent_name
            yield result
    finally:
        env.close()


def make_kwargs(instance: int | None = None, level: str | None = None) -> dict[str, Any]:
    """``gym.make`` kwargs that pin a family's test ``instance`` and its ``level`` (none given: none)."""
    return {**({} if instance is None else {"instance": instance}), **({} if level is None else {"level": level})}


def run_attempts(
    env_id: str, agent_name: str, attempts: int, seed: int = 0, fail_fast: bool = False, level: str | None = None
) -> list[EpisodeResult]:
    """``attempts`` episodes (seeds ``seed..seed+attempts-1``) of :func:`iter_attempts`, without transcripts."""
    seeds = list(range(seed, seed + attempts))
    return list(iter_attempts(env_id, agent_name, seeds, fail_fast, record=False, level=level))


class _AgentError(Exception):
    """Wraps an exception raised inside the agent (not the env)."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(cause)
        self.cause = cause


class _Guard:
    """Forwards to the agent and tags its exceptions, so env errors are not mistaken for them."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent

    @property
    def name(self) -> str:
        return getattr(self.agent, "name", type(self.agent).__name__)

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


def load_suite(name: str, level: str | None = None) -> Any:
    """The :class:`~vibelife_env.suite.Suite` ``name``, at ``level`` when given (``--level``
    overrides the suite's own).

    Raises:
        CLIError: an unknown suite, or one without families yet.
    """
    from dataclasses import replace

    from vibelife_env.suite import get_suite

    try:
        suite = get_suite(name)
    except KeyError as exc:
        raise CLIError(str(exc.args[0])) from None
    if not suite.families:
        raise CLIError(f"suite {name}: no scenario family is registered")
    return suite if level is None else replace(suite, level=cast("Level", level))


def suite_envs(name: str | None, level: str | None = None) -> dict[str, str | None]:
    """The env ids of suite ``name`` (none for ``None``), each with the level the suite plays
    it at (``level``, when given, overrides the suite's); the suite's description goes to stderr.

    Raises:
        CLIError: an unknown suite, one without families yet, or a level one of its families
            does not render.
    """
    if name is None:
        return {}
    suite = load_suite(name, level)
    levels = family_levels(list(suite.families), level, {e: suite.level_of(e) for e in suite.families})
    print(suite.describe(), file=sys.stderr)
    return levels


def play_here(
    keys: list[Key], args: argparse.Namespace, bar: Any, levels: dict[str, str | None] | None = None
) -> Iterator[tuple[Key, EpisodeResult]]:
    """Play eval episodes in this process, an env (and agent) at a time, in plan order
    (``levels``: a family env's level, default the family's)."""
    levels = levels or {}
    groups: dict[tuple[str, str, int | None], list[int]] = {}
    for agent_name, env_id, k, seed in keys:
        groups.setdefault((agent_name, env_id, k), []).append(seed)
    for (agent_name, env_id, k), seeds in groups.items():
        bar.set_description(f"{agent_name} on {env_id}" + ("" if k is None else f"[{k}]"))
        runs = iter_attempts(env_id, agent_name, seeds, args.fail_fast, instance=k, level=levels.get(env_id))
        for seed, r in zip(seeds, runs, strict=True):
            yield (agent_name, env_id, k, seed), r


def play_on_workers(
    keys: list[Key],
    workers: int,
    fail_fast: bool,
    problems: list[str] | None = None,
    levels: dict[str, str | None] | None = None,
) -> Iterator[tuple[Key, EpisodeResult]]:
    """Play eval episodes on ``workers`` Ray actors, yielding each as it ends (any order;
    ``levels``: a family env's level, default the family's).

    An episode whose agent raised comes back as a zero-score truncated result naming the
    error (as in-process), unless ``fail_fast``. Each episode that failed, or that ran
    again because its worker died, is noted in ``problems`` (the run's summary and exit
    status report them: a crash is never only retried).
    """
    import os

    from vibelife_env.agents import AgentSpec
    from vibelife_env.runner import EpisodeJob, EpisodeRunner

    levels = levels or {}
    for agent_name in dict.fromkeys(k[0] for k in keys):
        mine = [k for k in keys if k[0] == agent_name]
        jobs = [EpisodeJob(e, seed, env_kwargs=make_kwargs(i, levels.get(e))) for _, e, i, seed in mine]
        with EpisodeRunner(AgentSpec(agent_name, os.getcwd()), num_workers=workers) as runner:
            for r in runner.run(jobs):
                key = mine[r.index]
                where = f"{agent_name} on {key[1]}" + ("" if key[2] is None else f"[{key[2]}]") + f" seed {key[3]}"
                if r.attempts > 1 and problems is not None:
                    problems.append(
                        f"a worker died during {where}; the episode ran again" + ("" if r.ok else " and failed")
                    )
                if r.result is None:
                    if fail_fast:
                        raise CLIError(f"{where}: {r.error}")
                    print(f"warning: {agent_name} failed on {key[1]} (seed {key[3]}): {r.error}", file=sys.stderr)
                    if problems is not None and r.attempts == 1:
                        problems.append(f"{where} failed: {r.error}")
                    yield key, failed_result(key, r.error, levels.get(key[1]))
                    continue
                r.result.agent = agent_name
                yield key, r.result


def failed_result(key: Key, error: str, level: str | None = None) -> EpisodeResult:
    """A zero-score truncated result for an episode that did not finish on a worker
    (``level``: a family instance's, default the family's)."""
    agent_name, env_id, instance, seed = key
    env = gym.make(env_id, **make_kwargs(instance, level))
    task = base_env(env).task
    checks = [
        {"id": c.id, "tier": c.tier, "stage": c.stage, "weight": c.weight, "passed": False, "error": "not evaluated"}
        for c in task.checks
    ]
    result = EpisodeResult(task.id, agent_name, seed, 0.0, checks=checks, truncated=True)
    result.check_errors.append(f"agent error: {error}")
    return result


def check_out_dir(out: Path, resume: bool, overwrite: bool) -> None:
    """Check ``--out`` before anything runs (creates nothing).

    Raises:
        CLIError: a file in the way, or a directory holding a run without ``--resume`` /
            ``--overwrite``.
    """
    if resume and overwrite:
        raise CLIError("--resume and --overwrite exclude each other")
    if out.exists() and not out.is_dir():
        raise CLIError(f"--out {out}: is a file; give a directory for report.html, report.json and {EPISODES}")
    episodes = out / EPISODES
    if episodes.exists() and episodes.stat().st_size and not (resume or overwrite):
        raise CLIError(f"--out {out}: holds a run ({EPISODES}); pass --resume to finish it or --overwrite")
    folder = out
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        raise CLIError(f"--out {out}: {folder} is not a directory")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "agent"


def transcript_path(agent: str, env_id: str, seed: int, instance: int | None = None) -> str:
    """Where a run's transcript goes, relative to ``--out``."""
    at = "" if instance is None else f"-instance{instance}"
    return f"transcripts/{_slug(agent)}/{_slug(env_id)}{at}-seed{seed}.html"


#: One eval episode: agent, env id, family test instance (``None`` for a single task), seed.
Key = tuple[str, str, int | None, int]
Target = tuple[str, int | None]


def targets(envs: list[str]) -> list[Target]:
    """What ``--env`` ids stand for: a single task, or each test instance of a family."""
    return [(e, k) for e in envs for k in ((None,) if family_of(e) is None else tuple(range(TEST_INSTANCES)))]


def _finished(path: Path, plan: list[Key], levels: dict[str, str | None] | None = None) -> dict[Key, Span]:
    wanted = set(plan)
    levels = levels or {}
    done: dict[Key, Span] = {}
    for number, (span, line) in enumerate(iter_spans(path, repair=True), 1):
        try:
            row = json.loads(line)
            key = (row["agent"], row["env_id"], row.get("instance"), row["seed"])
        except (ValueError, KeyError, TypeError):
            raise CLIError(f"--resume: {path} line {number} is not an eval episode line") from None
        if key not in wanted:
            at = "" if key[2] is None else f" instance {key[2]}"
            raise CLIError(
                f"--resume: {path} line {number} is {key[0]} on {key[1]}{at} seed {key[3]}, not part of this run; "
                "resume with the --agent/--env/--suite/--attempts/--seed it was started with"
            )
        if key[2] is not None and played_level(row) != levels.get(key[1]):
            raise CLIError(
                f"--resume: {path} line {number} played {key[1]} at the {played_level(row)} level, "
                f"not {levels.get(key[1])}; resume with the --level (or --suite) it was started with"
            )
        done.setdefault(key, span)
    return done


def main(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    resume, overwrite = getattr(args, "resume", False), getattr(args, "overwrite", False)
    if args.attempts < 1:
        raise CLIError(f"--attempts must be >= 1, got {args.attempts}")
    out = Path(args.out)
    check_out_dir(out, resume, overwrite)
    if args.bundles:
        register_bundle_dir(args.bundles)
    level = getattr(args, "level", None)
    in_suite = suite_envs(getattr(args, "suite", None), level)
    envs = check_env_ids(args.env + list(in_suite))
    if not envs:
        raise CLIError("give the envs to evaluate: --env ID (repeatable) or --suite NAME")
    levels = {**family_levels(check_env_ids(args.env), level), **in_suite}  # an env of the suite: its level
    workers = getattr(args, "workers", 0)
    if workers < 0:
        raise CLIError(f"--workers must be >= 0, got {workers}")
    agents = list(dict.fromkeys(args.agent))
    first = gym.make(envs[0], **make_kwargs(level=levels[envs[0]]))
    for name in agents:
        build_agent(name, base_env(first).task)
    plays = targets(envs)
    infos = {}
    for env_id, k in plays:
        family = family_of(env_id)
        if family is None:
            info = task_info(base_env(first if env_id == envs[0] else gym.make(env_id)).task)
        else:
            task = family.instance("test", k or 0, cast("Level | None", levels[env_id]))
            info = task_info(task, heldout=type(family).heldout)
        infos[info.task_id] = info
    seeds = list(range(args.seed, args.seed + args.attempts))
    plan: list[Key] = [(a, e, k, s) for a in agents for e, k in plays for s in seeds]
    out.mkdir(parents=True, exist_ok=True)
    path = out / EPISODES
    if overwrite:
        path.unlink(missing_ok=True)
    lines = _finished(path, plan, levels) if resume else {}
    if lines:
        print(f"resuming {out}: {len(lines)} of {len(plan)} episodes already there", file=sys.stderr)
    bar = tqdm(total=len(plan), initial=len(lines), unit="ep", disable=args.no_progress, file=sys.stderr)
    problems: list[str] = []
    try:
        with JsonlAppender(path) as sink:
            todo = [key for key in plan if key not in lines]
            played = (
                play_on_workers(todo, workers, args.fail_fast, problems, levels)
                if workers
                else play_here(todo, args, bar, levels)
            )
            for key, r in played:
                at = {} if key[2] is None else {"instance": key[2], "level": levels[key[1]]}
                row = {**r.to_dict(), "env_id": key[1], **at}
                lines[key] = sink.append(json.dumps(row, ensure_ascii=False, sort_keys=True))
                bar.update(1)
                bar.set_postfix(score=f"{r.score:.1f}")
    except KeyboardInterrupt:
        bar.close()
        print(
            f"\ninterrupted: {path} holds {len(lines)} of {len(plan)} episodes; "
            "run the same command with --resume to finish",
            file=sys.stderr,
        )
        return 130
    bar.close()
    write_in_order(path, [lines[k] for k in plan])
    write_reports(out, agents, envs, infos, args, levels)
    for problem in problems:
        print("problem:", problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} episode(s) had a worker crash or failed on a worker: exit status 1", file=sys.stderr)
    return 1 if problems else 0


def write_reports(
    out: Path,
    agents: list[str],
    envs: list[str],
    infos: dict[str, Any],
    args: argparse.Namespace,
    levels: dict[str, str | None] | None = None,
) -> None:
    """The transcripts, ``report.json`` and ``report.html`` from ``OUT/episodes.jsonl``.

    The file is read one line at a time: each episode's transcript is written and its
    result folded into its agent's :class:`~vibelife_env.evaluation.Summary`, so memory
    holds the aggregates, not the episodes.
    """
    by_agent = {name: Summary(infos, bins=args.bins) for name in agents}
    links: dict[str, dict[str, list[str]]] = {name: {} for name in agents}
    count = 0
    for _, line in iter_spans(out / EPISODES):
        r = json.loads(line)
        link = transcript_path(r["agent"], r["env_id"], r["seed"], r.get("instance"))
        target = out / link
        target.parent.mkdir(parents=True, exist_ok=True)
        at = "" if r.get("instance") is None else f" instance {r['instance']}"
        title = f"{r['agent']} on {r['env_id']}{at}, seed {r['seed']}"
        target.write_text(render_transcript(r, title), encoding="utf-8")
        r.pop("messages", None)
        by_agent[r["agent"]].add(EpisodeResult.from_dict(r))
        links[r["agent"]].setdefault(r["task_id"], []).append(link)
        count += 1
    summaries = []
    for agent_name in agents:
        summary = by_agent[agent_name].result()
        for tid, task in summary["tasks"].items():
            task["transcripts"] = links[agent_name][tid]
        summaries.append(summary)
    meta: dict[str, Any] = {"envs": envs, "agents": agents, "attempts": args.attempts, "seed": args.seed}
    if any((levels or {}).values()):
        meta["levels"] = {e: lv for e, lv in (levels or {}).items() if lv is not None}  # the families'
    with (out / "report.json").open("w", encoding="utf-8") as fh:  # streamed: json.dump writes as it encodes
        json.dump({"meta": meta, "agents": summaries}, fh, indent=2, ensure_ascii=False)
    on = envs[0] if len(envs) == 1 else f"{len(envs)} environments"
    title = f"VibeLife evaluation: {', '.join(agents)} on {on}"
    with (out / "report.html").open("w", encoding="utf-8") as fh:
        fh.writelines(iter_html(summaries, title, args.attempts, envs))
    table = [
        (label, o)
        for s in summaries
        for label, o in [
            (s["agent"], s["overall"]),
            *((f"  {group} ({g['tasks']} tasks)", g) for group, g in s.get("by_family_split", {}).items()),
        ]
    ]
    width = max(12, *(len(label) + 2 for label, _ in table))
    print(f"{'agent':<{width}}{'avg@k':>9}{'max@k':>9}{'min@k':>9}{'σ':>8}")
    for label, o in table:
        print(f"{label:<{width}}{o['avg']:>9.2f}{o['max']:>9.2f}{o['min']:>9.2f}{o['std']:>8.2f}")
    print(f"wrote {out / 'report.html'}, {out / 'report.json'} and {count} transcripts in {out / 'transcripts'}")
