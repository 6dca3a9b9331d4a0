"""Task bundles: loading, validation, events and mutations."""

from vibelife_env.task.loader import Task, load_task, load_task_cached

__all__ = ["Task", "load_task", "load_task_cached"]
