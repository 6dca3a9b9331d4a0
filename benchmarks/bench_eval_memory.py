"""Peak memory of ``vibelife eval`` against the number of episodes it plays.

    python benchmarks/bench_eval_memory.py [--attempts 1 5] [--suite vibelife-200] [--workers 0]
    python benchmarks/bench_eval_memory.py --env VibeLife-demo-errands-v0 --attempts 10 50

Each figure is one ``vibelife eval`` of the null and polling agents in a fresh process:
with the suite's 200 test instances, ``--attempts 1`` plays 400 episodes and ``5`` plays
2,000. Its peak RSS (``ru_maxrss`` of that process; with ``--workers N`` the largest of it
and its Ray actors) is printed with the run's time. Target: the figures at most 20% apart,
as evaluation streams its episodes to disk and builds the report from the stream.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: Runs one command and prints the peak RSS (KiB) of the processes it waited for.
_MEASURE = """
import resource, subprocess, sys
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def peak_rss(argv: list[str]) -> tuple[int, float, float]:
    """Exit status, peak RSS (MB) and wall time (s) of ``vibelife *argv`` in a fresh process."""
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, sys.executable, "-m", "vibelife_env.cli", *argv],
        capture_output=True,
        text=True,
        check=True,
    )
    code, kib = out.stdout.split()
    return int(code), int(kib) / 1024, time.perf_counter() - start


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--attempts", type=int, nargs="+", default=[1, 5], help="attempts per run (default 1 5)")
    p.add_argument("--suite", default="vibelife-200", help="suite to evaluate (default vibelife-200)")
    p.add_argument("--env", action="append", default=[], help="evaluate these envs instead of the suite")
    p.add_argument("--agent", action="append", default=[], help="agents (default null and polling)")
    p.add_argument("--workers", type=int, default=0, help="Ray actors (default 0: in-process)")
    p.add_argument("--json", default=None, help="also write the figures to this file")
    args = p.parse_args()
    agents = args.agent or ["null", "polling"]
    where = [f"--env={e}" for e in args.env] if args.env else [f"--suite={args.suite}"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for attempts in args.attempts:
            out = Path(tmp) / f"a{attempts}"
            argv = ["eval", *where, *(f"--agent={a}" for a in agents), f"--attempts={attempts}"]
            argv += [f"--workers={args.workers}", f"--out={out}", "--no-progress"]
            code, mb, secs = peak_rss(argv)
            episodes = sum(1 for _ in (out / "episodes.jsonl").open()) if code == 0 else 0
            rows.append({"attempts": attempts, "episodes": episodes, "peak_rss_mb": mb, "seconds": secs, "exit": code})
            print(f"{episodes:>6} episodes  peak RSS {mb:8.1f} MB  {secs:7.1f} s  exit {code}", flush=True)
    ok = [r["peak_rss_mb"] for r in rows if r["exit"] == 0]
    if len(ok) >= 2:
        spread = max(ok) / min(ok) - 1
        print(f"largest / smallest peak: +{100 * spread:.1f}% (target: at most +20%)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0 if all(r["exit"] == 0 for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
