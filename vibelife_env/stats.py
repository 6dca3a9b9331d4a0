"""Task statistics, the paper's §2.4 columns: stages, horizon, events, services, checks.

:func:`task_stats` is one task's row; :func:`distribution` summarizes many rows the way the
paper reports its suite (medians, event-kind shares, the end tiers' share of checks and of
weight), and :func:`against_paper` sets that summary next to the paper's figures.
"""

from __future__ import annotations

import re
import sqlite3
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
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
        "domain": task.meta.domain,
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


#: The paper's suite (§2.4, 200 tasks): medians, event-kind shares and end-tier shares.
PAPER: dict[str, float] = {
    "horizon_days": 29,
    "stages": 24,
    "events": 36,
    "services": 7,
    "checks": 58,
    "share_user_message": 0.301,
    "share_notification": 0.258,  # notifications and scheduled reminders (cron)
    "share_world": 0.241,
    "share_mutation": 0.199,
    "end_tier_count_share": 0.191,
    "end_tier_weight_share": 0.268,
}

#: How our event kinds map onto the paper's four (policy updates arrive as notifications).
KIND_GROUPS: dict[str, str] = {
    "user_message": "user_message",
    "notification": "notification",
    "cron_fire": "notification",
    "policy_update": "notification",
    "world": "world",
    "mutation": "mutation",
}


def distribution(rows: Iterable[dict[str, Any]]) -> dict[str, float]:
    """The suite-level summary of :func:`task_stats` rows, keyed like :data:`PAPER`.

    Medians for the per-task counts; event-kind shares and end-tier shares over the pooled
    events and checks of all rows, as the paper computes them.

    Raises:
        ValueError: ``rows`` is empty.
    """
    rows = list(rows)
    if not rows:
        raise ValueError("no task rows to summarize")
    out: dict[str, float] = {
        k: float(statistics.median(r[k] for r in rows)) for k in ("horizon_days", "stages", "events", "checks")
    }
    out["services"] = float(statistics.median(len(r["services"]) for r in rows))
    kinds: Counter[str] = Counter()
    for r in rows:
        for kind, n in r["events_by_kind"].items():
            kinds[KIND_GROUPS.get(kind, kind)] += n
    events = sum(kinds.values()) or 1
    for group in ("user_message", "notification", "world", "mutation"):
        out[f"share_{group}"] = round(kinds[group] / events, 3)
    checks = sum(r["checks"] for r in rows) or 1
    weight = sum(r["total_weight"] for r in rows) or 1
    end = ("cross_stage", "final")
    out["end_tier_count_share"] = round(sum(r["checks_by_tier"][t] for r in rows for t in end) / checks, 3)
    out["end_tier_weight_share"] = round(sum(r["weight_by_tier"][t] for r in rows for t in end) / weight, 3)
    return out


def against_paper(dist: dict[str, float], tolerance: float = 0.20) -> list[dict[str, Any]]:
    """One row per :data:`PAPER` figure: ours, the paper's, the relative gap and whether it is
    within ``tolerance`` (±20% by default)."""
    out = []
    for key, paper in PAPER.items():
        ours = dist[key]
        gap = (ours - paper) / paper
        out.append({"figure": key, "ours": ours, "paper": paper, "gap": round(gap, 3), "ok": abs(gap) <= tolerance})
    return out


def format_against_paper(rows: Sequence[dict[str, Any]], title: str) -> str:
    """:func:`against_paper` rows as a small text table."""
    lines = [title, f"  {'figure':<24}{'ours':>9}{'paper':>9}{'gap':>8}"]
    for r in rows:
        mark = "" if r["ok"] else "  outside ±20%"
        lines.append(f"  {r['figure']:<24}{r['ours']:>9.3g}{r['paper']:>9.3g}{100 * r['gap']:>7.0f}%{mark}")
    return "\n".join(lines)


# ------------------------------------------------------------------ explicitness
#: What persona text a person would not write: an id with an underscore (``acc_main``,
#: ``pl_campus``, ``u_1``), a tool name (``email__move_email``), a backticked field name.
_HINT = re.compile(r"`[a-z_][a-z0-9_]*`|\b[a-z][a-z0-9]*__[a-z][a-z0-9_]*\b|\b[a-z]{1,8}_[a-z0-9_]*[a-z0-9]\b")


def backend_hints(text: str) -> list[str]:
    """The backend hints in a workspace's text (see :data:`_HINT`), in order."""
    return [m.group(0) for m in _HINT.finditer(text)]


#: The tables an agent chooses from, one per service that offers things (what #27 calls a
#: catalogue): the products, listings, hotels, flights, trains, cars, merchants, jobs, funds and
#: visa products and content notes seeded at reset.
CATALOGUES: dict[str, str] = {
    "ecommerce": "products",
    "listing_platform": "listings",
    "hotel_booking": "hotels",
    "flight_booking": "flights",
    "rail_booking": "train_offers",
    "car_rental": "rental_offers",
    "review_platform": "merchants",
    "job_board": "jobs",
    "brokerage": "funds",
    "visa_and_advisory": "visa_products",
    "content_platform": "notes",
}


def explicitness(task: Task) -> dict[str, Any]:
    """Where an instance's rules live and how much a person would have to look for (#27).

    Keys: ``rules_stated`` / ``rules_world`` / ``rules_latent`` (distinct rules of checks made from
    check kinds, by source), ``world_share`` (of those, the share not stated: world or latent), ``checks_without_rule`` (hand-written checks, whose rule
    is not recorded), ``backend_hints`` (in the workspace files), ``mails_at_reset`` (the mailbox
    the agent opens on), ``catalogues`` (``service.table``: rows at reset, for each table of
    :data:`CATALOGUES` the world seeds) and ``catalogue`` (the largest of them, 0 without one).
    """
    from vibelife_env.release.world import world_images

    rules = {r.key: r for c in task.checks for r in getattr(c, "rules", ())}
    stated = sum(1 for r in rules.values() if r.stated)
    latent = sum(1 for r in rules.values() if r.latent)
    world = len(rules) - stated - latent
    text = "\n".join(task.workspace_files.values())
    images = world_images(task)
    mails = _rows(images.get("email"), "messages")
    catalogues = {f"{svc}.{table}": _rows(images.get(svc), table) for svc, table in CATALOGUES.items() if svc in images}
    catalogues = {k: n for k, n in catalogues.items() if n}
    return {
        "task": task.id,
        "rules_stated": stated,
        "rules_world": world,
        "rules_latent": latent,
        "world_share": round((world + latent) / len(rules), 3) if rules else 0.0,
        "checks_without_rule": sum(1 for c in task.checks if not getattr(c, "rules", ())),
        "checks": len(task.checks),
        "backend_hints": len(backend_hints(text)),
        "mails_at_reset": mails,
        "catalogues": catalogues,
        "catalogue": max(catalogues.values(), default=0),
    }


def _rows(image: bytes | None, table: str) -> int:
    """Rows of ``table`` in a serialized service database (0 without the database)."""
    if image is None:
        return 0
    db = sqlite3.connect(":memory:")
    try:
        db.deserialize(image)
        return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    finally:
        db.close()
