"""Bundle loading, validation errors that name file and field, and mutation semantics."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from vibelife_env import TaskLoadError, VibeLifeEnv, load_task
from vibelife_env.registration import builtin_tasks_dir
from vibelife_env.task.mutations import apply_mutation
from vibelife_env.world import World

DEMO = builtin_tasks_dir() / "demo" / "errands"

TOML = """
[metadata]
name = "mini"
category = "test"
[scenario]
timezone = "Asia/Shanghai"
[dependencies]
servers = ["notification_hub"]
"""

SEED = "INSERT INTO official_accounts VALUES ('acc', 'Desk', 'travel', NULL);\n"

EVENTS = """
stages:
  0:
    - id: E0
      time: 2026-04-17T09:00:00+08:00
      type: user_message
      from: Li Wei
      body: hello
  1:
    - id: M1
      time: 2026-04-18T09:00:00+08:00
      kind: mutation
      apply:
        - server: notification_hub_mock
          table: notifications
          op: insert
          values: {notification_id: n1, user_id: u, source: s, type: t, title: Typhoon, created_at: "2026-04-18T01:00:00Z", read: 0}
      idempotency_key: mini:n1
      postconditions:
        - server: notification_hub
          table: notifications
          where: {notification_id: n1}
          expect: {title: Typhoon}
    - id: E1
      time: 2026-04-18T10:00:00+08:00
      kind: world
      source: weather
      body: check
"""

CHECKS = """
from vibelife_env.checks import CheckSet
checks = CheckSet()

@checks.stage(1, weight=2)
def s1_read(ctx):
    return ctx.sql("notification_hub", "SELECT read FROM notifications WHERE notification_id='n1'")[0]["read"] == 1

@checks.final(weight=1)
def f_boom(ctx):
    raise RuntimeError("boom")

CHECKS = checks
"""


def make_bundle(root: Path, **override: str) -> Path:
    files = {
        "task.toml": TOML,
        "event.yaml": EVENTS,
        "checks.py": CHECKS,
        "envs/notification_hub/mini/init.sql": SEED,
        "workspace/USER.md": "# Li Wei\n",
    }
    files.update(override)
    bundle = root / "test" / "mini"
    for rel, text in files.items():
        if text is None:
            continue
        p = bundle / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text), encoding="utf-8")
    return bundle


def test_demo_bundle_loads():
    task = load_task(DEMO)
    assert task.id == "demo/errands" and task.services == ["email", "calendar", "notification_hub"]
    assert [s.index for s in task.stages] == [0, 1, 2]
    assert len(task.checks) == 10 and task.workspace_files["USER.md"].startswith("# Chen Jie")


def test_type_and_kind_spellings_and_row_mutation(tmp_path):
    bundle = make_bundle(tmp_path)
    env = VibeLifeEnv(bundle)
    obs, info = env.reset(seed=0)
    assert info["event_kind"] == "user_message"
    obs, reward, *_, info = env.step({"reply": ""})
    assert info["mutations_applied"] == ["M1"] and info["event_id"] == "E1"
    env.step({"tool_calls": [{"name": "notification_hub__mark_read", "arguments": {"notification_id": "n1"}}]})
    obs, reward, terminated, truncated, info = env.step({"reply": "ok"})
    assert terminated and reward == pytest.approx(2 / 3)
    assert info["check_errors"] == ["f_boom: RuntimeError: boom"]  # a raising check fails, never crashes
    assert info["score"] == pytest.approx(200 / 3)


def test_idempotency_and_postconditions(tmp_path):
    task = load_task(make_bundle(tmp_path))
    world = World(task.images, task.workspace_files, task.start_time, "Asia/Shanghai")
    mutation = task.stages[1].events[0]
    assert apply_mutation(world, mutation, task.root).status == "applied"
    digest = world.digest()
    assert apply_mutation(world, mutation, task.root).status == "already_applied"
    assert world.digest() == digest


def test_failed_postcondition_rolls_back(tmp_path):
    bad = EVENTS.replace("expect: {title: Typhoon}", "expect: {title: Sunshine}")
    task = load_task(make_bundle(tmp_path, **{"event.yaml": bad}))
    world = World(task.images, task.workspace_files, task.start_time, "Asia/Shanghai")
    digest = world.digest()
    outcome = apply_mutation(world, task.stages[1].events[0], task.root)
    assert outcome.status == "failed" and "postconditions failed" in outcome.error
    assert world.digest() == digest


def test_strict_mutations_raise_in_the_env(tmp_path):
    bad = EVENTS.replace("expect: {title: Typhoon}", "expect: {title: Sunshine}")
    env = VibeLifeEnv(make_bundle(tmp_path, **{"event.yaml": bad}), strict_mutations=True)
    env.reset(seed=0)
    with pytest.raises(Exception, match="M1"):
        env.step({"reply": ""})
    lenient = VibeLifeEnv(make_bundle(tmp_path / "b", **{"event.yaml": bad}))
    lenient.reset(seed=0)
    info = lenient.step({"reply": ""})[-1]
    assert info["mutation_errors"] and info["mutation_errors"][0].startswith("M1:")


@pytest.mark.parametrize(
    ("override", "where", "message"),
    [
        ({"task.toml": None}, "task.toml", "missing task.toml"),
        ({"task.toml": "[metadata\nname='x'"}, "task.toml", "invalid TOML"),
        ({"task.toml": TOML.replace('"notification_hub"', '"teleport"')}, "dependencies.servers[0]", "unknown service"),
        ({"task.toml": TOML.replace("Asia/Shanghai", "Mars/Olympus")}, "scenario.timezone", "unknown time zone"),
        ({"event.yaml": "stages: [1, 2"}, "event.yaml: line", "invalid YAML"),
        ({"event.yaml": "stages: []"}, "stages", "expected a mapping"),
        (
            {"event.yaml": EVENTS.replace("type: user_message", "type: telepathy")},
            "stages.0[0].kind",
            "Input should be",
        ),
        (
            {"event.yaml": EVENTS.replace("2026-04-17T09:00:00+08:00", "2026-04-17T09:00:00")},
            "stages.0[0].time",
            "UTC offset",
        ),
        ({"event.yaml": EVENTS.replace("id: E1", "id: E0")}, "stages.1[1].id", "duplicate event id"),
        ({"event.yaml": EVENTS.replace("from: Li Wei", "form: Li Wei")}, "stages.0[0].form", "Extra inputs"),
        (
            {"event.yaml": EVENTS.replace("server: notification_hub_mock", "server: banking")},
            "stages.1[0].apply[0].server",
            "not enabled",
        ),
        (
            {"event.yaml": EVENTS.replace("op: insert", "op: insert\n          sql_file: nope.sql")},
            "stages.1[0].apply[0].table",
            "Extra inputs",
        ),
        ({"event.yaml": EVENTS.replace("op: insert", "op: teleport")}, "stages.1[0].apply[0].op", "Input should be"),
        (
            {"event.yaml": EVENTS.replace("table: notifications\n          op: insert", "frobnicate: 1")},
            "stages.1[0].apply[0]",
            "an operation needs one of",
        ),
        ({"checks.py": CHECKS.replace("stage(1,", "stage(7,")}, "s1_read", "stage 7 does not exist"),
        ({"checks.py": "CHECKS = 3\n"}, "CHECKS", "expected a CheckSet"),
        ({"checks.py": None}, "mini", "defines no checks"),
        (
            {"envs/notification_hub/mini/init.sql": "INSERT INTO nowhere VALUES (1);"},
            "init.sql",
            "no such table: nowhere",
        ),
    ],
)
def test_malformed_bundle_names_file_and_field(tmp_path, override, where, message):
    bundle = make_bundle(tmp_path, **override)
    if override.get("task.toml", "") is None:
        (bundle / "task.toml").unlink(missing_ok=True)
    if "checks.py" in override and override["checks.py"] is None:
        (bundle / "checks.py").unlink(missing_ok=True)
    with pytest.raises(TaskLoadError) as err:
        task = load_task(bundle)
        task.images  # noqa: B018  (seed errors surface when the images are built)
        task.checks  # noqa: B018
    assert where in str(err.value) and message in str(err.value)


def test_missing_bundle_directory(tmp_path):
    with pytest.raises(TaskLoadError, match="does not exist"):
        load_task(tmp_path / "nope")


def test_demo_copy_is_independent(tmp_path):
    copy = tmp_path / "demo" / "errands"
    shutil.copytree(DEMO, copy)
    assert load_task(copy).root == copy.resolve()


def test_checks_of_stages_closed_before_the_first_turn_pay_out_with_the_first_step(tmp_path):
    events = """
stages:
  0:
    - id: M0
      time: 2026-04-17T08:00:00+08:00
      kind: mutation
      apply:
        - {server: notification_hub, sql: "INSERT INTO official_accounts VALUES ('acc2', 'Desk 2', NULL, NULL);"}
  1:
    - id: E1
      time: 2026-04-18T10:00:00+08:00
      kind: world
      body: check
"""
    checks = """
from vibelife_env.checks import CheckSet
checks = CheckSet()

@checks.stage(0, weight=1)
def s0_seeded(ctx):
    return len(ctx.sql("notification_hub", "SELECT * FROM official_accounts")) == 2

@checks.stage(1, weight=3)
def s1_never(ctx):
    return False

CHECKS = checks
"""
    env = VibeLifeEnv(make_bundle(tmp_path, **{"event.yaml": events, "checks.py": checks}))
    _, info = env.reset(seed=0)
    assert [r["id"] for r in info["check_results"]] == ["s0_seeded"]
    _, reward, terminated, _, info = env.step({"reply": ""})
    assert terminated and reward == pytest.approx(0.25) and info["score"] == pytest.approx(25.0)
