"""Finding a scenario family: the ``FAMILY`` of a folder's ``family.py``, or the family
behind a registered env id (the env that serves its instances is
:class:`vibelife_env.family_env.FamilyEnv`)."""

from __future__ import annotations

from pathlib import Path

from vibelife_env.errors import TaskLoadError
from vibelife_env.families.base import TEST_INSTANCES, Family, Split
from vibelife_env.task.modules import import_bundle_module

_FAMILIES: dict[str, Family] = {}


def load_family(family_dir: str | Path) -> Family:
    """The ``FAMILY`` of ``<family_dir>/family.py`` (one object per folder and process).

    Raises:
        TaskLoadError: no ``family.py``, or no ``FAMILY`` :class:`Family` in it.
    """
    root = Path(family_dir).resolve()
    key = str(root)
    if key not in _FAMILIES:
        module = import_bundle_module(root, "family.py")
        family = getattr(module, "FAMILY", None)
        if not isinstance(family, Family):
            raise TaskLoadError(root / "family.py", "FAMILY", "expected an instance of vibelife_env.families.Family")
        family.root = root
        _FAMILIES[key] = family
    return _FAMILIES[key]


def family_of(env_id: str) -> Family | None:
    """The :class:`Family` behind a registered env id, ``None`` for a single-task env."""
    import gymnasium as gym

    family_dir = gym.spec(env_id).kwargs.get("family_dir")
    return None if family_dir is None else load_family(family_dir)


def instance_for_seed(split: Split, seed: int) -> int:
    """The instance ``reset(seed=seed)`` serves when none is pinned: ``seed % 4`` on the test
    split, the seed itself on the train split."""
    return seed % TEST_INSTANCES if split == "test" else seed
