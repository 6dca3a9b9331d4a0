"""The persona workspace: an in-memory file tree per episode, with agent file tools.

Paths are POSIX-style and relative to the workspace root. The agent may also write
``/workspace/notes.md`` (and the public release's alternates such as
``/terrarium/openclaw/workspace/notes.md``); all name the same file. A path can never
escape the root, files are UTF-8 text, and a single file is capped in size. A failed
call leaves the files exactly as they were (:meth:`Workspace.rollback`).
"""

from __future__ import annotations

import hashlib
import posixpath
from pathlib import Path
from typing import Any

from vibelife_env.errors import ToolError
from vibelife_env.services.arguments import short_repr
from vibelife_env.services.tooling import ToolProvider, tool

#: Prefixes that all denote the workspace root.
ROOT_ALIASES = (
    "/terrarium/openclaw/workspace/",
    "/terrarium/workspace/",
    "/workspace/",
    "workspace/",
    "./",
)
MAX_FILE_CHARS = 200_000
MAX_FILES = 500
MAX_PATH_CHARS = 1024


def normalize_path(path: str) -> str:
    """Map any accepted spelling of a workspace path to its canonical relative form.

    Raises:
        ToolError: ``BAD_PATH`` when the path is empty, longer than
            :data:`MAX_PATH_CHARS`, holds control characters, is absolute outside the
            workspace, or climbs out of it with ``..``.
    """
    raw = (path or "").strip().replace("\\", "/")
    if not raw:
        raise ToolError("BAD_PATH", "path must not be empty")
    if len(raw) > MAX_PATH_CHARS:
        raise ToolError("BAD_PATH", f"path of {len(raw)} characters exceeds the limit of {MAX_PATH_CHARS}")
    if any(ord(c) < 32 for c in raw):
        raise ToolError("BAD_PATH", f"path {short_repr(path)} holds control characters")
    for alias in ROOT_ALIASES:
        if raw.startswith(alias):
            raw = raw[len(alias) :]
            break
        if raw == alias.rstrip("/"):
            raw = ""
            break
    if raw.startswith("/"):
        raise ToolError(
            "BAD_PATH", f"path {short_repr(path)} is outside the workspace (use a relative path or /workspace/...)"
        )
    norm = posixpath.normpath(raw) if raw else "."
    if norm == ".." or norm.startswith("../"):
        raise ToolError("BAD_PATH", f"path {short_repr(path)} escapes the workspace")
    return norm


class Workspace(ToolProvider):
    """Workspace files as a dict of path → text, exposed as ``workspace__*`` tools.

    Args:
        files: Initial files, canonical relative path → text.
    """

    name = "workspace"

    def __init__(self, files: dict[str, str] | None = None) -> None:
        self.files: dict[str, str] = dict(files or {})

    @classmethod
    def from_directory(cls, root: Path) -> dict[str, str]:
        """Read a bundle's ``workspace/`` folder into a file dict (text files only).

        Raises:
            ToolError: never; undecodable files raise ``UnicodeDecodeError`` naming the file.
        """
        out: dict[str, str] = {}
        if not root.is_dir():
            return out
        for p in sorted(root.rglob("*")):
            if p.is_file():
                rel = p.relative_to(root).as_posix()
                try:
                    out[rel] = p.read_text(encoding="utf-8")
                except UnicodeDecodeError as exc:
                    raise UnicodeDecodeError(
                        exc.encoding, exc.object, exc.start, exc.end, f"{p}: not UTF-8 text"
                    ) from None
        return out

    # ------------------------------------------------------------------ host side
    def read(self, path: str) -> str | None:
        """Host-side read (checks, mutations); ``None`` when absent or the path is invalid."""
        try:
            return self.files.get(normalize_path(path))
        except ToolError:
            return None

    def put(self, path: str, text: str) -> None:
        """Host-side write used by mutations (no size limit, no tool semantics)."""
        self.files[normalize_path(path)] = text

    def digest(self) -> str:
        """SHA-256 over sorted paths and contents."""
        h = hashlib.sha256()
        for path in sorted(self.files):
            h.update(path.encode() + b"\0" + self.files[path].encode() + b"\0")
        return h.hexdigest()

    # ------------------------------------------------------------------ atomicity
    def checkpoint(self) -> dict[str, str]:
        """The files before a call (a shallow copy: texts are immutable)."""
        return dict(self.files)

    def rollback(self, saved: dict[str, str]) -> None:
        """Put the files back as they were before the failed call (same dict object)."""
        self.files.clear()
        self.files.update(saved)

    # ------------------------------------------------------------------ agent tools
    @tool(read_only=True)
    def list_files(self, directory: str = ".") -> dict[str, Any]:
        """List workspace files (recursively) under a directory, with their sizes.

        Args:
            directory: Directory to list, relative to the workspace root ("." for all).
        """
        base = normalize_path(directory)
        prefix = "" if base == "." else base.rstrip("/") + "/"
        entries = [
            {"path": p, "chars": len(t)} for p, t in sorted(self.files.items()) if not prefix or p.startswith(prefix)
        ]
        return {"directory": base, "files": entries}

    @tool(read_only=True)
    def read_file(self, path: str) -> dict[str, Any]:
        """Read a workspace text file.

        Args:
            path: File path relative to the workspace root (``/workspace/...`` also accepted).
        """
        key = normalize_path(path)
        if key not in self.files:
            raise ToolError("FILE_NOT_FOUND", f"no file {key!r} in the workspace")
        return {"path": key, "content": self.files[key]}

    @tool
    def write_file(self, path: str, content: str) -> dict[str, Any]:
        """Create or overwrite a workspace text file.

        Args:
            path: File path relative to the workspace root.
            content: The full new text of the file (UTF-8, at most 200,000 characters).
        """
        key = normalize_path(path)
        self._check_content(key, content)
        if key not in self.files and len(self.files) >= MAX_FILES:
            raise ToolError("WORKSPACE_FULL", f"the workspace holds at most {MAX_FILES} files")
        created = key not in self.files
        self.files[key] = content
        return {"path": key, "chars": len(content), "created": created}

    @tool
    def append_file(self, path: str, content: str) -> dict[str, Any]:
        """Append text to a workspace file, creating it when absent.

        Args:
            path: File path relative to the workspace root.
            content: Text to add at the end (include a leading newline if you want one).
        """
        key = normalize_path(path)
        new = self.files.get(key, "") + content
        self._check_content(key, new)
        if key not in self.files and len(self.files) >= MAX_FILES:
            raise ToolError("WORKSPACE_FULL", f"the workspace holds at most {MAX_FILES} files")
        self.files[key] = new
        return {"path": key, "chars": len(new)}

    @tool
    def edit_file(self, path: str, old_text: str, new_text: str) -> dict[str, Any]:
        """Replace one exact occurrence of ``old_text`` with ``new_text`` in a file.

        Args:
            path: File path relative to the workspace root.
            old_text: Text to find; it must occur exactly once.
            new_text: Replacement text.
        """
        key = normalize_path(path)
        if key not in self.files:
            raise ToolError("FILE_NOT_FOUND", f"no file {key!r} in the workspace")
        current = self.files[key]
        count = current.count(old_text) if old_text else 0
        if count != 1:
            raise ToolError(
                "EDIT_NO_UNIQUE_MATCH", f"old_text occurs {count} times in {key!r}; it must occur exactly once"
            )
        new = current.replace(old_text, new_text, 1)
        self._check_content(key, new)
        self.files[key] = new
        return {"path": key, "chars": len(new)}

    @tool(read_only=True)
    def search_files(self, query: str) -> dict[str, Any]:
        """Find lines containing a substring (case-insensitive) across workspace files.

        Args:
            query: Text to look for.
        """
        if not query.strip():
            raise ToolError("BAD_ARG", "query must not be empty")
        needle = query.casefold()
        hits = []
        for path, text in sorted(self.files.items()):
            for lineno, line in enumerate(text.splitlines(), 1):
                if needle in line.casefold():
                    hits.append({"path": path, "line": lineno, "text": line[:300]})
        return {"query": query, "matches": hits[:100], "total": len(hits)}

    @staticmethod
    def _check_content(key: str, content: str) -> None:
        if "\x00" in content:
            raise ToolError("BINARY_CONTENT", f"{key!r}: binary content (NUL bytes) cannot be stored; write text")
        if len(content) > MAX_FILE_CHARS:
            raise ToolError(
                "FILE_TOO_LARGE", f"{key!r}: {len(content)} characters exceeds the limit of {MAX_FILE_CHARS}"
            )
