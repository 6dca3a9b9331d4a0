"""Run whole episodes: one agent, one env, one seed → an :class:`EpisodeResult`; and the
JSONL files that hold them.

A rollout dataset (``vibelife rollout --out F.jsonl``) has one JSON line per episode. The
tool schemas, the same for every episode of an env, are written once to the sidecar
``F.tools.json`` (``{sha256: [schema, ...]}``) and each line names its list by
``"tools_sha256"``; :func:`read_dataset` puts them back. With ``--inline-tools`` each line
carries its ``"tools"`` itself. Lines are appended one ``write`` at a time
(:class:`JsonlAppender`), so an interrupted run leaves whole lines only.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import gymnasium as gym

from vibelife_env.checks.base import END_TIERS
from vibelife_env.env import VERSION, VibeLifeEnv, base_env
from vibelife_env.episode import agent_view
from vibelife_env.spaces import chat_messages


@dataclass
class EpisodeResult:
    """Everything a dataset or a report needs from one episode."""

    task_id: str
    agent: str
    seed: int | None
    score: float  # 0-100
    rewards: list[float] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    steps: int = 0
    tool_calls: int = 0
    terminated: bool = False
    truncated: bool = False
    mutation_errors: list[str] = field(default_factory=list)
    check_errors: list[str] = field(default_factory=list)
    env_version: str = VERSION
    turn_stages: list[int] = field(default_factory=list)  # stage at each turn's opening event

    def stage_table(self) -> list[dict[str, Any]]:
        """Per tier/stage: checks passed, weight earned and available."""
        rows: dict[tuple[int, str], dict[str, Any]] = {}
        for c in self.checks:
            order = c["stage"] if c["tier"] == "stage" else 10_000 + END_TIERS.index(c["tier"])
            label = f"stage {c['stage']}" if c["tier"] == "stage" else c["tier"]
            row = rows.setdefault(
                (order, label), {"part": label, "passed": 0, "checks": 0, "earned": 0.0, "weight": 0.0}
            )
            row["checks"] += 1
            row["weight"] += c["weight"]
            if c["passed"]:
                row["passed"] += 1
                row["earned"] += c["weight"]
        return [rows[k] for k in sorted(rows)]

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (one line of a rollout dataset)."""
        return {
            "task_id": self.task_id,
            "agent": self.agent,
            "seed": self.seed,
            "score": self.score,
            "rewards": self.rewards,
            "checks": self.checks,
            "messages": self.messages,
            "steps": self.steps,
            "tool_calls": self.tool_calls,
            "terminated": self.terminated,
            "truncated": self.truncated,
            "mutation_errors": self.mutation_errors,
            "check_errors": self.check_errors,
            "env_version": self.env_version,
            "turn_stages": self.turn_stages,
        }

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> EpisodeResult:
        """The result back from :meth:`to_dict` (keys it does not know, e.g. ``env_id``, are ignored)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in row.items() if k in names})


def assistant_message(action: Any, turn_prefix: str) -> dict[str, Any]:
    """The action as an OpenAI assistant message (tool call ids match the env's)."""
    from vibelife_env.actions import parse_action

    parsed = parse_action(action, id_prefix=turn_prefix)
    msg: dict[str, Any] = {
        "role": "assistant",
        "content": parsed.reply if parsed.reply is not None else parsed.narration,
    }
    if parsed.tool_calls:
        msg["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.raw_arguments}}
            for c in parsed.tool_calls
        ]
    return msg


def run_episode(
    env: gym.Env | VibeLifeEnv, agent: Any, seed: int | None = None, max_steps: int = 10_000, record: bool = True
) -> EpisodeResult:
    """Drive ``agent`` through one episode of ``env``.

    Args:
        env: A VibeLife env (wrapped or not).
        agent: Anything with ``reset(info)`` and ``act(obs, info)``; it receives
            :func:`~vibelife_env.episode.agent_view` of each ``info`` (no grading data).
        seed: Passed to ``env.reset``.
        max_steps: Safety bound on steps (the env's budgets normally end runaway agents).
        record: Keep the OpenAI-format transcript in the result.
    """
    base = base_env(env)
    obs, info = env.reset(seed=seed)
    agent.reset(agent_view(info))
    result = EpisodeResult(base.task.id, getattr(agent, "name", type(agent).__name__), seed, 0.0)
    result.turn_stages.append(int(info["stage"]))
    if record:
        result.messages.extend(chat_messages(obs))
    terminated = truncated = False
    while not (terminated or truncated) and result.steps < max_steps:
        action = agent.act(obs, agent_view(info))
        if record:
            result.messages.append(assistant_message(action, base.next_call_prefix()))
        obs, reward, terminated, truncated, info = env.step(action)
        result.rewards.append(float(reward))
        result.steps += 1
        result.mutation_errors += info.get("mutation_errors", [])
        result.check_errors += info.get("check_errors", [])
        new = chat_messages(obs)
        result.turn_stages += [int(info["stage"]) for m in new if m["role"] == "user"]
        if record:
            result.messages.extend(new)
    result.terminated, result.truncated = terminated, truncated
    result.score = float(info["score"])
    result.tool_calls = int(info["tool_calls"])
    result.checks = [r.to_dict() for r in base.scorer.results.values()]
    known = {c["id"] for c in result.checks}
    result.checks += [
        {"id": c.id, "tier": c.tier, "stage": c.stage, "weight": c.weight, "passed": False, "error": "not evaluated"}
        for c in base.task.checks
        if c.id not in known
    ]
    return result


# --------------------------------------------------------------------------- JSONL files
def tools_sha256(tools: list[dict[str, Any]]) -> str:
    """The key of a tool-schema list in a ``.tools.json`` sidecar (SHA-256 of its canonical JSON)."""
    text = json.dumps(tools, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def tools_sidecar(path: str | Path) -> Path:
    """Where the tool schemas of the dataset ``path`` go: ``F.jsonl`` → ``F.tools.json``."""
    p = Path(path)
    return p.with_name(p.name.removesuffix(".jsonl") + ".tools.json")


def write_tools_sidecar(path: str | Path, tools: dict[str, list[dict[str, Any]]]) -> Path:
    """Merge ``{sha256: schemas}`` into the sidecar of ``path`` (atomically); returns its path.

    Raises:
        ValueError: the sidecar exists but is not a JSON object.
    """
    side = tools_sidecar(path)
    table: dict[str, Any] = {}
    if side.exists():
        table = json.loads(side.read_text(encoding="utf-8"))
        if not isinstance(table, dict):
            raise ValueError(f"{side}: expected a JSON object {{sha256: [tool schema, ...]}}")
    table.update(tools)
    write_atomic(side, json.dumps(table, ensure_ascii=False, sort_keys=True) + "\n")
    return side


def read_dataset(path: str | Path) -> Iterator[dict[str, Any]]:
    """The rows of a rollout dataset, each with its ``"tools"`` (from the sidecar if needed).

    Raises:
        ValueError: a line names a tool list the sidecar does not hold.
    """
    side = tools_sidecar(path)
    table: dict[str, Any] | None = None
    with Path(path).open(encoding="utf-8") as fh:
        for number, text in enumerate(fh, 1):
            row = json.loads(text)
            key = row.pop("tools_sha256", None)
            if key is not None:
                if table is None:
                    table = json.loads(side.read_text(encoding="utf-8")) if side.exists() else {}
                if key not in table:
                    raise ValueError(f"{path} line {number}: tool list {key[:12]}... is not in {side}")
                row["tools"] = table[key]
            yield row


def write_atomic(path: str | Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one step (a temporary file beside it, then ``os.replace``)."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    with tmp.open("w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, target)


def read_lines(path: str | Path, repair: bool = False) -> list[str]:
    """The complete lines of a JSONL file (without newlines); ``[]`` if it does not exist.

    A last line without its newline is what a crash mid-write leaves: it is dropped, and
    with ``repair`` cut from the file too, so appending continues on a line boundary.
    """
    p = Path(path)
    if not p.exists():
        return []
    data = p.read_bytes()
    end = data.rfind(b"\n") + 1
    if repair and end < len(data):
        with p.open("r+b") as fh:
            fh.truncate(end)
    return data[:end].decode("utf-8").splitlines()


#: Where a line sits in a JSONL file: its byte offset and its length, newline included.
Span = tuple[int, int]


def iter_spans(path: str | Path, repair: bool = False) -> Iterator[tuple[Span, str]]:
    """The complete lines of a JSONL file one at a time, each with its :data:`Span`
    (nothing if the file does not exist); memory stays that of one line.

    A last line without its newline is what a crash mid-write leaves: it is not yielded,
    and with ``repair`` it is cut from the file, so appending continues on a line boundary.
    """
    p = Path(path)
    if not p.exists():
        return
    offset = 0
    with p.open("rb") as fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                break
            yield (offset, len(raw)), raw[:-1].decode("utf-8")
            offset += len(raw)
    if repair and p.stat().st_size > offset:
        with p.open("r+b") as fh:
            fh.truncate(offset)


def write_in_order(path: str | Path, spans: list[Span]) -> bool:
    """Make ``path`` hold exactly the lines at ``spans``, in that order, streaming them.

    When the file already is those lines in that order nothing is written; otherwise they
    are copied one at a time to a temporary file beside it, which then replaces it
    (``os.replace``). Returns whether the file was rewritten.
    """
    target = Path(path)
    at = 0
    for offset, length in spans:
        if offset != at:
            break
        at += length
    else:
        if at == target.stat().st_size:
            return False
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    with target.open("rb") as src, tmp.open("wb") as dst:
        for offset, length in spans:
            src.seek(offset)
            dst.write(src.read(length))
        dst.flush()
        os.fsync(dst.fileno())
    os.replace(tmp, target)
    return True


class JsonlAppender:
    """Appends lines to a JSONL file as they come, so an interrupted run keeps each of them.

    Each line goes out in one ``write`` on an ``O_APPEND`` descriptor and is then synced to
    disk: Ctrl-C or a killed process leaves only complete lines, and concurrent appenders
    never interleave within a line.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append(self, line: str) -> Span:
        """Write ``line`` (without its newline) and sync it; returns where it went.

        Raises:
            ValueError: the line holds a newline, or the appender is closed.
        """
        if "\n" in line:
            raise ValueError("a JSONL line cannot hold a newline")
        if self._fd is None:
            raise ValueError(f"{self.path}: appender is closed")
        data = memoryview((line + "\n").encode("utf-8"))
        size = len(data)
        while data:
            data = data[os.write(self._fd, data) :]
        os.fsync(self._fd)
        return os.lseek(self._fd, 0, os.SEEK_CUR) - size, size

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> JsonlAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
