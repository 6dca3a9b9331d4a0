"""``FamilyEnv``: a scenario family as one Gymnasium env that hands out instances on reset.

``gym.make("VibeLife-<domain>-<family>-v0")`` serves the four frozen test instances
(``reset(seed)`` → instance ``seed % 4``; ``instance=k`` pins one);
``gym.make(..., split="train")`` serves a fresh instance per reset seed. ``info["instance"]``
names the instance served. Everything else is :class:`~vibelife_env.env.VibeLifeEnv`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from vibelife_env.env import EnvSnapshot, VibeLifeEnv
from vibelife_env.families.base import SPLITS, Level, Split
from vibelife_env.families.loader import instance_for_seed, load_family

#: The observation's ``stage`` space bound for family instances (they vary in length).
MAX_FAMILY_STAGES = 64


class FamilyEnv(VibeLifeEnv):
    """A family's instances behind one env id; see the module docstring.

    Args:
        family_dir: The family's folder (``tasks/<domain>/<family>``).
        split: ``"test"`` (four frozen instances) or ``"train"`` (one per seed).
        instance: Pin this test instance (0-3) or train seed.
        level: ``"guided"`` or ``"paper"`` (default: the family's, the paper level where it renders one).
        **kwargs: :class:`VibeLifeEnv` options (budgets, ``strict_mutations``, ...).

    Raises:
        ValueError: an unknown split or an out-of-range instance.
    """

    def __init__(
        self,
        family_dir: str | Path,
        split: Split = "test",
        instance: int | None = None,
        level: Level | None = None,
        **kwargs: Any,
    ) -> None:
        if split not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
        self.family = load_family(family_dir)
        self.split: Split = split
        self.level: Level = level or self.family.default_level
        self.pinned = instance
        self.index = instance if instance is not None else 0
        task = self.family.instance(split, self.index, self.level)
        super().__init__(task=task, max_stages=MAX_FAMILY_STAGES, **kwargs)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """Pick the instance for ``seed`` (see the module docstring), then start it.

        ``options={"instance": k}`` serves instance ``k`` for this reset; a snapshot resumes
        the instance it was taken on (of this env's split and level).
        """
        options = dict(options or {})
        snap = options.get("snapshot")
        if snap is not None and snap.instance is not None and snap.instance != self.index:
            self.index = int(snap.instance)
            self.use_task(self.family.instance(self.split, self.index, self.level))
        elif snap is None:
            index = options.pop("instance", self.pinned)
            if index is None:
                if seed is None and self.split == "train":
                    index = int(self.np_random.integers(0, 2**31 - 1))
                else:
                    index = instance_for_seed(self.split, seed or 0)
            task = self.family.instance(self.split, int(index), self.level)
            self.index = int(index)
            if task is not self.task:
                self.use_task(task)
        obs, info = super().reset(seed=seed, options=options)
        info["instance"] = {"family": self.family.id, "split": self.split, "index": self.index, "level": self.level}
        return obs, info

    def snapshot(self) -> EnvSnapshot:
        """The episode state, with the instance it plays (a resume serves that instance)."""
        return replace(super().snapshot(), instance=self.index)
