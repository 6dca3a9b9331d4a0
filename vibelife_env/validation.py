"""Prove an own task's reward right: the gates every own task (and family instance) must pass.

A task's reward is right when it pays for the behaviour the task asks for, by whatever
valid path, and for nothing else. :func:`validate_env` runs, on one env id:

- ``oracle``: the bundle's reference policy, with strict mutations (every mutation applies
  and its postconditions hold): exactly 100, with no check raising;
- ``oracle+polling``: the oracle after brute-force reads every turn: at least 97 (reading
  more must not cost);
- the bundle's **variants** (``VARIANTS`` in ``oracle.py``: paraphrased text, other valid
  choices, other tool paths, acting earlier), strict mutations: each at least 97;
- the **tool paths** generated from the services (:mod:`vibelife_env.agents.paths`: a flight
  held then bought, a note appended to its parent page as blocks, a reply sent as a new
  mail...), each on the oracle wherever it makes the call the path rewrites: exactly 100;
- **adversaries**: ``null``, ``polling``, ``stuffer``, ``narrator``, ``sprayer``,
  ``destroyer``, ``quarantine``, ``copier``, ``asker``, ``spender``: each at most 5;
- **ablations** (``ABLATIONS``: ``stale``, ``reckless``): each loses at least 25 points;
- **reasons**: in the null agent's run and every variant's, every failed check has a
  description and says why it failed (a reason other than
  :data:`~vibelife_env.checks.scoring.UNEXPLAINED`);
- **blast radius** (scenario-family instances): the oracle played without each probe's
  handling loses at most :data:`~vibelife_env.blast.BLAST_MAX` points of other stage-tier
  checks (:mod:`vibelife_env.blast`): a check fails only for its own reason;
- **discoverability**: every check made from a check kind whose rule lives in the world (the
  paper level: a merchant's own mail, a policy page) has that rule's text returned by a tool
  call the oracle makes no later than the stage the check decides at
  (:func:`discoverability_problems`); a rule stated in the workspace is checked when the
  instance is built.

A task without variants fails: without them nothing shows the checks accept more than the
oracle's own path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

import gymnasium as gym

from vibelife_env.agents import GATED_BASELINES, make_agent
from vibelife_env.agents.adversaries import OraclePlusPolling
from vibelife_env.agents.oracle import load_oracle, oracle_family
from vibelife_env.agents.paths import PATHS, CallLog, PathVariant
from vibelife_env.blast import BLAST_MAX, ProbeBlast, blast_radius
from vibelife_env.checks.knowledge import KNOWLEDGE
from vibelife_env.checks.scoring import UNEXPLAINED
from vibelife_env.env import base_env
from vibelife_env.rollout import EpisodeResult, run_episode

Kind = Literal["exact", "min", "max", "loss"]

ADVERSARIES = GATED_BASELINES  # the baselines held to at most ADVERSARY_MAX points
ORACLE_SCORE = 100.0
VARIANT_MIN = 97.0
ADVERSARY_MAX = 5.0
ABLATION_LOSS = 25.0


@dataclass(frozen=True)
class Gate:
    """A bound on one policy's score.

    Attributes:
        kind: ``exact`` (= bound), ``min`` (>= bound), ``max`` (<= bound), ``loss``
            (the oracle's score minus this one >= bound).
        bound: The number.
    """

    kind: Kind
    bound: float

    def passes(self, score: float, oracle: float) -> bool:
        """True when ``score`` meets the gate (``oracle``: the oracle's score, for ``loss``)."""
        if self.kind == "exact":
            return abs(score - self.bound) <= 1e-9
        if self.kind == "min":
            return score >= self.bound - 1e-9
        if self.kind == "max":
            return score <= self.bound + 1e-9
        return oracle - score >= self.bound - 1e-9

    def describe(self) -> str:
        """``= 100``, ``>= 97``, ``<= 5`` or ``loses >= 25``."""
        return {"exact": "=", "min": ">=", "max": "<=", "loss": "loses >="}[self.kind] + f" {self.bound:g}"


@dataclass
class PolicyRun:
    """One policy's episode on the task and its verdict."""

    name: str
    role: str  # oracle | variant | adversary | ablation
    gate: Gate
    score: float = 0.0
    ok: bool = False
    failed_checks: list[str] = field(default_factory=list)
    unexplained: list[str] = field(default_factory=list)
    note: str = ""


@dataclass
class Validation:
    """All policy runs of one task and the verdict."""

    env_id: str
    runs: list[PolicyRun] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    blasts: list[ProbeBlast] = field(default_factory=list)  # one per probe (family instances)

    @property
    def ok(self) -> bool:
        """True when every gate passed."""
        return not self.problems

    @property
    def scores(self) -> dict[str, float]:
        """Policy name → score (0-100)."""
        return {r.name: r.score for r in self.runs}


#: Runs whose failed checks are explained (and must all give a reason): the null agent's, whose
#: failures cover nearly every check, and the oracle's and its variants'. The other adversaries
#: and the ablations run without the instrumented re-run, for speed.
EXPLAINED_ROLES = frozenset({"oracle", "variant"})


def _episode(
    env_id: str, agent: Any, seed: int, strict: bool, env_kwargs: dict[str, Any], explain: bool = True
) -> EpisodeResult:
    env = gym.make(env_id, strict_mutations=strict, explain_failures=explain, **env_kwargs)
    return run_episode(env, agent, seed=seed, record=False)


def _path_variant(task: Any, path: str) -> PathVariant:
    return PathVariant(load_oracle(task), path)


def policies(task: Any) -> list[tuple[str, str, Gate, Callable[[], Any], bool]]:
    """``(name, role, gate, make_agent, strict_mutations)`` for every policy the gates run on ``task``.

    Raises:
        ValueError: the task ships no ``oracle.py``.
    """
    _, ablations, variants = oracle_family(task)
    out: list[tuple[str, str, Gate, Callable[[], Any], bool]] = [
        ("oracle", "oracle", Gate("exact", ORACLE_SCORE), lambda: load_oracle(task), True),
        ("oracle+polling", "variant", Gate("min", VARIANT_MIN), lambda: OraclePlusPolling(load_oracle(task)), True),
    ]
    for name in variants:
        out.append((name, "variant", Gate("min", VARIANT_MIN), partial(load_oracle, task, name), True))
    for name in ADVERSARIES:
        out.append((name, "adversary", Gate("max", ADVERSARY_MAX), partial(make_agent, name, task), False))
    for name in ablations:
        out.append((name, "ablation", Gate("loss", ABLATION_LOSS), partial(load_oracle, task, name), False))
    return out


def validate_env(
    env_id: str,
    seed: int = 0,
    only: set[str] | None = None,
    env_kwargs: dict[str, Any] | None = None,
    blast: bool = True,
) -> Validation:
    """Run every gate of the module docstring on one env id.

    Args:
        env_id: A registered VibeLife id whose task has an oracle.
        seed: Reset seed of every episode.
        only: Run only these policies (the oracle always runs: the ``loss`` gates need it).
        env_kwargs: Extra ``gym.make`` arguments (a family's ``split`` and ``instance``).
        blast: Run the blast-radius gate on a task with probe footprints (a family instance).
    """
    kwargs = dict(env_kwargs or {})
    where = f"{kwargs.get('split', 'test')}:{kwargs['instance']}" if "instance" in kwargs else ""
    where += f":{kwargs['level']}" if where and "level" in kwargs else ""
    out = Validation(env_id + (f"[{where}]" if where else ""))
    task = base_env(gym.make(env_id, **kwargs)).task
    if not task.has_oracle:
        out.problems.append("no oracle (oracle.py)")
        return out
    plan = policies(task)
    if not any(role == "variant" and name != "oracle+polling" for name, role, *_ in plan):
        out.problems.append("no VARIANTS in oracle.py: nothing shows the checks accept other valid behaviour")
    oracle_score = ORACLE_SCORE
    called = CallLog(load_oracle(task))
    paths: list[tuple[str, str, Gate, Callable[[], Any], bool]] = [
        (f"oracle~{p.name}", "variant", Gate("exact", ORACLE_SCORE), partial(_path_variant, task, p.name), True)
        for p in PATHS.values()
    ]
    for name, role, gate, build, strict in [*plan, *paths]:
        if only is not None and name != "oracle" and name not in only:
            continue
        if name.startswith("oracle~") and PATHS[name[len("oracle~") :]].tool not in called.tools:
            continue  # the oracle never makes the call this path rewrites
        run = PolicyRun(name, role, gate)
        explained = role in EXPLAINED_ROLES or name == "null"
        try:
            result = _episode(env_id, called if name == "oracle" else build(), seed, strict, kwargs, explained)
        except Exception as exc:  # a policy or a strict mutation failing is a finding, not a crash
            run.note = f"{type(exc).__name__}: {exc}"[:300]
            out.runs.append(run)
            out.problems.append(f"{name} did not finish: {run.note}")
            continue
        run.score = result.score
        run.failed_checks = [c["id"] for c in result.checks if not c["passed"]]
        run.unexplained = unexplained(result.checks) if explained else []
        if run.unexplained:
            out.problems.append(
                f"{name} ({role}): {len(run.unexplained)} failed check(s) without a reason or description: "
                f"{run.unexplained[:5]}"
            )
        if name == "oracle":
            oracle_score = result.score
            if result.check_errors:
                out.problems.append(f"oracle run has check errors: {result.check_errors[:3]}")
        run.ok = gate.passes(run.score, oracle_score)
        if not run.ok:
            detail = (
                f"passed: {[c['id'] for c in result.checks if c['passed']][:8]}"
                if role == "adversary"
                else f"failed: {run.failed_checks[:8]}"
            )
            out.problems.append(f"{name} ({role}) scores {run.score:.2f}, gate {gate.describe()}; {detail}")
        out.runs.append(run)
    if blast and task.footprints and abs(oracle_score - ORACLE_SCORE) <= 1e-9:
        out.blasts = blast_radius(env_id, seed, kwargs)
        out.problems.extend(blast_problems(out.blasts))
    if only is None or "discoverability" in only:
        out.problems.extend(discoverability_problems(env_id, seed, kwargs))
    return out


def strings_in(value: Any) -> Iterator[str]:
    """Every string in a tool result (nested dicts, lists and tuples), in order."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings_in(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from strings_in(v)


def discoverability_problems(env_id: str, seed: int = 0, env_kwargs: dict[str, Any] | None = None) -> list[str]:
    """One problem per check whose rule lives in the world but that no tool call of the oracle
    returns by the stage the check decides at (a stage check: its stage; the end tiers: any); for
    a latent rule, whose planted fact no such call returns, or whose common knowledge is not on
    the list (:mod:`vibelife_env.checks.knowledge`)."""
    env = gym.make(env_id, **(env_kwargs or {}))
    try:
        core = base_env(env)
        task = core.task
        ruled = [(c, r) for c in task.suite or () for r in c.rules if not r.stated]
        if not ruled:
            return []
        run_episode(env, load_oracle(task), seed=seed, record=False)
        traces = core.episode.record.traces
        seen: dict[int, list[str]] = {
            stage: [t for call in calls if call.get("ok") for t in strings_in(call.get("result"))]
            for stage, calls in traces.items()
        }
        problems = []
        for check, rule in ruled:
            if rule.latent and rule.knowledge not in KNOWLEDGE:
                problems.append(
                    f"{check.id}: its latent rule «{rule.text[:80]}» rests on {rule.knowledge!r}, which is not on "
                    "the common-knowledge list (vibelife_env.checks.knowledge)"
                )
                continue
            last = check.stage if check.tier == "stage" else max(seen, default=0)
            found = any(rule.found_by in t for stage, texts in seen.items() if stage <= (last or 0) for t in texts)
            if not found:
                what = f"the fact «{rule.fact[:80]}» its latent rule rests on" if rule.latent else "its rule"
                what += "" if rule.latent else f" «{rule.text[:80]}» ({rule.source})"
                problems.append(
                    f"{check.id}: {what} is returned by no tool call of the oracle by stage {last}: "
                    "an agent could not find it"
                )
        return problems
    finally:
        env.close()


def blast_problems(blasts: list[ProbeBlast]) -> list[str]:
    """One problem per probe whose skip costs other stage checks more than :data:`BLAST_MAX`."""
    out = []
    for b in blasts:
        if not b.ok:
            worst = sorted(((c, b.outside[c]) for c in b.stage), key=lambda kv: -kv[1])[:4]
            out.append(
                f"skipping {b.probe} costs {b.stage_points:.2f} points of other stage checks (bound {BLAST_MAX:g}): "
                + ", ".join(f"{c} {p:.2f}" for c, p in worst)
            )
    return out


def unexplained(checks: list[dict[str, Any]]) -> list[str]:
    """Ids of the failed checks (as in ``info["checks"]``) that give no reason or no description."""
    return [
        c["id"]
        for c in checks
        if not c["passed"] and (not c.get("reason") or c["reason"] == UNEXPLAINED or not c.get("description"))
    ]


def family_instances(env_id: str, split: str, seeds: range, level: str | None = None) -> list[dict[str, Any]]:
    """``gym.make`` kwargs that pin each instance of a family env: test 0-3 or train seeds, at
    ``level`` (default: the family's own)."""
    if "family_dir" not in gym.spec(env_id).kwargs:
        raise ValueError(f"{env_id} is not a scenario family")
    extra = {"level": level} if level is not None else {}
    return [{"split": split, "instance": i, **extra} for i in seeds]
