"""``vibelife rollout``: generate a JSONL rollout dataset, optionally on Ray workers.

One line per episode: task and env id, seed, the chat transcript in OpenAI message format,
per-step rewards, per-check results, score and env version, and the env's tool schemas
(by hash into the sidecar ``F.tools.json``; in the line itself with ``--inline-tools``;
see :mod:`vibelife_env.rollout`).

Lines are appended as episodes finish, each in one synced write, so Ctrl-C (or a lost
machine) keeps every finished episode; ``--resume`` runs only the episodes the file lacks.
When every episode is in, the file is rewritten sorted by (env as given, seed), so the
same arguments give a byte-identical file whatever the number of workers and however often
the run was interrupted and resumed.

A scenario family plays its default level (paper where it renders it); ``--level
guided|paper`` another. Its lines carry ``split`` and ``level``, and ``--resume`` refuses a
file started on another split or level.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from vibelife_env.agents import AgentSpec
from vibelife_env.commands import (
    CLIError,
    build_agent,
    check_env_ids,
    family_levels,
    played_level,
    register_bundle_dir,
)
from vibelife_env.episode import providers
from vibelife_env.families.loader import family_of, instance_for_seed
from vibelife_env.rollout import (
    JsonlAppender,
    Span,
    iter_spans,
    tools_sha256,
    tools_sidecar,
    write_in_order,
    write_tools_sidecar,
)
from vibelife_env.runner import EpisodeJob, EpisodeRunner, EpisodeWorker, RolloutResult
from vibelife_env.vector import make_env, resolve_env_kwargs

AGENT_HELP = (
    "agent: null, polling, stuffer, the adversaries (narrator, sprayer, ...), oracle, stale, reckless, "
    "openai (OPENAI_BASE_URL, VIBELIFE_MODEL), or module:factory from the current directory (default oracle)"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--env", action="append", required=True, help="environment id (repeat for several)")
    p.add_argument("--agent", default="oracle", help=AGENT_HELP)
    p.add_argument("--episodes", type=int, default=1, help="episodes per environment (seeds SEED..SEED+N-1)")
    p.add_argument("--workers", type=int, default=0, help="Ray actors; 0 runs in-process without Ray")
    p.add_argument("--out", required=True, help="output JSONL file (tool schemas go to OUT.tools.json)")
    p.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    p.add_argument(
        "--ray-address", "--address", dest="ray_address", default=None, help="Ray cluster address (default: local Ray)"
    )
    p.add_argument("--bundles", default=None, help="also register the bundles under this directory")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--resume", action="store_true", help="keep the episodes already in --out and run the rest")
    p.add_argument("--overwrite", action="store_true", help="start --out afresh if it exists")
    p.add_argument("--inline-tools", action="store_true", help="put the tool schemas in every line (no sidecar)")
    p.add_argument(
        "--split",
        choices=("test", "train"),
        default=None,
        help="scenario families: the instances the seeds draw (test: seed %% 4; train: a fresh one per seed)",
    )
    p.add_argument(
        "--level",
        choices=("guided", "paper"),
        default=None,
        help="scenario families: the level to play (default: each family's own, paper where it renders it)",
    )


def dataset_line(
    env_id: str,
    result: Any,
    tools: list[dict[str, Any]] | None = None,
    tools_key: str | None = None,
    split: str | None = None,
    level: str | None = None,
) -> str:
    """One JSON line: the episode's ``to_dict()``, the env id (and a family's ``split`` and
    ``level``), and its tools inline or by key.

    Retries of dead workers are reported on stderr, not in the line, so that a retried
    episode leaves the file byte-identical.
    """
    row = {"env_id": env_id, **result.to_dict()}
    if split is not None:
        row["split"] = split
    if level is not None:
        row["level"] = level
    if tools is not None:
        row["tools"] = tools
    if tools_key is not None:
        row["tools_sha256"] = tools_key
    return json.dumps(row, ensure_ascii=False, sort_keys=True)


def check_out(out: Path, resume: bool, overwrite: bool) -> None:
    """Check ``--out`` before anything runs (creates nothing): a file path that can be
    written, and new (or empty) unless resuming or overwriting.

    Raises:
        CLIError: a directory, an unwritable location, or an existing file without
            ``--resume`` / ``--overwrite``.
    """
    if resume and overwrite:
        raise CLIError("--resume and --overwrite exclude each other")
    if out.is_dir():
        raise CLIError(f"--out {out}: is a directory; give a file such as {out / 'rollouts.jsonl'}")
    if out.exists():
        if out.stat().st_size and not (resume or overwrite):
            raise CLIError(f"--out {out}: exists; pass --resume to finish it or --overwrite to start again")
        if not os.access(out, os.W_OK):
            raise CLIError(f"--out {out}: not writable")
        return
    folder = out.parent
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        raise CLIError(f"--out {out}: {folder} is not a directory")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CLIError(f"--out {out}: cannot create files under {folder}")


def open_out(out: Path, overwrite: bool) -> None:
    """Create ``--out`` (and its folders), emptied when ``overwrite``.

    Raises:
        CLIError: the file cannot be created.
    """
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w" if overwrite else "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise CLIError(f"--out {out}: cannot write there ({exc.strerror or exc})") from None


def finished_episodes(
    out: Path,
    runs: list[tuple[str, int]],
    agent: str,
    inline: bool,
    splits: dict[str, str | None] | None = None,
    levels: dict[str, str | None] | None = None,
) -> dict[int, Span]:
    """Where the lines already in ``out`` sit, by run index (a torn last line is cut from
    the file); read one line at a time.

    Raises:
        CLIError: a line that is not JSON, an episode this run would not produce, one
            another agent played, on another split or level, or tools stored the other way
            (``--inline-tools``).
    """
    index = {run: i for i, run in enumerate(runs)}
    done: dict[int, Span] = {}
    for number, (span, line) in enumerate(iter_spans(out, repair=True), 1):
        try:
            row = json.loads(line)
            key = (row["env_id"], row["seed"])
        except (ValueError, KeyError, TypeError):
            raise CLIError(f"--resume: {out} line {number} is not a rollout line") from None
        if key not in index:
            raise CLIError(
                f"--resume: {out} line {number} is {key[0]} seed {key[1]}, not part of this run; "
                "resume with the --env/--episodes/--seed it was started with"
            )
        if row.get("agent") != agent:
            raise CLIError(f"--resume: {out} line {number} was played by agent {row.get('agent')!r}, not {agent!r}")
        wanted = (splits or {}).get(key[0])
        if row.get("split") != wanted:
            raise CLIError(
                f"--resume: {out} line {number} played the {row.get('split') or 'default'} split, "
                f"not {wanted or 'the default'}; resume with the --split it was started with"
            )
        level = (levels or {}).get(key[0])
        if level is not None and played_level(row) != level:
            raise CLIError(
                f"--resume: {out} line {number} played {key[0]} at the {played_level(row)} level, "
                f"not {level}; resume with the --level it was started with"
            )
        if ("tools" in row) != inline:
            flag = "with" if "tools" in row else "without"
            raise CLIError(f"--resume: {out} was written {flag} --inline-tools; resume it the same way")
        done.setdefault(index[key], span)
    return done


def family_splits(envs: list[str], split: str | None) -> dict[str, str | None]:
    """Per env: the split its seeds draw instances from (``None`` for a single-task env).

    Raises:
        CLIError: ``--split`` given for envs none of which is a scenario family.
    """
    splits = {e: (split or "test") if family_of(e) is not None else None for e in envs}
    if split is not None and not any(splits.values()):
        raise CLIError(f"--split {split}: none of {', '.join(envs)} is a scenario family (`vibelife list`)")
    return splits


def _family_kwargs(split: str | None, level: str | None = None) -> dict[str, Any]:
    return {**({} if split is None else {"split": split}), **({} if level is None else {"level": level})}


def run_tools(
    runs: list[tuple[str, int]], splits: dict[str, str | None], levels: dict[str, str | None] | None = None
) -> list[list[dict[str, Any]]]:
    """The tool schemas each run's episode offers: the env's, or for a family the instance's
    at its level (instances of one family may use different services)."""
    by_task: dict[str, list[dict[str, Any]]] = {}
    out = []
    for env_id, seed in runs:
        family, split = family_of(env_id), splits[env_id]
        if family is None or split is None:
            key = env_id
            if key not in by_task:
                by_task[key] = make_env(**resolve_env_kwargs(env_id, {})).tool_schemas()
        else:
            level = (levels or {}).get(env_id)
            task = family.instance(split, instance_for_seed(split, seed), level)  # type: ignore[arg-type]
            key = task.id
            if key not in by_task:
                by_task[key] = [schema for p in providers(task) for schema in p.openai_tools()]
        out.append(by_task[key])
    return out


def run_jobs(spec: Any, jobs: list[Any], workers: int, ray_address: str | None) -> Iterator[Any]:
    """Yield a ``RolloutResult`` per job as each completes (in-process when ``workers`` is 0).

    Every agent name :func:`~vibelife_env.agents.make_agent` accepts works: the runner builds
    it in each worker for the task each episode plays.
    """
    if workers == 0:
        worker = EpisodeWorker(spec)
        for i, job in enumerate(jobs):
            try:
                yield RolloutResult(job, i, worker.run(job), worker=0)
            except Exception as exc:
                yield RolloutResult(job, i, None, error=f"{type(exc).__name__}: {exc}", worker=0)
        return
    runner = EpisodeRunner(spec, num_workers=workers, ray_address=ray_address)
    try:
        yield from runner.run(jobs)
    finally:
        runner.close()


def main(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    resume, overwrite = getattr(args, "resume", False), getattr(args, "overwrite", False)
    inline = getattr(args, "inline_tools", False)
    if args.episodes < 1:
        raise CLIError(f"--episodes must be >= 1, got {args.episodes}")
    if args.workers < 0:
        raise CLIError(f"--workers must be >= 0, got {args.workers}")
    out = Path(args.out)
    check_out(out, resume, overwrite)
    if args.bundles:
        register_bundle_dir(args.bundles)
    envs = check_env_ids(args.env)
    split = getattr(args, "split", None)
    splits = family_splits(envs, split)
    levels = family_levels(envs, getattr(args, "level", None))
    runs = [(e, seed) for e in envs for seed in range(args.seed, args.seed + args.episodes)]
    tools = run_tools(runs, splits, levels)
    keys = [tools_sha256(t) for t in tools]
    probe = make_env(**resolve_env_kwargs(envs[0], _family_kwargs(splits[envs[0]], levels[envs[0]])))
    agent = build_agent(args.agent, probe.task)
    agent_name = getattr(agent, "name", type(agent).__name__)
    lines = finished_episodes(out, runs, agent_name, inline, splits, levels) if resume else {}
    open_out(out, overwrite)
    side = tools_sidecar(out)
    if inline and overwrite:
        side.unlink(missing_ok=True)
    if not inline:
        if overwrite:
            side.unlink(missing_ok=True)
        write_tools_sidecar(out, dict(zip(keys, tools, strict=True)))
    if lines:
        print(f"resuming {out}: {len(lines)} of {len(runs)} episodes already there", file=sys.stderr)
    todo = [i for i in range(len(runs)) if i not in lines]
    failures: list[str] = []
    retried: list[str] = []
    bar = tqdm(total=len(runs), initial=len(lines), unit="ep", disable=args.no_progress, file=sys.stderr)
    try:
        with JsonlAppender(out) as sink:
            jobs = [
                EpisodeJob(*runs[i], env_kwargs=_family_kwargs(splits[runs[i][0]], levels[runs[i][0]])) for i in todo
            ]
            for r in run_jobs(AgentSpec(args.agent, os.getcwd()), jobs, args.workers, args.ray_address):
                index = todo[r.index]
                env_id, seed = runs[index]
                bar.update(1)
                if not r.ok:
                    failures.append(f"{env_id} seed {seed}: {r.error}")
                    continue
                line = dataset_line(
                    env_id,
                    r.result,
                    tools=tools[index] if inline else None,
                    tools_key=None if inline else keys[index],
                    split=splits[env_id],
                    level=levels[env_id],
                )
                lines[index] = sink.append(line)
                if r.attempts > 1:
                    retried.append(f"{env_id} seed {seed}")
                bar.set_postfix(score=f"{r.result.score:.1f}")
    except KeyboardInterrupt:
        bar.close()
        print(
            f"\ninterrupted: {out} holds {len(lines)} of {len(runs)} episodes; "
            "run the same command with --resume to finish",
            file=sys.stderr,
        )
        return 130
    bar.close()
    write_in_order(out, [lines[i] for i in sorted(lines)])  # runs are in (env, seed) order
    print(f"wrote {len(lines)} episodes to {out}" + ("" if inline else f", tool schemas to {side}"), file=sys.stderr)
    for episode in retried:
        print("retried once after a worker died:", episode, file=sys.stderr)
    for f in failures:
        print("failed:", f, file=sys.stderr)
    if failures:
        print(f"{len(failures)} episode(s) failed; --resume runs them again", file=sys.stderr)
    if retried:
        print(f"{len(retried)} episode(s) ran again after a worker crash: exit status 1", file=sys.stderr)
    return 1 if failures or retried else 0
