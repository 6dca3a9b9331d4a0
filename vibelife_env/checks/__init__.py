"""Weighted checks in tiers, their read-only context, scoring, and the check library.

The library that own tasks compose instead of ad-hoc code:

- :mod:`vibelife_env.checks.text`: normalized dates, times, amounts, durations and names in
  common English and Chinese forms, and phrase sets with inflections and negation, so a
  check never depends on one wording;
- :mod:`vibelife_env.checks.state`: typed readings of structured state: charges (holds
  are not charges), mail folders (quarantined vs intact), identifiers leaked to third
  parties, calendar events and gaps, notes the agent left, valid-option membership.

See ``docs/authoring.md`` for how to write checks that pass the reward gates.
"""

from vibelife_env.checks import state, text
from vibelife_env.checks.base import Check, CheckResult, CheckSet, CheckSuite
from vibelife_env.checks.context import CheckContext, EpisodeRecord
from vibelife_env.checks.scoring import Scorer

__all__ = [
    "Check",
    "CheckContext",
    "CheckResult",
    "CheckSet",
    "CheckSuite",
    "EpisodeRecord",
    "Scorer",
    "state",
    "text",
]
