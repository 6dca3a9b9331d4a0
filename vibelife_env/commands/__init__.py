"""Subcommands of the ``vibelife`` CLI (one module each), and what they share.

Errors a user can cause (an unknown agent or env id, a bad ``--bundles`` or ``--out``
path, a missing ``VIBELIFE_MODEL``, an unreachable model endpoint) raise
:class:`CLIError`; :func:`vibelife_env.cli.main` prints its message as one line on stderr
and exits with status 2. This module stays light: ``vibelife --help`` imports it.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

#: Folders never searched for bundles (virtualenvs, caches, VCS data).
SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "dist-packages", ".venv", "venv"})
#: How deep under ``--bundles PATH`` bundles are looked for: PATH/<domain>/<task> is the
#: release's ``eval_set`` layout, PATH/eval_set/<domain>/<task> a whole checkout.
BUNDLE_DEPTH = 3


class CLIError(Exception):
    """A mistake in the command line or its environment, reported as one line (exit status 2)."""


def looks_like_bundle(folder: Path) -> bool:
    """A ``task.toml`` that parses, and the event timeline it names (``event.yaml`` by default)."""
    toml = folder / "task.toml"
    if not toml.is_file():
        return False
    try:
        data = tomllib.loads(toml.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    runtime = data.get("runtime")
    events = runtime.get("events", "event.yaml") if isinstance(runtime, dict) else "event.yaml"
    return isinstance(events, str) and (folder / events).is_file()


def find_bundle_dirs(root: str | Path) -> tuple[list[Path], list[Path]]:
    """Bundles under ``root`` (itself, or up to :data:`BUNDLE_DEPTH` levels below), and the
    folders that hold a ``task.toml`` but are not bundles.

    Hidden folders, :data:`SKIP_DIRS` and the inside of a bundle are not searched, so a
    broad path such as ``/tmp`` costs a few directory listings, not a walk of every tree.

    Raises:
        CLIError: ``root`` does not exist or is not a directory.
    """
    base = Path(root).expanduser()
    if not base.exists():
        raise CLIError(f"--bundles {root}: no such directory")
    if not base.is_dir():
        raise CLIError(f"--bundles {root}: not a directory")
    found: list[Path] = []
    ignored: list[Path] = []
    level = [base.resolve()]
    for depth in range(BUNDLE_DEPTH + 1):
        below: list[Path] = []
        for folder in level:
            if looks_like_bundle(folder):
                found.append(folder)
                continue
            if (folder / "task.toml").is_file():
                ignored.append(folder)
            if depth == BUNDLE_DEPTH:
                continue
            try:
                below += sorted(
                    p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name not in SKIP_DIRS
                )
            except OSError:  # unreadable folder: not ours to scan
                continue
        level = below
    return sorted(found), sorted(ignored)


def bundle_dirs(root: str | Path) -> list[Path]:
    """The bundles :func:`find_bundle_dirs` finds under ``--bundles root``.

    Raises:
        CLIError: no such directory, or no bundle in it (the message says where it looked).
    """
    bundles, ignored = find_bundle_dirs(root)
    if not bundles:
        hint = f"; {len(ignored)} folder(s) with a task.toml but no event timeline" if ignored else ""
        raise CLIError(
            f"--bundles {root}: no task bundles (a folder with task.toml and event.yaml) in it or "
            f"{BUNDLE_DEPTH} levels below{hint}"
        )
    return bundles


def register_bundle_dir(root: str | Path, prefix: str = "VibeLife") -> list[str]:
    """Register every bundle of :func:`bundle_dirs`; returns their env ids.

    Raises:
        CLIError: no such directory, no bundle in it, or two bundles with one id.
    """
    from vibelife_env.registration import env_id, register_bundles

    bundles = bundle_dirs(root)
    ids: dict[str, Path] = {}
    for bundle in bundles:
        eid = env_id(bundle.parent.name, bundle.name, prefix)
        if eid in ids:
            raise CLIError(f"--bundles {root}: {ids[eid]} and {bundle} would both be {eid}")
        ids[eid] = bundle
    for bundle in ids.values():
        try:
            register_bundles(bundle, prefix=prefix)
        except ValueError as exc:  # the id is taken by another bundle or a family
            raise CLIError(f"--bundles {root}: {exc}") from None
    return sorted(ids)


def check_env_ids(ids: list[str]) -> list[str]:
    """``ids`` without repeats, in order.

    Raises:
        CLIError: an id that is not registered (the message lists the registered ones).
    """
    import gymnasium as gym

    import vibelife_env

    unknown = [i for i in ids if i not in gym.registry]
    if unknown:
        import difflib

        known = vibelife_env.registered_ids()
        close = [m for i in unknown for m in difflib.get_close_matches(i, known, n=3, cutoff=0.6)]
        hint = f"did you mean {', '.join(dict.fromkeys(close))}? " if close else ""
        raise CLIError(
            f"unknown env id{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; {hint}"
            f"{len(known)} ids are registered (`vibelife list` prints them; --bundles PATH adds more)"
        )
    return list(dict.fromkeys(ids))


def family_levels(
    envs: list[str], level: str | None = None, defaults: dict[str, str | None] | None = None
) -> dict[str, str | None]:
    """Per env id, the level its family instances play at: ``level`` (``--level``) when
    given, else ``defaults[env]`` (a suite's level) when set, else the family's default
    level; ``None`` for a single-task env.

    Raises:
        CLIError: ``level`` given with a single-task env, or a level a family does not render
            (``gym.make(..., level=...)`` refuses it).
    """
    from vibelife_env.families import LEVELS
    from vibelife_env.families.loader import family_of

    if level is not None and level not in LEVELS:
        raise CLIError(f"--level must be one of {', '.join(LEVELS)}, got {level!r}")
    out: dict[str, str | None] = {}
    refused: list[str] = []
    for env_id in envs:
        family = family_of(env_id)
        if family is None:
            if level is not None:
                raise CLIError(f"--level {level}: {env_id} is a single task; --level is for scenario families")
            out[env_id] = None
            continue
        wanted = level or (defaults or {}).get(env_id) or family.default_level
        if wanted not in family.levels:
            refused.append(f"{env_id} ({family.id}) renders only the {' and '.join(family.levels)} level, not {wanted}")
        out[env_id] = wanted
    if refused:
        why = f"--level {level}" if level is not None else "level"
        more = f"; and {len(refused) - 3} more families" if len(refused) > 3 else ""
        raise CLIError(f"{why}: {'; '.join(refused[:3])}{more}")
    return out


def played_level(row: dict[str, Any]) -> str | None:
    """The level a dataset or eval line of a family instance was played at: its ``level``, or
    for a line written before lines had one, what its task id says (``-paper`` at the end)."""
    if row.get("level") is not None:
        return str(row["level"])
    task_id = str(row.get("task_id", ""))
    return "paper" if task_id.endswith("-paper") else "guided"


def build_agent(name: str, task: Any) -> Any:
    """The agent ``name`` for ``task``, checked the way a user needs before a long run.

    ``openai`` also has its endpoint probed (:func:`check_endpoint`).

    Raises:
        CLIError: an unknown name, a factory that cannot be loaded, an agent that cannot be
            built (e.g. ``openai`` without ``VIBELIFE_MODEL``), an unreachable endpoint.
    """
    from vibelife_env.agents import make_agent

    if name == "openai" and not os.environ.get("VIBELIFE_MODEL"):
        raise CLIError("--agent openai needs a model name: set VIBELIFE_MODEL (and OPENAI_BASE_URL for your server)")
    try:
        agent = make_agent(name, task)
    except ModuleNotFoundError as exc:
        if name == "openai" and exc.name == "openai":
            raise CLIError("--agent openai needs the openai package: pip install 'vibelife-env[llm]'") from None
        raise
    except (TypeError, ValueError) as exc:
        raise CLIError(f"--agent {name}: {exc}") from None
    if name == "openai":
        check_endpoint(agent)
    return agent


def check_endpoint(agent: Any, timeout: float = 10.0) -> None:
    """Probe an :class:`~vibelife_env.agents.openai_agent.OpenAIChatAgent`'s endpoint once.

    Lists the endpoint's models; a server without that route still counts as reachable.

    Raises:
        CLIError: the endpoint cannot be reached, or refuses the API key.
    """
    import openai

    client = agent.client.with_options(timeout=timeout, max_retries=0)
    where = str(getattr(agent.client, "base_url", "")).rstrip("/") or "the OpenAI API"
    try:
        client.models.list()
    except (openai.APIConnectionError, openai.APITimeoutError) as exc:
        raise CLIError(
            f"--agent openai: cannot reach the model endpoint {where} ({exc}); start the server or set OPENAI_BASE_URL"
        ) from None
    except openai.AuthenticationError as exc:
        raise CLIError(f"--agent openai: {where} refused the API key (OPENAI_API_KEY): {exc}") from None
    except openai.APIStatusError:
        return


def user_error(exc: BaseException) -> str | None:
    """The one-line message for an exception a user can cause outside :class:`CLIError`
    (a broken task bundle, a model endpoint that went away mid-run), else ``None``."""
    from vibelife_env.errors import TaskLoadError

    if isinstance(exc, CLIError | TaskLoadError):
        return str(exc)
    module = type(exc).__module__ or ""
    if module.startswith("openai") and type(exc).__name__ in ("APIConnectionError", "APITimeoutError"):
        url = os.environ.get("OPENAI_BASE_URL") or "the OpenAI API"
        return f"the model endpoint {url} went away: {exc}"
    if module.startswith("openai") and type(exc).__name__ in ("AuthenticationError", "NotFoundError"):
        return f"the model endpoint refused the request: {exc}"
    return None
