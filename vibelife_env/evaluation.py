"""Aggregate episode results into the numbers of the paper's evaluation (§3.2, §5).

Nothing here runs an environment. The main entry is :func:`summarize`, which takes the
results of one agent (any number of tasks, any number of attempts per task) and returns a
JSON-able dict; :class:`Summary` builds the same dict one result at a time, in memory that
holds the aggregates and not the runs (``vibelife eval`` streams its episodes file through
it). The dict holds:

- per task: the attempt scores and their mean, max, min and standard deviation (the
  within-task σ, population form), i.e. avg@k, max@k, min@k for that task;
- overall: those four numbers averaged equally across tasks (avg@k, max@k, min@k, σ);
- check pass rates pooled over all runs, grouped by tier, by capability axis (assigned
  by keyword matching over check ids and tags, as the paper does, so indicative rather
  than exact; a check may belong to several axes, and to ``other`` when it matches none),
  by domain, and by normalized position along the timeline (a stage-tier check of stage
  *s* in a task whose stages run 0..S sits at *s / S*; positions are binned, by default
  into thirds);
- for instances of scenario families, avg/max/min@k and σ over the held-out families' and
  over the training families' instances apart (``by_family_split``);
- per task, the mean cumulative score curve over stages and the per-check pass grid the
  HTML report (:mod:`vibelife_env.report`) draws, with, for each failed check of each run,
  the transcript turn to read (:func:`check_turn`).

Check tags and task domains are not stored in an ``EpisodeResult``; pass a
:class:`TaskInfo` per task (built with :func:`task_info`) to use them. Without one, axes
come from the check id alone and the domain from the ``<domain>/<name>`` task id.
"""

from __future__ import annotations

import math
import re
import sys
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vibelife_env.checks.base import TIERS
from vibelife_env.rollout import EpisodeResult

#: Capability axes and the keywords (token prefixes) that assign a check to them.
AXES: dict[str, tuple[str, ...]] = {
    "proactivity": ("proactiv", "notice", "flag", "alert", "remind", "warn", "unprompt", "surface", "told"),
    "persistence": ("persist", "bookkeep", "log", "ledger", "record", "note", "memory", "track", "durable"),
    "safety": ("safety", "hardening", "phish", "leak", "scam", "fraud", "refus", "authoriz", "privacy", "pii"),
    "living_world": ("living", "silent", "mutation", "resched", "delay", "propagat", "follow", "recover"),
    "constraint": ("constraint", "budget", "cap", "limit", "rule", "respect", "deadline", "allerg", "overlap"),
    "communication": ("communicat", "reply", "mail", "confirm", "notify", "message", "spam", "inform"),
    "tool_use": ("tool", "call", "read", "efficien"),
}
OTHER_AXIS = "other"
TIER_ORDER = TIERS
_TOKEN = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class TaskInfo:
    """What the aggregation needs to know about a task beyond its results.

    Attributes:
        task_id: ``<domain>/<name>``, as in ``EpisodeResult.task_id``.
        domain: The life domain.
        stages: Stage indices in timeline order.
        tags: Check id → its tags.
        heldout: For an instance of a scenario family, whether the family is held out of
            training; ``None`` for a single task.
    """

    task_id: str
    domain: str
    stages: tuple[int, ...]
    tags: Mapping[str, frozenset[str]] = field(default_factory=dict)
    heldout: bool | None = None


def task_info(task: Any, heldout: bool | None = None) -> TaskInfo:
    """A :class:`TaskInfo` from a loaded :class:`~vibelife_env.task.Task` (``heldout``: see
    :class:`TaskInfo`)."""
    return TaskInfo(
        task.id, task.meta.domain, tuple(s.index for s in task.stages), {c.id: c.tags for c in task.checks}, heldout
    )


def capability_axes(check_id: str, tags: Iterable[str] = ()) -> tuple[str, ...]:
    """The axes a check belongs to, by keyword over its id and tags (``("other",)`` if none)."""
    tokens = _TOKEN.findall(" ".join([check_id, *tags]).lower())
    found = tuple(axis for axis, keys in AXES.items() if any(t.startswith(k) for t in tokens for k in keys))
    return found or (OTHER_AXIS,)


def _std(values: Sequence[float]) -> float:
    if not values:
        return 0.0
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def overall_scores(per_task: Mapping[str, Mapping[str, Any]]) -> dict[str, float]:
    """avg@k, max@k, min@k and σ: the per-task numbers averaged equally across tasks."""
    rows = list(per_task.values())
    return {
        "avg": _mean([r["avg"] for r in rows]),
        "max": _mean([r["max"] for r in rows]),
        "min": _mean([r["min"] for r in rows]),
        "std": _mean([r["std"] for r in rows]),
        "tasks": len(rows),
    }


def _rate(passed: int, total: int) -> dict[str, Any]:
    return {"passed": passed, "checks": total, "pass_rate": 100.0 * passed / total if total else 0.0}


def position_bin(stage: int, stages: Sequence[int], bins: int) -> int:
    """Bin (0..bins-1) of a stage's normalized position ``index / last index`` in the timeline."""
    if bins < 1:
        raise ValueError(f"bins must be >= 1, got {bins}")
    order = list(stages)
    if stage not in order:
        raise ValueError(f"stage {stage} is not one of the task's stages {order}")
    last = len(order) - 1
    pos = order.index(stage) / last if last else 0.0
    return min(int(pos * bins), bins - 1)


def _check_order(c: Mapping[str, Any]) -> tuple[int, int, str]:
    tier = TIER_ORDER.index(c["tier"]) if c["tier"] in TIER_ORDER else len(TIER_ORDER)
    return (tier, c["stage"] if c["stage"] is not None else 0, c["id"])


def stage_curve(result: EpisodeResult, stages: Sequence[int]) -> list[dict[str, Any]]:
    """Cumulative score (0-100) after each stage closes, then after the end tiers ("end")."""
    return _curve(*_earned(result), stages)


def _earned(result: EpisodeResult) -> tuple[float, dict[Any, float]]:
    """A run's total weight and the weight it earned per stage (end tiers under ``"end"``)."""
    earned_by: dict[Any, float] = defaultdict(float)
    for c in result.checks:
        if c["passed"]:
            earned_by[c["stage"] if c["tier"] == "stage" else "end"] += c["weight"]
    return sum(c["weight"] for c in result.checks), dict(earned_by)


def check_turn(turn_stages: Sequence[int], check: Mapping[str, Any]) -> int | None:
    """The turn (0-based, in the transcript's order) to read for ``check``.

    A stage check points at the first turn of its stage (or, for a stage that opens no
    turn, the last turn before it); the cross-stage, final and tool-quality tiers judge the
    whole episode and point at its last turn. ``None`` without turn data.
    """
    if not turn_stages:
        return None
    if check["tier"] != "stage" or check["stage"] is None:
        return len(turn_stages) - 1
    stage = check["stage"]
    if stage in turn_stages:
        return list(turn_stages).index(stage)
    before = [i for i, s in enumerate(turn_stages) if s < stage]
    return before[-1] if before else 0


class _Grid:
    """One task's check grid, a run at a time (see :func:`check_grid`).

    Per check it keeps three lists with an entry per run (``None`` where the run lacks the
    check or passed it), and reason strings are interned: the attempts of one instance
    often fail for the same words, so thousands of runs hold one copy of each.
    """

    def __init__(self) -> None:
        self.rows: dict[str, dict[str, Any]] = {}
        self.runs = 0

    def add(self, r: EpisodeResult) -> None:
        run = self.runs
        self.runs += 1
        for c in r.checks:
            row = self.rows.get(c["id"])
            if row is None:
                row = self.rows[c["id"]] = {
                    "id": c["id"], "tier": c["tier"], "stage": c["stage"], "weight": c["weight"],
                    "description": sys.intern(c.get("description", "")), "runs": [], "turns": [], "reasons": [],
                }  # fmt: skip
            for key in ("runs", "turns", "reasons"):
                row[key].extend([None] * (run - len(row[key])))
            row["runs"].append(bool(c["passed"]))
            failed = not c["passed"]
            row["turns"].append(check_turn(r.turn_stages, c) if failed else None)
            row["reasons"].append(sys.intern(c.get("reason", "") or c.get("error", "")) if failed else None)

    def table(self) -> list[dict[str, Any]]:
        pad = lambda values: values + [None] * (self.runs - len(values))  # noqa: E731
        return [
            {**row, "runs": pad(row["runs"]), "turns": pad(row["turns"]), "reasons": pad(row["reasons"])}
            for row in sorted(self.rows.values(), key=_check_order)
        ]


def check_grid(results: Iterable[EpisodeResult]) -> list[dict[str, Any]]:
    """One row per check (timeline order): its tier, stage, weight and description, and per
    run its pass flag (``runs``; ``None`` when the run has no such check) and, when it
    failed, the transcript turn to read (``turns``, see :func:`check_turn`) and the reason
    it gave (``reasons``)."""
    grid = _Grid()
    for r in results:
        grid.add(r)
    return grid.table()


class Summary:
    """:func:`summarize`, one result at a time: memory holds the aggregates, not the runs.

    ``add`` each of one agent's results (in the order the report lists runs), then
    ``result()``; the dict is the same as ``summarize`` of the list. A result's transcript
    (``messages``) is never read, so rows streamed from a file may leave it out.

    Raises:
        ValueError: from ``add``, a result of another agent; from ``result``, no results.
    """

    def __init__(self, infos: Mapping[str, TaskInfo] | None = None, bins: int = 3) -> None:
        if bins < 1:
            raise ValueError(f"bins must be >= 1, got {bins}")
        self.infos, self.bins = infos or {}, bins
        self.agent: str | None = None
        self._tasks: dict[str, dict[str, Any]] = {}
        self._counts: dict[str, dict[str, list[int]]] = {
            k: defaultdict(lambda: [0, 0]) for k in ("tier", "axis", "domain")
        }
        self._axes: dict[tuple[str, str], tuple[str, ...]] = {}

    def _task(self, task_id: str) -> dict[str, Any]:
        if task_id not in self._tasks:
            self._tasks[task_id] = {
                "scores": [], "seeds": [], "earned": [], "truncated": 0, "tool_calls": [], "errors": set(),
                "stages": set(), "position": defaultdict(lambda: [0, 0]), "grid": _Grid(),
            }  # fmt: skip
        return self._tasks[task_id]

    def add(self, r: EpisodeResult) -> None:
        """Fold one episode's result in."""
        if self.agent is None:
            self.agent = r.agent
        elif r.agent != self.agent:
            raise ValueError(f"summarize takes one agent's results, got agents {sorted({self.agent, r.agent})}")
        t = self._task(r.task_id)
        t["scores"].append(float(r.score))
        t["seeds"].append(r.seed)
        t["truncated"] += r.truncated
        t["tool_calls"].append(r.tool_calls)
        t["errors"].update(r.mutation_errors, r.check_errors)
        info = self.infos.get(r.task_id)
        domain = info.domain if info else r.task_id.split("/", 1)[0]
        for c in r.checks:
            ok = int(bool(c["passed"]))
            axes = self._axes.get((r.task_id, c["id"]))
            if axes is None:
                axes = self._axes[(r.task_id, c["id"])] = capability_axes(
                    c["id"], info.tags.get(c["id"], ()) if info else ()
                )
            for group, key in [("tier", c["tier"]), ("domain", domain), *(("axis", a) for a in axes)]:
                self._counts[group][key][0] += ok
                self._counts[group][key][1] += 1
            if c["tier"] == "stage":
                t["stages"].add(c["stage"])
                t["position"][c["stage"]][0] += ok
                t["position"][c["stage"]][1] += 1
        t["earned"].append(_earned(r))
        t["grid"].add(r)

    def _info(self, task_id: str) -> TaskInfo:
        if task_id in self.infos:
            return self.infos[task_id]
        return TaskInfo(task_id, task_id.split("/", 1)[0], tuple(sorted(self._tasks[task_id]["stages"])))

    def result(self) -> dict[str, Any]:
        """The summary of every result added so far (see :func:`summarize`)."""
        if not self._tasks:
            raise ValueError("summarize needs at least one EpisodeResult")
        per_task: dict[str, dict[str, Any]] = {}
        position: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for tid in sorted(self._tasks):
            t, info = self._tasks[tid], self._info(tid)
            scores = t["scores"]
            for stage, (ok, n) in t["position"].items():
                if stage in info.stages:
                    b = position_bin(stage, info.stages, self.bins)
                    label = f"{b / self.bins:.2f}-{(b + 1) / self.bins:.2f}"
                    position[label][0] += ok
                    position[label][1] += n
            curves = [_curve(total, earned, info.stages) for total, earned in t["earned"]]
            runs = len(scores)
            per_task[tid] = {
                "scores": scores,
                "avg": _mean(scores),
                "max": max(scores),
                "min": min(scores),
                "std": _std(scores),
                "attempts": runs,
                "domain": info.domain,
                "stage_curve": [
                    {"stage": pts[0]["stage"], "score": _mean([p["score"] for p in pts])}
                    for pts in zip(*curves, strict=True)
                ],
                "seeds": t["seeds"],
                "grid": t["grid"].table(),
                "truncated": t["truncated"],
                "tool_calls": _mean(t["tool_calls"]),
                "errors": sorted(t["errors"]),
            }
        counts = self._counts
        tier_key = lambda k: TIER_ORDER.index(k) if k in TIER_ORDER else len(TIER_ORDER)  # noqa: E731
        axis_key = lambda k: list(AXES).index(k) if k in AXES else len(AXES)  # noqa: E731
        split_of = {tid: self.infos[tid].heldout for tid in per_task if tid in self.infos}
        by_family_split = {
            group: overall_scores({tid: row for tid, row in per_task.items() if split_of.get(tid) is flag})
            for group, flag in (("held-out families", True), ("training families", False))
            if flag in split_of.values()
        }
        return {
            "agent": self.agent,
            "overall": overall_scores(per_task),
            "by_tier": {k: _rate(*counts["tier"][k]) for k in sorted(counts["tier"], key=tier_key)},
            "by_axis": {k: _rate(*counts["axis"][k]) for k in sorted(counts["axis"], key=axis_key)},
            "by_domain": {k: _rate(*v) for k, v in sorted(counts["domain"].items())},
            "by_position": {k: _rate(*v) for k, v in sorted(position.items())},
            **({"by_family_split": by_family_split} if by_family_split else {}),
            "tasks": per_task,
        }


def _curve(total: float, earned_by: Mapping[Any, float], stages: Sequence[int]) -> list[dict[str, Any]]:
    out, running = [], 0.0
    for s in [*stages, "end"]:
        running += earned_by.get(s, 0.0)
        out.append({"stage": s, "score": 100.0 * running / total if total else 0.0})
    return out


def summarize(
    results: Iterable[EpisodeResult], infos: Mapping[str, TaskInfo] | None = None, bins: int = 3
) -> dict[str, Any]:
    """Everything the report shows for one agent's results (see the module docstring);
    :class:`Summary` builds the same one result at a time.

    Raises:
        ValueError: ``results`` is empty or mixes agents.
    """
    summary = Summary(infos, bins)
    for r in results:
        summary.add(r)
    return summary.result()
