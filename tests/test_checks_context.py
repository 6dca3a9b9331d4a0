"""The check API (:class:`CheckContext`) and the release rubric ``env`` built over it (:class:`RubricEnv`)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from vibelife_env import load_task
from vibelife_env.checks import CheckContext, EpisodeRecord
from vibelife_env.checks.context import QUOTE_MARKER
from vibelife_env.registration import builtin_tasks_dir
from vibelife_env.release.rubric_env import Capability, RubricEnv, bind_rubric
from vibelife_env.world import World

DEMO = builtin_tasks_dir() / "demo" / "errands"  # email, calendar, notification_hub


@pytest.fixture(scope="module")
def task():
    return load_task(DEMO)


@pytest.fixture
def world(task) -> World:
    return World(task.images, task.workspace_files, task.start_time, task.meta.timezone)


def _call(stage: int, name: str, ok: bool = True, **args) -> dict:
    server, _, tool = name.partition("__")
    result = {"ok": 1} if ok else {"error": "nope", "code": "NOT_FOUND"}
    return {
        "id": f"c{stage}_{name}",
        "name": name,
        "server": server,
        "tool": tool,
        "args": args,
        "ok": ok,
        "result": result,
    }


@pytest.fixture
def record() -> EpisodeRecord:
    rec = EpisodeRecord()
    rec.add_call(0, _call(0, "email__get_emails", folder="INBOX"))
    rec.add_reply(0, "first turn")
    rec.add_call(0, _call(0, "calendar__create_event", ok=False, summary="x"))
    rec.add_reply(0, "second turn")
    rec.add_call(2, _call(2, "calendar__create_event", summary="y"))
    rec.add_reply(2, "stage two")
    return rec


def _sandboxed(world: World, record: EpisodeRecord, stage: int | None = None) -> CheckContext:
    """A context as the engine builds one: over a sandbox that ``close`` rolls back."""
    return CheckContext(world, record, stage, on_close=world.sandbox().close)


# ---------------------------------------------------------------- read-only guarantees
def test_writes_through_call_are_undone_on_close(world, record):
    before = world.digest()
    ctx = _sandboxed(world, record)
    sent = ctx.call("email", "send_email", to="a@example.com", subject="Hi", body="hello")
    assert "error" not in sent
    created = ctx.call(
        "calendar", "create_event", summary="Check", start="2026-05-06T10:00:00+08:00", end="2026-05-06T11:00:00+08:00"
    )
    assert "error" not in created
    assert [m["subject"] for m in ctx.sent_mail()] == ["Hi"]  # visible inside the pass
    ctx.close()
    ctx.close()  # idempotent
    assert world.digest() == before


def test_call_to_a_disabled_service_raises(world, record):
    ctx = _sandboxed(world, record)
    with pytest.raises(KeyError, match="banking"):
        ctx.call("banking", "list_accounts")
    ctx.close()


def test_sql_refuses_writes_and_leaves_the_service_writable(world, record):
    ctx = _sandboxed(world, record)
    count = ctx.sql("email", "SELECT COUNT(*) AS n FROM messages")[0]["n"]
    for statement in ("DELETE FROM messages", "UPDATE messages SET subject = 'x'", "DROP TABLE messages"):
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            ctx.sql("email", statement)
    assert ctx.sql("email", "SELECT COUNT(*) AS n FROM messages WHERE id > ?", (0,))[0]["n"] == count
    assert "error" not in ctx.call("email", "send_email", to="b@example.com", subject="S", body="b")
    ctx.close()


def test_context_is_only_the_check_api(world, record):
    ctx = CheckContext(world, record)
    for name in ("email_mock", "email", "workspace", "release_runtime"):
        assert not hasattr(ctx, name)
    with pytest.raises(TypeError):
        "email_mock" in ctx  # noqa: B015  (no emulated capability test)


# ---------------------------------------------------------------- accessors
def test_reply_trace_and_call_accessors(world, record):
    ctx = CheckContext(world, record, stage=2)
    assert ctx.stage == 2
    assert ctx.reply(0) == "first turn\n\nsecond turn"
    assert ctx.reply(1) == ""
    assert ctx.replies_until(0) == "first turn\n\nsecond turn"
    assert ctx.replies_until(2) == "first turn\n\nsecond turn\n\nstage two"
    assert [c["name"] for c in ctx.trace(0)] == ["email__get_emails", "calendar__create_event"]
    ctx.trace(0).clear()  # a copy
    assert len(ctx.trace(0)) == 2 and ctx.trace(5) == []
    assert len(ctx.calls()) == 3
    assert [c["ok"] for c in ctx.calls("calendar__create_event")] == [False, True]
    assert [c["args"] for c in ctx.calls("calendar__create_event", ok=True)] == [{"summary": "y"}]
    assert ctx.calls(ok=False)[0]["args"] == {"summary": "x"}
    ctx.calls().clear()
    assert len(ctx.calls()) == 3
    assert ctx.first_call_stage("calendar__create_event") == 2
    assert ctx.first_call_stage("calendar__create_event", ok=False) == 0
    assert ctx.first_call_stage("email__send_email") is None


def test_workspace_files_and_services(world, record, task):
    ctx = CheckContext(world, record)
    assert ctx.now == task.start_time
    assert ctx.has("email") and ctx.has("email_mock") and not ctx.has("banking")
    assert ctx.file("USER.md") == ctx.file("/workspace/USER.md") == task.workspace_files["USER.md"]
    assert ctx.file("missing.md") == "" and ctx.file("../escape") == ""
    assert ctx.file_exists("/terrarium/openclaw/workspace/USER.md") and not ctx.file_exists("../x")
    assert set(ctx.files) == set(task.workspace_files)
    with pytest.raises(TypeError):
        ctx.files["new.md"] = "x"  # type: ignore[index]


def test_sent_mail_separates_own_text_from_the_quote(world, record):
    ctx = _sandboxed(world, record)
    inbox = ctx.call("email", "get_emails", folder="INBOX")["emails"]
    ctx.call(
        "email", "send_email", to="ANN@Example.com, bo@example.com", subject="Plan", body="See you", cc="c@example.com"
    )
    ctx.call("email", "reply_email", email_id=inbox[0]["email_id"], body="Thanks, noted.")
    sent = ctx.sent_mail()
    assert [m["subject"] for m in sent][:1] == ["Plan"]
    assert sent[0]["to"] == ["ann@example.com", "bo@example.com"] and sent[0]["cc"] == ["c@example.com"]
    reply = sent[-1]
    assert reply["subject"].startswith("Re:")
    assert reply["own_body"].strip() == "Thanks, noted."
    assert QUOTE_MARKER in reply["body"] and QUOTE_MARKER not in reply["own_body"]
    ctx.close()


def test_sent_mail_is_empty_without_email():
    rec = EpisodeRecord()
    bare = World({}, {"a.md": "x"}, load_task(DEMO).start_time)
    assert CheckContext(bare, rec).sent_mail() == []


# ---------------------------------------------------------------- the release rubric env
def test_rubric_env_capabilities(world, record):
    ctx = _sandboxed(world, record)
    env = RubricEnv(ctx)
    assert "email_mock" in env and "workspace" in env and "banking_mock" not in env and 3 not in env
    assert list(env) == ["email_mock", "calendar_mock", "notification_hub_mock", "workspace"]
    cap = env.email_mock
    assert isinstance(cap, Capability) and env.email is cap  # one capability per service and pass
    assert cap.call_tool("get_emails", folder="INBOX")["emails"]
    assert {r["name"] for r in cap.state.folders} >= {"INBOX", "Sent"}
    with pytest.raises(AttributeError):
        cap.state.no_such_table  # noqa: B018
    assert getattr(env, "banking_mock", None) is None
    assert getattr(env, "_rubric_cache", "unset") == "unset"  # rubrics probe and set their own caches
    env._rubric_cache = {"k": 1}
    assert env._rubric_cache == {"k": 1}
    ctx.close()


def test_rubric_env_reads_workspace_before_the_context_closes(world, record, task):
    """The old emulation raised ``AttributeError: no service 'release_runtime'`` here."""
    ctx = _sandboxed(world, record)
    fs = RubricEnv(ctx).workspace.fs
    for spelling in ("USER.md", "/workspace/USER.md", "/terrarium/openclaw/workspace/USER.md"):
        assert fs.read_file(spelling) == task.workspace_files["USER.md"].encode()
        assert fs.exists(spelling)
    assert not fs.exists("nope.md")
    with pytest.raises(FileNotFoundError):
        fs.read_file("nope.md")
    assert fs.list_files() == sorted(task.workspace_files)
    ctx.close()


def test_rubric_env_stage_files_without_a_runner(world, record):
    env = RubricEnv(CheckContext(world, record, stage=0))
    fs = env.workspace.fs
    assert fs.read_file("/terrarium/agent_responses/stage_0.txt").decode() == "first turn\n\nsecond turn"
    rows = json.loads(fs.read_file("terrarium/agent_traces/stage_0.json"))
    assert [r["name"] for r in rows] == ["email__get_emails", "calendar__create_event"]
    assert not fs.exists("/terrarium/agent_responses/stage_2.txt")  # not closed when stage 0 is scored
    with pytest.raises(FileNotFoundError):
        fs.read_file("/terrarium/agent_traces/stage_2.json")
    end = RubricEnv(CheckContext(world, record)).workspace.fs  # end tiers: every stage with a record
    assert end.exists("/terrarium/agent_traces/stage_2.json") and not end.exists("/terrarium/agent_traces/stage_1.json")


def test_rubric_env_is_one_per_pass_and_renders_each_file_once(world, record):
    ctx = CheckContext(world, record, stage=2)
    env = RubricEnv.of(ctx)
    assert RubricEnv.of(ctx) is env
    first = env.stage_file("trace", 0)
    assert env.stage_file("trace", 0) is first
    with pytest.raises(ValueError, match="kind"):
        env.stage_file("audit", 0)
    ctx.close()
    assert RubricEnv.of(ctx) is not env  # a new pass starts clean


def test_bind_rubric_gives_release_functions_the_env(world, record):
    seen = []

    def rubric(env):
        """Doc of the rubric."""
        seen.append(env)
        return env.workspace.fs.exists("USER.md") and "email_mock" in env

    check = bind_rubric(rubric, None)
    assert check.__name__ == "rubric" and check.__wrapped__ is rubric
    ctx = CheckContext(world, record)
    assert check(ctx) is True and check(ctx) is True
    assert isinstance(seen[0], RubricEnv) and seen[0] is seen[1] and seen[0].context is ctx
