from ._helpers import party_start


def s1_sees_move(env):
    return "16:00" in party_start(env)


def s1_guests_file(env):
    return env.workspace.fs.exists("/terrarium/openclaw/workspace/guests.md")


CHECKS = [("s1_sees_move", s1_sees_move, 1.0), ("s1_guests_file", s1_guests_file, 1.0)]
