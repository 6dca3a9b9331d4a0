"""Load a bundle's checks: our concise ``checks.py`` and/or the release's ``rubrics/``.

``checks.py`` defines ``CHECKS``: a :class:`CheckSet` (or a list of :class:`Check`).

``rubrics/`` holds modules whose ``CHECKS`` list ``(id, fn, weight)`` map to tiers by file
name: ``stage_N.py`` → stage N, ``cross_stage.py``, ``final.py``, ``tool_quality.py``
(other files are helpers). A rubric function is written against the release runner's
``env``; the release layer wraps it (:func:`vibelife_env.release.rubric_env.rubric_binder`)
so that it runs on a :class:`CheckContext` like any check. For a bundle that ships its
runner (``task.py``) only the end modules that runner loads count, with its weights.

Every file is imported as a module of the bundle's private package
(:mod:`vibelife_env.task.modules`), so relative imports work and two bundles never share
module state.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vibelife_env.checks.base import Check, CheckSet, CheckSuite, Tier
from vibelife_env.errors import TaskLoadError
from vibelife_env.release.rubric_env import rubric_binder
from vibelife_env.task.modules import bundle_package, import_bundle_module

if TYPE_CHECKING:
    from vibelife_env.task.loader import Task

_STAGE_FILE = re.compile(r"^stage_(\d+)\.py$")
_END_FILES: dict[str, Tier] = {"cross_stage.py": "cross_stage", "final.py": "final", "tool_quality.py": "tool_quality"}

#: Wraps a release rubric function into a check function over a CheckContext.
Binder = Callable[[Callable[[Any], Any]], Callable[[Any], Any]]
#: ``weight_for(check_id, declared_weight) -> weight`` of a bundle's ``rubrics/weight_profile.py``.
WeightFor = Callable[[str, Any], Any]


def _checks_py(task: Task) -> list[Check]:
    path = task.root / "checks.py"
    if not path.is_file():
        return []
    raw = getattr(import_bundle_module(task.root, "checks.py"), "CHECKS", None)
    if isinstance(raw, CheckSet):
        return list(raw.checks)
    if isinstance(raw, (list, tuple)) and all(isinstance(c, Check) for c in raw):
        return list(raw)
    raise TaskLoadError(path, "CHECKS", "expected a CheckSet or a list of Check")


def _rubric_binder(task: Task) -> Binder:
    """The release layer's wrapper for ``task``'s rubric functions."""
    return rubric_binder(task)


def _rubric_entry(
    path: Path, i: int, entry: Any, tier: Tier, stage: int | None, bind: Binder, weight_for: WeightFor | None
) -> Check:
    if not (isinstance(entry, (tuple, list)) and len(entry) >= 3 and callable(entry[1])):
        raise TaskLoadError(path, f"CHECKS[{i}]", "expected (id, function, weight)")
    try:
        weight = float(weight_for(str(entry[0]), entry[2]) if weight_for is not None else entry[2])
    except (TypeError, ValueError, KeyError) as exc:
        raise TaskLoadError(path, f"CHECKS[{i}]", f"weight {entry[2]!r} is not usable: {exc}") from None
    try:
        return Check(str(entry[0]), bind(entry[1]), weight, tier, stage)
    except ValueError as exc:
        raise TaskLoadError(path, f"CHECKS[{i}]", str(exc)) from None


def _rubric_files(task: Task, rdir: Path) -> list[tuple[Path, Tier, int | None]]:
    """The tier files of ``rubrics/`` in order (stages by number, then end files by name)."""
    release = task.release
    end_files = dict(_END_FILES)
    if release is not None:  # only the modules the release runner loads
        end_files = {f: t for f, t in _END_FILES.items() if f.removesuffix(".py") in release.end_modules}
    stages = {s.index for s in task.stages}
    out: list[tuple[Path, Tier, int | None]] = []
    for path in sorted(
        rdir.glob("*.py"), key=lambda p: (0, int(m.group(1))) if (m := _STAGE_FILE.match(p.name)) else (1, p.name)
    ):
        if m := _STAGE_FILE.match(path.name):
            if int(m.group(1)) not in stages:
                raise TaskLoadError(path, "", f"stage {int(m.group(1))} does not exist in the timeline")
            out.append((path, "stage", int(m.group(1))))
        elif path.name in end_files:
            out.append((path, end_files[path.name], None))
    return out


def _rubrics(task: Task) -> list[Check]:
    rdir = task.root / task.meta.rubrics_dir
    if not rdir.is_dir():
        return []
    try:
        rel = rdir.resolve().relative_to(task.root)
    except ValueError:
        raise TaskLoadError(task.root / "task.toml", "runtime.rubrics", "must be a folder inside the bundle") from None
    files = _rubric_files(task, rdir)
    _quiet_logs(bundle_package(task.root))
    bind = _rubric_binder(task)
    weight_for: WeightFor | None = None
    if task.release is not None and task.release.weight_profile and (rdir / "weight_profile.py").is_file():
        weight_for = getattr(import_bundle_module(task.root, rel / "weight_profile.py"), "weight_for", None)
    out: list[Check] = []
    for path, tier, stage in files:
        entries = getattr(import_bundle_module(task.root, rel / path.name), "CHECKS", None)
        if not isinstance(entries, (list, tuple)):
            raise TaskLoadError(path, "CHECKS", "missing or not a list")
        out.extend(_rubric_entry(path, i, e, tier, stage, bind, weight_for) for i, e in enumerate(entries))
    return out


def _quiet_logs(package: str) -> None:
    """Silence the ``loguru`` output of a bundle's modules (release rubrics log every check)."""
    try:
        from loguru import logger
    except ImportError:  # loguru is a dependency; without it rubric imports fail loudly
        return
    logger.disable(package)


def load_checks(task: Task) -> CheckSuite:
    """All checks of a bundle, validated against its timeline.

    Raises:
        TaskLoadError: a check module is missing, malformed or names an unknown stage.
    """
    checks = _checks_py(task) + _rubrics(task)
    stages = {s.index for s in task.stages}
    for c in checks:
        if c.tier == "stage" and c.stage not in stages:
            raise TaskLoadError(task.root / "checks.py", c.id, f"stage {c.stage} does not exist in the timeline")
    if not checks:
        raise TaskLoadError(task.root, "", "the bundle defines no checks (checks.py or rubrics/)")
    try:
        return CheckSuite(checks)
    except ValueError as exc:
        raise TaskLoadError(task.root, "checks", str(exc)) from None
