"""Family code writes the world through the services' builders, not SQL text.

Seeds, timeline mutations and world scripts of families (``tasks/*/*/`` folders with a
``family.py``; a hand-made bundle's own files are its business) and probes
(``vibelife_env/probes/``) build their statements with :mod:`vibelife_env.services.sql` and
the services' ``seed`` modules, which check every table and column against the service's
schema; a hand-written ``INSERT``/``UPDATE``/``DELETE`` string there is a regression (a
service table change would have to find it by hand)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WRITE = re.compile(r"^\s*(INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|REPLACE\s+INTO)\b", re.I | re.M)


def _literal_text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return None


def write_statements(path: Path) -> list[str]:
    """``file:line: statement`` of every string literal in ``path`` that starts an SQL write."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    parts = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    found = []
    for node in ast.walk(tree):
        if id(node) in parts:  # a piece of an f-string, judged with the whole
            continue
        text = _literal_text(node)
        if text is not None and WRITE.search(text):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {text.strip()[:60]}")
    return found


def test_the_detector_sees_a_write_and_ignores_a_read(tmp_path) -> None:
    probe = ROOT / "tests" / "_probe_tmp.py"
    try:
        probe.write_text('A = "SELECT * FROM messages"\nB = f"INSERT INTO notes (a) VALUES ({1})"\nC = "update"\n')
        assert [line.split(": ", 1)[1] for line in write_statements(probe)] == ["INSERT INTO notes (a) VALUES ({})"]
    finally:
        probe.unlink()


def test_family_code_has_no_sql_write_strings() -> None:
    families = [p.parent for p in (ROOT / "tasks").rglob("family.py")]
    files = sorted([*(f for d in families for f in d.rglob("*.py")), *(ROOT / "vibelife_env" / "probes").glob("*.py")])
    found = [hit for f in files for hit in write_statements(f)]
    assert not found, f"{len(found)} SQL write strings in family code:\n" + "\n".join(found[:60])
