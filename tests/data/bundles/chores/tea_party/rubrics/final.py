async def f_async_calendar(env):
    out = await env.calendar_mock.call_tool_async("get_event", calendar_id="primary", event_id="evt_tea")
    return "error" not in out


def f_broken(env):
    raise RuntimeError("this rubric is broken on purpose")


CHECKS = [("f_async_calendar", f_async_calendar, 1.0), ("f_broken", f_broken, 1.0)]
