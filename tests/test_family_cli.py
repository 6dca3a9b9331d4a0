"""The documented train/test protocol from the command line: ``vibelife rollout --split train``
writes training data from fresh family instances (each line with the tools its instance
offers), and ``vibelife eval`` on a family plays its four test instances and reports the
held-out families apart."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401 - registers the families
from vibelife_env.cli import main as cli_main
from vibelife_env.rollout import read_dataset, read_lines, tools_sha256, tools_sidecar

CITY = "VibeLife-travel-city-break-v0"  # instances differ in the services they use
ROAD = "VibeLife-travel-road-trip-v0"  # held out


def test_rollout_on_the_train_split_plays_fresh_instances_with_their_own_tools(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "train.jsonl"
    args = ["rollout", "--env", CITY, "--agent", "oracle", "--episodes", "3", "--seed", "10", "--no-progress"]
    assert cli_main([*args, "--split", "train", "--out", str(out)]) == 0
    rows = list(read_dataset(out))
    assert [(r["task_id"], r["split"], r["score"]) for r in rows] == [
        (f"travel/city_break-train-{s}-paper", "train", 100.0)
        for s in (10, 11, 12)  # its default level
    ]
    env = gym.make(CITY, split="train")
    for row in rows:
        _, info = env.reset(seed=row["seed"])
        assert row["tools"] == info["tools"]  # the instance's tools, not the family's first test instance's
    assert set(json.loads(tools_sidecar(out).read_text())) == {tools_sha256(r["tools"]) for r in rows}
    capsys.readouterr()
    assert cli_main([*args, "--out", str(out), "--resume"]) == 2  # started on train, resumed on test
    assert "--split" in capsys.readouterr().err
    assert (
        cli_main([*args[:2], "VibeLife-demo-errands-v0", *args[3:], "--split", "train", "--out", str(tmp_path / "x")])
        == 2
    )
    assert "none of VibeLife-demo-errands-v0 is a scenario family" in capsys.readouterr().err


def test_rollout_of_a_family_without_split_plays_its_test_instances(tmp_path: Path) -> None:
    out = tmp_path / "test.jsonl"
    assert (
        cli_main(["rollout", "--env", ROAD, "--agent", "null", "--episodes", "5", "--no-progress", "--out", str(out)])
        == 0
    )
    rows = [json.loads(line) for line in read_lines(out)]
    assert [(r["task_id"], r["split"]) for r in rows] == [
        (f"travel/road_trip-test-{s % 4}-paper", "test") for s in range(5)
    ]


def test_eval_on_families_plays_every_test_instance_and_reports_held_out_families_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "eval"
    args = ["eval", "--agent", "oracle", "--env", CITY, "--env", ROAD, "--env", "VibeLife-demo-errands-v0"]
    assert cli_main([*args, "--attempts", "1", "--no-progress", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "held-out families (4 tasks)" in printed and "training families (4 tasks)" in printed
    report = json.loads((out / "report.json").read_text())
    oracle = report["agents"][0]
    assert sorted(oracle["tasks"]) == sorted(
        ["demo/errands"]
        + [f"travel/city_break-test-{k}-paper" for k in range(4)]  # its default level
        + [f"travel/road_trip-test-{k}-paper" for k in range(4)]  # its default level too
    )
    assert set(oracle["by_family_split"]) == {"held-out families", "training families"}
    assert all(g["avg"] == 100.0 and g["tasks"] == 4 for g in oracle["by_family_split"].values())
    assert len(list((out / "transcripts").rglob("*.html"))) == 9
    lines = read_lines(out / "episodes.jsonl")
    (out / "episodes.jsonl").write_text("".join(line + "\n" for line in lines[:4]))
    before = (out / "report.json").read_bytes()
    assert cli_main([*args, "--attempts", "1", "--no-progress", "--out", str(out), "--resume"]) == 0
    assert read_lines(out / "episodes.jsonl") == lines and (out / "report.json").read_bytes() == before
