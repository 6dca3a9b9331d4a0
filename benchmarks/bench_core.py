"""Core speed and memory figures against the targets of ARCHITECTURE.md.

    python benchmarks/bench_core.py [--env VibeLife-travel-japan-v0] [--repeat 200]

Targets: reset <= 5 ms, one tool call <= 50 us median (over the oracle's calls, a realistic
mix; a heavy single call such as listing a 20-message inbox is shown too), fork <= 1 ms, a full oracle
episode <= 100 ms, <= 20 MB per live env, and a page of a 200-mail inbox <= 200 us (the
paper-level worlds hold inboxes of that size; measured on the first call after a restore,
as an agent meets it, and warm). Figures vary with the machine's load: run on an idle
machine (or pinned: ``taskset -c 0``) and report the medians.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from datetime import datetime, timedelta

import gymnasium as gym
import numpy as np

import vibelife_env
from vibelife_env.agents import make_agent
from vibelife_env.clock import VirtualClock, get_zone
from vibelife_env.episode import agent_view
from vibelife_env.rollout import run_episode
from vibelife_env.services.base import ServiceContext
from vibelife_env.services.email import seed as email_seed
from vibelife_env.services.registry import service_class
from vibelife_env.world import World


def _median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * 4096 / 2**20


def _pick_read_tool(env) -> tuple[str, dict]:
    """A representative read: list a mailbox if email is enabled, else the first arg-free read."""
    names = env.read_only_tools()
    if "email__get_emails" in names:
        return "email__get_emails", {"folder": "INBOX"}
    schemas = {s["function"]["name"]: s for s in env.tool_schemas()}
    for n in names:
        if not schemas[n]["function"]["parameters"].get("required"):
            return n, {}
    raise SystemExit("no argument-free read-only tool")


def _oracle_call_median_us(env) -> float:
    """Median latency of every tool call the oracle makes in one episode (a realistic mix)."""
    times: list[float] = []
    world_call = World.call

    def timed(self, name, args=None, caller="assistant"):
        t = time.perf_counter()
        out = world_call(self, name, args, caller)
        times.append(time.perf_counter() - t)
        return out

    World.call = timed  # type: ignore[method-assign]
    try:
        for _ in range(5):
            run_episode(env, make_agent("oracle", env.task), seed=0, record=False)
    finally:
        World.call = world_call  # type: ignore[method-assign]
    return statistics.median(times) * 1e6


def _inbox_rows(mails: int, repeat: int) -> list[tuple[str, float, float | None, str]]:
    """A mailbox of ``mails`` messages: a page, the last page and a search, cold and warm."""
    tz = get_zone("Asia/Shanghai")
    start = datetime(2026, 4, 1, 8, 0, tzinfo=tz)
    seed = [email_seed.mailbox("me@mail.example", "Me")]
    for i in range(mails):
        seed.append(
            email_seed.message(
                f"<m{i}@mail.example>",
                f"Update {i}: order, invoice or newsletter",
                f"sender{i % 37}@shop{i % 11}.example",
                "me@mail.example",
                start + timedelta(hours=3 * i),
                f"Hello, this is message {i}. " * 20,
                read=i % 3 == 0,
            )
        )
    svc = service_class("email")(ServiceContext(VirtualClock(start + timedelta(days=80), tz), np.random.default_rng(0)))
    svc.load_sql("\n".join(seed))
    svc.after_seed()
    image = svc.serialize()
    last = -(-mails // 20)
    calls = [
        (f"page 1 of a {mails}-mail inbox", "get_emails", {"folder": "INBOX"}),
        (f"last page of a {mails}-mail inbox", "get_emails", {"folder": "INBOX", "page": last}),
        (f"search a {mails}-mail inbox", "search_emails", {"query": "invoice"}),
    ]
    rows: list[tuple[str, float, float | None, str]] = []
    for label, tool, call_args in calls:
        cold = []
        for _ in range(repeat):
            svc.restore(image)
            t = time.perf_counter()
            svc.call(tool, call_args)
            cold.append(time.perf_counter() - t)
        rows.append((f"{label}, first call", statistics.median(cold) * 1e6, 200.0, "us"))
        rows.append(
            (f"{label}, warm", _median_ms(lambda t=tool, a=call_args: svc.call(t, a), repeat) * 1000, 200.0, "us")
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ids = vibelife_env.registered_ids()
    parser.add_argument("--env", default="VibeLife-travel-japan-v0" if "VibeLife-travel-japan-v0" in ids else ids[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--envs", type=int, default=50, help="live envs for the memory figure")
    parser.add_argument("--mails", type=int, default=200, help="messages in the inbox of the inbox figures")
    args = parser.parse_args()

    env = gym.make(args.env, max_tool_calls_per_turn=10**7, max_tool_calls_per_episode=10**7).unwrapped
    env.reset(seed=0)  # warm: task loaded, images cached
    rows = []
    rows.append(("reset", _median_ms(lambda: env.reset(seed=0), args.repeat), 5.0, "ms"))
    name, call_args = _pick_read_tool(env)
    rows.append(
        (f"tool call {name}", _median_ms(lambda: env.world.call(name, call_args), args.repeat * 10) * 1000, 50.0, "us")
    )
    step_action = {"tool_calls": [{"name": name, "arguments": call_args}]}
    env.reset(seed=0)
    rows.append(("step with one tool call", _median_ms(lambda: env.step(step_action), args.repeat) * 1000, None, "us"))
    rows.append(("fork (world)", _median_ms(lambda: env.world.fork(), args.repeat), 1.0, "ms"))
    rows.append(("snapshot (episode)", _median_ms(lambda: env.snapshot(), args.repeat), None, "ms"))
    task = env.task
    if task.oracle_path() is not None:
        obs, info = env.reset(seed=0)
        oracle = make_agent("oracle", task)
        oracle.reset(agent_view(info))
        while info["stage"] < len(task.stages) // 2:  # mid-episode: half the stages played
            obs, _, _, _, info = env.step(oracle.act(obs, agent_view(info)))
        rows.append((f"snapshot mid-episode (stage {info['stage']})", _median_ms(env.snapshot, args.repeat), 2.0, "ms"))
        snap = env.snapshot()
        rows.append(("restore mid-episode snapshot", _median_ms(lambda: env.restore(snap), args.repeat), None, "ms"))
        rows.append(("tool call, oracle episode mix", _oracle_call_median_us(env), 50.0, "us"))
        rows.append(
            (
                "full oracle episode",
                _median_ms(lambda: run_episode(env, make_agent("oracle", task), seed=0, record=False), 20),
                100.0,
                "ms",
            )
        )
    rows.extend(_inbox_rows(args.mails, args.repeat))
    gc.collect()
    before = _rss_mb()
    live = []
    for i in range(args.envs):
        e = gym.make(args.env).unwrapped
        e.reset(seed=i)
        live.append(e)
    gc.collect()
    per_env = (_rss_mb() - before) / args.envs
    rows.append((f"memory per live env ({args.envs} envs)", per_env, 20.0, "MB"))

    print(f"{args.env}: {len(task.services)} services, {len(task.events)} events, {len(task.checks)} checks")
    print(f"{'measure':<44}{'median':>12}  {'target':>10}  ok")
    for label, value, target, unit in rows:
        tgt = f"<= {target:g} {unit}" if target is not None else ""
        ok = "" if target is None else ("yes" if value <= target else "NO")
        print(f"{label:<44}{value:>9.2f} {unit:<2}  {tgt:>10}  {ok}")


if __name__ == "__main__":
    main()
