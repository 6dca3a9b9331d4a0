"""``vibelife play``: an episode driven one action per shell call, through the CLI as a user would."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

from vibelife_env.cli import main

DEMO = "VibeLife-demo-errands-v0"
LIST = json.dumps({"tool_calls": [{"name": "workspace__list_files", "arguments": {}}]})


def play(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["play", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_whole_episode_through_the_cli(tmp_path: Path, capsys):
    run = tmp_path / "run"
    code, out, _ = play(capsys, "new", DEMO, run)
    assert code == 0
    assert "You are Chen Jie's long-term personal assistant" in out and "at most 30 tool calls per turn" in out
    assert "The dental clinic emailed me" in out and "30 tool calls left in this turn, 300 in the episode" in out
    assert "## workspace__read_file" in (run / "tools.md").read_text()
    kept = (run / "system.md").read_text()  # the rules and limits stay readable after the first screen
    prompt, forms = kept.split("\n\nHow to act")  # the system prompt, then how an action is read
    assert "at most 30 tool calls per turn" in prompt and prompt.strip() in out and forms.strip() in out
    assert "system.md" in out

    code, out, _ = play(capsys, "step", run, LIST)
    assert code == 0 and "--- result of workspace__list_files" in out and '"AGENTS.md"' in out
    assert "29 tool calls left in this turn" in out

    state = (run / "state.pkl").read_bytes()
    for bad in ("not json", json.dumps({"reply": 3}), "@" + str(tmp_path / "missing.json")):
        code, out, err = play(capsys, "step", run, bad)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert (run / "state.pkl").read_bytes() == state  # a bad action changes nothing

    code, _, err = play(capsys, "score", run)
    assert code == 2 and "still running" in err  # no grading while the episode runs

    action = tmp_path / "reply.json"
    action.write_text(json.dumps({"reply": "Done: booked Wednesday 15:30."}))
    code, out, _ = play(capsys, "step", run, f"@{action}")
    assert code == 0 and "=== new turn ===" in out
    assert "score" not in out.lower() and "passed" not in out.lower() and "reward" not in out.lower()

    code, out, _ = play(capsys, "show", run)
    assert code == 0 and "tool calls left in this turn" in out and "at most 30 tool calls per turn" not in out
    code, out, _ = play(capsys, "show", run, "--prompt")
    assert code == 0 and out.startswith(kept.strip()) and "tool calls left in this turn" in out

    for _ in range(20):
        code, out, _ = play(capsys, "step", run, '{"reply": ""}')
        assert code == 0
        if "The episode is over" in out:
            break
    assert "The episode is over" in out
    code, _, err = play(capsys, "step", run, '{"reply": ""}')
    assert code == 2 and "over" in err

    code, out, _ = play(capsys, "score", run)
    assert code == 0 and out.startswith("demo/errands: score ")
    fails = [line for line in out.splitlines() if line.startswith("FAIL ")]
    whys = [line for line in out.splitlines() if line.strip().startswith("why: ")]
    assert fails and len(whys) == len(fails) and all(len(w.strip()) > len("why: ") for w in whys)
    assert "(stage 0, weight 2)" in out

    trajectory = json.loads((run / "trajectory.json").read_text())
    assert trajectory["env_id"] == DEMO and len(trajectory["actions"]) >= 3
    env = gym.make(DEMO)
    env.reset(seed=trajectory["reset_seed"])
    info = {}
    for a in trajectory["actions"]:
        *_, info = env.step(a)
    assert info["score"] == pytest.approx(trajectory["score_when_played"], abs=0.01)


def test_play_pins_a_family_instance_and_refuses_a_busy_folder(tmp_path: Path, capsys):
    run = tmp_path / "fam"
    code, out, _ = play(capsys, "new", "VibeLife-finance-tax-season-v0", run, "--instance", "1")
    assert code == 0
    session = json.loads((run / "session.json").read_text())
    assert session["make"] == {"split": "test", "instance": 1}
    assert session["level"] == "paper"  # the level it was played at: the family's own by default
    code, _, _ = play(capsys, "new", "VibeLife-travel-city-break-v0", tmp_path / "cb", "--level", "guided")
    cb = json.loads((tmp_path / "cb" / "session.json").read_text())
    assert code == 0 and cb["make"]["level"] == "guided" and cb["level"] == "guided"
    code, _, err = play(capsys, "new", "VibeLife-finance-tax-season-v0", run)
    assert code == 2 and "not empty" in err
    code, _, err = play(capsys, "new", DEMO, tmp_path / "single", "--instance", "2")
    assert code == 2 and "scenario families" in err
    code, _, err = play(capsys, "step", tmp_path / "nowhere", LIST)
    assert code == 2 and "no play session" in err


def test_the_first_screen_says_how_an_action_is_read_and_the_play_keeps_to_it(tmp_path: Path, capsys):
    """A player who writes text next to its tool calls learns, before its first step, whether the
    user sees it: plain ``reply`` with calls ends the turn; OpenAI ``content`` with calls is narration."""
    run = tmp_path / "run"
    code, out, _ = play(capsys, "new", DEMO, run)
    kept = (run / "system.md").read_text()
    assert code == 0 and "How to act" in out and "How to act" in kept
    assert "narration that the user never sees" in kept and '"end_turn": true' in kept
    assert "none later than the end of the timeline (" in kept  # the wake-up limit, with its date
    code, out, _ = play(
        capsys, "step", run, json.dumps({"role": "assistant", "content": "Looking.", **json.loads(LIST)})
    )
    assert code == 0 and "=== new turn ===" not in out  # narration: the turn is still open
    code, out, _ = play(capsys, "step", run, json.dumps({**json.loads(LIST), "reply": "All in order."}))
    assert code == 0 and "--- result of workspace__list_files" in out and "=== new turn ===" in out
