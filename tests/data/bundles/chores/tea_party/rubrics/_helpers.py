"""Shared helpers (relative imports, release style)."""

import json

CAL_EVENT = "evt_tea"


def reply(env, stage: int) -> str:
    fs = env.workspace.fs
    path = f"/terrarium/agent_responses/stage_{stage}.txt"
    return fs.read_file(path).decode("utf-8") if fs.exists(path) else ""


def trace(env, stage: int) -> list[dict]:
    return json.loads(env.workspace.fs.read_file(f"/terrarium/agent_traces/stage_{stage}.json").decode("utf-8"))


def party_start(env) -> str:
    out = env.calendar_mock.call_tool("get_event", calendar_id="primary", event_id=CAL_EVENT)
    return str(out.get("start_dt") or out.get("start") or out)
