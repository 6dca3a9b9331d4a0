"""Episode runner (completion order, worker death and retry, fork groups) and the rollout command."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import gymnasium as gym

import vibelife_env  # noqa: F401
from vibelife_env.commands import rollout
from vibelife_env.rollout import read_dataset
from vibelife_env.runner import EpisodeJob, EpisodeRunner

DEMO = "VibeLife-demo-errands-v0"


class SlowOnSeedZero:
    """Silent agent that takes a second over the first turn of the seed-0 episode."""

    name = "slow"

    def reset(self, info):
        self.slow = info["job"]["seed"] == 0

    def act(self, obs, info):
        if self.slow:
            self.slow = False
            time.sleep(1.0)
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


def test_results_come_in_completion_order():
    jobs = [EpisodeJob(DEMO, seed=s) for s in range(4)]
    with EpisodeRunner(SlowOnSeedZero(), num_workers=2, max_in_flight=1) as runner:
        order = [r.index for r in runner.run(jobs)]
    assert sorted(order) == [0, 1, 2, 3] and order[0] != 0 and order[-1] == 0


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
