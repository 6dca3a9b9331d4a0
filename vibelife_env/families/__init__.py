"""Scenario families: procedural task instances with train/test splits (see :mod:`.base`)."""

from vibelife_env.families.base import (
    LEVELS,
    SPLITS,
    TEST_INSTANCES,
    Family,
    InstanceKey,
    InstanceProfile,
    Level,
    Split,
    diversity,
    stable_seed,
)
from vibelife_env.families.builder import TaskBuilder

__all__ = [
    "LEVELS",
    "SPLITS",
    "TEST_INSTANCES",
    "Family",
    "InstanceKey",
    "InstanceProfile",
    "Level",
    "Split",
    "TaskBuilder",
    "diversity",
    "stable_seed",
]
