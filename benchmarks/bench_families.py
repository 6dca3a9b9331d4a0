"""Scenario families: instance generation time and memory, and the reward gates at scale.

    python benchmarks/bench_families.py                      # every family, 200 train seeds
    python benchmarks/bench_families.py --seeds 0:500 --family VibeLife-travel-city-break-v0
    python benchmarks/bench_families.py --seeds 0:0          # generation, memory, test instances only
    python benchmarks/bench_families.py --no-gates           # generation and memory only
    python benchmarks/bench_families.py --domain litigation --seeds 0:20 --workers 2

Reports per family: median and max time to generate an instance (target <= 50 ms; the
seeded database images are built lazily at the first reset and timed separately), memory
per cached instance, the share of train seeds and of test instances that pass every gate
of ``vibelife validate``, and the seeds that fail (with why).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
import tracemalloc
from concurrent.futures import ProcessPoolExecutor

import gymnasium as gym

import vibelife_env
from vibelife_env.families import TEST_INSTANCES
from vibelife_env.families.loader import load_family
from vibelife_env.validation import validate_env


def _gen_times(family, split: str, seeds: range) -> tuple[list[float], list[float]]:
    gen, images = [], []
    for s in seeds:
        family._cache.clear()
        t = time.perf_counter()
        task = family.instance(split, s)
        gen.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        task.images  # noqa: B018 - build the seeded images once
        images.append((time.perf_counter() - t) * 1000)
    return gen, images


def _memory_per_instance(family, n: int = 20) -> float:
    family._cache.clear()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for s in range(n):
        family.instance("train", 10_000 + s).images  # noqa: B018
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return (after - before) / n / 1e6


def _validate(job: tuple[str, str, int]) -> tuple[bool, str]:
    """One instance's gates (in a worker process): whether all pass, and the first problem."""
    env_id, split, index = job
    v = validate_env(env_id, env_kwargs={"split": split, "instance": index})
    return v.ok, "" if v.ok else f"{v.env_id}: {v.problems[0][:160]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", action="append", default=None, help="a family env id (default: all)")
    parser.add_argument("--seeds", default="0:200", help="train seeds A:B to validate")
    parser.add_argument("--domain", action="append", default=None, help="only the families of this domain")
    parser.add_argument("--no-gates", action="store_true", help="measure generation and memory only")
    parser.add_argument("--workers", type=int, default=1, help="processes validating instances in parallel")
    args = parser.parse_args()
    ids = args.family or [i for i in vibelife_env.registered_ids() if "family_dir" in gym.registry[i].kwargs]
    if args.domain:
        ids = [i for i in ids if load_family(gym.registry[i].kwargs["family_dir"]).domain in args.domain]
    pool = ProcessPoolExecutor(args.workers) if args.workers > 1 else None
    totals = [0, 0]
    a, b = (int(x) for x in args.seeds.split(":"))
    for env_id in ids:
        family = load_family(gym.registry[env_id].kwargs["family_dir"])
        gen, images = _gen_times(family, "train", range(a, a + 50))
        mem = _memory_per_instance(family)
        print(f"{env_id}")
        print(f"  generate: median {statistics.median(gen):.1f} ms, max {max(gen):.1f} ms (target <= 50 ms)")
        print(f"  seeded images at first reset: median {statistics.median(images):.1f} ms")
        print(f"  memory per cached instance (with images): {mem:.2f} MB")
        if args.no_gates:
            continue
        t = time.perf_counter()
        jobs = [(env_id, "test", k) for k in range(TEST_INSTANCES)] + [(env_id, "train", s) for s in range(a, b)]
        results = list(pool.map(_validate, jobs) if pool else map(_validate, jobs))
        tests, trains = results[:TEST_INSTANCES], results[TEST_INSTANCES:]
        took = time.perf_counter() - t
        print(f"  test instances passing every gate: {sum(ok for ok, _ in tests)}/{len(tests)}")
        if trains:
            passed = sum(ok for ok, _ in trains)
            totals[0] += passed
            totals[1] += len(trains)
            print(f"  train seeds {a}:{b} passing every gate: {passed}/{len(trains)} ({took:.0f} s)")
        for ok, why in results:
            if not ok:
                print(f"    {why}")
    if totals[1]:
        print(f"train seeds passing every gate over {len(ids)} families: {totals[0]}/{totals[1]}")


if __name__ == "__main__":
    main()
