"""litigation/small_claim: the subtle rules of its reward.

The filing fee follows CASE.md's stated scale; the valid citations are computed from the corpus
(repealed laws, another region's regulation and precedents lost on the limitation period are
out, and an amended regulation replaces the old version); ids are read from free text and the
case-file item names are never taken for ids; the claim follows the limitation period in force;
the family always plants the fake court-fee mail and is not held out. These are tests of the
guided instance (``level="guided"``); the paper level's are in ``tests/test_small_claim_paper.py``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import gymnasium as gym
import pytest

from vibelife_env.families.loader import load_family
from vibelife_env.probes import legal as L
from vibelife_env.rollout import base_env, run_episode

ENV = "VibeLife-litigation-small-claim-v0"


def _family():
    return load_family(gym.registry[ENV].kwargs["family_dir"])


def _seed_with(probe: str) -> int:
    fam = _family()
    return next(seed for seed in range(300) if probe in fam.profile("train", seed, "guided").probes)


class _World:
    """A stand-in check context over a finished episode's world (SQL and time only)."""

    def __init__(self, env: Any) -> None:
        self.world = base_env(env).world
        self.memo: dict[str, Any] = {}

    @property
    def now(self):
        return self.world.clock.now()

    def sql(self, service: str, query: str, params: Any = ()) -> list[dict[str, Any]]:
        return self.world.services[service].query(query, params)


def _oracle_run(seed: int) -> tuple[Any, L.ClaimStory, Any]:
    env = gym.make(ENV, level="guided", split="train", instance=seed)
    oracle = base_env(env).task.oracle[0]
    result = run_episode(env, oracle(), seed=0, record=False)
    return env, oracle.story, result


def test_not_held_out_and_always_plants_the_fake_fee():
    fam = _family()
    assert not type(fam).heldout
    for seed in range(20):
        probes = fam.profile("train", seed, "guided").probes
        assert "fake_court_fee" in probes and 4 <= len(probes) <= 7


def test_fee_scale_is_the_stated_one():
    assert L.fee_for(800) == 25
    assert L.fee_for(10_000) == 25
    assert L.fee_for(30_000) == pytest.approx((30_000 * 0.025 - 200) / 2)


def test_id_tokens_read_free_text_and_case_file_items_are_not_ids():
    assert L.id_tokens("依据art_mfd_577和 case_12345，另见 ST_MFD") == {"art_mfd_577", "case_12345", "st_mfd"}
    doc = "| case_number | (2026)沪0104民初1234号 |\n| statutes | art_mfd_577 |\n"
    cells = dict(L._case_file(doc))
    assert L.id_tokens(cells["case_number"]) == set()
    assert L.id_tokens(cells["statutes"]) == {"art_mfd_577"}


def test_valid_sets_are_computed_from_the_corpus_and_follow_an_amendment():
    seed = _seed_with("regulation_amended")
    env, story, result = _oracle_run(seed)
    assert result.score == pytest.approx(100.0)
    ctx = _World(env)
    arts = L.valid_articles(ctx, story)
    own = story.extras["own_reg"]["article"]
    assert "art_mfd_577" in arts and "art_htf_107" not in arts and "art_mftz_135" not in arts
    assert own not in arts  # amended away by the end
    assert story.extras["amended"][1] in L.required_articles(ctx, story)
    foreign = {a for a in arts if a.startswith("art_") and a.split("_")[1] in ("zjcp", "tjcp", "cqcp")}
    assert not foreign
    cases = L.valid_cases(ctx, story)
    assert len(cases) == 3
    lost = ctx.sql("legal_search", "SELECT case_id FROM cases WHERE outcome = '驳回'")
    assert not cases & {r["case_id"] for r in lost}


def test_claim_follows_the_three_year_limitation_in_force():
    fam = _family()
    for seed in range(200):
        story = fam.instance("train", seed, "guided").oracle[0].story
        older = story.extras.get("older_job")
        if older is None:
            continue
        age = (story.kickoff.date() - older["day"]).days
        assert (age < 3 * 365) == older["within"]
        assert age > 2 * 365  # the repealed two-year rule would always leave it out
        expected = (story.claim + (older["amount"] if older["within"] else 0)) / 100
        assert L.final_claim(story) == pytest.approx(expected)


def test_a_claim_citing_a_repealed_or_invented_id_fails():
    seed = _seed_with("fake_court_fee")
    env, story, _ = _oracle_run(seed)
    ctx = _World(env)
    case = sorted(L.valid_cases(ctx, story))[0]
    required = " ".join(sorted(L.required_articles(ctx, story)))
    assert L.cites_right(ctx, story, f"{required} {case}")
    assert not L.cites_right(ctx, story, f"{required} {case} art_htf_107")
    assert not L.cites_right(ctx, story, f"{required} {case} case_99999x")
    assert not L.cites_right(ctx, story, f"art_mfd_577 {case}")


def test_hearing_follows_the_silent_move():
    seed = _seed_with("hearing_moved")
    story = _family().instance("train", seed, "guided").oracle[0].story
    moved_at, new = story.extras["move"]

    class At:
        def __init__(self, now):
            self.now = now

    assert L.hearing(At(moved_at - timedelta(minutes=1)), story) == story.extras["hearing"]
    assert L.hearing(At(moved_at), story) == new
