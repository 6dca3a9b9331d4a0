"""Median latency of read and write tool calls, per service.

    python benchmarks/bench_services.py

Runs the service test suite (``tests/services``) in-process with every tool call timed, so
the figures come from realistic calls on seeded data (main flows and error paths). Each
successful call is timed ``--repeat`` more times, each inside a savepoint that is rolled
back afterwards, so writes are measured on identical state with warm statement caches. Reported per service: the median over its
successful read-only calls and over its successful writes.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from pathlib import Path

import pytest

from vibelife_env.services.base import Service
from vibelife_env.services.tooling import ToolProvider

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    samples: dict[tuple[str, bool], list[float]] = defaultdict(list)
    original = ToolProvider.call
    busy = False

    def timed_call(self, tool_name, call_args=None):
        nonlocal busy
        if busy or not isinstance(self, Service) or tool_name not in self.tools:
            return original(self, tool_name, call_args)
        busy = True
        try:
            spec = self.tools[tool_name]
            for _ in range(args.repeat):
                self.conn.execute("SAVEPOINT bench")
                t = time.perf_counter()
                result = original(self, tool_name, call_args)
                elapsed = time.perf_counter() - t
                self.conn.execute("ROLLBACK TO bench")
                self.conn.execute("RELEASE bench")
                if isinstance(result, dict) and "error" in result and "code" in result:
                    break
                samples[(self.name, spec.read_only)].append(elapsed)
            return original(self, tool_name, call_args)
        finally:
            busy = False

    ToolProvider.call = timed_call  # type: ignore[method-assign]
    try:
        pytest.main(["-q", "-p", "no:cacheprovider", str(ROOT / "tests" / "services")])
    finally:
        ToolProvider.call = original  # type: ignore[method-assign]

    print(f"\n{'service':<22}{'read median':>14}{'n':>6}{'write median':>15}{'n':>6}")
    for name in sorted({s for s, _ in samples}):
        reads, writes = samples.get((name, True), []), samples.get((name, False), [])
        r = f"{statistics.median(reads) * 1e6:>11.1f} us" if reads else f"{'-':>14}"
        w = f"{statistics.median(writes) * 1e6:>12.1f} us" if writes else f"{'-':>15}"
        print(f"{name:<22}{r}{len(reads):>6}{w}{len(writes):>6}")
    every = [x for v in samples.values() for x in v]
    print(f"{'all calls':<22}{statistics.median(every) * 1e6:>11.1f} us{len(every):>6}")


if __name__ == "__main__":
    main()
