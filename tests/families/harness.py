"""What the tests of one scenario family need, written once: its instances, the first train
seed that draws a probe, the oracle with some turns changed, episodes and their failed checks.

    F = FamilyHarness("VibeLife-travel-road-trip-v0")
    seed = F.seed("road_closure")
    failed = failed_checks(F.run(seed, F.oracle(seed, closure_brief=[silent])))
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

import vibelife_env  # noqa: F401 - registers the families
from vibelife_env.families import Family
from vibelife_env.families.loader import load_family
from vibelife_env.rollout import EpisodeResult, run_episode


class FamilyHarness:
    """A family's test helpers, by env id, at ``level`` (default: the family's own; tests about
    the guided instance of a family whose default is the paper level pass ``level="guided"``)."""

    def __init__(self, env_id: str, level: str | None = None) -> None:
        self.env_id = env_id
        self.level = level

    def family(self) -> Family:
        """The family object (one per process)."""
        return load_family(gym.registry[self.env_id].kwargs["family_dir"])

    def seed(self, *wanted: str, lang: str | None = None, without: str = "", limit: int = 400) -> int:
        """The first train seed whose instance draws every ``wanted`` (a probe or a constraint),
        in ``lang`` if given, and not ``without``.

        Raises:
            LookupError: none of the first ``limit`` seeds does.
        """
        fam = self.family()
        for s in range(limit):
            p = fam.profile("train", s, self.level)  # type: ignore[arg-type]
            drawn = set(p.probes) | set(p.constraints)
            if set(wanted) <= drawn and without not in drawn and (lang is None or p.language == lang):
                return s
        raise LookupError(f"no train seed of {self.env_id} below {limit} draws {wanted}")

    def story(self, seed: int, split: str = "train") -> Any:
        """The story of an instance (what its oracle plans from)."""
        return self.family().instance(split, seed, self.level).oracle[0].story  # type: ignore[arg-type]

    def oracle(self, seed: int, **replace: Any) -> type:
        """The train instance's oracle with some turns' steps replaced (``event_id=[steps]``)."""
        oracle = self.family().instance("train", seed, self.level).oracle[0]  # type: ignore[arg-type]
        return type("Probe", (oracle,), {"steps": {**oracle.steps, **replace}})

    def make(self, seed: int, **kwargs: Any) -> gym.Env:
        """The env pinned to train instance ``seed``."""
        level = {"level": self.level} if self.level else {}
        return gym.make(self.env_id, split="train", instance=seed, **level, **kwargs)

    def run(self, seed: int, cls: type) -> EpisodeResult:
        """An episode of a fresh ``cls()`` on train instance ``seed``, mutations strict."""
        return run_episode(self.make(seed, strict_mutations=True), cls(), seed=seed)

    def scores(self, seed: int, agent: Any) -> tuple[float, dict[str, bool]]:
        """The score of ``agent`` on train instance ``seed``, and each check's verdict."""
        result = run_episode(self.make(seed), agent, seed=0, record=False)
        return result.score, {c["id"]: c["passed"] for c in result.checks}

    def world(self, seed: int) -> tuple[Any, Any]:
        """The reset env of train instance ``seed`` (unwrapped) and its story."""
        env = self.make(seed).unwrapped
        env.reset(seed=0)
        return env, env.task.oracle[0].story


def failed_checks(res: EpisodeResult) -> set[str]:
    """Failed check ids, stage checks without their ``sNN_`` prefix."""
    ids = [c["id"] for c in res.checks if not c["passed"]]
    return {i[4:] if i[0] == "s" and i[1:3].isdigit() else i for i in ids}


def one(checks: dict[str, bool], suffix: str) -> bool:
    """The verdict of the one check whose id ends with ``suffix``."""
    (found,) = [v for k, v in checks.items() if k.endswith(suffix)]
    return found


def silent(agent: Any, text: str):
    """A turn's step that does nothing (to take one behaviour out of the oracle)."""
    return []
    yield


# ------------------------------------------------------------------ an instance as built
def built_task(env_id: str, level: str, **where: Any) -> Any:
    """The task an env builds at ``level`` for ``where`` (``split=``, ``instance=``)."""
    from vibelife_env.env import base_env

    env = gym.make(env_id, level=level, **where)
    try:
        return base_env(env).task
    finally:
        env.close()


def mailbox(task: Any) -> list[dict[str, Any]]:
    """The mailbox the agent opens on (message id, sender, subject, body of every mail)."""
    import sqlite3

    from vibelife_env.release.world import world_images

    db = sqlite3.connect(":memory:")
    try:
        db.deserialize(world_images(task)["email"])
        db.row_factory = sqlite3.Row
        return [dict(r) for r in db.execute("SELECT message_id, from_addr, subject, body_text FROM messages")]
    finally:
        db.close()


def rules_of(task: Any) -> dict[str, Any]:
    """Every rule the task's checks record, by key."""
    return {r.key: r for c in task.checks for r in c.rules}
