"""VibeLife: Gymnasium environments for proactive, persistent life-assistant agents.

Importing the package registers every bundled task as ``VibeLife-<domain>-<task>-v0``::

    import gymnasium as gym
    import vibelife_env  # noqa: F401  (registers the envs)

    env = gym.make("VibeLife-travel-japan-v0")
"""

from vibelife_env.bundle import load_task
from vibelife_env.env import VERSION, VibeLifeEnv
from vibelife_env.errors import ActionError, TaskLoadError, ToolError, VibeLifeError
from vibelife_env.registration import register_builtin, register_bundles, registered_ids
from vibelife_env.task import Task

__version__ = VERSION
__all__ = [
    "ActionError",
    "Task",
    "TaskLoadError",
    "ToolError",
    "VibeLifeEnv",
    "VibeLifeError",
    "load_task",
    "register_builtin",
    "register_bundles",
    "registered_ids",
]

register_builtin()
