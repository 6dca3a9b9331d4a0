"""Public-release bundles: static runner profile, replay, rubric runtime, scoring.

Uses a synthetic bundle in the release layout (``tests/data/bundles``). Its runner writes
no tool trace, so the tests that need one score a copy under ``tmp_path`` whose
``task.py`` gets a trace extractor in one of the release's styles (:data:`EXTRACTORS`;
never imported, read as the release's are). The last test runs over a real checkout
when ``VIBELIFE_BUNDLES`` points to one.
"""

from __future__ import annotations

import ast
import copy
import importlib
import json
import os
import shutil
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import vibelife_env
from vibelife_env.actions import tool_result
from vibelife_env.agents.base import NullAgent, PollingAgent
from vibelife_env.errors import TaskLoadError
from vibelife_env.release import extract_renderer, parsed
from vibelife_env.release.parsed import RUBRIC_JSON, parse_scope
from vibelife_env.release.purity import PackageMemos, pure_functions, pure_memo
from vibelife_env.release.rubric_env import Capability, RubricEnv, RubricFS
from vibelife_env.release.runtime import RESPONSE_SEPARATOR, ReleaseRuntime
from vibelife_env.release.trace import read_trace_shape, trace_rows
from vibelife_env.rollout import run_episode

DATA = Path(__file__).parent / "data" / "bundles"
TEA = DATA / "chores" / "tea_party"
TEA_ID = "VibeLife-chores-tea-party-v0"

_HEAD = """
TRACE_DIR = "/terrarium/agent_traces"


def _field(obj, name, default=None):
    return obj.get(name, default) if isinstance(obj, dict) else getattr(obj, name, default)
"""
#: Trace extractors in the styles of the release runners (appended to the copy's task.py).
EXTRACTORS = {
    # the handbook runtime's keys, with the result as our decoded object
    "plain": _HEAD
    + """
def _extract_tool_calls(messages, event_id=None):
    calls = []
    for blk in messages:
        calls.append({
            "event_id": event_id, "id": _field(blk, "id"), "type": _field(blk, "type"),
            "name": _field(blk, "name"), "arguments": _field(blk, "input", {}),
            "result": _decode_tool_value(_field(blk, "content", None)), "success": True, "error": None,
        })
    return calls
""",
    # garage / shopping: ``succeeded``, not ``success``
    "succeeded": _HEAD
    + """
def _extract_tool_calls(messages, event_id=None):
    results = {_field(b, "tool_use_id"): _decode_tool_value(_field(b, "content", None)) for b in messages}
    calls = []
    for blk in messages:
        calls.append({
            "event_id": event_id, "id": _field(blk, "id"), "name": _field(blk, "name"),
            "arguments": _jsonable(_field(blk, "arguments", {})), "result": results.get(_field(blk, "id")),
            "succeeded": True,
        })
    return calls
""",
    # factory: a tool_call row and a tool_result row holding the raw content
    "paired": _HEAD
    + """
def _extract_full_trace(messages, event_id=None):
    trace = []
    for blk in messages:
        if _field(blk, "type") == "tool_use":
            trace.append({
                "event_id": event_id, "role": "assistant", "type": "tool_call", "id": _field(blk, "id"),
                "name": "", "attempted_name": _field(blk, "name"), "arguments": _field(blk, "input", {}),
                "paired": False, "success": False,
            })
        else:
            result = _jsonable(_field(blk, "content", _field(blk, "output", "")))
            trace.append({
                "event_id": event_id, "role": "user", "type": "tool_result", "id": _field(blk, "tool_use_id"),
                "name": "", "attempted_name": "", "result": result, "paired": False, "success": False,
            })
    return trace


def _extract_tool_calls(messages, event_id=None):
    return _extract_full_trace(messages, event_id)
""",
}


@pytest.fixture(scope="module")
def ids() -> list[str]:
    return vibelife_env.register_bundles(DATA)


def _reply(text: str, calls: list[dict] | None = None) -> dict:
    return {"tool_calls": calls or [], "reply": text}


def _bundle(root: Path, extractor: str | None = "plain", final: str | None = None) -> Path:
    """A copy of the tea-party bundle under ``root`` whose runner writes a trace in the
    ``extractor`` style (:data:`EXTRACTORS`; ``None``: no trace, as the original), with
    ``final`` as its ``rubrics/final.py`` when given."""
    bundle = root / "chores" / "tea_party"
    if not bundle.exists():
        shutil.copytree(TEA, bundle)
        if extractor is not None:
            task_py = bundle / "task.py"
            task_py.write_text(task_py.read_text(encoding="utf-8") + EXTRACTORS[extractor], encoding="utf-8")
        if final is not None:
            (bundle / "rubrics" / "final.py").write_text(final, encoding="utf-8")
    return bundle


@pytest.fixture(scope="module")
def tea(ids, tmp_path_factory) -> Path:
    """The tea-party bundle with a runner that writes the handbook-style trace."""
    return _bundle(tmp_path_factory.mktemp("tea"))


def _play(task_dir: Path, steps: list[dict]) -> dict:
    """Run ``steps`` on the bundle at ``task_dir``; the last ``info``."""
    env = gym.make(TEA_ID, task_dir=str(task_dir))
    env.reset(seed=0)
    info: dict = {}
    for action in steps:
        _, _, terminated, _, info = env.step(action)
    assert terminated
    return info


def _passed(info: dict) -> dict[str, bool]:
    return {c["id"]: bool(c["passed"]) for c in info["checks"]}


def test_registers_and_make_passes_task_dir(ids):
    assert TEA_ID in ids
    env = gym.make(TEA_ID)
    assert env.unwrapped.task.root == TEA.resolve()
    other = gym.make(TEA_ID, task_dir=str(TEA))  # gym forwards task_dir to VibeLifeEnv
    assert other.unwrapped.task.id == "chores/tea_party"


def test_replay_renders_as_the_runner_and_skips_what_it_skips(ids):
    env = gym.make(TEA_ID).unwrapped
    obs, info = env.reset(seed=0)
    assert "你是 Mei 的茶会助理。" in info["system_prompt"]
    shown = [obs["messages"][-1]["content"]]
    done = False
    while not done:
        obs, _, done, _, info = env.step(_reply(""))
        shown += [m["content"] for m in obs["messages"] if m["role"] == "user"]
    assert shown == [
        "[来自 mei 的消息 @ 2026-03-02T09:00:00+08:00]\n帮我准备周三的茶会。",  # (time, id) order
        "[通知 @ 2026-03-02T10:00:00+08:00，来源 提醒中心]\nCake sale reminder.",  # label table
        "[来自 mei 的消息 @ 2026-03-03T09:00]\n茶会时间有变化吗？",  # the raw time, as written
        "[世界事件，定时触发 @ 2026-03-04T09:00:00+08:00，来源 weather]\nLight rain expected at 16:00.",
    ]  # the silent world event and the cron_fire this runner does not handle never open a turn
    event = env.world.services["calendar"].call("get_event", {"calendar_id": "primary", "event_id": "evt_tea"})
    assert event["start"]["dateTime"].startswith("2026-03-04T16:00")
    assert env.world.workspace.read("guests.md").startswith("# Guest list")
    assert env.world.applied_keys == {"tea:move", "tea:notice"}  # alias 'hub' resolved; second move skipped


def test_rubrics_score_and_report_errors(tea):
    env = gym.make(TEA_ID, task_dir=str(tea))
    env.reset(seed=0)
    get = {"name": "calendar__get_event", "arguments": {"calendar_id": "primary", "event_id": "evt_tea"}}
    note = {"name": "workspace__write_file", "arguments": {"path": "notes.md", "content": "16:00 开始，可能下雨"}}
    steps = [
        _reply("", [get]),
        _reply("茶会已记下。"),
        _reply("时间改到 16:00 了。"),
        _reply("已更新笔记。", [note]),
    ]
    rewards, errors = [], []
    for action in steps:
        _, reward, terminated, _, info = env.step(action)
        rewards.append(reward)
        errors += info["check_errors"]
    assert terminated
    passed = {c["id"] for c in info["checks"] if c["passed"]}
    assert passed == {
        "s0_replied",
        "s0_read_calendar",
        "s1_sees_move",
        "s1_guests_file",
        "s2_notes",
        "x_hub_untouched",
        "f_async_calendar",
        "t_few_calls",
    }
    assert errors == ["f_broken: RuntimeError: this rubric is broken on purpose"]
    assert info["score"] == pytest.approx(100 * 11 / 12)
    assert sum(rewards) == pytest.approx(11 / 12)


def test_trace_and_response_files_have_the_release_shape(tea):
    env = gym.make(TEA_ID, task_dir=str(tea)).unwrapped
    env.reset(seed=0)
    call = {"name": "calendar__get_event", "arguments": {"calendar_id": "primary", "event_id": "x"}}
    env.step({"tool_calls": [call], "reply": None})  # the turn stays open
    env.step(_reply("第一条"))
    env.step(_reply("第二条"))
    with env.episode.check_context(0) as ctx:
        _assert_release_files(RubricEnv(ctx, ReleaseRuntime.for_task(env.task)))


def _assert_release_files(env):
    rows = json.loads(env.workspace.fs.read_file("/terrarium/agent_traces/stage_0.json"))
    assert rows[0]["event_id"] == "e0_hello" and rows[0]["name"] == "calendar__get_event"
    assert rows[0]["arguments"] == {"calendar_id": "primary", "event_id": "x"} and rows[0]["success"] is False
    text = env.workspace.fs.read_file("/terrarium/agent_responses/stage_0.txt").decode()
    assert text == "第一条\n---\n第二条"
    assert not env.workspace.fs.exists("/terrarium/agent_responses/stage_1.txt")


def test_stage_files_are_rendered_once_per_episode(tea):
    """A closed stage's record never changes: later passes reuse its rendered trace file."""
    env = gym.make(TEA_ID, task_dir=str(tea)).unwrapped
    env.reset(seed=0)
    call = {"name": "calendar__get_event", "arguments": {"calendar_id": "primary", "event_id": "evt_tea"}}
    env.step({"tool_calls": [call], "reply": None})
    env.step(_reply("好的"))
    runtime = ReleaseRuntime.for_task(env.task)
    first = runtime.stage_file(env.record.copy(), "trace", 0)
    assert runtime.stage_file(env.record.copy(), "trace", 0) is first  # another pass's copy of the record
    assert json.loads(first)[0]["name"] == "calendar__get_event"
    grown = env.record.copy()
    grown.add_call(0, {**grown.traces[0][0], "id": "late"})
    grown.add_reply(0, "再查了一次")
    assert json.loads(runtime.stage_file(grown, "trace", 0))[-1]["id"] == "late"  # a changed stage re-renders
    with env.episode.check_context(0) as ctx:
        env_a = RubricEnv.of(ctx, runtime)
        assert env_a.stage_file("trace", 0) == env_a.stage_file("trace", 0)


GET = {"name": "calendar__get_event", "arguments": {"calendar_id": "primary", "event_id": "evt_tea"}}
MISSING = {"name": "calendar__get_event", "arguments": {"calendar_id": "primary", "event_id": "nope"}}


def _stage0_rows(task_dir: Path) -> tuple[list[dict], dict]:
    """The stage-0 trace rows after one turn with a good and a failing call, and the good call's result."""
    env = gym.make(TEA_ID, task_dir=str(task_dir)).unwrapped
    env.reset(seed=0)
    env.step({"tool_calls": [GET, MISSING], "reply": "好的"})
    with env.episode.check_context(0) as ctx:
        rows = json.loads(
            RubricEnv(ctx, ReleaseRuntime.for_task(env.task)).workspace.fs.read_file(
                "/terrarium/agent_traces/stage_0.json"
            )
        )
    return rows, env.record.traces[0][0]["result"]


SUCCEEDED_FINAL = """
import json


def f_call_succeeded(env):
    \"\"\"As the shopping helpers count a call: only when ``succeeded is True``.\"\"\"
    rows = json.loads(env.workspace.fs.read_file("/terrarium/agent_traces/stage_0.json"))
    return any(r["name"].endswith("get_event") and r.get("succeeded") is True for r in rows)


CHECKS = [("f_call_succeeded", f_call_succeeded, 1.0)]
"""


def test_trace_rows_carry_exactly_the_runners_keys(tmp_path):
    """A runner that writes ``succeeded`` gets ``succeeded`` (before, every call read as failed)."""
    bundle = _bundle(tmp_path, "succeeded", final=SUCCEEDED_FINAL)
    rows, result = _stage0_rows(bundle)
    assert [list(r) for r in rows] == [["event_id", "id", "name", "arguments", "result", "succeeded"]] * 2
    good, bad = rows
    assert good["succeeded"] is True and good["result"] == result and good["event_id"] == "e0_hello"
    assert bad["succeeded"] is False and bad["name"] == "calendar__get_event"
    info = _play(bundle, [_reply("", [GET]), _reply("茶会已记下。"), _reply(""), _reply("")])
    assert _passed(info)["f_call_succeeded"]


def test_paired_trace_stores_the_raw_tool_result(tmp_path):
    rows, result = _stage0_rows(_bundle(tmp_path, "paired"))
    assert [(r["type"], r["id"]) for r in rows] == [
        ("tool_call", rows[0]["id"]),
        ("tool_result", rows[0]["id"]),
        ("tool_call", rows[2]["id"]),
        ("tool_result", rows[2]["id"]),
    ]
    call, res, bad_call, bad_res = rows
    assert list(call) == ["event_id", "role", "type", "id", "name", "attempted_name", "arguments", "paired", "success"]
    assert list(res) == ["event_id", "role", "type", "id", "name", "attempted_name", "result", "paired", "success"]
    assert isinstance(res["result"], str) and json.loads(res["result"]) == result  # the JSON text, as returned
    assert call["name"] == res["name"] == "calendar__get_event" and res["success"] is True
    assert bad_call["name"] == bad_res["name"] == "" and bad_call["attempted_name"] == "calendar__get_event"
    assert bad_res["success"] is False and "error" in json.loads(bad_res["result"])


def test_trace_shape_with_unknown_keys_is_reported(tmp_path):
    bundle = _bundle(tmp_path, "plain")
    task_py = bundle / "task.py"
    task_py.write_text(
        task_py.read_text(encoding="utf-8").replace('"error": None', '"latency_ms": 0'), encoding="utf-8"
    )
    with pytest.raises(TaskLoadError, match="latency_ms"):
        gym.make(TEA_ID, task_dir=str(bundle))


HANDBOOK = """
TRACE_DIR = "/terrarium/agent_traces"


def _tool_call_record(obj, event_id):
    return {"event_id": event_id, "id": _field(obj, "id"), "type": _field(obj, "type"), "name": _field(obj, "name"),
            "arguments": _redacted_jsonable(_field(obj, "arguments", {}))}


def _collect(messages):
    return {_field(m, "tool_use_id"): {"content": _redacted_jsonable(_field(m, "content", [])), "details": {}}
            for m in messages}


def extract_tool_records(messages, event_id=None):
    results = _collect(messages)
    return [{**_tool_call_record(m, event_id), "result": results.get(m.id), "success": True, "error": None}
            for m in messages]


def extract_tool_calls(messages, event_id=None):
    return extract_tool_records(messages, event_id)
"""
STRICT = """
TRACE_DIR = "/terrarium/agent_traces"


def _extract_full_trace(messages, event_id=None):
    trace = []
    for block in messages:
        if block.type == "tool_use":
            trace.append({"event_id": event_id, "role": "assistant", "type": "tool_call", "id": block.id, "name": "",
                          "attempted_name": block.name, "arguments": block.input, "paired": False,
                          "pair_error": None, "success": None})
        else:
            result = _jsonable(_field(block, "content", ""))
            trace.append({"event_id": event_id, "role": "user", "type": "tool_result", "id": block.tool_use_id,
                          "name": "", "attempted_name": "", "result": result, "paired": False, "pair_error": None,
                          "attempted_success": _result_success(result), "success": False})
    return trace
"""


def test_trace_shapes_of_the_handbook_and_strict_paired_runners():
    """The handbook's ``{**call, ...}`` rows hold the result message payload; the paired
    runner that records ``pair_error`` names and marks only successful pairs."""
    good = {"id": "c1", "name": "calendar__get_event", "args": {"event_id": "e"}, "ok": True, "result": {"e": "茶"}}
    bad = {**good, "id": "c2", "ok": False, "result": {"error": "no such event", "code": "NOT_FOUND"}}
    handbook = read_trace_shape([ast.parse(HANDBOOK)])
    assert handbook is not None and handbook.result_form == "payload"
    (row,) = trace_rows(handbook, "ev1", good)
    assert row == {
        "event_id": "ev1",
        "id": "c1",
        "type": "tool_use",
        "name": "calendar__get_event",
        "arguments": {"event_id": "e"},
        "result": {"content": '{"e": "茶"}', "details": {}},
        "success": True,
        "error": None,
    }
    assert trace_rows(handbook, "ev1", bad)[0]["error"] == "no such event"
    strict = read_trace_shape([ast.parse(STRICT)])
    assert strict is not None and strict.strict and strict.result_form == "raw"
    call, result = trace_rows(strict, "ev1", good)
    assert call["success"] is None and call["paired"] is True and call["pair_error"] is None
    assert result["success"] is True and result["attempted_success"] is True and result["result"] == '{"e": "茶"}'
    call, result = trace_rows(strict, "ev1", bad)
    assert call["name"] == result["name"] == "" and not call["paired"] and call["pair_error"] == "tool_failure"
    assert result["success"] is False and result["attempted_name"] == "calendar__get_event"
    assert read_trace_shape([ast.parse("def _render_event(ev):\n    return ''\n")]) is None  # writes no trace


CORPUS_FINAL = """
def f_corpus(env):
    \"\"\"As the litigation helpers read every stage reply.\"\"\"
    dir_path = "/terrarium/agent_responses"
    try:
        files = env.workspace.fs.list_dir(dir_path)
    except Exception:
        return False
    return "时间改到" in "\\n".join(env.workspace.fs.read_file(f"{dir_path}/{f}").decode() for f in files)


CHECKS = [("f_corpus", f_corpus, 1.0)]
"""


def test_fs_list_dir_and_a_runner_without_traces(ids, tmp_path):
    """``fs.list_dir`` lists directories as ``ls -1``; a runner that writes no trace has no trace files."""
    bundle = _bundle(tmp_path, None, final=CORPUS_FINAL)
    info = _play(bundle, [_reply("", [GET]), _reply("茶会已记下。"), _reply("时间改到 16:00 了。"), _reply("")])
    passed = _passed(info)
    assert passed["f_corpus"]  # the corpus was empty while list_dir was missing
    assert not passed["s0_read_calendar"] and not passed["t_few_calls"]  # no stage_N.json to read
    env = gym.make(TEA_ID, task_dir=str(bundle)).unwrapped
    env.reset(seed=0)
    env.step(_reply("第一条"))
    env.step(_reply("第二条"))
    with env.episode.check_context(0) as ctx:
        fs = RubricEnv(ctx, ReleaseRuntime.for_task(env.task)).workspace.fs
        assert (
            fs.list_dir("/terrarium/agent_responses") == fs.list_dir("/terrarium/agent_responses/") == ["stage_0.txt"]
        )
        assert fs.exists("/terrarium/agent_responses") and not fs.exists("/terrarium/agent_traces")
        with pytest.raises(FileNotFoundError):
            fs.list_dir("/terrarium/agent_traces")
        assert not fs.exists("/terrarium/agent_traces/stage_0.json")
        root = sorted({p.split("/")[0] for p in ctx.world.workspace.files})
        assert fs.list_dir("/terrarium/openclaw/workspace") == fs.list_dir("/workspace") == root
        assert fs.list_dir("/workspace/guests.md") == ["/workspace/guests.md"]  # ls -1 of a file
        with pytest.raises(FileNotFoundError):
            fs.list_dir("/terrarium/openclaw/workspace/workspace")
    with env.episode.check_context(None) as ctx:
        fs = RubricEnv(ctx, ReleaseRuntime.for_task(env.task)).workspace.fs
        assert fs.list_dir("/terrarium/agent_responses") == ["stage_0.txt", "stage_1.txt", "stage_2.txt"]


def test_capability_query_table_reads_a_whole_table(tea):
    env = gym.make(TEA_ID, task_dir=str(tea)).unwrapped
    env.reset(seed=0)
    with env.episode.check_context(0) as ctx:
        cap = RubricEnv(ctx).calendar_mock
        rows = cap.query_table("events")
        assert any(r["event_id"] == "evt_tea" for r in rows)
        assert cap.query_table("no_such_table") == []


def test_renderer_template_reads_other_runner_styles():
    source = """
def _render_event(ev):
    time = ev.get("time", "")
    kind = ev.get("kind", "")
    event_id = ev.get("id") or "unknown_event"
    if kind == "user_message":
        tag = f"[id={event_id}; Message from {ev.get('from') or 'user'} @ {time}]"
    else:
        tag = f"[{kind} @ {time}]"
    return f"{tag}\\n{ev.get('body', '') or ''}"
"""
    renderer = extract_renderer(source)
    assert renderer is not None
    out = renderer.render({"id": "a1", "kind": "user_message", "time": "t", "body": "hi"}, 0)
    assert out == "[id=a1; Message from user @ t]\nhi"
    with pytest.raises(ValueError, match="unsupported"):
        extract_renderer("def _render_event(ev):\n    return open(ev)\n")


# ------------------------------------------------------------- scoring speed, same results
def test_stage_files_are_parsed_once_per_pass(tea):
    env = gym.make(TEA_ID, task_dir=str(tea)).unwrapped
    env.reset(seed=0)
    env.step(_reply("好的", [GET]))
    path = "/terrarium/agent_traces/stage_0.json"
    with env.episode.check_context(0) as ctx:
        renv = RubricEnv(ctx, ReleaseRuntime.for_task(env.task))
        fs = renv.workspace.fs
        data = fs.read_file(path)
        assert isinstance(data, bytes) and data == fs.read_file(path) and data.decode() is fs.read_file(path).decode()
        assert RUBRIC_JSON.loads(data) == json.loads(data)  # outside a pass: parsed afresh
        assert RUBRIC_JSON.loads(data) is not RUBRIC_JSON.loads(data)
        with parse_scope(renv.parses):
            rows = RUBRIC_JSON.loads(data.decode("utf-8", errors="replace"))
            assert RUBRIC_JSON.loads(fs.read_file(path).decode("utf-8", errors="replace")) is rows
            assert RUBRIC_JSON.loads(fs.read_file(path)) == rows  # the bytes: parsed once too
            assert rows == json.loads(data) and renv.parses.parses == 2
            assert RUBRIC_JSON.dumps(rows[0], ensure_ascii=False) is RUBRIC_JSON.dumps(rows[0], ensure_ascii=False)
            assert RUBRIC_JSON.dumps(rows[0]) == json.dumps(rows[0])
            text = '[{"a": 1}]'
            assert RUBRIC_JSON.loads(text) is not RUBRIC_JSON.loads(text)  # not a stage file: not shared
        assert RUBRIC_JSON.JSONDecodeError is json.JSONDecodeError


MUTATING_FINAL = """
import json


def f_mutates(env):
    rows = json.loads(env.workspace.fs.read_file("/terrarium/agent_traces/stage_0.json"))
    rows[0]["seen"] = True
    return True


def f_copies(env):
    rows = json.loads(env.workspace.fs.read_file("/terrarium/agent_traces/stage_0.json"))
    row = dict(rows[0])
    row["seen"] = True
    return "seen" not in rows[0]


CHECKS = [("f_mutates", f_mutates, 1.0), ("f_copies", f_copies, 1.0)]
"""


def test_frozen_parses_catch_a_rubric_that_mutates_them(tmp_path, monkeypatch):
    """The debug mode (``VIBELIFE_FROZEN_PARSES=1``) makes shared parses read-only."""
    monkeypatch.setattr(parsed, "FROZEN", True)
    info = _play(
        _bundle(tmp_path, "plain", final=MUTATING_FINAL), [_reply("", [GET]), _reply(""), _reply(""), _reply("")]
    )
    assert _passed(info)["f_copies"] and not _passed(info)["f_mutates"]
    assert any(e.startswith("f_mutates: ParsedMutationError") for e in info["check_errors"])
    frozen = parsed.freeze([{"a": [1]}])
    for mutate in (lambda: frozen.append(1), lambda: frozen[0].update(b=2), lambda: frozen[0]["a"].sort()):
        with pytest.raises(parsed.ParsedMutationError):
            mutate()
    copied = copy.deepcopy(frozen)
    copied[0]["a"].append(2)
    assert type(copied) is list and copied == [{"a": [1, 2]}] and frozen == [{"a": [1]}]


PURE_SOURCE = """
import re

LIMIT = 3
_WORD = re.compile(r"[a-z]+")
SEEN = []
_COUNTER = 0


def norm(name):
    return re.sub(r"[^a-z0-9]+", "_", str(name or "").lower()).strip("_")


def words(text):
    return tuple(w for w in _WORD.findall(text) if len(w) >= LIMIT)


def listed(text):
    return [norm(w) for w in text.split()]


def cheap(x):
    return x


def remembers(text):
    SEEN.append(text)
    return norm(text)


def counts(text):
    global _COUNTER
    _COUNTER += 1
    return norm(text)


def reads_env(env, text):
    return norm(getattr(env, text))


def nested(value):
    return [nested(v) for v in value] if isinstance(value, list) else norm(str(value))
"""


def test_pure_helpers_are_chosen_from_source_and_memoized(tmp_path, monkeypatch):
    (tmp_path / "pure_mod.py").write_text(PURE_SOURCE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("pure_mod")
    assert pure_functions(module) == {"norm", "words", "listed"}  # cheap: nothing to save; nested: recursive
    calls = []
    original = module.norm
    module.norm = lambda name: calls.append(name) or original(name)  # count calls through the memo
    memo = pure_memo(lambda name: module.norm(name))
    assert memo("Workspace__Read-File") == memo("Workspace__Read-File") == "workspace_read_file" and len(calls) == 1
    assert memo(None) == "" and memo(1) == "1" and memo(True) == "true" and len(calls) == 4  # by type too
    memo(1.5), memo(1.5)  # floats are never cached
    memo("x" * 600), memo("x" * 600)  # nor long texts
    assert len(calls) == 8
    listed = pure_memo(module.listed)
    assert listed("a b") is not listed("a b")  # mutable results are not kept
    packages = PackageMemos()
    module.norm = original
    packages.install([module])
    assert module.norm is not original and module.norm.__wrapped__ is original
    assert set(packages.memos) == {"pure_mod.norm", "pure_mod.words", "pure_mod.listed"}
    assert module.words("the cat sat on a mat") == ("the", "cat", "sat", "mat")


CHECKOUT = os.environ.get("VIBELIFE_BUNDLES")


@pytest.mark.skipif(not CHECKOUT, reason="set VIBELIFE_BUNDLES to a VibeLifeBench checkout")
def test_real_checkout_runs_with_baselines():
    root = Path(CHECKOUT or ".")
    root = root / "eval_set" if (root / "eval_set").is_dir() else root
    ids = vibelife_env.register_bundles(root)
    assert ids
    for eid in ids:
        task = gym.make(eid).unwrapped.task
        if task.meta.declared_total_weight is not None:  # same modules and weights as the runner
            assert task.checks.total_weight == pytest.approx(task.meta.declared_total_weight), eid
        if task.meta.declared_check_count is not None:
            assert len(task.checks) == task.meta.declared_check_count, eid
        base = gym.make(eid).unwrapped
        assert f"at most {base.max_calls_turn} tool calls per turn" in base.system_prompt, eid  # budgets are stated
        for agent in (NullAgent(), PollingAgent()):
            result = run_episode(gym.make(eid), agent, seed=0, record=False)
            assert result.terminated, eid
            assert not result.mutation_errors, (eid, result.mutation_errors)
            assert not result.check_errors, (eid, agent.name, result.check_errors)
            assert all(c["passed"] or c["reason"] for c in result.checks), eid  # every failure says why


#: What the rubric ``env`` offers on ``env.workspace.fs`` and on each service capability
#: (``_sandbox`` / ``_CONTAINER_RUNTIME_DB``: a fallback the rubrics reach only without ``query_table``).
FS_METHODS = {"read_file", "exists", "list_dir", "list_files"}
CAPABILITY_ATTRS = {"call_tool", "call_tool_async", "state", "query_table", "_sandbox", "_CONTAINER_RUNTIME_DB"}


def _used_attributes(tree: ast.AST) -> tuple[set[str], set[str]]:
    """Attributes read on ``fs`` / ``<x>.fs`` and on capabilities (``cap.x``, ``getattr(cap, "x")``)."""
    fs, caps = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            base = node.value
            if (isinstance(base, ast.Name) and base.id == "fs") or (
                isinstance(base, ast.Attribute) and base.attr == "fs"
            ):
                fs.add(node.attr)
            if isinstance(base, ast.Name) and base.id == "cap":
                caps.add(node.attr)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr"):
            target, name = [*node.args, None, None][:2]
            if isinstance(target, ast.Name) and target.id == "cap" and isinstance(name, ast.Constant):
                caps.add(str(name.value))
    return fs, caps


@pytest.mark.skipif(not CHECKOUT, reason="set VIBELIFE_BUNDLES to a VibeLifeBench checkout")
def test_real_checkout_rubrics_use_only_what_the_env_offers():
    root = Path(CHECKOUT or ".")
    root = root / "eval_set" if (root / "eval_set").is_dir() else root
    fs, caps = set(), set()
    for path in sorted(root.glob("*/*/rubrics/*.py")):
        used_fs, used_caps = _used_attributes(ast.parse(path.read_text(encoding="utf-8")))
        fs |= used_fs
        caps |= used_caps
    assert fs and fs <= FS_METHODS, fs - FS_METHODS
    assert caps <= CAPABILITY_ATTRS, caps - CAPABILITY_ATTRS
    assert all(callable(getattr(RubricFS, m, None)) for m in FS_METHODS)
    assert callable(Capability.query_table)


# ------------------------------------------- a scripted agent over the checkout (issue #29)
def drive(env: gym.Env, turn: Any) -> list[str]:
    """Play ``turn(event_id, info)`` (a generator per turn that yields actions and receives the
    first tool result of each) to the end; the check errors the episode reported."""
    _, info = env.reset(seed=0)
    errors: list[str] = []
    current, gen, result = None, None, None
    while True:
        if info["event_id"] != current:
            current, gen = info["event_id"], turn(str(info["event_id"]), info)
            action = next(gen)
        else:
            assert gen is not None
            action = gen.send(result)
        obs, _, terminated, truncated, info = env.step(action)
        errors += info["check_errors"]
        results = [tool_result(m["content"]) for m in obs["messages"] if m["role"] == "tool"]
        result = results[0] if results else None
        if terminated or truncated:
            return errors


def _act(name: str, **arguments: Any) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments}], "reply": None}


WAKE_REPLY = "WAKE-UP TURN REPLY"


class ReleaseProbe:
    """A scripted agent for any public bundle: each scripted turn lists the workspace and
    replies; the first turn also holds a flight and asks its status for a day it does not fly
    (bundles with flight_booking), a turn re-reads the hold more than a day later, and one
    turn schedules a wake-up before the next event of its stage (between two scripted turns
    where a stage has two), whose turn lists the workspace too."""

    def __init__(self, env: Any) -> None:
        task, world = env.task, env.world
        self.flight = _probe_flight(world.services["flight_booking"]) if "flight_booking" in world.services else None
        self.wake_after, self.wake_at = _wake_slot(task, ReleaseRuntime.for_task(task))
        self.seen: dict[str, Any] = {}
        self.started = False

    def turn(self, event_id: str, info: dict) -> Any:
        if event_id.startswith("wakeup_"):
            yield _act("workspace__list_files")
            yield _reply(WAKE_REPLY)
            return
        now = datetime.fromisoformat(info["time"])
        if not self.started and self.flight is not None:
            f = self.flight
            search = {"origin": f["origin"], "destination": f["dest"], "departure_date": f["depart_dt"][:10]}
            offers = yield _act("flight_booking__search_flights", **search, non_stop=True, max_results=50)
            offer = next(
                o for o in offers["offers"] if o["itinerary"]["slices"][0]["segments"][0]["flight_no"] == f["flight_no"]
            )
            self.seen["hold"] = yield _act(
                "flight_booking__create_booking",
                offer_id=offer["offer_id"],
                passengers=[{"type": "ADT", "given_name": "Probe", "family_name": "Agent"}],
                contact={"email": "probe@example.com", "phone": "+86 100"},
                payment={"method": "CARD", "card_last4": "4242"},
                hold=True,
            )
            self.seen["held_at"] = now
            self.seen["status"] = yield _act(
                "flight_booking__get_flight_status", flight_no=f["flight_no"], date=f["off_day"]
            )
        self.started = True
        held_at = self.seen.get("held_at")
        if held_at is not None and "later" not in self.seen and now >= held_at + timedelta(hours=25):
            self.seen["later"] = yield _act("flight_booking__get_booking", pnr=self.seen["hold"]["pnr"])
        if event_id == self.wake_after:
            self.seen["wake"] = yield _act("assistant__schedule_wakeup", at=self.wake_at, note="re-check")
        yield _act("workspace__list_files")
        yield _reply(f"ok {event_id}")


def _probe_flight(svc: Any) -> dict[str, Any] | None:
    """The latest departure with an economy seat left, and a day that flight number does not fly."""
    rows = svc.query(
        "SELECT f.flight_no, f.origin, f.dest, f.depart_dt FROM flights f JOIN fare_buckets b "
        "ON b.flight_no = f.flight_no AND b.date = substr(f.depart_dt, 1, 10) AND b.cabin = 'ECONOMY' "
        "WHERE b.seats_remaining > 0 ORDER BY f.depart_dt DESC"
    )
    for row in rows:
        off_day = (date.fromisoformat(row["depart_dt"][:10]) - timedelta(days=1)).isoformat()
        flies = svc.query_one(
            "SELECT 1 FROM flights WHERE flight_no = ? AND substr(depart_dt, 1, 10) = ? UNION "
            "SELECT 1 FROM flight_status WHERE flight_no = ? AND date = ?",
            (row["flight_no"], off_day, row["flight_no"], off_day),
        )
        if flies is None:
            return {**row, "off_day": off_day}
    return None


def _wake_slot(task: Any, runtime: ReleaseRuntime) -> tuple[str, str]:
    """The visible event whose turn schedules the wake-up, and when: halfway to the next
    visible event of its stage where a stage has two at different times, else to the next
    event of its stage, else to the next event of the timeline (so it fires in the next
    stage, before that stage's scripted turns)."""
    timeline = [(s.index, e) for s in task.stages for e in s.events]
    visible = {vid for v in runtime.visible.values() for vid, _ in v}
    best: tuple[int, int, Any, Any] | None = None
    for i, (stage, event) in enumerate(timeline):
        later = [(s, e) for s, e in timeline[i + 1 :] if e.time > event.time]
        if event.id not in visible or not later:
            continue
        same = [e for s, e in later if s == stage]
        options = [e for e in same if e.id in visible][:1] + same[:1] + [later[0][1]]
        rank = 0 if same and same[0].id in visible else 1 if same else 2
        if best is None or (rank, stage) < best[:2]:
            best = (rank, stage, event, options[0])
    assert best is not None, task.id
    _, _, event, nxt = best
    return event.id, (event.time + (nxt.time - event.time) / 2).isoformat()


def _stored(shape: Any, value: Any) -> Any:
    """A trace row's ``result`` as the tool returned it (the rows hold it decoded, raw or in a payload)."""
    if shape.result_form == "raw":
        return json.loads(value)
    if shape.result_form == "payload":
        return json.loads(value["content"])
    return value


def _checkout_ids() -> list[Any]:
    if not CHECKOUT:
        return [pytest.param("", marks=pytest.mark.skip(reason="set VIBELIFE_BUNDLES to a VibeLifeBench checkout"))]
    root = Path(CHECKOUT)
    return vibelife_env.register_bundles(root / "eval_set" if (root / "eval_set").is_dir() else root)


@pytest.mark.parametrize("eid", _checkout_ids())
def test_real_checkout_rubric_inputs_with_holds_status_and_wakeups(eid):
    """Each public bundle, played by :class:`ReleaseProbe`: 0 rubric exceptions, and the
    stage files the rubrics read are the release runner's: one turn per visible event, in
    its order and under its id, the wake-up turn in none; the rows of each turn's calls with
    the results the tools gave; flight status on a day the flight does not fly, and holds
    that are still holds more than a day on."""
    env = gym.make(eid).unwrapped
    env.reset(seed=0)
    probe = ReleaseProbe(env)
    assert drive(env, probe.turn) == [], eid
    task, record = env.task, env.record
    runtime = ReleaseRuntime.for_task(task)
    shape = task.release.trace
    assert probe.seen["wake"]["success"] is True, probe.seen["wake"]
    (wake,) = [t for t in record.turns() if t.wakeup]
    assert wake.reply == WAKE_REPLY and wake.calls and any(not t.wakeup for t in record.turns(wake.stage))
    wake_ids = {c["id"] for c in wake.calls}
    with env.episode.check_context(None) as ctx:
        fs = RubricEnv(ctx, runtime).workspace.fs
        for stage, visible in sorted(runtime.visible.items()):
            scripted = [t for t in record.turns(stage) if not t.wakeup]
            assert [t.opened.event_id for t in scripted if t.opened] == [vid for vid, _ in visible], (eid, stage)
            text = fs.read_file(f"/terrarium/agent_responses/stage_{stage}.txt").decode()
            assert text == RESPONSE_SEPARATOR.join(t.reply for t in scripted if t.reply), (eid, stage)
            if shape is None:
                assert not fs.exists(f"/terrarium/agent_traces/stage_{stage}.json")
                continue
            rows = json.loads(fs.read_file(f"/terrarium/agent_traces/stage_{stage}.json"))
            expected = [row for t in scripted for c in t.calls for row in trace_rows(shape, t.opened.event_id, c)]
            assert rows == expected, (eid, stage)
            assert not wake_ids & {r.get("id") for r in rows}
            for t in scripted:
                for c in t.calls:
                    stored = [r["result"] for r in rows if r.get("id") == c["id"] and "result" in r]
                    assert all(_stored(shape, v) == c["result"] for v in stored), (eid, c["name"])
        if task.release.namespace_context:
            log = runtime.turn_log(record)
            assert [e["event_id"] for e in log] == [
                i for _, v in sorted(runtime.visible.items()) for vid, merged in v for i in (vid, *merged)
            ]
    if probe.flight is None:
        return
    f, status = probe.flight, probe.seen["status"]
    assert status["status"] == "SCHEDULED" and status["date"] == f["off_day"], status
    assert status["scheduled_depart"] == f"{f['off_day']}T{f['depart_dt'][11:19]}{f['depart_dt'][-6:]}"
    hold = probe.seen["hold"]
    assert hold["status"] == "HOLD" and "hold_expires_at" not in hold, hold
    assert probe.seen["later"]["status"] == "HOLD", probe.seen["later"]
    desc = next(t for t in env.tool_schemas() if t["function"]["name"] == "flight_booking__create_booking")
    assert "24 hours" not in desc["function"]["description"]
