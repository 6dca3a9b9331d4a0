"""Load a bundle's checks: our concise ``checks.py`` and/or the release's ``rubrics/``.

``rubrics/`` holds modules whose ``CHECKS`` list ``(id, fn, weight)`` map to tiers by file
name: ``stage_N.py`` → stage N, ``cross_stage.py``, ``final.py``, ``tool_quality.py``.
The package is imported under a private name so its relative imports work and two
bundles never share module state.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from vibelife_env.checks.base import Check, CheckSet, CheckSuite, Tier
from vibelife_env.errors import TaskLoadError
from vibelife_env.release.runtime import ReleaseRuntime

if TYPE_CHECKING:
    from vibelife_env.task.loader import Task

_STAGE_FILE = re.compile(r"^stage_(\d+)\.py$")
_END_FILES: dict[str, Tier] = {"cross_stage.py": "cross_stage", "final.py": "final", "tool_quality.py": "tool_quality"}


def _import_file(name: str, path: Path, package_dirs: list[str] | None = None) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=package_dirs)
    if spec is None or spec.loader is None:
        raise TaskLoadError(path, "", "cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise TaskLoadError(path, "", f"import failed: {type(exc).__name__}: {exc}") from exc
    return module


def bundle_module_name(root: Path, part: str) -> str:
    """A private, stable module name for a file of a bundle."""
    digest = hashlib.sha1(str(root).encode()).hexdigest()[:12]
    return f"_vibelife_bundle_{digest}.{part}" if part else f"_vibelife_bundle_{digest}"


def _checks_py(task: Task) -> list[Check]:
    path = task.root / "checks.py"
    if not path.is_file():
        return []
    module = _import_file(bundle_module_name(task.root, "").replace(".", "_") + "_checks", path)
    raw = getattr(module, "CHECKS", None)
    if isinstance(raw, CheckSet):
        return list(raw.checks)
    if isinstance(raw, (list, tuple)) and all(isinstance(c, Check) for c in raw):
        return list(raw)
    raise TaskLoadError(path, "CHECKS", "expected a CheckSet or a list of Check")


def _bind(fn: Any, runtime: ReleaseRuntime) -> Any:
    """Give a release rubric the runtime it expects: ``env``-style, or the namespace form."""

    def check(ctx: Any) -> Any:
        ctx.release_runtime = runtime
        if not runtime.profile.namespace_context:
            return fn(ctx)
        space = getattr(ctx, "_release_namespace", None)
        if space is None:
            space = runtime.namespace(ctx)
            ctx._release_namespace = space
        return fn(space)

    check.__name__ = getattr(fn, "__name__", "check")
    check.__wrapped__ = fn  # type: ignore[attr-defined]
    check.release_runtime = runtime  # type: ignore[attr-defined]
    return check


def _rubric_entry(
    path: Path,
    i: int,
    entry: Any,
    tier: Tier,
    stage: int | None,
    weight_for: Any = None,
    runtime: ReleaseRuntime | None = None,
) -> Check:
    if not (isinstance(entry, (tuple, list)) and len(entry) >= 3 and callable(entry[1])):
        raise TaskLoadError(path, f"CHECKS[{i}]", "expected (id, function, weight)")
    try:
        weight = float(weight_for(str(entry[0]), entry[2]) if weight_for is not None else entry[2])
    except (TypeError, ValueError, KeyError) as exc:
        raise TaskLoadError(path, f"CHECKS[{i}]", f"weight {entry[2]!r} is not usable: {exc}") from None
    try:
        return Check(str(entry[0]), _bind(entry[1], runtime) if runtime else entry[1], weight, tier, stage)
    except ValueError as exc:
        raise TaskLoadError(path, f"CHECKS[{i}]", str(exc)) from None


def _rubrics(task: Task) -> list[Check]:
    rdir = task.root / task.meta.rubrics_dir
    if not rdir.is_dir():
        return []
    pkg = bundle_module_name(task.root, "rubrics")
    parent = pkg.split(".")[0]
    if parent not in sys.modules:
        sys.modules[parent] = ModuleType(parent)
    init = rdir / "__init__.py"
    if init.is_file():
        _import_file(pkg, init, [str(rdir)])
    else:
        module = ModuleType(pkg)
        module.__path__ = [str(rdir)]  # type: ignore[attr-defined]
        sys.modules[pkg] = module
    _quiet_logs(parent)
    stages = {s.index for s in task.stages}
    release = task.release
    end_files = dict(_END_FILES)
    weight_for = None
    runtime = None
    if release is not None:  # only the modules the release runner loads, with its weights
        end_files = {f: t for f, t in _END_FILES.items() if f.removesuffix(".py") in release.end_modules}
        runtime = ReleaseRuntime.for_task(task)
        if release.weight_profile and (rdir / "weight_profile.py").is_file():
            weight_for = getattr(_import_file(f"{pkg}.weight_profile", rdir / "weight_profile.py"), "weight_for", None)
    out: list[Check] = []
    files = sorted(
        rdir.glob("*.py"), key=lambda p: (0, int(m.group(1))) if (m := _STAGE_FILE.match(p.name)) else (1, p.name)
    )
    for path in files:
        if m := _STAGE_FILE.match(path.name):
            tier: Tier = "stage"
            stage: int | None = int(m.group(1))
            if stage not in stages:
                raise TaskLoadError(path, "", f"stage {stage} does not exist in the timeline")
        elif path.name in end_files:
            tier, stage = end_files[path.name], None
        else:
            continue
        module = _import_file(f"{pkg}.{path.stem}", path)
        entries = getattr(module, "CHECKS", None)
        if not isinstance(entries, (list, tuple)):
            raise TaskLoadError(path, "CHECKS", "missing or not a list")
        out.extend(_rubric_entry(path, i, e, tier, stage, weight_for, runtime) for i, e in enumerate(entries))
    return out


def _quiet_logs(package: str) -> None:
    """Silence the ``loguru`` output of a bundle's rubric modules (they log every check)."""
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
