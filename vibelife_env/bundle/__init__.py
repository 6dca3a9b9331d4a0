"""Loading task bundles: the layer above task, checks and release.

:func:`load_task` reads a bundle folder into a :class:`~vibelife_env.task.loader.Task`
(replaying a release bundle's timeline as its runner does), and :func:`load_checks` reads
its ``checks.py`` and ``rubrics/``. Nothing below this package imports it.
"""

from vibelife_env.bundle.checks import load_checks
from vibelife_env.bundle.task import load_task, load_task_cached

__all__ = ["load_checks", "load_task", "load_task_cached"]
