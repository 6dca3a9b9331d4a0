"""Weighted checks in tiers, their read-only context and scoring."""

from vibelife_env.checks.base import Check, CheckResult, CheckSet, CheckSuite
from vibelife_env.checks.context import CheckContext, EpisodeRecord
from vibelife_env.checks.scoring import Scorer

__all__ = ["Check", "CheckContext", "CheckResult", "CheckSet", "CheckSuite", "EpisodeRecord", "Scorer"]
