"""Suites and ``--level`` from the command line: ``vibelife-200`` plays each family at its
default level (paper where it renders it), ``vibelife-200-guided`` every family at the guided
level; ``vibelife eval`` and ``vibelife rollout`` take ``--level``, write it in their lines and
refuse to resume a run at another level."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

import vibelife_env.suite  # registers the families too
from vibelife_env.cli import main as cli_main
from vibelife_env.commands.evaluate import failed_result
from vibelife_env.families.loader import family_of
from vibelife_env.rollout import read_dataset
from vibelife_env.suite import get_suite

CITY = "VibeLife-travel-city-break-v0"  # renders the paper level, its default
ROAD = "VibeLife-travel-rail-tour-v0"  # made guided only by the fixture below
SINGLE = "VibeLife-demo-errands-v0"


@pytest.fixture(autouse=True)
def road_guided_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """rail_tour stands for a family that renders only the guided level, whichever levels the
    real family renders (every family may come to render the paper level)."""
    monkeypatch.setattr(type(family_of(ROAD)), "levels", ("guided",))


def _eval(out: Path, *extra: str) -> int:
    return cli_main(["eval", "--agent", "null", "--attempts", "1", "--no-progress", "--out", str(out), *extra])


def _task_ids(out: Path) -> list[str]:
    return [json.loads(line)["task_id"] for line in (out / "episodes.jsonl").read_text().splitlines()]


@pytest.fixture
def small_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suites hold two families (one rendering the paper level, one guided only), so a
    whole-suite eval takes seconds."""
    monkeypatch.setattr(vibelife_env.suite, "builtin_families", lambda: [CITY, ROAD])


def test_the_two_suites_are_the_same_instances_at_their_levels() -> None:
    paper, guided = get_suite("vibelife-200"), get_suite("vibelife-200-guided")
    assert paper.level is None and guided.level == "guided"
    assert paper.instances == guided.instances and paper.heldout == guided.heldout
    assert {guided.level_of(e) for e in guided.families} == {"guided"}
    renders_paper = {e for e in paper.families if "paper" in family_of(e).levels}  # type: ignore[union-attr]
    assert CITY in renders_paper and ROAD not in renders_paper
    assert {e for e in paper.families if paper.level_of(e) == "paper"} == renders_paper
    assert paper.describe().endswith(
        f"level paper where a family renders it ({len(renders_paper)} families), "
        f"guided otherwise ({len(paper.families) - len(renders_paper)})"
    )
    assert guided.describe().startswith("vibelife-200-guided: ")
    assert guided.describe().endswith("level guided (every family)")
    with pytest.raises(KeyError, match="known: vibelife-200, vibelife-200-guided"):
        get_suite("vibelife-100")


def test_the_guided_suite_plays_the_guided_task_ids_and_the_default_suite_the_paper_ones(
    tmp_path: Path, small_suite: None, capsys: pytest.CaptureFixture
) -> None:
    assert _eval(tmp_path / "guided", "--suite", "vibelife-200-guided") == 0
    assert "level guided (every family)" in capsys.readouterr().err
    guided = [f"travel/{f}-test-{k}" for f in ("city_break", "rail_tour") for k in range(4)]
    assert _task_ids(tmp_path / "guided") == guided
    meta = json.loads((tmp_path / "guided" / "report.json").read_text())["meta"]
    assert meta["levels"] == {CITY: "guided", ROAD: "guided"}

    assert _eval(tmp_path / "paper", "--suite", "vibelife-200") == 0
    assert "level paper where a family renders it (1 families)" in capsys.readouterr().err
    assert _task_ids(tmp_path / "paper") == [f"travel/city_break-test-{k}-paper" for k in range(4)] + guided[4:]

    # --level overrides the suite's level; one a family does not render is refused before anything runs
    assert _eval(tmp_path / "override", "--suite", "vibelife-200", "--level", "guided") == 0
    assert _task_ids(tmp_path / "override") == guided
    capsys.readouterr()
    assert _eval(tmp_path / "refused", "--suite", "vibelife-200-guided", "--level", "paper") == 2
    err = capsys.readouterr().err
    assert f"--level paper: {ROAD} (travel/rail_tour) renders only the guided level, not paper" in err
    assert not (tmp_path / "refused").exists()


def test_the_guided_suite_is_validated_and_described_at_the_guided_level(
    small_suite: None, capsys: pytest.CaptureFixture
) -> None:
    assert cli_main(["stats", "--suite", "vibelife-200-guided", "--json"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == get_suite("vibelife-200-guided").describe()
    tasks = [json.loads(line)["task"] for line in out.splitlines()[1:] if '"task"' in line]
    assert tasks == [f"travel/{f}[test:{k}]:guided" for f in ("city_break", "rail_tour") for k in range(4)]
    assert cli_main(["stats", "--suite", "vibelife-200", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"task": "travel/city_break[test:0]:paper"' in out and '"task": "travel/rail_tour[test:0]:guided"' in out
    validate = ["validate", "--only", "--no-blast", "--quiet", "--suite"]
    assert cli_main([*validate, "vibelife-200-guided"]) == 0
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if line.endswith(": ok")] == [
        f"{e}[test:{k}:guided]: ok" for e in (CITY, ROAD) for k in range(4)
    ]
    assert cli_main([*validate, "vibelife-200"]) == 0
    out = capsys.readouterr().out
    assert f"{CITY}[test:0:paper]: ok" in out and f"{ROAD}[test:0:guided]: ok" in out
    assert cli_main(["validate", "--suite", "vibelife-200-guided", "--level", "paper"]) == 2
    assert "renders only the guided level, not paper" in capsys.readouterr().err


def test_eval_level_picks_the_instances_a_family_plays_and_resume_keeps_it(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    assert _eval(tmp_path / "default", "--env", CITY) == 0
    assert _task_ids(tmp_path / "default") == [f"travel/city_break-test-{k}-paper" for k in range(4)]
    out = tmp_path / "guided"
    assert _eval(out, "--env", CITY, "--level", "guided") == 0
    assert _task_ids(out) == [f"travel/city_break-test-{k}" for k in range(4)]
    rows = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert {(r["instance"], r["level"]) for r in rows} == {(k, "guided") for k in range(4)}
    capsys.readouterr()

    assert _eval(out, "--env", CITY, "--resume") == 2  # started at the guided level
    err = capsys.readouterr().err
    assert "played VibeLife-travel-city-break-v0 at the guided level, not paper" in err and "--level" in err
    assert _eval(out, "--env", CITY, "--resume", "--level", "guided") == 0
    assert _eval(tmp_path / "default", "--env", CITY, "--resume", "--level", "guided") == 2
    assert "at the paper level, not guided" in capsys.readouterr().err


def test_level_is_for_families_that_render_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert _eval(tmp_path / "a", "--env", SINGLE, "--level", "guided") == 2
    assert f"--level guided: {SINGLE} is a single task; --level is for scenario families" in capsys.readouterr().err
    assert _eval(tmp_path / "b", "--env", ROAD, "--level", "paper") == 2
    assert f"{ROAD} (travel/rail_tour) renders only the guided level, not paper" in capsys.readouterr().err
    base = ["rollout", "--agent", "null", "--no-progress", "--out", str(tmp_path / "r.jsonl")]
    assert cli_main([*base, "--env", SINGLE, "--level", "paper"]) == 2
    assert f"{SINGLE} is a single task" in capsys.readouterr().err
    assert cli_main([*base, "--env", CITY, "--env", ROAD, "--level", "paper"]) == 2
    assert "renders only the guided level, not paper" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
    # a single-task env and families without --level still mix
    assert _eval(tmp_path / "mixed", "--env", SINGLE, "--env", ROAD) == 0


def test_rollout_level_reaches_every_line_and_resume_refuses_another(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "guided.jsonl"
    base = ["rollout", "--env", CITY, "--agent", "oracle", "--episodes", "2", "--no-progress", "--out", str(out)]
    assert cli_main([*base, "--level", "guided"]) == 0
    rows = list(read_dataset(out))
    assert [(r["task_id"], r["split"], r["level"], r["score"]) for r in rows] == [
        (f"travel/city_break-test-{s}", "test", "guided", 100.0) for s in (0, 1)
    ]
    env = gym.make(CITY, level="guided")
    for row in rows:  # the tools of the instance at its level
        assert row["tools"] == env.reset(seed=row["seed"])[1]["tools"]
    capsys.readouterr()
    assert cli_main([*base, "--resume"]) == 2
    assert "played VibeLife-travel-city-break-v0 at the guided level, not paper" in capsys.readouterr().err
    assert cli_main([*base, "--resume", "--level", "guided"]) == 0

    train = tmp_path / "train.jsonl"
    args = ["rollout", "--env", CITY, "--agent", "null", "--split", "train", "--seed", "5", "--no-progress"]
    assert cli_main([*args, "--out", str(train)]) == 0
    assert [(r["task_id"], r["level"]) for r in read_dataset(train)] == [("travel/city_break-train-5-paper", "paper")]
    assert cli_main([*args, "--out", str(train), "--resume", "--level", "guided"]) == 2
    assert "at the paper level, not guided" in capsys.readouterr().err


def test_a_failed_worker_episode_is_reported_on_the_instance_of_its_level() -> None:
    guided = failed_result(("null", CITY, 2, 0), "boom", "guided")
    paper = failed_result(("null", CITY, 2, 0), "boom")
    assert (guided.task_id, paper.task_id) == ("travel/city_break-test-2", "travel/city_break-test-2-paper")
    assert guided.truncated and guided.check_errors == ["agent error: boom"]


def test_eval_level_reaches_ray_workers(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    args = ["--env", CITY, "--level", "guided"]
    assert _eval(tmp_path / "here", *args) == 0
    assert _eval(tmp_path / "there", *args, "--workers", "1") == 0

    def played(out: Path) -> list[tuple]:
        rows = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
        return [(r["task_id"], r["instance"], r["level"], r["score"]) for r in rows]

    assert played(tmp_path / "there") == played(tmp_path / "here")
    assert [t for t, *_ in played(tmp_path / "there")] == [f"travel/city_break-test-{k}" for k in range(4)]
