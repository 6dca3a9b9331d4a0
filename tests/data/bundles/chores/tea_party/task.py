"""A runner in the release's task.py style, written for the tests (never imported)."""

PROMPT = "你是 Mei 的茶会助理。"

_SOURCE_LABELS = {"notification_hub_mock": "提醒中心"}
ALIASES = {"hub": "notification_hub"}


def _display_source(value):
    raw = str(value or "system")
    return _SOURCE_LABELS.get(raw, raw.removesuffix("_mock").replace("_", " "))


def _render_event(ev):
    time = ev.get("time", "")
    kind = ev.get("kind", "")
    body = ev.get("body", "") or ""
    if kind == "user_message":
        tag = f"[来自 {ev.get('from') or 'user'} 的消息 @ {time}]"
    elif kind == "notification":
        tag = f"[通知 @ {time}，来源 {_display_source(ev.get('channel') or ev.get('source'))}]"
    elif kind == "world":
        trigger = "，定时触发" if ev.get("trigger") == "scheduled" else ""
        tag = f"[世界事件{trigger} @ {time}，来源 {_display_source(ev.get('source'))}]"
    else:
        tag = f"[{kind} @ {time}]"
    return f"{tag}\n{body}"


def _dispatch_event(ev, env, agent):
    kind = ev.get("kind", "")
    if kind == "mutation":
        return "", []
    if ev.get("silent"):
        return "", []
    if kind not in ("user_message", "notification", "world"):
        return "", []
    return agent.act(_render_event(ev)), []


def _load_rubric(name):
    raise NotImplementedError(name)


def run(env, agent):
    for name in ("final", "cross_stage", "tool_quality"):
        _load_rubric(name)
