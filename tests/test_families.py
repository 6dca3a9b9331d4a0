"""Scenario families: deterministic generation, splits, registration, structure that varies,
and the reward gates on every test instance and some train seeds."""

from __future__ import annotations

import json
import pickle
import statistics

import gymnasium as gym
import pytest

import vibelife_env
from vibelife_env.agents import make_agent
from vibelife_env.episode import agent_view
from vibelife_env.families import TEST_INSTANCES, diversity
from vibelife_env.families.loader import load_family
from vibelife_env.stats import PAPER, task_stats
from vibelife_env.validation import validate_env

FAMILY_IDS = [i for i in vibelife_env.registered_ids() if "family_dir" in gym.registry[i].kwargs]
CITY = "VibeLife-travel-city-break-v0"

#: The default run gates one instance of the first family of each domain; ``pytest -m gates``
#: (which CI runs) gates every test instance and a train seed of every family.
FIRST_OF_DOMAIN: dict[str, str] = {}
for _id in FAMILY_IDS:
    FIRST_OF_DOMAIN.setdefault(load_family(gym.spec(_id).kwargs["family_dir"]).domain, _id)
SAMPLE = set(FIRST_OF_DOMAIN.values())


def _gated(env_id: str, first: bool) -> list:
    """The ``gates`` mark, except on the default run's sample."""
    return [] if first and env_id in SAMPLE else [pytest.mark.gates]


def _fingerprint(task) -> str:
    """Everything an instance is made of, as text (checks by id and weight)."""
    return json.dumps(
        {
            "meta": task.meta.model_dump(),
            "events": [e.model_dump(mode="json", warnings=False) for e in task.events],
            "files": task.workspace_files,
            "seeds": task.seed_sql,
            "checks": [(c.id, c.tier, c.stage, c.weight) for c in task.checks],
        },
        sort_keys=True,
        default=str,
    )


def test_families_are_registered():
    assert {CITY, "VibeLife-finance-card-watch-v0"} <= set(FAMILY_IDS)


@pytest.mark.parametrize("env_id", FAMILY_IDS)
def test_generation_is_pure_and_deterministic(env_id):
    family = load_family(gym.registry[env_id].kwargs["family_dir"])
    first = _fingerprint(family.instance("test", 1))
    family._cache.clear()  # rebuild from the seed, not from the cache
    assert _fingerprint(family.instance("test", 1)) == first
    assert _fingerprint(family.instance("train", 1)) != first  # train and test keys never collide


@pytest.mark.parametrize("env_id", FAMILY_IDS)
def test_instances_are_near_the_papers_medians(env_id):
    """Over 40 train instances: stages, days and events around the paper's medians (within
    ~25%), all four event kinds, the end tiers' share of checks and weight, >= 7 services,
    4-7 probes, and a Chinese-speaking persona in about a third of them."""
    family = load_family(gym.registry[env_id].kwargs["family_dir"])
    rows = [task_stats(family.instance("train", s)) for s in range(40)]

    def med(key):
        return statistics.median(key(r) for r in rows)

    assert 0.8 * PAPER["stages"] <= med(lambda r: r["stages"]) <= 1.25 * PAPER["stages"]
    assert 0.7 * PAPER["horizon_days"] <= med(lambda r: r["horizon_days"]) <= 1.5 * PAPER["horizon_days"]
    assert med(lambda r: r["events"]) >= 0.85 * PAPER["events"]
    assert med(lambda r: r["checks"]) >= 0.75 * PAPER["checks"]
    assert all(set(r["events_by_kind"]) >= {"user_message", "notification", "world", "mutation"} for r in rows)
    assert 0.15 <= med(lambda r: r["end_tier_count_share"]) <= 0.25
    assert 0.22 <= med(lambda r: r["end_tier_weight_share"]) <= 0.33
    assert med(lambda r: len(r["services"])) >= 7
    probes = [len(family.profile("train", s).probes) for s in range(40)]
    assert min(probes) >= 4 and max(probes) <= 7
    langs = [family.profile("train", s).language for s in range(90)]
    assert 0.2 <= langs.count("zh") / len(langs) <= 0.5


@pytest.mark.parametrize("env_id", FAMILY_IDS)
def test_instances_differ_in_structure_not_only_names(env_id):
    family = load_family(gym.registry[env_id].kwargs["family_dir"])
    profiles = [family.profile("test", k) for k in range(TEST_INSTANCES)]
    assert len({p.probes for p in profiles}) > 1 and len({p.constraints for p in profiles}) > 1
    assert diversity(profiles) > 0.2
    train = [family.profile("train", s) for s in range(20)]
    assert diversity(train) > 0.2


def test_test_split_serves_four_frozen_instances_and_train_one_per_seed():
    env = gym.make(CITY).unwrapped
    served = {}
    for seed in range(8):
        _, info = env.reset(seed=seed)
        served[seed] = (info["instance"]["index"], env.task.meta.name)
    assert [served[s][0] for s in range(8)] == [0, 1, 2, 3, 0, 1, 2, 3]
    assert served[0][1] == served[4][1] != served[1][1]
    pinned = gym.make(CITY, instance=2).unwrapped
    assert {pinned.reset(seed=s)[1]["instance"]["index"] for s in range(3)} == {2}
    train = gym.make(CITY, split="train").unwrapped
    names = {train.reset(seed=s)[1]["instance"]["index"] for s in (10, 11, 10)}
    assert names == {10, 11}
    with pytest.raises(ValueError, match="split"):
        gym.make(CITY, split="dev")
    with pytest.raises(ValueError, match="test instances are 0-3"):
        gym.make(CITY, instance=7)


def test_a_family_instance_snapshots_and_forks_exactly():
    env = gym.make(CITY, instance=1).unwrapped
    obs, info = env.reset(seed=1)
    oracle = make_agent("oracle", env.task)
    oracle.reset(agent_view(info))
    for _ in range(6):
        obs, *_, info = env.step(oracle.act(obs, agent_view(info)))
    snap = pickle.loads(pickle.dumps(env.snapshot()))
    other = gym.make(CITY, instance=1).unwrapped
    other.reset(options={"snapshot": snap})
    assert other.world.digest() == env.world.digest()


def test_a_snapshot_resumes_the_instance_it_was_taken_on():
    env = gym.make(CITY).unwrapped
    obs, info = env.reset(seed=2)
    oracle = make_agent("oracle", env.task)
    oracle.reset(agent_view(info))
    obs, *_, info = env.step(oracle.act(obs, agent_view(info)))
    snap = pickle.loads(pickle.dumps(env.snapshot()))
    other = gym.make(CITY).unwrapped  # serves instance 0 until told otherwise
    _, resumed = other.reset(options={"snapshot": snap})
    assert resumed["instance"]["index"] == 2
    assert other.task.id == env.task.id
    assert other.system_prompt == env.system_prompt
    assert other.world.digest() == env.world.digest()
    a = env.step({"role": "assistant", "content": "Noted."})
    b = other.step({"role": "assistant", "content": "Noted."})
    assert pickle.dumps(a) == pickle.dumps(b)


def test_a_snapshot_of_another_task_is_refused():
    env = gym.make(CITY, instance=1).unwrapped
    env.reset(seed=1)
    stranger = gym.make("VibeLife-demo-errands-v0").unwrapped
    stranger.reset(seed=0)
    with pytest.raises(ValueError, match="taken on task"):
        stranger.reset(options={"snapshot": env.snapshot()})


@pytest.mark.parametrize(
    ("env_id", "instance"),
    [pytest.param(e, i, marks=_gated(e, i == 0)) for e in FAMILY_IDS for i in range(TEST_INSTANCES)],
)
def test_every_gate_passes_on_the_test_instances(env_id, instance):
    v = validate_env(env_id, env_kwargs={"split": "test", "instance": instance})
    assert v.ok, v.problems


@pytest.mark.gates
@pytest.mark.parametrize(("env_id", "seed"), [(e, 100 + i) for i, e in enumerate(FAMILY_IDS)])
def test_every_gate_passes_on_a_train_seed(env_id, seed):
    """One train seed per family, a different one each (hundreds run in benchmarks/bench_families.py)."""
    v = validate_env(env_id, env_kwargs={"split": "train", "instance": seed})
    assert v.ok, v.problems


def test_make_vec_serves_family_instances():
    envs = gym.make_vec(CITY, num_envs=2, vectorization_mode="sync")
    obs, infos = envs.reset(seed=[0, 1])
    assert list(infos["instance"]["index"]) == [0, 1]
    envs.close()
