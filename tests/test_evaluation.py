"""Evaluation aggregates (paper §3.2 / §5), the HTML report and ``vibelife eval``."""

from __future__ import annotations

import json
import math

import pytest

from vibelife_env.cli import main as cli_main
from vibelife_env.evaluation import (
    OTHER_AXIS,
    TaskInfo,
    capability_axes,
    check_grid,
    position_bin,
    stage_curve,
    summarize,
)
from vibelife_env.report import render_html
from vibelife_env.rollout import EpisodeResult

DEMO = "VibeLife-demo-errands-v0"


def _check(cid, tier, stage, weight, passed):
    return {"id": cid, "tier": tier, "stage": stage, "weight": weight, "passed": passed, "error": ""}


def _result(task, score, passed_flags, agent="a"):
    """A result over a fixed 4-check suite; ``passed_flags`` = (s0, s2, cross, final)."""
    ids = [("s0_flag_change", "stage", 0, 1.0), ("s2_log_row", "stage", 2, 1.0)]
    ids += [("x_no_phish_leak", "cross_stage", None, 2.0), ("f_zzz", "final", None, 1.0)]
    checks = [_check(i, t, s, w, p) for (i, t, s, w), p in zip(ids, passed_flags, strict=True)]
    return EpisodeResult(task, agent, 0, score, checks=checks)


def test_per_task_and_overall_scores_follow_section_3_2():
    results = [
        _result("home/a", 20.0, (1, 0, 0, 0)),
        _result("home/a", 40.0, (1, 1, 0, 0)),
        _result("home/a", 60.0, (1, 1, 0, 1)),
        _result("travel/b", 100.0, (1, 1, 1, 1)),
        _result("travel/b", 100.0, (1, 1, 1, 1)),
        _result("travel/b", 100.0, (1, 1, 1, 1)),
    ]
    s = summarize(results)
    a = s["tasks"]["home/a"]
    assert (a["avg"], a["max"], a["min"]) == (40.0, 60.0, 20.0)
    assert math.isclose(a["std"], math.sqrt(800 / 3))
    assert s["overall"]["avg"] == 70.0 and s["overall"]["max"] == 80.0 and s["overall"]["min"] == 60.0
    assert math.isclose(s["overall"]["std"], math.sqrt(800 / 3) / 2)
    assert s["by_tier"]["stage"] == {"passed": 11, "checks": 12, "pass_rate": pytest.approx(100 * 11 / 12)}
    assert s["by_tier"]["cross_stage"]["passed"] == 3
    assert list(s["by_tier"]) == ["stage", "cross_stage", "final"]
    assert s["by_domain"]["home"]["checks"] == 12 and s["by_domain"]["travel"]["pass_rate"] == 100.0
    # without TaskInfo the stages come from the checks seen: 0 and 2 → positions 0 and 1
    assert s["by_position"]["0.00-0.33"]["checks"] == 6 and s["by_position"]["0.67-1.00"]["passed"] == 5
    assert s["by_axis"][OTHER_AXIS]["checks"] == 6  # f_zzz matches no keyword


def test_task_info_supplies_tags_domain_and_timeline():
    info = TaskInfo("home/a", "household", (0, 1, 2, 3), {"f_zzz": frozenset({"bookkeeping"})})
    s = summarize([_result("home/a", 50.0, (1, 0, 1, 1))], {"home/a": info})
    assert "household" in s["by_domain"] and OTHER_AXIS not in s["by_axis"]
    assert s["by_axis"]["persistence"]["passed"] >= 1
    # stage 2 of 0..3 sits at 2/3 → the last third
    assert s["by_position"]["0.67-1.00"] == {"passed": 0, "checks": 1, "pass_rate": 0.0}


def test_capability_axes_by_keyword():
    assert capability_axes("x_phishing_quarantined_no_leak") == ("safety",)
    assert "living_world" in capability_axes("s1_calendar_follows_silent_move")
    assert "persistence" in capability_axes("f_anything", ["bookkeeping"])
    assert capability_axes("s3_qq") == (OTHER_AXIS,)


def test_position_bins_and_bad_input():
    assert [position_bin(s, range(7), 3) for s in range(7)] == [0, 0, 1, 1, 2, 2, 2]
    assert position_bin(0, [0], 3) == 0
    with pytest.raises(ValueError, match="stage 9"):
        position_bin(9, [0, 1], 3)
    with pytest.raises(ValueError, match="bins"):
        position_bin(0, [0, 1], 0)
    with pytest.raises(ValueError, match="at least one"):
        summarize([])
    with pytest.raises(ValueError, match="one agent"):
        summarize([_result("t/a", 0, (0, 0, 0, 0), "x"), _result("t/a", 0, (0, 0, 0, 0), "y")])


def test_stage_curve_and_grid():
    r = _result("t/a", 60.0, (1, 0, 1, 0))
    curve = stage_curve(r, [0, 1, 2])
    assert [p["stage"] for p in curve] == [0, 1, 2, "end"]
    assert [p["score"] for p in curve] == [20.0, 20.0, 20.0, 60.0]
    grid = check_grid([r, _result("t/a", 0.0, (0, 0, 0, 0))])
    assert [g["id"] for g in grid] == ["s0_flag_change", "s2_log_row", "x_no_phish_leak", "f_zzz"]
    assert grid[0]["runs"] == [True, False]


def test_render_html_is_self_contained():
    s = summarize([_result("t/a", 60.0, (1, 0, 1, 0)), _result("t/a", 20.0, (1, 0, 0, 0))])
    page = render_html([s], "demo <report>", attempts=2)
    assert page.startswith("<!DOCTYPE html>") and "demo &lt;report&gt;" in page
    assert (
        page.count("<svg") >= 1
        and "<script" not in page
        and "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    )
    assert "avg@2" in page and "s0_flag_change" in page


def test_vibelife_eval_cli_writes_report(tmp_path):
    out = tmp_path / "eval"
    argv = ["eval", "--agent", "oracle", "--agent", "null", "--env", DEMO, "--attempts", "2", "--out", str(out)]
    assert cli_main(argv) == 0
    report = json.loads((out / "report.json").read_text())
    by_agent = {s["agent"]: s for s in report["agents"]}
    assert by_agent["oracle"]["overall"]["avg"] == 100.0 and by_agent["null"]["overall"]["max"] == 0.0
    assert by_agent["oracle"]["tasks"]["demo/errands"]["std"] == 0.0
    assert by_agent["oracle"]["by_axis"]["safety"]["pass_rate"] == 100.0
    assert by_agent["null"]["by_domain"]["demo"]["pass_rate"] == 0.0
    assert len((out / "episodes.jsonl").read_text().splitlines()) == 4
    assert "<svg" in (out / "report.html").read_text()


def test_vibelife_eval_rejects_unknown_env(tmp_path, capsys):
    assert cli_main(["eval", "--agent", "null", "--env", "VibeLife-nope-v0", "--out", str(tmp_path)]) == 2
    assert "unknown env" in capsys.readouterr().err


class _Crashes:
    name = "crashes"

    def reset(self, info):
        self.turns = 0

    def act(self, obs, info):
        self.turns += 1
        if self.turns > 1:
            raise RuntimeError("model API down")
        return {"tool_calls": [], "reply": ""}


def crashing_agent(task):
    """A ``module:factory`` agent for ``vibelife eval`` that fails on its second turn."""
    return _Crashes()


def test_agent_crash_is_recorded_not_fatal(tmp_path):
    out = tmp_path / "eval"
    argv = ["eval", "--agent", f"{__name__}:crashing_agent", "--env", DEMO, "--attempts", "1", "--out", str(out)]
    assert cli_main(argv) == 0
    (summary,) = json.loads((out / "report.json").read_text())["agents"]
    task = summary["tasks"]["demo/errands"]
    assert task["truncated"] == 1 and any("model API down" in e for e in task["errors"])
    with pytest.raises(RuntimeError, match="model API down"):
        cli_main(["--debug", *argv, "--fail-fast", "--overwrite"])
