"""Every command in docs/training.md runs as written (from a scratch directory)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("trl")
pytest.importorskip("torch")
pytest.importorskip("openai")

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "training.md"


def doc_commands() -> list[str]:
    """The ```bash blocks of the doc, one command per logical line (backslash continuations joined)."""
    blocks = re.findall(r"```bash\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    commands = []
    for block in blocks:
        for cmd in block.replace("\\\n", " ").splitlines():
            cmd = cmd.split("  #")[0].strip()
            if cmd and not cmd.startswith("#"):
                commands.append(cmd)
    return commands


def test_the_doc_has_commands() -> None:
    assert len(doc_commands()) >= 5


@pytest.mark.slow
@pytest.mark.parametrize("command", doc_commands())
def test_doc_command_runs_as_written(command: str, tmp_path: Path) -> None:
    for folder in ("examples", "benchmarks"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
