"""Tasks: their data model, bundle modules, events and mutations (loading a bundle folder
is :mod:`vibelife_env.bundle`, the layer above)."""

from vibelife_env.task.loader import Task

__all__ = ["Task"]
