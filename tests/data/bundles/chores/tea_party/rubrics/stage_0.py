from ._helpers import reply, trace


def s0_replied(env):
    return "茶会" in reply(env, 0)


def s0_read_calendar(env):
    return any("calendar" in row["name"] and row["success"] for row in trace(env, 0))


CHECKS = [("s0_replied", s0_replied, 2.0), ("s0_read_calendar", s0_read_calendar, 1.0)]
