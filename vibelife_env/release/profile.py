"""What a public-release bundle's runner does, read statically from its ``task.py``.

Each release bundle carries its own copy of the runner in ``task.py`` (two exam-prep
tasks share ``lib/handbook_task_runtime.py``). Their behaviour differs in small ways that
change what the agent sees and how it is scored. :func:`load_profile` reads those
differences with :mod:`ast` — never importing the file — into a :class:`ReleaseProfile`:

- the opening prompt constant ``PROMPT`` (the release itself no longer injects it; we
  show it in the system prompt, see :mod:`vibelife_env.release`);
- the event renderer (a template, :mod:`vibelife_env.release.templates`);
- which kinds open a turn (the others are skipped, as the runner skips them);
- whether consecutive visible events of a stage are batched into one turn, and with what
  separator;
- which end-of-episode rubric modules the runner loads (``final``, ``cross_stage``,
  ``tool_quality``) and whether weights come from ``rubrics/weight_profile.py``;
- server aliases used by mutations (``{"lp": "listing_platform"}``);
- whether it writes the per-stage tool trace the rubrics read, and the exact shape of its
  rows (:mod:`vibelife_env.release.trace`);
- whether stages are counted from the rubric files too (handbook runtime);
- whether inbound-email world events are also materialized in the mailbox.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from vibelife_env.errors import TaskLoadError
from vibelife_env.release.templates import Renderer, TemplateError, extract_renderer
from vibelife_env.release.trace import EXTRACTORS, PLAIN_SHAPE, TraceShape, TraceShapeError, read_trace_shape
from vibelife_env.services.registry import SERVICES, canonical_name

END_MODULES = ("final", "cross_stage", "tool_quality")
HANDBOOK_MODULE = "lib.handbook_task_runtime"
DEFAULT_TURN_KINDS = ("user_message", "notification", "world")


@dataclass(frozen=True)
class ReleaseProfile:
    """Runner behaviour of one release bundle (see the module docstring)."""

    task_py: Path
    prompt: str = ""
    renderer: Renderer | None = field(default=None, repr=False, compare=False)
    turn_kinds: tuple[str, ...] = DEFAULT_TURN_KINDS
    batch_separator: str | None = None
    end_modules: tuple[str, ...] = END_MODULES
    weight_profile: bool = False
    server_aliases: dict[str, str] = field(default_factory=dict)
    trace: TraceShape | None = PLAIN_SHAPE  # None: the runner writes no stage_N.json
    stages_from_rubrics: bool = False
    materialize_email: bool = False
    email_row: dict[str, Any] = field(default_factory=dict)
    sort_parsed: bool = False
    namespace_context: bool = False
    handbook: bool = False

    def render(self, event: dict[str, Any], stage: int) -> str | None:
        """The release's text for a visible event (``None`` when no renderer was read)."""
        return self.renderer.render(event, stage) if self.renderer is not None else None


def is_release_bundle(root: Path) -> bool:
    """A bundle of the public release: it ships its runner as ``task.py``."""
    return (root / "task.py").is_file() and (root / "task.toml").is_file()


def _strings(tree: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def _funcs(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def _prompt(tree: ast.Module) -> str:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "PROMPT" for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return ""
            return value.strip() if isinstance(value, str) else ""
    return ""


def _turn_kinds(dispatch: ast.FunctionDef | None) -> tuple[str, ...]:
    """Kinds in the dispatcher's ``kind not in (...)`` guard (the kinds that open a turn)."""
    if dispatch is None:
        return DEFAULT_TURN_KINDS
    for node in ast.walk(dispatch):
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], ast.NotIn)
            and isinstance(node.comparators[0], (ast.Tuple, ast.Set, ast.List))
        ):
            kinds = [str(e.value) for e in node.comparators[0].elts if isinstance(e, ast.Constant)]
            if "user_message" in kinds:
                # a runner that only warns on other kinds still renders them
                warns_only = not any(isinstance(s, (ast.Return, ast.Raise)) for s in ast.walk(_if_body(dispatch, node)))
                return ("*",) if warns_only else tuple(kinds)
    return DEFAULT_TURN_KINDS


def _if_body(func: ast.FunctionDef, test: ast.Compare) -> ast.AST:
    for node in ast.walk(func):
        if isinstance(node, ast.If) and any(n is test for n in ast.walk(node.test)):
            return ast.Module(body=node.body, type_ignores=[])
    return ast.Module(body=[], type_ignores=[])


def _batch_separator(tree: ast.Module, render_name: str) -> str | None:
    """``SEP.join(render(ev) for ev in pending)``: visible events merged into one turn."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "join"
            and isinstance(node.func.value, ast.Constant)
            and node.args
            and isinstance(node.args[0], ast.GeneratorExp)
            and isinstance(node.args[0].elt, ast.Call)
            and isinstance(node.args[0].elt.func, ast.Name)
            and node.args[0].elt.func.id == render_name
        ):
            return str(node.func.value.value)
    return None


def _aliases(tree: ast.Module) -> dict[str, str]:
    """Literal ``{alias: service}`` maps whose values are services and keys are not."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Dict):
            continue
        pairs = [
            (k.value, v.value)
            for k, v in zip(node.keys, node.values, strict=False)
            if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)
            if isinstance(k.value, str) and isinstance(v.value, str)
        ]
        for key, value in pairs:
            if canonical_name(value) in SERVICES and canonical_name(key) not in SERVICES:
                out[key] = canonical_name(value)
    return out


def _offset(timezone: str, first: date) -> str:
    from vibelife_env.clock import get_zone

    moment = datetime(first.year, first.month, first.day, 9, tzinfo=get_zone(timezone))
    text = moment.isoformat()
    return text[-6:]


def load_profile(root: Path, start_date: str | None, timezone: str) -> ReleaseProfile:
    """Read ``root/task.py`` (and the shared handbook runtime when it uses one).

    Raises:
        TaskLoadError: the runner cannot be parsed, or its renderer uses constructs the
            template reader does not know.
    """
    task_py = root / "task.py"
    source = task_py.read_text(encoding="utf-8")
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise TaskLoadError(task_py, f"line {exc.lineno}", f"not valid Python: {exc.msg}") from None
    strings = _strings(tree)
    funcs = _funcs(tree)
    handbook = any(isinstance(n, ast.ImportFrom) and n.module == HANDBOOK_MODULE for n in ast.walk(tree))
    render_source, render_path = source, task_py
    if handbook:
        render_path = _handbook_path(root)
        render_source = render_path.read_text(encoding="utf-8")
    first = date.fromisoformat(start_date) if start_date else date(2026, 1, 1)
    try:
        renderer = extract_renderer(render_source, time_of_day=(first, _offset(timezone, first)))
    except TemplateError as exc:
        raise TaskLoadError(render_path, "_render_event", f"cannot read the event renderer: {exc}") from None
    render_tree = ast.parse(render_source) if handbook else tree
    dispatch = _funcs(render_tree).get("dispatch_event") if handbook else funcs.get("_dispatch_event")
    separator = _batch_separator(tree, renderer.func.name) if renderer else None
    if separator is not None:
        dispatch = funcs.get("_dispatch_stage_events", dispatch)
    try:
        trace = read_trace_shape([tree, render_tree] if handbook else [tree])
    except TraceShapeError as exc:
        raise TaskLoadError(render_path if handbook else task_py, "/".join(EXTRACTORS), str(exc)) from None
    return ReleaseProfile(
        task_py=task_py,
        prompt=_prompt(tree),
        renderer=renderer,
        turn_kinds=_turn_kinds(dispatch),
        batch_separator=separator,
        end_modules=tuple(m for m in END_MODULES if m in strings),
        weight_profile="weight_for" in {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)},
        server_aliases=_aliases(tree),
        trace=trace,
        stages_from_rubrics=handbook or "_expected_stage_count" in funcs,
        materialize_email="_materialize_email_event" in funcs,
        email_row=_email_row_template(funcs.get("_materialize_email_event")),
        sort_parsed="parse_event_time" in funcs,
        namespace_context="_make_context" in funcs,
        handbook=handbook,
    )


def _handbook_path(root: Path) -> Path:
    for parent in root.parents:
        candidate = parent / "lib" / "handbook_task_runtime.py"
        if candidate.is_file():
            return candidate
    raise TaskLoadError(root / "task.py", HANDBOOK_MODULE, "imports the handbook runtime, but no lib/ was found above")


def _email_row_template(func: ast.FunctionDef | None) -> dict[str, Any]:
    """The literal columns of the mailbox row an inbound-email event becomes.

    Values that are not literals are recorded as ``ast`` nodes for
    :func:`vibelife_env.release.timeline.email_row` to fill from the event.
    """
    if func is None:
        return {}
    for node in ast.walk(func):
        if isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            if "values" in keys:
                values = node.values[keys.index("values")]
                if isinstance(values, ast.Dict):
                    out: dict[str, Any] = {}
                    for k, v in zip(values.keys, values.values, strict=False):
                        if isinstance(k, ast.Constant):
                            try:
                                out[str(k.value)] = ast.literal_eval(v)
                            except ValueError:
                                out[str(k.value)] = v
                    return out
    return {}
