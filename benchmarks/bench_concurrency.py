"""LLM-bound concurrency: episodes in flight on one process against a slow chat endpoint.

A fake OpenAI-compatible server (its own process, asyncio, HTTP/1.1 keep-alive) answers
every ``/v1/chat/completions`` request after ``--latency`` seconds. Its answers are a
deterministic function of the conversation (after an event: one tool call reading a
workspace file; after tool results: a reply), so each turn of the demo task costs two
completions and every episode's trajectory is fixed. The client runs
:func:`vibelife_env.async_rollout.run_jobs` with :class:`AsyncOpenAIChatAgent` agents
(one small ``AsyncOpenAI`` client each), ``--in-flight`` episodes at a time.

Figures: completions per second against the ideal ``in_flight / latency``, and the CPU
used by the client process (env steps, JSON, HTTP) and by the server process::

    python benchmarks/bench_concurrency.py --in-flight 256 --latency 1.0 --episodes 1024

Also checks that results are deterministic per episode: the same seeds run again at a
different concurrency give byte-identical transcripts and rewards (``--check``).

It never fails silently: a failed episode (an endpoint error, a missing library), a fake
server that does not start or miscounts, or an efficiency below ``--min-efficiency``
prints a ``FAIL: ...`` line saying why and exits 1. ``--base-url`` runs the same client
against another OpenAI-compatible endpoint (no server figures then).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import queue
import resource
import sys
import time
from typing import Any

ENV = "VibeLife-demo-errands-v0"


# ----------------------------------------------------------------------------- fake server
def _answer(request: dict[str, Any]) -> dict[str, Any]:
    messages = request["messages"]
    if messages[-1]["role"] == "user":
        call = {
            "id": f"c{len(messages)}",
            "type": "function",
            "function": {"name": "workspace__read_file", "arguments": '{"path": "USER.md"}'},
        }
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
    else:
        message = {"role": "assistant", "content": f"Noted after {len(messages)} messages."}
    return {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 0,
        "model": request.get("model", "fake"),
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if "tool_calls" in message else "stop"}
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


async def _handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, latency: float, stats: dict) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            body = await reader.readexactly(length) if length else b"{}"
            stats["requests"] += 1
            await asyncio.sleep(latency)
            data = json.dumps(_answer(json.loads(body))).encode()
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                + str(len(data)).encode()
                + b"\r\nConnection: keep-alive\r\n\r\n"
                + data
            )
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


def _serve(port_queue: Any, latency: float, stop: Any) -> None:
    async def main() -> None:
        stats = {"requests": 0}
        server = await asyncio.start_server(
            lambda r, w: _handle(r, w, latency, stats), "127.0.0.1", 0, backlog=4096, limit=2**24
        )
        port_queue.put(server.sockets[0].getsockname()[1])
        while not stop.is_set():
            await asyncio.sleep(0.05)
        server.close()
        usage = resource.getrusage(resource.RUSAGE_SELF)
        port_queue.put({"requests": stats["requests"], "cpu_s": usage.ru_utime + usage.ru_stime})

    asyncio.run(main())


# --------------------------------------------------------------------------------- client
class BenchFailure(RuntimeError):
    """The run cannot give figures (the message says why)."""


async def _run(base_url: str, seeds: list[int], in_flight: int) -> tuple[list[Any], float, int]:
    """Every seed's episode; stops at the first failed one.

    Raises:
        BenchFailure: an episode failed, or did not play to its end.
    """
    import vibelife_env  # noqa: F401
    from vibelife_env.async_rollout import AsyncOpenAIChatAgent, run_jobs
    from vibelife_env.runner import AgentFactory, EpisodeJob

    factory = AgentFactory(lambda: AsyncOpenAIChatAgent("fake-model", base_url, "bench", max_retries=0, timeout=120))
    jobs = [EpisodeJob(ENV, seed=s) for s in seeds]
    results = []
    start = time.perf_counter()
    # "report": the first failure ends the run here, with its own message (and the rest stop)
    async with contextlib.aclosing(run_jobs(jobs, factory, max_in_flight=in_flight, on_error="report")) as stream:
        async for r in stream:
            if not r.ok:
                raise BenchFailure(f"episode {r.index} (seed {r.job.seed}) failed: {r.error}")
            if not r.result.terminated:
                raise BenchFailure(f"episode {r.index} (seed {r.job.seed}) stopped after {r.result.steps} steps")
            results.append(r)
    wall = time.perf_counter() - start
    if len(results) != len(jobs):
        raise BenchFailure(f"{len(results)} of {len(jobs)} episodes came back")
    return sorted(results, key=lambda r: r.index), wall, sum(r.result.steps for r in results)


def _start_server(latency: float) -> tuple[Any, Any, Any, int]:
    """The fake endpoint in its own process: (process, queue, stop event, port).

    Raises:
        BenchFailure: it died or gave no port within a minute.
    """
    ctx = mp.get_context("spawn")
    port_queue, stop = ctx.Queue(), ctx.Event()
    server = ctx.Process(target=_serve, args=(port_queue, latency, stop), daemon=True)
    server.start()
    deadline = time.monotonic() + 60
    while True:
        try:
            return server, port_queue, stop, int(port_queue.get(timeout=0.5))
        except queue.Empty:
            if not server.is_alive():
                raise BenchFailure(f"the fake server exited with code {server.exitcode} before it listened") from None
            if time.monotonic() > deadline:
                server.kill()
                raise BenchFailure("the fake server gave no port within 60 s") from None


def measure(in_flight: int, latency: float, episodes: int, base_url: str | None = None) -> dict[str, Any]:
    """One run; the figures as a dict.

    Raises:
        BenchFailure: see :func:`_run` and :func:`_start_server`; or the server answered
            another number of requests than the episodes made.
    """
    server = port_queue = stop = None
    if base_url is None:
        server, port_queue, stop, port = _start_server(latency)
        base_url = f"http://127.0.0.1:{port}/v1"
    before = resource.getrusage(resource.RUSAGE_SELF)
    try:
        results, wall, completions = asyncio.run(_run(base_url, list(range(episodes)), in_flight))
    finally:
        after = resource.getrusage(resource.RUSAGE_SELF)
        server_stats: dict[str, Any] = {}
        if server is not None:
            stop.set()
            try:
                server_stats = port_queue.get(timeout=60)
            except queue.Empty:
                server_stats = {}
            server.join(timeout=30)
            if server.is_alive():
                server.kill()
    if server is not None and server_stats.get("requests") != completions:
        raise BenchFailure(
            f"the fake server answered {server_stats.get('requests')} requests, the episodes made {completions}"
        )
    client_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    ideal = in_flight / latency
    return {
        "in_flight": in_flight,
        "latency_s": latency,
        "episodes": episodes,
        "completions": completions,
        "wall_s": round(wall, 2),
        "completions_per_s": round(completions / wall, 1),
        "ideal_per_s": round(ideal, 1),
        "efficiency": round(completions / wall / ideal, 3),
        "client_cpu_s": round(client_cpu, 2),
        "client_cpu_util": round(client_cpu / wall, 3),
        "server_cpu_s": round(server_stats["cpu_s"], 2) if server_stats else None,
        "server_requests": server_stats.get("requests"),
        "peak_rss_mb": round(after.ru_maxrss / 1024, 1),
        "_results": results,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--in-flight", type=int, default=256)
    p.add_argument("--latency", type=float, default=1.0, help="seconds per completion")
    p.add_argument("--episodes", type=int, default=None, help="default: 4 x in-flight")
    p.add_argument("--min-efficiency", type=float, default=0.8, help="exit 1 below this fraction of ideal")
    p.add_argument("--check", action="store_true", help="rerun the first 32 seeds at in-flight 7 and compare")
    p.add_argument(
        "--base-url", default=None, help="bench this OpenAI-compatible endpoint instead of the built-in fake server"
    )
    args = p.parse_args(argv)
    episodes = args.episodes or 4 * args.in_flight
    try:
        figures = measure(args.in_flight, args.latency, episodes, args.base_url)
        results = figures.pop("_results")
        print(json.dumps(figures, indent=2))
        ok = figures["efficiency"] >= args.min_efficiency
        verdict = f"{figures['efficiency']:.1%} of ideal (need {args.min_efficiency:.0%})"
        if args.check:
            n = min(32, episodes)
            again = measure(7, args.latency / 10, n, args.base_url).pop("_results")
            same = all(
                a.result.messages == b.result.messages and a.result.rewards == b.result.rewards
                for a, b in zip(results[:n], again, strict=True)
            )
            print(json.dumps({"deterministic_across_concurrency": same, "episodes_compared": n}))
            if not same:
                ok, verdict = False, f"{verdict}; results differ across concurrency"
    except BenchFailure as exc:
        print(f"FAIL: {exc}", flush=True)
        return 1
    print(f"{'PASS' if ok else 'FAIL'}: {verdict}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sys.exit(main())
