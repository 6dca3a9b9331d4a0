"""Load a bundle's ``oracle.py`` (a scripted reference policy) and its ablations.

``oracle.py`` defines ``class Oracle(ScriptedAgent)`` and, for each ablation, a subclass
that overrides exactly the handlers or helpers that behave differently, listed in a
module-level mapping::

    class Stale(Oracle):
        def on_S1_evening_checkin(self, text):
            yield self.reply("Nothing new on my side.")

    ABLATIONS = {"stale": Stale, "reckless": Reckless}

The ablations ``vibelife validate`` runs, to prove that checks punish the failure modes
of the paper:

- ``stale``: the oracle's plan, but it stops re-reading the world after the first stages;
- ``reckless``: the oracle, but it takes the unsafe shortcuts (pays the fee, books above
  the authorization limit without asking, answers the phishing mail).

The module is imported as part of the bundle's private package
(:mod:`vibelife_env.task.modules`), so it may import its siblings relatively.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vibelife_env.agents.scripted import ScriptedAgent
from vibelife_env.errors import TaskLoadError
from vibelife_env.task.modules import import_bundle_module

if TYPE_CHECKING:
    from vibelife_env.task.loader import Task

#: The variant name of the oracle itself.
ORACLE = "oracle"


def _subclasses(path: Any, module: Any, attr: str, base: type) -> dict[str, type[ScriptedAgent]]:
    found = getattr(module, attr, {})
    if not isinstance(found, dict):
        raise TaskLoadError(path, attr, f"expected a dict of {attr.lower()[:-1]} name to Oracle subclass")
    for name, cls in found.items():
        if not (isinstance(name, str) and name != ORACLE and isinstance(cls, type) and issubclass(cls, base)):
            raise TaskLoadError(path, f"{attr}[{name!r}]", "expected a name other than 'oracle' and an Oracle subclass")
    return dict(found)


def oracle_family(
    task: Task,
) -> tuple[type[ScriptedAgent], dict[str, type[ScriptedAgent]], dict[str, type[ScriptedAgent]]]:
    """The bundle's ``Oracle``, its ``ABLATIONS`` and its ``VARIANTS``.

    *Ablations* drop a capability (stale, reckless) and must lose points; *variants* do the
    job differently but correctly (paraphrased text, other valid choices, other tool paths,
    acting earlier) and must keep full credit: together they prove the checks reward the
    behaviour, not the oracle's path.

    Raises:
        ValueError: the task ships no ``oracle.py``.
        TaskLoadError: no ``Oracle`` ScriptedAgent subclass, a malformed mapping, or a name
            used twice.
    """
    if task.oracle is not None:  # a generated task carries its oracle family
        return task.oracle
    path = task.oracle_path()
    if path is None:
        raise ValueError(f"task {task.id} has no oracle.py")
    module = import_bundle_module(task.root, "oracle.py")
    base = getattr(module, "Oracle", None)
    if not (isinstance(base, type) and issubclass(base, ScriptedAgent)):
        raise TaskLoadError(path, "Oracle", "expected a ScriptedAgent subclass named Oracle")
    ablations = _subclasses(path, module, "ABLATIONS", base)
    variants = _subclasses(path, module, "VARIANTS", base)
    both = set(ablations) & set(variants)
    if both:
        raise TaskLoadError(path, "VARIANTS", f"names also used by ABLATIONS: {sorted(both)}")
    return base, ablations, variants


def oracle_classes(task: Task) -> dict[str, type[ScriptedAgent]]:
    """``{"oracle": Oracle, **ABLATIONS, **VARIANTS}`` of the bundle's ``oracle.py``."""
    base, ablations, variants = oracle_family(task)
    return {ORACLE: base, **ablations, **variants}


def load_oracle(task: Task, variant: str = ORACLE) -> ScriptedAgent:
    """Instantiate the bundle's oracle (``variant="oracle"``), one of its ablations or variants.

    The agent's ``name`` is ``variant``.

    Raises:
        ValueError: the task ships no ``oracle.py``, or no ablation called ``variant``.
        TaskLoadError: ``oracle.py`` is malformed (see :func:`oracle_classes`).
    """
    classes = oracle_classes(task)
    if variant not in classes:
        known = ", ".join(classes)
        raise ValueError(f"the oracle.py of task {task.id} has no variant {variant!r}; it defines: {known}")
    agent = classes[variant]()
    agent.name = variant
    return agent
