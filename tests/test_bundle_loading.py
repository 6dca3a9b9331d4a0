"""Loading a bundle's Python: ``checks.py``, ``rubrics/``, ``oracle.py`` as one private package per bundle."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import vibelife_env
from vibelife_env import TaskLoadError, load_task
from vibelife_env.agents import load_oracle
from vibelife_env.agents.oracle import oracle_classes
from vibelife_env.bundle import load_checks
from vibelife_env.checks import CheckContext, EpisodeRecord
from vibelife_env.release.rubric_env import RubricEnv
from vibelife_env.task.modules import PACKAGE_PREFIX, bundle_module_name, bundle_package, import_bundle_module
from vibelife_env.world import World

TOML = """
[metadata]
name = "mini"
category = "test"
[scenario]
timezone = "UTC"
[dependencies]
servers = ["notification_hub"]
"""

EVENTS = """
stages:
  0:
    - {id: E0, time: "2026-04-17T09:00:00+00:00", kind: user_message, from: Ann, body: hello}
  1:
    - {id: E1, time: "2026-04-18T09:00:00+00:00", kind: user_message, from: Ann, body: again}
"""

CHECKS = """
from vibelife_env.checks import CheckSet
checks = CheckSet()

@checks.stage(0, weight=1)
def s0_replied(ctx):
    return bool(ctx.reply(0))

CHECKS = checks
"""


def write_bundle(root: Path, files: dict[str, str | None], name: str = "mini") -> Path:
    """A minimal bundle under ``root/test/<name>``; ``files`` adds, replaces or (``None``) drops files."""
    base = {"task.toml": TOML, "event.yaml": EVENTS, "checks.py": CHECKS, "workspace/USER.md": "# Ann\n"}
    base.update(files)
    bundle = root / "test" / name
    for rel, text in base.items():
        if text is None:
            continue
        path = bundle / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return bundle


def checks_of(bundle: Path):
    return load_checks(load_task(bundle))


def run_check(bundle: Path, check_id: str, stage: int | None = None, replies: dict[int, str] | None = None):
    task = load_task(bundle)
    record = EpisodeRecord()
    for s, text in (replies or {}).items():
        record.add_reply(s, text)
    world = World(task.images, task.workspace_files, task.start_time)
    check = next(c for c in load_checks(task) if c.id == check_id)
    return check.fn(CheckContext(world, record, stage))


# ------------------------------------------------------------------ package names
def test_package_names_are_stable_unique_and_private(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert bundle_package(a) == bundle_package(tmp_path / "x" / ".." / "a")
    assert bundle_package(a) != bundle_package(b) and bundle_package(a).startswith(PACKAGE_PREFIX)
    assert bundle_package(a).isidentifier()
    assert bundle_module_name(a, "rubrics/stage_0.py") == f"{bundle_package(a)}.rubrics.stage_0"
    assert bundle_module_name(a, "rubrics/__init__.py") == f"{bundle_package(a)}.rubrics"
    for bad in ("../x.py", "/etc/x.py", "notes.md"):
        with pytest.raises(TaskLoadError, match=r"\.py file inside the bundle"):
            bundle_module_name(a, bad)


def test_relative_imports_inside_a_bundle(tmp_path):
    bundle = write_bundle(
        tmp_path,
        {
            "_helpers.py": "GREETING = 'hello'\n",
            "_more/__init__.py": "",
            "_more/deep.py": "from .._helpers import GREETING\nLOUD = GREETING.upper()\n",
            "checks.py": """
                from vibelife_env.checks import CheckSet
                from ._helpers import GREETING
                from ._more.deep import LOUD
                checks = CheckSet()

                @checks.stage(0, weight=1)
                def s0_greets(ctx):
                    return GREETING in ctx.reply(0) and LOUD == "HELLO"

                CHECKS = checks
            """,
            "rubrics/_shared.py": "WORD = 'again'\n",
            "rubrics/stage_1.py": """
                from ._shared import WORD
                from .. import _helpers

                def replied_again(env):
                    text = env.workspace.fs.read_file("/terrarium/agent_responses/stage_1.txt").decode()
                    return WORD in text and _helpers.GREETING == "hello"

                CHECKS = [("s1_again", replied_again, 2)]
            """,
            "oracle.py": """
                from vibelife_env.agents import ScriptedAgent
                from ._helpers import GREETING

                class Oracle(ScriptedAgent):
                    def on_E0(self, text):
                        yield self.reply(GREETING)
            """,
        },
    )
    assert {c.id for c in checks_of(bundle)} == {"s0_greets", "s1_again"}
    assert run_check(bundle, "s0_greets", 0, {0: "hello Ann"}) is True
    assert run_check(bundle, "s1_again", 1, {0: "hello", 1: "again?"}) is True
    pkg = bundle_package(bundle)
    helpers = sys.modules[f"{pkg}._helpers"]
    assert import_bundle_module(bundle, "_helpers.py") is helpers  # imported once, shared by the bundle's files
    assert load_oracle(load_task(bundle)).act({"messages": []}, {"event_id": "E0"})["reply"] == "hello"


def test_same_named_helpers_of_two_bundles_do_not_share_state(tmp_path):
    def bundle(name: str) -> Path:
        return write_bundle(
            tmp_path,
            {
                "_helpers.py": f"NAME = {name!r}\nSEEN = []\n",
                "checks.py": """
                    from vibelife_env.checks import CheckSet
                    from . import _helpers
                    checks = CheckSet()

                    @checks.stage(0, weight=1)
                    def s0_mine(ctx):
                        _helpers.SEEN.append(ctx.reply(0))
                        return ctx.reply(0) == _helpers.NAME

                    CHECKS = checks
                """,
            },
            name=name,
        )

    a, b = bundle("alpha"), bundle("beta")
    assert run_check(a, "s0_mine", 0, {0: "alpha"}) and run_check(b, "s0_mine", 0, {0: "beta"})
    assert not run_check(b, "s0_mine", 0, {0: "alpha"})
    helpers_a, helpers_b = import_bundle_module(a, "_helpers.py"), import_bundle_module(b, "_helpers.py")
    assert helpers_a is not helpers_b
    assert helpers_a.SEEN == ["alpha"] and helpers_b.SEEN == ["beta", "alpha"]


def test_root_init_and_runner_are_never_executed(tmp_path):
    bundle = write_bundle(tmp_path, {"__init__.py": "raise RuntimeError('bundle root imported')\n"})
    assert [c.id for c in checks_of(bundle)] == ["s0_replied"]


# ------------------------------------------------------------------ errors that name file and field
@pytest.mark.parametrize(
    ("files", "where", "message"),
    [
        ({"checks.py": "CHECKS = 3\n"}, "checks.py: CHECKS", "expected a CheckSet or a list of Check"),
        ({"checks.py": "CHECKS = [1, 2]\n"}, "checks.py: CHECKS", "expected a CheckSet or a list of Check"),
        ({"checks.py": "def broken(:\n"}, "checks.py", "import failed: SyntaxError"),
        ({"checks.py": "from ._missing import X\n"}, "checks.py", "import failed: ModuleNotFoundError"),
        ({"checks.py": "from ._bad import X\n", "_bad.py": "X = (\n"}, "_bad.py", "import failed: SyntaxError"),
        ({"checks.py": CHECKS.replace("stage(0,", "stage(7,")}, "s0_replied", "stage 7 does not exist"),
        ({"checks.py": None}, "mini", "defines no checks"),
        ({"checks.py": None, "rubrics/stage_7.py": "CHECKS = []\n"}, "stage_7.py", "stage 7 does not exist"),
        ({"rubrics/stage_1.py": "X = 1\n"}, "stage_1.py: CHECKS", "missing or not a list"),
        (
            {"rubrics/final.py": "CHECKS = [('f', 'not callable', 1)]\n"},
            "final.py: CHECKS[0]",
            "expected (id, function, weight)",
        ),
        ({"rubrics/final.py": "CHECKS = [('f', len)]\n"}, "final.py: CHECKS[0]", "expected (id, function, weight)"),
        (
            {"rubrics/final.py": "CHECKS = [('f', len, 'heavy')]\n"},
            "final.py: CHECKS[0]",
            "weight 'heavy' is not usable",
        ),
        ({"rubrics/final.py": "CHECKS = [('s0_replied', len, 1)]\n"}, "mini: checks", "s0_replied"),
        ({"rubrics/cross_stage.py": "raise ValueError('bad rubric')\n"}, "cross_stage.py", "ValueError: bad rubric"),
    ],
)
def test_malformed_check_modules_name_file_and_field(tmp_path, files, where, message):
    bundle = write_bundle(tmp_path, files)
    with pytest.raises(TaskLoadError) as err:
        checks_of(bundle)
    text = str(err.value)
    assert where in text and message in text, text


def test_rubric_helpers_and_unknown_files_are_not_tiers(tmp_path):
    bundle = write_bundle(
        tmp_path,
        {
            "checks.py": None,
            "rubrics/_helpers.py": "CHECKS = 'ignored'\n",
            "rubrics/notes.py": "CHECKS = 'ignored'\n",
            "rubrics/stage_0.py": "CHECKS = [('s0', lambda env: 'email_mock' not in env, 1.5)]\n",
            "rubrics/tool_quality.py": "CHECKS = [('t0', lambda env: True, 1)]\n",
        },
    )
    suite = checks_of(bundle)
    assert [(c.id, c.tier, c.stage, c.weight) for c in suite] == [
        ("s0", "stage", 0, 1.5),
        ("t0", "tool_quality", None, 1.0),
    ]
    assert run_check(bundle, "s0", 0) is True


def test_rubrics_run_on_the_release_env(tmp_path):
    bundle = write_bundle(
        tmp_path,
        {"rubrics/final.py": "CHECKS = [('f_env', lambda env: env, 1)]\n"},
    )
    env = run_check(bundle, "f_env")
    assert isinstance(env, RubricEnv) and "notification_hub_mock" in env


# ------------------------------------------------------------------ oracles and their ablations
ORACLE = """
from vibelife_env.agents import ScriptedAgent

class Oracle(ScriptedAgent):
    def on_E0(self, text):
        yield self.reply(self._answer())

    def _answer(self):
        return "right"

class Careless(Oracle):
    def _answer(self):
        return "wrong"

ABLATIONS = {ABLATIONS}
"""


def test_oracle_ablations_are_subclasses(tmp_path):
    task = load_task(write_bundle(tmp_path, {"oracle.py": ORACLE.replace("{ABLATIONS}", "{'careless': Careless}")}))
    classes = oracle_classes(task)
    assert list(classes) == ["oracle", "careless"] and issubclass(classes["careless"], classes["oracle"])
    careless = load_oracle(task, "careless")
    assert careless.name == "careless"
    assert careless.act({"messages": []}, {"event_id": "E0"})["reply"] == "wrong"
    assert load_oracle(task).act({"messages": []}, {"event_id": "E0"})["reply"] == "right"
    with pytest.raises(ValueError, match="no variant 'stale'; it defines: oracle, careless"):
        load_oracle(task, "stale")


@pytest.mark.parametrize(
    ("source", "field"),
    [
        (ORACLE.replace("{ABLATIONS}", "['careless']"), "ABLATIONS"),
        (ORACLE.replace("{ABLATIONS}", "{'careless': ScriptedAgent}"), "ABLATIONS['careless']"),
        (ORACLE.replace("{ABLATIONS}", "{'oracle': Careless}"), "ABLATIONS['oracle']"),
        ("Oracle = 3\n", "Oracle"),
    ],
)
def test_malformed_oracle_module(tmp_path, source, field):
    task = load_task(write_bundle(tmp_path, {"oracle.py": source}))
    with pytest.raises(TaskLoadError, match=f"oracle.py: {field}".replace("[", r"\[")):
        load_oracle(task)


def test_task_without_oracle(tmp_path):
    with pytest.raises(ValueError, match=r"no oracle\.py"):
        load_oracle(load_task(write_bundle(tmp_path, {})))


# ------------------------------------------------------------------ import layering
PACKAGE = Path(vibelife_env.__file__).parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_time_deps(path: Path, known: set[str]) -> set[str]:
    """Package modules ``path`` imports when it is imported (not in functions or ``TYPE_CHECKING``)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    deps: set[str] = set()
    nodes: list[ast.stmt] = list(ast.parse(path.read_text(encoding="utf-8")).body)
    while nodes:
        node = nodes.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            nodes.extend(node.orelse)
            continue
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in ("body", "orelse", "finalbody", "handlers"):
                for child in getattr(node, block, []):
                    nodes.extend(child.body if isinstance(child, ast.ExceptHandler) else [child])
        elif isinstance(node, ast.Import):
            deps.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            deps.update(f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names)
    return {d for d in deps if d in known and d != name}


def _import_graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py") if "tasks" not in p.relative_to(PACKAGE).parts[:1]}
    return {name: _import_time_deps(path, set(files)) for name, path in files.items()}


def test_no_import_cycles_between_package_modules():
    graph = _import_graph()
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                cycle = [*stack[stack.index(dep) :], dep]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)


@pytest.mark.parametrize(
    ("lower", "upper"),
    [("vibelife_env.checks", "vibelife_env.release"), ("vibelife_env.task", "vibelife_env.checks")],
)
def test_lower_layers_do_not_import_upper_ones_at_import_time(lower, upper):
    graph = _import_graph()
    bad = {m: sorted(d for d in deps if d.startswith(upper)) for m, deps in graph.items() if m.startswith(lower)}
    assert not {m: d for m, d in bad.items() if d}


@pytest.mark.parametrize(
    "module",
    [
        "vibelife_env.task.loader",
        "vibelife_env.task.modules",
        "vibelife_env.bundle",
        "vibelife_env.bundle.checks",
        "vibelife_env.checks.context",
        "vibelife_env.release",
        "vibelife_env.release.runtime",
        "vibelife_env.release.rubric_env",
        "vibelife_env.agents.oracle",
    ],
)
def test_each_loader_module_imports_first_in_a_fresh_interpreter(module):
    out = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


def test_a_scripted_call_passes_a_tools_own_name_argument():
    from vibelife_env.agents import ScriptedAgent

    action = ScriptedAgent.call("banking__add_payee", name="Li Lei", account_no="6222")
    assert action["tool_calls"] == [
        {"name": "banking__add_payee", "arguments": {"name": "Li Lei", "account_no": "6222"}}
    ]
