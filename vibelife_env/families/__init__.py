"""Scenario families: procedural task instances with train/test splits (see :mod:`.base`)."""

from vibelife_env.families.base import (
    SPLITS,
    TEST_INSTANCES,
    Family,
    InstanceKey,
    InstanceProfile,
    Split,
    diversity,
    stable_seed,
)
from vibelife_env.families.builder import TaskBuilder

__all__ = [
    "SPLITS",
    "TEST_INSTANCES",
    "Family",
    "InstanceKey",
    "InstanceProfile",
    "Split",
    "TaskBuilder",
    "diversity",
    "stable_seed",
]
