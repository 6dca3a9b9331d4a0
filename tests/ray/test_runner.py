"""Episode runner (completion order, worker death and retry, fork groups) and the rollout command."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401
from vibelife_env.commands import rollout
from vibelife_env.rollout import read_dataset
from vibelife_env.runner import EpisodeJob, EpisodeRunner

DEMO = "VibeLife-demo-errands-v0"


class SlowOnSeedZero:
    """Silent agent whose seed-0 episode waits, on its first turn, until the seed-2 episode has
    begun: with two workers that each play one episode at a time, seed 1 has finished by then.
    (It waits for an event, not for a time, so a loaded machine cannot reorder the episodes.)"""

    name = "slow"

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def reset(self, info):
        self.slow = info["job"]["seed"] == 0
        if info["job"]["seed"] == 2:
            Path(self.marker).write_text("seed 2 began")

    def act(self, obs, info):
        if self.slow:
            self.slow = False
            deadline = time.monotonic() + 120
            while not os.path.exists(self.marker) and time.monotonic() < deadline:
                time.sleep(0.05)
        return ""


class CrashOnce:
    """Kills its worker process the first time any worker sees the marker missing."""

    name = "crash_once"

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def reset(self, info):
        if info["job"]["seed"] == 1 and not os.path.exists(self.marker):
            Path(self.marker).write_text("crashed")
            os._exit(1)

    def act(self, obs, info):
        return ""


def raising_policy(obs):
    raise ValueError("policy bug")


def test_results_come_in_completion_order(tmp_path):
    jobs = [EpisodeJob(DEMO, seed=s) for s in range(4)]
    with EpisodeRunner(SlowOnSeedZero(str(tmp_path / "seed2")), num_workers=2, max_in_flight=1) as runner:
        order = [r.index for r in runner.run(jobs)]
    # seed 0 was submitted first but finished after seed 1 (it waited for seed 2 to begin)
    assert sorted(order) == [0, 1, 2, 3] and order[0] != 0 and order.index(1) < order.index(0)


def test_dead_worker_is_replaced_and_episode_retried_once(tmp_path):
    marker = str(tmp_path / "crashed")
    with EpisodeRunner(CrashOnce(marker), num_workers=2) as runner:
        results = {r.job.seed: r for r in runner.run([EpisodeJob(DEMO, seed=s) for s in range(3)])}
        assert results[1].ok and results[1].attempts == 2
        assert all(results[s].ok and results[s].attempts == 1 for s in (0, 2))
        again = list(runner.run([EpisodeJob(DEMO, seed=5)]))  # the replaced worker serves on
        assert again[0].ok
    with EpisodeRunner(raising_policy, num_workers=1) as runner:
        [failed] = list(runner.run([EpisodeJob(DEMO, seed=0)]))
    assert not failed.ok and failed.attempts == 1 and "policy bug" in failed.error


def test_more_workers_than_cpus_share_them_and_finish():
    jobs = [EpisodeJob(DEMO, seed=s) for s in range(8)]
    with pytest.warns(RuntimeWarning, match="each worker reserves 0.67 CPU"):
        runner = EpisodeRunner("oracle", num_workers=3)  # the session's local Ray has 2 CPUs
    with runner:
        results = list(runner.run(jobs))
    assert sorted(r.index for r in results) == list(range(8)) and all(r.ok for r in results)
    assert {r.worker for r in results} == {0, 1, 2}  # every worker was scheduled


def test_fork_group_from_one_snapshot():
    env = gym.make(DEMO).unwrapped
    env.reset(seed=11)
    snap = env.snapshot()
    with EpisodeRunner("oracle", num_workers=2) as runner:
        group = list(runner.fork_group(snap, 3, DEMO))
    assert sorted(r.job.tag for r in group) == [0, 1, 2]
    assert {r.result.score for r in group} == {100.0}
    assert len({tuple(r.result.rewards) for r in group}) == 1


def test_rollout_dataset_is_byte_identical(tmp_path):
    def run(workers: int, name: str) -> bytes:
        out = tmp_path / name
        args = argparse.Namespace(
            env=[DEMO, "VibeLife-family-grandma-birthday-v0"],
            agent="oracle",
            episodes=3,
            workers=workers,
            out=str(out),
            seed=4,
            ray_address=None,
            bundles=None,
            no_progress=True,
        )
        assert rollout.main(args) == 0
        return out.read_bytes()

    first, second, local = run(2, "a.jsonl"), run(2, "b.jsonl"), run(0, "c.jsonl")
    assert first == second == local
    lines = first.decode().splitlines()
    assert len(lines) == 6
    rows = [json.loads(line) for line in lines]
    assert [(r["env_id"], r["seed"]) for r in rows] == [(DEMO, s) for s in (4, 5, 6)] + [
        ("VibeLife-family-grandma-birthday-v0", s) for s in (4, 5, 6)
    ]
    row = next(read_dataset(tmp_path / "a.jsonl"))  # tool schemas come back from the sidecar
    assert row["score"] == 100.0 and row["tools"][0]["type"] == "function"
    assert row["messages"][0]["role"] == "system" and any("tool_calls" in m for m in row["messages"])
    assert abs(sum(row["rewards"]) - 1.0) < 1e-9 and row["checks"] and row["env_version"]


CRASHY = """
import os
from pathlib import Path


class CrashOnce:
    name = "crash_once"

    def reset(self, info):
        marker = MARKER
        if info["job"]["seed"] == 1 and not os.path.exists(marker):
            Path(marker).write_text("crashed")
            os._exit(1)

    def act(self, obs, info):
        return ""


def build(task=None):
    return CrashOnce()
"""


def test_a_worker_crash_is_in_the_summary_and_the_exit_status(tmp_path, monkeypatch, capsys):
    (tmp_path / "crashy.py").write_text(CRASHY.replace("MARKER", repr(str(tmp_path / "crashed"))))
    monkeypatch.chdir(tmp_path)
    args = argparse.Namespace(
        env=[DEMO],
        agent="crashy:build",
        episodes=3,
        workers=2,
        out=str(tmp_path / "r.jsonl"),
        seed=0,
        ray_address=None,
        bundles=None,
        no_progress=True,
    )
    assert rollout.main(args) == 1  # retried and finished, yet the crash is not hidden
    err = capsys.readouterr().err
    assert "retried once after a worker died" in err and "ran again after a worker crash" in err
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == 3
