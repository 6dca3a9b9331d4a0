"""Throughput of whole-episode rollouts on Ray workers, and actor start-up cost.

Runs the demo task's oracle (``VibeLife-demo-errands-v0``) through
:class:`vibelife_env.runner.EpisodeRunner` with 0 (in-process), 1 and 2 workers. Start-up
(actor creation + first episode, which loads the task inside the actor) is measured
separately and kept out of the throughput figures. Target on a 2-core machine: 2 workers
≥ 1.6x the episodes/s of 1 worker.

    python3 benchmarks/bench_ray.py [--episodes 300] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import time

import ray

import vibelife_env  # noqa: F401
from vibelife_env.runner import EpisodeJob, EpisodeRunner

ENV = "VibeLife-demo-errands-v0"


def throughput(workers: int, episodes: int, repeats: int) -> dict[str, float]:
    """Best-of-``repeats`` episodes/s, plus start-up seconds (actors up, task loaded)."""
    t0 = time.perf_counter()
    runner = EpisodeRunner("oracle", num_workers=workers)
    runner.warm_up()
    t_actors = time.perf_counter() - t0
    list(runner.run([EpisodeJob(ENV, seed=s) for s in range(max(workers, 1) * 2)]))  # load the task everywhere
    t_ready = time.perf_counter() - t0
    best = 0.0
    for r in range(repeats):
        jobs = [EpisodeJob(ENV, seed=1000 * r + s) for s in range(episodes)]
        t = time.perf_counter()
        results = list(runner.run(jobs))
        rate = episodes / (time.perf_counter() - t)
        if not all(x.ok and x.result.score == 100.0 for x in results):
            raise RuntimeError("an oracle episode failed or scored below 100")
        best = max(best, rate)
    runner.close()
    return {
        "workers": workers,
        "episodes_per_s": round(best, 1),
        "actor_startup_s": round(t_actors, 3),
        "ready_s": round(t_ready, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=300, help="episodes per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="measurements per setting (best is kept)")
    args = parser.parse_args()
    t = time.perf_counter()
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    ray_init_s = time.perf_counter() - t
    rows = [throughput(w, args.episodes, args.repeats) for w in (0, 1, 2)]
    ray.shutdown()
    speedup = rows[2]["episodes_per_s"] / rows[1]["episodes_per_s"]
    for row in rows:
        print(json.dumps(row))
    print(
        json.dumps(
            {
                "ray_init_s": round(ray_init_s, 2),
                "speedup_2_vs_1": round(speedup, 2),
                "target": 1.6,
                "met": speedup >= 1.6,
            }
        )
    )


if __name__ == "__main__":
    main()
