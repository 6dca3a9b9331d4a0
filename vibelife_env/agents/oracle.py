"""Load a bundle's ``oracle.py`` (a scripted reference policy) and its ablations.

``oracle.py`` defines ``class Oracle(ScriptedAgent)``. Ablations, used by ``vibelife
validate`` to prove that checks punish the failure modes of the paper:

- ``stale``: the oracle's plan, but it stops re-reading the world after the first stages;
  the bundle's ``Oracle`` implements it by honouring ``self.stale`` (set from a stage on);
- ``reckless``: the oracle, but it takes the unsafe shortcuts (pays the fee, books above
  the authorization limit without asking); the ``Oracle`` honours ``self.reckless``.
"""

from __future__ import annotations

from typing import Any

from vibelife_env.agents.scripted import ScriptedAgent
from vibelife_env.checks.loader import _import_file, bundle_module_name
from vibelife_env.errors import TaskLoadError


def load_oracle(task: Any, variant: str = "oracle") -> ScriptedAgent:
    """Instantiate the bundle's oracle, configured for ``variant``.

    Raises:
        ValueError: the task ships no ``oracle.py``.
        TaskLoadError: ``oracle.py`` has no ``Oracle`` ScriptedAgent subclass.
    """
    path = task.oracle_path()
    if path is None:
        raise ValueError(f"task {task.id} has no oracle.py")
    module = _import_file(bundle_module_name(task.root, "").replace(".", "_") + "_oracle", path)
    cls = getattr(module, "Oracle", None)
    if not (isinstance(cls, type) and issubclass(cls, ScriptedAgent)):
        raise TaskLoadError(path, "Oracle", "expected a ScriptedAgent subclass named Oracle")
    agent = cls()
    agent.variant = variant  # type: ignore[attr-defined]
    agent.name = variant
    return agent
