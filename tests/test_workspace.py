"""The workspace provider: a failed call leaves every file untouched, whatever the input."""

from __future__ import annotations

import pytest

from vibelife_env.errors import ERROR_CODES, MAX_MESSAGE_CHARS, ToolError
from vibelife_env.services.tooling import tool
from vibelife_env.workspace import MAX_FILE_CHARS, MAX_FILES, Workspace

FILES = {"notes.md": "line one\nline two\n", "plans/trip.md": "Kyoto\n"}


class _Leaky(Workspace):
    """A workspace with a tool that writes, then fails (to prove the rollback)."""

    @tool
    def write_then_fail(self, path: str, crash: bool = False) -> dict[str, str]:
        """Write a file, delete another, then refuse.

        Args:
            path: File to write before failing.
            crash: Raise a plain exception instead of a ToolError.
        """
        self.files[path] = "half-done"
        self.files.pop("notes.md", None)
        if crash:
            raise RuntimeError("boom")
        raise ToolError("BAD_STATE", "refused after writing")


@pytest.mark.parametrize("crash", [False, True])
def test_a_failed_call_puts_every_file_back(crash):
    ws = _Leaky(dict(FILES))
    files = ws.files
    res = ws.call("write_then_fail", {"path": "new.md", "crash": crash})
    assert res["code"] == ("INTERNAL_ERROR" if crash else "BAD_STATE")
    assert ws.files == FILES and ws.files is files


@pytest.mark.parametrize(
    ("name", "args", "code"),
    [
        ("write_file", {"path": "../x.md", "content": "x"}, "BAD_PATH"),
        ("write_file", {"path": "a\x00b.md", "content": "x"}, "BAD_PATH"),
        ("write_file", {"path": "p" * 5000, "content": "x"}, "BAD_PATH"),
        ("write_file", {"path": "big.md", "content": "x" * (MAX_FILE_CHARS + 1)}, "FILE_TOO_LARGE"),
        ("write_file", {"path": "big.md", "content": "x" * 10_000_000}, "BAD_ARG"),
        ("write_file", {"path": "s.md", "content": "bad \ud83d half"}, "BAD_ARG"),
        ("write_file", {"path": "s.md", "content": b"bytes"}, "BAD_ARG"),
        ("write_file", {"path": ["notes.md"], "content": "x"}, "BAD_ARG"),
        ("append_file", {"path": "notes.md", "content": "x" * MAX_FILE_CHARS}, "FILE_TOO_LARGE"),
        ("edit_file", {"path": "notes.md", "old_text": "line", "new_text": "x"}, "EDIT_NO_UNIQUE_MATCH"),
        ("edit_file", {"path": "missing.md", "old_text": "a", "new_text": "b"}, "FILE_NOT_FOUND"),
        ("read_file", {"path": "/etc/passwd"}, "BAD_PATH"),
        ("search_files", {"query": "  "}, "BAD_ARG"),
        ("list_files", {"directory": {"nested": [1, 2]}}, "BAD_ARG"),
    ],
)
def test_refusals_change_nothing_and_stay_short(name, args, code):
    ws = Workspace(dict(FILES))
    res = ws.call(name, args)
    assert res["code"] == code and res["code"] in ERROR_CODES
    assert len(res["error"]) <= MAX_MESSAGE_CHARS
    assert ws.files == FILES


def test_a_full_workspace_refuses_new_files_only():
    ws = Workspace({f"f{i}.md": "" for i in range(MAX_FILES)})
    assert ws.call("write_file", {"path": "one-more.md", "content": "x"})["code"] == "WORKSPACE_FULL"
    assert ws.call("append_file", {"path": "f0.md", "content": "x"}) == {"path": "f0.md", "chars": 1}
    assert len(ws.files) == MAX_FILES
