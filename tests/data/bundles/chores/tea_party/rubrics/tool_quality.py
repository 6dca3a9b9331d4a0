import json


def t_few_calls(env):
    rows = []
    for stage in range(3):
        rows += json.loads(env.workspace.fs.read_file(f"/terrarium/agent_traces/stage_{stage}.json"))
    return 0 < len(rows) <= 10


CHECKS = [("t_few_calls", t_few_calls, 1.0)]
