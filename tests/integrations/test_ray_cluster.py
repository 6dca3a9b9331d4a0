"""A two-node Ray cluster on loopback, started outside the process (scripts/ray_two_node.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray")

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "ray_two_node.py"


@pytest.mark.slow
@pytest.mark.ray
def test_two_node_cluster_runs_runner_and_rollout_cli() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]
    assert '"runner_sync": true' in done.stdout and '"runner_async": true' in done.stdout
    assert '"rollout_cli_identical": true' in done.stdout
