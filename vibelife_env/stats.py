"""Task statistics, the paper's §2.4 columns: stages, horizon, events, services, checks."""

from __future__ import annotations

from collections import Counter
from typing import Any

from vibelife_env.checks.base import TIERS
from vibelife_env.task.loader import Task
from vibelife_env.task.models import EVENT_KINDS


def task_stats(task: Task) -> dict[str, Any]:
    """One row of statistics for a loaded task (checks are loaded too)."""
    events = task.events
    kinds: Counter[str] = Counter(e.kind for e in events)
    times = [e.time for e in events]
    checks = task.checks
    by_tier = {t: [c for c in checks if c.tier == t] for t in TIERS}
    total_w = checks.total_weight
    return {
        "task": task.id,
        "stages": len(task.stages),
        "horizon_days": round((max(times) - min(times)).total_seconds() / 86400, 1) if times else 0.0,
        "events": len(events),
        "events_by_kind": {k: kinds.get(k, 0) for k in EVENT_KINDS if kinds.get(k, 0)},
        "mutation_share": round(kinds.get("mutation", 0) / len(events), 3) if events else 0.0,
        "user_messages": kinds.get("user_message", 0),
        "services": list(task.services),
        "checks": len(checks),
        "total_weight": total_w,
        "checks_by_tier": {t: len(v) for t, v in by_tier.items()},
        "weight_by_tier": {t: round(sum(c.weight for c in v), 3) for t, v in by_tier.items()},
        "end_tier_count_share": round(sum(len(by_tier[t]) for t in ("cross_stage", "final")) / len(checks), 3)
        if len(checks)
        else 0.0,
        "end_tier_weight_share": round(sum(c.weight for t in ("cross_stage", "final") for c in by_tier[t]) / total_w, 3)
        if total_w
        else 0.0,
    }
