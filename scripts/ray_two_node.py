"""A two-node Ray cluster on loopback, started outside the driver, running VibeLife rollouts.

Starts a head node and a worker node with ``ray start --block`` (1 CPU each, every port
bound to 127.0.0.1, token authentication with a fresh token, their own temp dir), then, in
separate driver processes:

1. ``EpisodeRunner(..., ray_address=ADDR)`` with two 1-CPU actors (so one lands on each
   node): every episode scores 100 and both nodes ran actors;
2. the same with ``worker_cls=AsyncEpisodeWorker`` and 16 episodes in flight per actor;
3. ``vibelife rollout --ray-address ADDR --workers 2``: its JSONL is byte-identical to the
   in-process run (``--workers 0``).

Only the processes it started are stopped (SIGTERM to the two ``ray start --block``
processes, which tear their nodes down); it never runs ``ray stop``. Exit 0 = pass::

    python scripts/ray_two_node.py            # ~1-2 minutes on 2 cores
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENV = "VibeLife-demo-errands-v0"

DRIVER = r"""
import json, sys
import ray
import vibelife_env
from vibelife_env.runner import EpisodeJob, EpisodeRunner
from vibelife_env.async_rollout import AsyncEpisodeWorker

address, mode = sys.argv[1], sys.argv[2]
ray.init(address=address, log_to_driver=False)
nodes = [n for n in ray.nodes() if n["Alive"]]
kwargs = {"worker_cls": AsyncEpisodeWorker, "max_in_flight": 16} if mode == "async" else {}
jobs = [EpisodeJob("VibeLife-demo-errands-v0", seed=s) for s in range(24)]
with EpisodeRunner("oracle", num_workers=2, ray_address=address, **kwargs) as runner:
    runner.warm_up()
    # two 1-CPU actors on two 1-CPU nodes: both CPUs taken means one actor per node
    free_cpus = ray.available_resources().get("CPU", 0.0)
    results = list(runner.run(jobs))
print(json.dumps({
    "nodes": len(nodes),
    "cluster_cpus": ray.cluster_resources().get("CPU"),
    "free_cpus_with_actors": free_cpus,
    "ok": sum(r.ok for r in results),
    "scores": sorted({r.result.score for r in results if r.ok}),
    "errors": [r.error for r in results if not r.ok][:3],
}))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Ray's own `ray start` CLI, keeping loopback addresses for a second node on this host.
# Ray 2.60 on Linux either refuses a worker node (RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0, which
# keeps 127.0.0.1) or rewrites 127.0.0.1 to the host's outward address (=1). The worker
# node therefore runs the CLI with clusters enabled but 127.0.0.1 left as it is; its own
# processes (raylet, workers) inherit =0, so they keep 127.0.0.1 too.
RAY_START_LOOPBACK = r"""
import os, sys
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "1"
from ray._private import services
from ray._common.network_utils import is_localhost
services.resolve_ip_for_localhost = lambda host: "127.0.0.1" if is_localhost(host) else host
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
from ray.scripts.scripts import main
sys.argv = ["ray", *sys.argv[1:]]
main()
"""


def start_node(args: list[str], log: Path, *, head: bool) -> subprocess.Popen:
    common = ["start", "--block", "--num-cpus=1", "--disable-usage-stats", *args]
    if head:  # plain `ray start`; with clusters "disabled" it binds every port to 127.0.0.1
        cmd = [str(Path(sys.executable).with_name("ray")), *common]
    else:
        cmd = [sys.executable, "-c", RAY_START_LOOPBACK, *common, "--node-ip-address=127.0.0.1"]
    return subprocess.Popen(
        cmd,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: stopped as one, nothing else touched
    )


def wait_for_nodes(address: str, count: int, timeout: float = 240.0) -> None:
    """Poll the cluster until ``count`` nodes are alive. A probe that hangs (a driver can block
    in ``ray.init`` while the head is still starting) is cut off and retried, not fatal."""
    code = (
        "import ray, sys; ray.init(address=sys.argv[1], log_to_driver=False); "
        "print(sum(n['Alive'] for n in ray.nodes()))"
    )
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            out = subprocess.run([sys.executable, "-c", code, address], capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            continue
        if out.returncode == 0 and out.stdout.strip().splitlines()[-1:] == [str(count)]:
            return
        time.sleep(2)
    raise RuntimeError(f"the cluster at {address} did not reach {count} nodes in {timeout:.0f} s")


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM to the `ray start --block` process (it drains and stops its node's processes);
    SIGKILL to its process group only if it does not exit within a minute."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def main() -> int:
    work = Path(tempfile.mkdtemp(prefix="vl-ray2-"))
    port = free_port()
    address = f"127.0.0.1:{port}"
    os.environ.update(
        RAY_USAGE_STATS_ENABLED="0",
        RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0",  # 127.0.0.1 stays 127.0.0.1 (see RAY_START_LOOPBACK)
        RAY_AUTH_MODE="token",  # token authentication, with a token of this run only
        RAY_AUTH_TOKEN=secrets.token_hex(32),
    )
    head = start_node(
        ["--head", f"--port={port}", "--include-dashboard=false", f"--temp-dir={work / 'ray'}"],
        work / "head.log",
        head=True,
    )
    worker = None
    checks: dict[str, bool] = {}
    try:
        wait_for_nodes(address, 1)
        worker = start_node([f"--address={address}"], work / "worker.log", head=False)
        wait_for_nodes(address, 2)
        for mode in ("sync", "async"):
            out = subprocess.run(
                [sys.executable, "-c", DRIVER, address, mode], capture_output=True, text=True, timeout=600
            )
            if out.returncode != 0:
                print(out.stdout, out.stderr[-4000:], file=sys.stderr)
                checks[f"runner_{mode}"] = False
                continue
            report = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"runner ({mode}):", report)
            checks[f"runner_{mode}"] = (
                report["nodes"] == 2
                and report["cluster_cpus"] == 2
                and report["free_cpus_with_actors"] == 0
                and report["ok"] == 24
                and report["scores"] == [100.0]
            )
        files = {}
        for label, extra in (("cluster", ["--workers", "2", "--ray-address", address]), ("local", ["--workers", "0"])):
            out_file = work / f"{label}.jsonl"
            cmd = [
                sys.executable, "-m", "vibelife_env.cli", "rollout", "--env", ENV, "--agent", "oracle",
                "--episodes", "6", "--out", str(out_file), "--no-progress", *extra,
            ]  # fmt: skip
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            if done.returncode != 0:
                print(done.stderr[-4000:], file=sys.stderr)
            files[label] = out_file.read_bytes() if out_file.exists() else b""
        checks["rollout_cli_identical"] = bool(files["cluster"]) and files["cluster"] == files["local"]
        print("rollout --ray-address:", len(files["cluster"].splitlines()), "lines, identical to local:",
              checks["rollout_cli_identical"])  # fmt: skip
    finally:
        if worker is not None:
            stop(worker)
        stop(head)
    ok = bool(checks) and all(checks.values())
    print(("PASS" if ok else "FAIL") + ": " + json.dumps(checks))
    if not ok:
        for log in ("head.log", "worker.log"):
            path = work / log
            if path.exists():
                print(f"--- {log}\n" + path.read_text()[-3000:], file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
