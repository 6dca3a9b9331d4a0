"""Run the public VibeLifeBench release's bundles unchanged, in-process.

A release bundle ships its runner as ``task.py``. We never import it: its behaviour is
read statically into a :class:`ReleaseProfile` (:mod:`.profile`, :mod:`.templates`) and
the raw timeline is rewritten into the sequence that runner replays
(:mod:`.timeline`). The task loader calls :func:`prepare_stages` for bundles with a
``task.py``; the check loader reads ``task.release`` for the rubric modules to load and
their weights, and runs each rubric on the runner's ``env`` shape
(:class:`.rubric_env.RubricEnv`, over a :class:`~vibelife_env.checks.CheckContext`), whose
stage response and trace files :class:`.runtime.ReleaseRuntime` shapes as the runner did
(the trace rows exactly as that runner writes them: :mod:`.trace`). Scoring stays fast
on long episodes without changing a result: stage files are parsed once per pass
(:mod:`.parsed`) and pure rubric helpers are memoized (:mod:`.purity`). Where the
release's server code makes the world behave otherwise than our services, the episode
builds a public bundle's world and tool list under that code's semantics (:mod:`.world`);
wake-up turns, which the release does not have, stay out of the stage files
(:mod:`.runtime`). This package re-exports only what the task loader needs, so importing
it stays light.

What is faithful and what is approximated is listed in ``docs`` of the issue report and
in the docstrings of each module.
"""

from vibelife_env.release.profile import ReleaseProfile, is_release_bundle, load_profile
from vibelife_env.release.templates import Renderer, TemplateError, extract_renderer
from vibelife_env.release.timeline import prepare_stages

__all__ = [
    "ReleaseProfile",
    "Renderer",
    "TemplateError",
    "extract_renderer",
    "is_release_bundle",
    "load_profile",
    "prepare_stages",
]
