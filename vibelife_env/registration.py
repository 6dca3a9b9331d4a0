"""Register task bundles as Gymnasium environments, without loading task data.

Own tasks live in ``tasks/<domain>/<task>/`` (installed as ``vibelife_env.tasks``) and
register as ``VibeLife-<domain>-<task>-v0`` (underscores become hyphens) when
``vibelife_env`` is imported. A checkout of the public release registers with
:func:`register_bundles`.

Every id gets ``max_episode_steps=``:data:`MAX_EPISODE_STEPS` (Gymnasium's ``TimeLimit``)
and the vector entry point :func:`vibelife_env.vector.make_vector_env` (Ray, or
Gymnasium's sync vector env without Ray).
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import gymnasium as gym

ENTRY_POINT = "vibelife_env.env:VibeLifeEnv"
VECTOR_ENTRY_POINT = "vibelife_env.vector:make_vector_env"

#: ``max_episode_steps`` of every registered id: a backstop, not the limit that ends an
#: episode. The engine bounds a single-agent episode by itself at
#: ``max_tool_calls_per_episode + 1 + max_idle_steps x turns`` steps (tool-call budget,
#: idle turns closing in silence; see :mod:`vibelife_env.episode`): at most 1,339 for the
#: bundled tasks (the flagship: 1,200 calls, 44 turns with wake-ups), and below this for
#: any task on the default budget of 2,000 calls with fewer than 1,000 turns, so the
#: engine's own truncation and termination come first.
MAX_EPISODE_STEPS = 5_000
_SLUG = re.compile(r"[^A-Za-z0-9]+")


def env_id(domain: str, name: str, prefix: str = "VibeLife", version: int = 0) -> str:
    """``VibeLife-<domain>-<name>-v0`` with anything but letters and digits as hyphens."""
    slug = lambda s: _SLUG.sub("-", s).strip("-")  # noqa: E731
    return f"{prefix}-{slug(domain)}-{slug(name)}-v{version}"


def find_bundles(root: str | Path) -> list[Path]:
    """Every directory under ``root`` (inclusive) that holds a ``task.toml``."""
    base = Path(root)
    if (base / "task.toml").is_file():
        return [base]
    return sorted(p.parent for p in base.rglob("task.toml") if "__pycache__" not in p.parts)


def builtin_tasks_dir() -> Path:
    """Where the installed own task bundles are."""
    try:
        return Path(str(resources.files("vibelife_env.tasks")))
    except ModuleNotFoundError:  # running from a source tree that is not installed
        return Path(__file__).resolve().parent.parent / "tasks"


def register_bundles(root: str | Path, prefix: str = "VibeLife", force: bool = False) -> list[str]:
    """Register every bundle under ``root``; returns the ids (sorted).

    The domain is the bundle's parent folder name and the task its folder name, so the
    release's ``eval_set/travel/galapagos_no_us_transit`` becomes
    ``VibeLife-travel-galapagos-no-us-transit-v0``. Nothing is loaded until ``gym.make``.

    Raises:
        FileNotFoundError: ``root`` does not exist.
        ValueError: two bundles map to the same id.
    """
    base = Path(root).expanduser().resolve()
    if not base.exists():
        raise FileNotFoundError(f"bundle directory {base} does not exist")
    ids: dict[str, Path] = {}
    for bundle in find_bundles(base):
        eid = env_id(bundle.parent.name, bundle.name, prefix)
        if eid in ids:
            raise ValueError(f"bundles {ids[eid]} and {bundle} both map to {eid}")
        ids[eid] = bundle
    for eid, bundle in ids.items():
        if eid in gym.registry and not force:
            if gym.registry[eid].kwargs.get("task_dir") == str(bundle):
                continue
            raise ValueError(f"{eid} is already registered for {gym.registry[eid].kwargs.get('task_dir')}")
        _register(eid, ENTRY_POINT, {"task_dir": str(bundle)})
    return sorted(ids)


def _register(eid: str, entry_point: str, kwargs: dict[str, str]) -> None:
    gym.register(
        id=eid,
        entry_point=entry_point,
        vector_entry_point=VECTOR_ENTRY_POINT,
        kwargs=kwargs,
        max_episode_steps=MAX_EPISODE_STEPS,
        disable_env_checker=False,
    )


FAMILY_ENTRY_POINT = "vibelife_env.family_env:FamilyEnv"


def find_families(root: str | Path) -> list[Path]:
    """Every directory under ``root`` that holds a shipped scenario family (``family.py``; see
    :func:`shipped_family_dir`)."""
    base = Path(root)
    return sorted(p.parent for p in base.rglob("family.py") if shipped_family_dir(p.parent, base))


def shipped_family_dir(folder: str | Path, root: str | Path | None = None) -> bool:
    """Whether a family folder under ``root`` (default: the package's tasks) is a shipped family:
    not a cache, and no folder on its way named ``_*`` (the authoring template ``tasks/_template``)."""
    base = Path(root) if root is not None else builtin_tasks_dir()
    try:
        parts = Path(folder).resolve().relative_to(base.resolve()).parts
    except ValueError:
        return False
    return "__pycache__" not in parts and not any(part.startswith("_") for part in parts)


def register_family_dir(folder: str | Path, prefix: str = "VibeLife") -> str:
    """Register one family folder under ``VibeLife-<domain>-<name>-v0``, named by its ``FAMILY``'s
    class attributes (not by the folder: an authoring copy keeps its place); returns the id.

    Raises:
        TaskLoadError: no ``family.py`` or no ``FAMILY`` in it.
    """
    from vibelife_env.families.loader import load_family

    path = Path(folder).expanduser().resolve()
    family = load_family(path)
    eid = env_id(family.domain, family.name, prefix)
    if eid not in gym.registry or gym.registry[eid].kwargs.get("family_dir") != str(path):
        _register(eid, FAMILY_ENTRY_POINT, {"family_dir": str(path)})
    return eid


def register_families(root: str | Path, prefix: str = "VibeLife") -> list[str]:
    """Register every family under ``root`` as ``VibeLife-<domain>-<family>-v0`` (lazily:
    nothing is generated until ``gym.make``). ``split``, ``instance`` and ``level`` are make kwargs."""
    ids = []
    for folder in find_families(root):
        eid = env_id(folder.parent.name, folder.name, prefix)
        _register(eid, FAMILY_ENTRY_POINT, {"family_dir": str(folder)})
        ids.append(eid)
    return sorted(ids)


def register_builtin() -> list[str]:
    """Register the bundles and scenario families shipped with the package."""
    root = builtin_tasks_dir()
    if not root.is_dir():
        return []
    return sorted(register_bundles(root, force=True) + register_families(root))


def registered_ids(prefix: str = "VibeLife-") -> list[str]:
    """Ids in the Gymnasium registry that start with ``prefix``."""
    return sorted(k for k in gym.registry if k.startswith(prefix))
