"""Suite statistics next to the paper's: pooled shares, medians, the ±20% verdict."""

from __future__ import annotations

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the envs
from vibelife_env.bundle import load_task_cached
from vibelife_env.stats import PAPER, against_paper, distribution, task_stats


def _row(events: dict[str, int], checks: tuple[int, int, int, int], weights: tuple[float, float, float, float]):
    tiers = ("stage", "cross_stage", "final", "tool_quality")
    return {
        "horizon_days": 20.0,
        "stages": 10,
        "events": sum(events.values()),
        "events_by_kind": events,
        "services": ["email", "calendar"],
        "checks": sum(checks),
        "total_weight": sum(weights),
        "checks_by_tier": dict(zip(tiers, checks, strict=True)),
        "weight_by_tier": dict(zip(tiers, weights, strict=True)),
    }


def test_shares_pool_events_and_checks_across_tasks_and_group_cron_with_notifications():
    a = _row({"user_message": 3, "cron_fire": 1}, (8, 1, 1, 0), (8.0, 1.0, 1.0, 0.0))
    b = _row({"world": 2, "mutation": 2, "policy_update": 2}, (2, 0, 0, 0), (2.0, 0.0, 0.0, 0.0))
    d = distribution([a, b])
    assert d["share_user_message"] == 0.3  # 3 of 10 pooled events, not the mean of 0.75 and 0
    assert d["share_notification"] == 0.3  # cron + policy updates
    assert d["share_world"] == 0.2 and d["share_mutation"] == 0.2
    assert d["end_tier_count_share"] == round(2 / 12, 3)
    assert d["services"] == 2.0


def test_against_paper_flags_only_figures_outside_twenty_percent():
    exact = dict(PAPER)
    exact["stages"] = PAPER["stages"] * 1.19
    exact["checks"] = PAPER["checks"] * 0.79
    verdict = {r["figure"]: r["ok"] for r in against_paper(exact)}
    assert verdict["stages"] and not verdict["checks"]
    assert sum(not ok for ok in verdict.values()) == 1


def test_the_flagship_sits_at_the_paper_medians_of_size():
    row = task_stats(load_task_cached(gym.registry["VibeLife-travel-japan-v0"].kwargs["task_dir"]))
    verdict = {r["figure"]: r["ok"] for r in against_paper(distribution([row]))}
    assert all(verdict[k] for k in ("horizon_days", "stages", "events", "checks"))


def test_distribution_of_nothing_is_an_error():
    with pytest.raises(ValueError, match="no task rows"):
        distribution([])


def test_stats_cli_sets_the_distribution_next_to_the_paper(capsys):
    from vibelife_env.cli import main as cli_main

    assert cli_main(["stats", "VibeLife-travel-japan-v0", "VibeLife-demo-errands-v0", "--paper"]) == 0
    out = capsys.readouterr().out
    assert "all reported tasks (2) against the paper" in out
    assert "domain travel (1) against the paper" in out and "domain demo (1)" in out
    assert "share_mutation" in out and "outside ±20%" in out  # the 3-stage demo drags the medians


def test_explicitness_counts_the_catalogues_the_agent_chooses_from(capsys):
    """The catalogue column is the seeded offer table, row for row: the e-bike shop's products at
    the paper level (decoys included), none where no service offers anything to choose from."""
    from tests.families.harness import built_task
    from vibelife_env.cli import main as cli_main
    from vibelife_env.stats import explicitness

    task = built_task("VibeLife-shopping-ebike-v0", "paper", split="test", instance=0)
    figures = explicitness(task)
    assert figures["catalogues"]["ecommerce.products"] == len(task.oracle[0].story.products) >= 20
    assert figures["catalogue"] == max(figures["catalogues"].values())
    guided = explicitness(built_task("VibeLife-shopping-ebike-v0", "guided", split="test", instance=0))
    assert guided["catalogues"]["ecommerce.products"] < figures["catalogue"]  # the paper level adds decoys
    assert cli_main(["stats", "VibeLife-shopping-ebike-v0", "--explicitness", "--seeds", "0:1"]) == 0
    out = capsys.readouterr().out
    assert "catalogue" in out and f"largest catalogue {figures['catalogue']}" in out
