"""The VibeLife-200 suite: every shipped family's test instances, evaluated and summarized
from the command line, with held-out families reported apart."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

import vibelife_env
from vibelife_env.cli import main as cli_main
from vibelife_env.families.loader import load_family
from vibelife_env.registration import shipped_family_dir
from vibelife_env.suite import get_suite


def test_the_suite_is_every_shipped_family_with_four_test_instances():
    suite = get_suite("vibelife-200")
    shipped = [
        i
        for i in vibelife_env.registered_ids()
        if "family_dir" in gym.spec(i).kwargs and shipped_family_dir(gym.spec(i).kwargs["family_dir"])
    ]
    assert sorted(suite.families) == sorted(shipped) and len(shipped) >= 10
    assert suite.instances[:4] == [(suite.families[0], k) for k in range(4)]
    assert len(suite.instances) == 4 * len(suite.families)
    assert suite.heldout == {e for e in shipped if type(load_family(gym.spec(e).kwargs["family_dir"])).heldout}
    assert {"travel", "finance"} <= set(suite.domains)
    assert suite.describe().startswith(f"vibelife-200: {len(shipped)} of 50 planned families")
    with pytest.raises(KeyError, match="known: vibelife-200"):
        get_suite("vibelife-2000")


def test_stats_of_the_suite_sets_its_distribution_next_to_the_papers(capsys: pytest.CaptureFixture):
    assert cli_main(["stats", "--suite", "vibelife-200"]) == 0
    out = capsys.readouterr().out
    suite = get_suite("vibelife-200")
    assert out.splitlines()[0] == suite.describe()
    assert f"all reported tasks ({len(suite.instances)}) against the paper" in out
    for domain in suite.domains:
        assert f"domain {domain} (" in out
    assert cli_main(["stats", "--suite", "vibelife-200", "VibeLife-travel-japan-v0"]) == 2


def test_eval_needs_envs_or_a_known_suite(tmp_path: Path, capsys: pytest.CaptureFixture):
    assert cli_main(["eval", "--agent", "null", "--out", str(tmp_path / "a")]) == 2
    assert "--env ID" in capsys.readouterr().err
    assert cli_main(["eval", "--agent", "null", "--suite", "nope", "--out", str(tmp_path / "b")]) == 2
    assert "unknown suite 'nope'" in capsys.readouterr().err
    assert cli_main(["validate", "--suite", "nope"]) == 2
    assert "unknown suite 'nope'" in capsys.readouterr().err


def test_eval_on_ray_workers_writes_what_an_in_process_eval_writes(tmp_path: Path):
    pytest.importorskip("ray")
    args = ["eval", "--agent", "oracle", "--env", "VibeLife-travel-road-trip-v0", "--env", "VibeLife-demo-errands-v0"]
    args += ["--attempts", "2", "--no-progress"]
    here, there = tmp_path / "here", tmp_path / "there"
    assert cli_main([*args, "--out", str(here)]) == 0
    assert cli_main([*args, "--out", str(there), "--workers", "2"]) == 0
    for name in ("episodes.jsonl", "report.json", "report.html"):
        assert (here / name).read_bytes() == (there / name).read_bytes(), name
    report = json.loads((here / "report.json").read_text())
    assert report["agents"][0]["by_family_split"]["held-out families"]["tasks"] == 4


def test_the_readme_lists_every_shipped_family_and_whether_it_is_held_out():
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    suite = get_suite("vibelife-200")
    for env_id in suite.families:
        row = next((line for line in readme.splitlines() if line.startswith(f"| `{env_id}` |")), None)
        assert row is not None, f"README's families table misses {env_id}"
        assert row.rstrip(" |").endswith("yes") == (env_id in suite.heldout), row
