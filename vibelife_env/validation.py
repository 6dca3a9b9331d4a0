"""Prove an own task solvable and fair: its oracle, baselines and ablations against thresholds.

A task passes when the oracle scores 100 (with strict mutations: every mutation applies and
its postconditions hold), the do-nothing agent scores at most 5, the polling agent at most
10, the keyword stuffer at most 15, and the ``stale`` and ``reckless`` ablations each lose at
least 25 points against the oracle.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gymnasium as gym

from vibelife_env.agents import make_agent
from vibelife_env.rollout import run_episode

#: agent → (kind, bound): "max" = score must be <= bound; "loss" = oracle - score >= bound
THRESHOLDS: dict[str, tuple[str, float]] = {
    "null": ("max", 5.0),
    "polling": ("max", 10.0),
    "stuffer": ("max", 15.0),
    "stale": ("loss", 25.0),
    "reckless": ("loss", 25.0),
}


@dataclass
class Validation:
    """Scores of one task and the verdict."""

    env_id: str
    scores: dict[str, float] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def validate_env(env_id: str, seed: int = 0) -> Validation:
    """Run the oracle (strict mutations), the baselines and the ablations on one env id."""
    out = Validation(env_id)
    env = gym.make(env_id, strict_mutations=True)
    task = env.unwrapped.task
    if task.oracle_path() is None:
        out.problems.append("no oracle.py")
        return out
    oracle = run_episode(env, make_agent("oracle", task), seed=seed, record=False)
    out.scores["oracle"] = oracle.score
    if abs(oracle.score - 100.0) > 1e-9:
        failed = [c["id"] for c in oracle.checks if not c["passed"]]
        out.problems.append(f"oracle scores {oracle.score:.2f}, not 100 (failed: {', '.join(failed)})")
    if oracle.check_errors:
        out.problems.append(f"oracle run has check errors: {oracle.check_errors[:3]}")
    for name, (kind, bound) in THRESHOLDS.items():
        score = run_episode(gym.make(env_id), make_agent(name, task), seed=seed, record=False).score
        out.scores[name] = score
        if kind == "max" and score > bound:
            out.problems.append(f"{name} scores {score:.2f} > {bound:g}")
        if kind == "loss" and oracle.score - score < bound:
            out.problems.append(f"{name} loses only {oracle.score - score:.2f} points (< {bound:g})")
    return out
