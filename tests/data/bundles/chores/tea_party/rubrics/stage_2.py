def s2_notes(env):
    return "雨" in env.workspace.fs.read_file("/workspace/notes.md").decode("utf-8")


CHECKS = [("s2_notes", s2_notes, 3.0)]
