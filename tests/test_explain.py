"""Every failed check says why: verdicts, the instrumented re-run, and the scorer's reasons."""

from __future__ import annotations

import pickle

import gymnasium as gym
import pytest

import vibelife_env  # noqa: F401
from vibelife_env.checks import state
from vibelife_env.checks.base import Check
from vibelife_env.checks.explain import explain, short
from vibelife_env.checks.scoring import UNEXPLAINED, evaluate
from vibelife_env.checks.verdict import Verdict, because, reason_of


def fails_for(reason: str) -> Verdict:
    return Verdict(False, reason)


def helper_rows(rows):
    kept = [r for r in rows if r > 5]
    if not kept:
        return False
    return len(kept) >= 2


def make_checks(limit: int, items: list[int]):
    def chain(ctx):
        warned = "scam" in ctx
        return helper_rows(items) and warned and not fails_for("paid nothing")

    def compare(ctx):
        return len(items) == limit

    def early(ctx):
        booking = None if not items else items[0]
        if booking is None:
            return False
        return booking > limit

    def walrus(ctx):
        return (first := next(iter(items), None)) is not None and first > limit

    def library(ctx):
        return len(items) >= 0 and fails_for(f"the mail <m{limit}> is in INBOX, not in Spam")

    def negated(ctx):
        paid = [i for i in items if i > limit]
        return not paid

    return {
        "chain": chain,
        "compare": compare,
        "early": early,
        "walrus": walrus,
        "library": library,
        "negated": negated,
    }


def test_a_verdict_is_a_bool_with_a_reason():
    v = Verdict(False, "nothing in Spam")
    assert not v and v == False and v == 0 and sum([Verdict(True), v, True]) == 2  # noqa: E712
    assert (Verdict(True, "ok") and v) is v and reason_of(v) == "nothing in Spam"
    assert pickle.loads(pickle.dumps(v)).reason == "nothing in Spam" and not pickle.loads(pickle.dumps(v))
    assert bool(because(True, "x")) and reason_of((False, "detail")) == "detail"
    assert reason_of({"passed": False, "details": "rubric says"}) == "rubric says" and reason_of(False) == ""


@pytest.mark.parametrize(
    ("name", "ctx", "items", "expected"),
    [
        ("chain", "a scam", [1, 2], "`helper_rows(items)` is false (with `items` = [1, 2])"),
        ("chain", "nothing", [7, 9], "`warned` is false: `'scam' in ctx` is false: `ctx` = 'nothing'"),
        ("compare", None, [1, 2], "`len(items) == limit` is false: `len(items)` = 2, `limit` = 3"),
        ("early", None, [], "it returns False after `if booking is None` (true): `booking` is None"),
        ("walrus", None, [1], "`first > limit` is false: `first` = 1, `limit` = 3"),
        ("library", None, [1], "the mail <m3> is in INBOX, not in Spam"),
        ("negated", None, [1, 7], "`paid` = [7]"),
    ],
)
def test_the_first_false_condition_is_named_with_its_values(name, ctx, items, expected):
    check = make_checks(3, items)[name]
    assert not check(ctx)
    assert expected in explain(check, ctx)


def test_explaining_never_changes_a_verdict_and_is_deterministic():
    checks = make_checks(3, [7, 9])
    for check in checks.values():
        value = check("a scam")
        first, second = explain(check, "a scam"), explain(check, "a scam")
        assert first == second
        assert check("a scam") == value  # the original still behaves as it did
        if value:
            assert first == ""  # nothing to explain: the instrumented run agrees it holds


def test_the_scorer_gives_every_failed_check_a_reason_and_a_description():
    def plain(ctx):
        """The itinerary names the return flight."""
        return len(ctx) > 5

    def raises(ctx):
        return ctx["missing"]

    result = evaluate(Check("s01_plain", plain, 1.0, "stage", 1), "abc")
    assert not result.passed and result.description == "The itinerary names the return flight."
    assert result.reason == "`len(ctx) > 5` is false: `len(ctx)` = 3"
    broken = evaluate(Check("x_broken_check", raises, 1.0, "cross_stage"), {})
    assert broken.error.startswith("KeyError") and broken.reason.startswith("the check raised KeyError")
    assert "tests/test_explain.py:" in broken.reason and broken.description == "Broken check."
    unexplainable = evaluate(Check("f_x", lambda ctx: 0, 1.0, "final"), None)
    assert unexplainable.reason  # a lambda returning a constant still gets a sentence
    assert evaluate(Check("f_ok", plain, 1.0, "final"), "abcdefgh").reason == ""
    assert UNEXPLAINED not in result.reason


def test_values_render_compactly_and_deterministically():
    assert short([1, 2, 3, 4, 5]) == "[1, 2, 3, … (5 in all)]"
    assert short([]) == "nothing (empty)" and short({"b", "a"}) == "['a', 'b']"
    assert short("x" * 500).endswith("(500 chars)") and short(object()).startswith("<object")


def test_state_predicates_give_reasons_on_a_real_world():
    env = gym.make("VibeLife-demo-errands-v0")
    env.reset(seed=0)
    with env.unwrapped.episode.check_context(None) as ctx:
        ids = [r["message_id"] for r in ctx.sql("email", "SELECT message_id FROM messages ORDER BY id LIMIT 1")]
        held = state.quarantined(ctx, ids)
        assert not held and reason_of(held) == f"the mail {ids[0]} is in INBOX, not in Spam"
        kept = state.intact(ctx, ids)
        assert kept and reason_of(kept) == "1 genuine mail(s) kept"


def test_a_null_episode_leaves_no_failed_check_without_a_reason():
    env = gym.make("VibeLife-travel-japan-v0")
    env.reset(seed=0)
    terminated = truncated = False
    info: dict = {}
    while not (terminated or truncated):
        _, _, terminated, truncated, info = env.step({"reply": ""})
    failed = [c for c in info["checks"] if not c["passed"]]
    assert failed and all(c["reason"] and c["reason"] != UNEXPLAINED for c in failed)
    assert all(c["description"] for c in info["checks"])
    by_id = {c["id"]: c for c in failed}
    assert by_id["s02_visa_fee_scam_quarantined"]["reason"].endswith("is in INBOX, not in Spam")


def test_a_set_a_check_iterates_is_shown_sorted_whatever_the_hash_seed(tmp_path):
    import os
    import subprocess
    import sys

    script = tmp_path / "probe.py"  # a file: explain reads the check's source
    script.write_text(
        "from vibelife_env.checks.explain import explain\n"
        "def check(ctx):\n"
        "    valid = {f'F{i}{c}' for i in range(9) for c in 'AB'}\n"
        "    return any(f in ctx for f in valid)\n"
        "print(explain(check, 'nothing here'))\n"
    )
    runs = {
        subprocess.run(
            [sys.executable, str(script)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
        ).stdout
        for seed in (1, 2, 3)
    }
    assert len(runs) == 1 and "['F0A', 'F0B', 'F1A'" in runs.pop()
