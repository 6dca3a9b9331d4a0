"""fitness/gym_reboot: the subtle rules of its reward.

Two gyms meet every rule in GYM.md and each near-miss breaks exactly one (distance, rating, an
unresolved safety complaint, the price cap, the lock-in); a resolved safety complaint does not
disqualify; the price cap binds; joining a near-miss, joining before the go-ahead, keeping an
intense class after a high reading, or leaving a cancelled class in place each loses its check;
every rule is stated in the workspace; instances differ in structure and a third speak Chinese.
"""

from __future__ import annotations

from typing import Any

from tests.families.harness import FamilyHarness, failed_checks, silent
from vibelife_env.probes import gym as G

H = FamilyHarness("VibeLife-fitness-gym-reboot-v0")


def _near(s: G.GymStory, g: G.Gym) -> bool:
    return min(G.km(s.home, (g.lat, g.lng)), G.km(s.work, (g.lat, g.lng))) <= s.radius_km


def test_two_valid_gyms_and_each_near_miss_breaks_one_rule():
    for seed in range(12):
        s = H.story(seed)
        valid = G.valid_gyms(s)
        assert sorted(g.role for g in valid) == ["valid", "valid2"]
        by = {g.role: g for g in s.gyms}
        assert not _near(s, by["far"])
        assert by["low"].rating < s.min_rating
        assert by["unsafe"].safety == "open"
        assert by["over"].monthly > s.price_cap
        assert by["lockin"].term > s.max_term
        assert by["valid2"].safety == "resolved"  # a resolved complaint is fine
        # the cap binds at 1.05-1.25x the cheapest valid gym
        assert 1.04 * valid[0].monthly <= s.price_cap <= 1.26 * valid[0].monthly
        assert valid[1].monthly <= s.price_cap


def test_rules_are_stated_in_the_workspace():
    env = H.make(0, level="guided").unwrapped  # the guided level states every rule (the paper level: its own test)
    env.reset(seed=0)
    s = env.task.oracle[0].story
    files = s.extras["initial_files"]
    gym_md, plan, user = files["GYM.md"], files["PLAN.md"], files["USER.md"]
    assert f"{s.radius_km:g} km" in gym_md and f"{s.min_rating / 10:.1f}" in gym_md
    assert str(s.price_cap) in gym_md and "safety complaint" in gym_md
    assert "08:00 and 19:00" in plan and "consecutive" in plan and "`Gym · PT`" in plan
    assert str(s.rhr_max) in user and "doctor" in user and s.old_gym in user
    for g in s.gyms:
        assert g.name in files["TIMETABLES.md"]


def _join(role: str):
    def step(agent: Any, text: str):
        s = agent.story
        g = next(x for x in s.gyms if x.role == role)
        agent.memory["gym"] = g.merchant
        a = yield from G.reserve(agent)
        return [f"Joined {g.name} {a}"]

    return step


def test_joining_a_near_miss_gym_fails():
    for role in ("unsafe", "far"):
        failed = failed_checks(H.run(1, H.oracle(1, go=[_join(role)])))
        assert "joined_valid_gym" in failed


def test_intense_class_kept_after_high_reading_fails():
    seed = H.seed("health_pause")
    assert "intense_paused" not in failed_checks(H.run(seed, H.oracle(seed)))
    failed = failed_checks(H.run(seed, H.oracle(seed, health_notice=[silent])))
    # staying silent passes nothing on and suggests no doctor
    assert "reading_and_doctor" in failed


def test_cancelled_class_left_in_place_fails():
    seed = H.seed("class_cancelled")
    failed = failed_checks(H.run(seed, H.oracle(seed, class_cancel_seen=[silent])))
    assert "cancelled_class_rebooked" in failed


def test_same_key_same_instance_and_structure_varies():
    fam = H.family()
    a, b = fam.profile("train", 3), fam.profile("train", 3)
    assert a == b
    profiles = [fam.profile("train", i) for i in range(30)]
    assert len({p.probes for p in profiles}) >= 10
    zh = sum(p.language == "zh" for p in profiles)
    assert 4 <= zh <= 16
