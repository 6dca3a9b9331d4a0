"""Import a bundle's Python files (``checks.py``, ``oracle.py``, ``rubrics/``) as one private package.

A bundle directory is not a Python package and its folder name need not be an identifier,
so it is imported under a private name derived from its resolved path: every file of the
bundle is a module of that package, and bundle code uses ordinary relative imports::

    # tasks/travel/japan/checks.py
    from . import _helpers as H
    from ._end_checks import add_end_checks

    # tasks/travel/japan/oracle.py
    from .checks import AISLE_333

The name is stable (the same bundle path always gets the same package within and across
processes) and unique per bundle, so two bundles with a ``_helpers.py`` never share module
state. The bundle root's own ``__init__.py`` and a release runner's ``task.py`` are never
executed: only the files asked for (and what they import) are.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from types import ModuleType
from typing import Any

from vibelife_env.errors import MutationError, TaskLoadError

#: Every bundle package is named ``<PREFIX><12 hex digits of the path's SHA-1>``.
PACKAGE_PREFIX = "_vibelife_bundle_"


def bundle_package(root: str | Path) -> str:
    """The private package name of the bundle at ``root`` (stable and unique per resolved path)."""
    digest = hashlib.sha1(str(Path(root).resolve()).encode()).hexdigest()[:12]
    return f"{PACKAGE_PREFIX}{digest}"


def bundle_module_name(root: str | Path, relpath: str | Path) -> str:
    """The module name of the bundle file ``relpath`` (``"rubrics/stage_0.py"`` → ``<pkg>.rubrics.stage_0``).

    Raises:
        TaskLoadError: ``relpath`` is absolute, climbs out of the bundle or is not a ``.py`` file.
    """
    rel = PurePosixPath(Path(relpath).as_posix())
    if rel.is_absolute() or ".." in rel.parts or rel.suffix != ".py" or not rel.stem:
        raise TaskLoadError(Path(root) / rel, "", "expected a .py file inside the bundle")
    parts = [*rel.parent.parts, rel.stem]
    if rel.stem == "__init__":
        parts = parts[:-1]
    return ".".join([bundle_package(root), *parts])


def _ensure_package(root: Path) -> str:
    """Register the bundle's root package (an empty module whose ``__path__`` is the bundle)."""
    name = bundle_package(root)
    if name not in sys.modules:
        spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
        spec.submodule_search_locations = [str(root)]
        sys.modules[name] = importlib.util.module_from_spec(spec)
    return name


def import_bundle_module(root: str | Path, relpath: str | Path) -> ModuleType:
    """Import the bundle file ``root/relpath`` as a module of the bundle's private package.

    Imported once per process (later calls return the same module); sub-folders are
    packages (with or without ``__init__.py``), so relative imports work at any depth.

    Raises:
        TaskLoadError: the file does not exist or its import fails (names the file and the error).
    """
    base = Path(root).resolve()
    path = base / relpath
    name = bundle_module_name(base, relpath)
    if name in sys.modules:
        return sys.modules[name]
    if not path.is_file():
        raise TaskLoadError(path, "", "file does not exist")
    _ensure_package(base)
    importlib.invalidate_caches()  # the bundle may have been written after its folder was first listed
    try:
        return importlib.import_module(name)
    except Exception as exc:
        where = Path(exc.filename) if isinstance(exc, SyntaxError) and exc.filename else path
        raise TaskLoadError(where, "", f"import failed: {type(exc).__name__}: {exc}") from exc


def bundle_callable(root: Path, ref: str) -> Callable[..., Any]:
    """The function ``"<file>.py:<function>"`` of the bundle at ``root``.

    Raises:
        MutationError: the file does not import or has no such function.
    """
    path, _, name = ref.partition(":")
    try:
        module = import_bundle_module(root, path)
    except TaskLoadError as exc:
        raise MutationError(str(exc)) from None
    fn = getattr(module, name, None)
    if not callable(fn):
        raise MutationError(f"{root / path}: no function {name!r}")
    return fn
