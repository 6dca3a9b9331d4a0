"""TRL: ``GRPOTrainer(environment_factory=...)`` over VibeLife tasks, trained turn by turn.

TRL (>= 1.16) runs one rollout per dataset row: it calls ``env.reset(**row)`` and appends
the returned text to the row's last user message, lets the model call the environment's
public methods as tools (their schemas come from signatures and Google docstrings), and
scores the finished rollout with ``env.get_reward()``. :func:`environment_class` builds
such a class for one task:

- every tool of the task is a method with its real signature and docstring
  (:mod:`vibelife_env.integrations.toolfns`), plus ``end_turn(reply)``, which delivers the
  reply to the user and closes the turn (TRL never shows the environment the model's final
  plain-text message, so the reply travels through this tool; a rollout that never calls
  it closes its turn in silence);
- ``reset(env_id, seed, turn, prefix)`` restores the world as turn ``turn`` opens, after
  ``prefix`` played the earlier turns (:mod:`vibelife_env.integrations.turns`), and returns
  the turn's opening text;
- ``get_reward()`` closes the turn if the model did not, optionally continues the timeline
  with a continuation policy (``horizon``), and returns the check reward earned.

:func:`build_dataset` writes the matching rows: one per (env id, seed, turn)::

    from trl import GRPOConfig, GRPOTrainer
    from vibelife_env.integrations.trl import build_dataset, environment_factory

    ids = ["VibeLife-demo-errands-v0"]
    trainer = GRPOTrainer(
        model="Qwen/Qwen3-0.6B",
        train_dataset=build_dataset(ids, seeds=range(8)),
        environment_factory=environment_factory(ids),
        args=GRPOConfig(max_completion_length=2048, num_generations=8),
    )
    trainer.train()

Rewards (``horizon``):

- ``"stage"`` (default): the turn closes, then the continuation policy (silent by default)
  plays on until the turn's stage has been scored; the reward is the weight of the checks
  frozen in that window that passed, over the weight frozen (``scale="stake"``, in [0, 1])
  or over the task's total weight (``scale="task"``, the env's own reward units);
- ``"turn"``: only the checks frozen by closing this turn;
- ``"episode"``: the continuation plays to the end of the timeline.

Several tasks in one run: pass several ids; :func:`environment_factory` then returns a
``{env_id: class}`` dict and :func:`build_dataset` adds the ``environment`` column TRL
routes on, so each row sees only its own task's tools.

Scenario families train on their train split (``split="train"`` in the env options: a
fresh instance per seed); a row's seed picks the instance its prompt and world come from.

A small model first fitted to the oracle, then trained with GRPO: :func:`oracle_transcripts`
turns dataset rows into the conversations a TRL rollout of the oracle's turn produces
(``messages`` + ``tools``, the format of TRL's ``SFTTrainer``); see
``benchmarks/bench_trl_learning.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from vibelife_env.agents import AGENTS, make_agent
from vibelife_env.integrations.session import EpisodeSession
from vibelife_env.integrations.toolfns import tool_function
from vibelife_env.integrations.turns import start_state, turn_starts

__all__ = [
    "HORIZONS",
    "VibeLifeToolEnv",
    "build_dataset",
    "environment_class",
    "environment_factory",
    "oracle_transcripts",
]

HORIZONS = ("turn", "stage", "episode")
SCALES = ("stake", "task")

TURN_NOTE = (
    "[Turn {turn} of this timeline; earlier turns are not shown. Your workspace files keep what was recorded. "
    "Finish the turn by calling end_turn with your reply to the user.]"
)


class VibeLifeToolEnv:
    """Base of the generated per-task classes (see :func:`environment_class`).

    Attributes:
        env_id: The task's registered id.
        env_kwargs: Extra :class:`~vibelife_env.env.VibeLifeEnv` arguments.
        prefix: Default prefix policy of rows that name none.
        horizon: ``"turn"``, ``"stage"`` or ``"episode"`` (see the module docstring).
        continuation: Built-in agent that plays after the turn (``"null"``: silence).
        scale: ``"stake"`` or ``"task"``.
        reward: The last reward (also for user reward functions via ``environments``).
        checks: The check results frozen in the scored window (grading data).
    """

    env_id: ClassVar[str] = ""
    env_kwargs: ClassVar[dict[str, Any]] = {}
    prefix: ClassVar[str] = "oracle"
    horizon: ClassVar[str] = "stage"
    continuation: ClassVar[str] = "null"
    scale: ClassVar[str] = "stake"

    def __init__(self) -> None:
        self._session = EpisodeSession(self.env_id, **self.env_kwargs)
        self._reply: str | None = None
        self._closed = False
        self._scored: float | None = None
        self._stage = 0
        self._window: list[dict[str, Any]] = []
        self.reward = 0.0
        self.checks: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ TRL hooks
    def reset(
        self, env_id: str | None = None, seed: int = 0, turn: int = 0, prefix: str | None = None, **_: Any
    ) -> str:
        """Restore the world as turn ``turn`` of ``env_id`` at ``seed`` opens; its opening text.

        Other dataset columns (``prompt``, ...) are ignored.

        Raises:
            ValueError: ``env_id`` is another task than this class's, or the turn does not exist.
        """
        if env_id is not None and env_id != self.env_id:
            raise ValueError(f"{type(self).__name__} serves {self.env_id}; this row names {env_id}")
        start = start_state(self.env_id, int(seed), int(turn), prefix or self.prefix, **self.env_kwargs)
        text = self._session.start(snapshot=start.snapshot)
        self._reply, self._closed, self._scored = None, False, None
        self._stage = start.stage
        self._window = []
        self.reward, self.checks = 0.0, []
        return text if turn == 0 else f"{TURN_NOTE.format(turn=turn)}\n\n{text}"

    def get_reward(self) -> float:
        """Close the turn (silently if ``end_turn`` was never called), continue to the
        horizon, and return the reward (see the module docstring). Idempotent."""
        if self._scored is not None:
            return self._scored
        session = self._session
        if not self._closed and not session.done:
            self._window += session.end_turn(self._reply or "").checks
            self._closed = True
        if self.horizon != "turn" and not session.done:
            agent = make_agent(self.continuation, session.env.task)
            agent.reset(session.agent_info)
            while not session.done and (self.horizon == "episode" or session.env.current_stage <= self._stage):
                action = agent.act(session.last_observation, session.agent_info)
                self._window += session.step(action).checks
        self.checks = list(self._window)
        earned = sum(c["weight"] for c in self._window if c["passed"])
        stake = sum(c["weight"] for c in self._window)
        if self.scale == "task":
            total = session.env.scorer.total_weight
            self.reward = earned / total if total else 0.0
        else:
            self.reward = earned / stake if stake else 0.0
        self._scored = float(self.reward)
        return self._scored

    # ------------------------------------------------------------------- control tool
    def end_turn(self, reply: str) -> str:
        """End the current turn with your reply to the user. Call it once, last: text you write outside tool calls is not delivered.

        Args:
            reply: What you tell the user; an empty string stays silent, which is right when nothing needs their attention.

        Returns:
            What happened to the reply.
        """
        if self._closed or self._session.done:
            raise ValueError("the turn is already over; stop calling tools")
        self._reply = str(reply)
        self._window += self._session.end_turn(self._reply).checks
        self._closed = True
        return "Reply delivered; the turn is over."

    # ------------------------------------------------------------------ internals
    def _call_tool(self, name: str, arguments: dict[str, Any]) -> str:
        if self._closed or self._session.done:
            raise ValueError("the turn is over (end_turn was called); no more tool calls")
        result = self._session.call(name, arguments)
        return json.dumps(result, ensure_ascii=False, default=str)


def _class_name(env_id: str) -> str:
    parts = [p for p in re.split(r"[^A-Za-z0-9]+", env_id) if p]
    return "".join(p[:1].upper() + p[1:] for p in parts) or "VibeLifeTask"


def environment_class(
    env_id: str,
    *,
    tools: Sequence[str] | None = None,
    prefix: str = "oracle",
    horizon: str = "stage",
    continuation: str = "null",
    scale: str = "stake",
    **env_kwargs: Any,
) -> type[VibeLifeToolEnv]:
    """A TRL environment class for one task (see the module docstring).

    Args:
        env_id: Registered VibeLife id.
        tools: Expose only these tool names (``end_turn`` is always there); default all.
            A shorter list keeps prompts short for small models.
        prefix: Prefix policy for rows without a ``prefix`` column.
        horizon: ``"turn"``, ``"stage"`` or ``"episode"``.
        continuation: Built-in agent playing after the turn until the horizon.
        scale: ``"stake"`` or ``"task"``.
        **env_kwargs: Extra :class:`~vibelife_env.env.VibeLifeEnv` arguments.

    Raises:
        ValueError: an unknown option value or tool name.
    """
    if horizon not in HORIZONS:
        raise ValueError(f"horizon must be one of {HORIZONS}, got {horizon!r}")
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, got {scale!r}")
    if continuation not in AGENTS:
        raise ValueError(
            f"continuation must be a built-in agent that needs no task ({', '.join(AGENTS)}), got {continuation!r}"
        )
    schemas = EpisodeSession(env_id, **env_kwargs).tools
    if tools is not None:
        known = {s["function"]["name"] for s in schemas}
        unknown = sorted(set(tools) - known)
        if unknown:
            raise ValueError(f"{env_id} has no tools {unknown}; see `vibelife tools` or env.tool_schemas()")
        schemas = [s for s in schemas if s["function"]["name"] in set(tools)]
    namespace: dict[str, Any] = {
        "env_id": env_id,
        "env_kwargs": dict(env_kwargs),
        "prefix": prefix,
        "horizon": horizon,
        "continuation": continuation,
        "scale": scale,
        "__doc__": f"TRL environment for {env_id} ({len(schemas)} tools + end_turn); see vibelife_env.integrations.trl.",
        "__module__": __name__,
    }
    for schema in schemas:
        fn = tool_function(schema, VibeLifeToolEnv._call_tool)
        fn.__qualname__ = f"{_class_name(env_id)}.{fn.__name__}"
        namespace[fn.__name__] = fn
    return type(_class_name(env_id), (VibeLifeToolEnv,), namespace)


def environment_factory(env_ids: str | Sequence[str], **options: Any) -> Any:
    """``environment_factory`` for ``GRPOTrainer``: a class for one id, a ``{id: class}``
    dict for several (rows then need the ``environment`` column :func:`build_dataset` adds).

    ``options`` go to :func:`environment_class`.
    """
    ids = [env_ids] if isinstance(env_ids, str) else list(env_ids)
    if len(ids) == 1:
        return environment_class(ids[0], **options)
    return {e: environment_class(e, **options) for e in ids}


def build_dataset(
    env_ids: str | Sequence[str],
    seeds: Iterable[int] = (0,),
    turns: Iterable[int] | None = None,
    prefix: str = "oracle",
    *,
    routed: bool | None = None,
    **env_kwargs: Any,
) -> Any:
    """Turn-indexed rows for ``GRPOTrainer``: one per (env id, seed, turn), in that order.

    Each row has ``prompt`` (the system prompt, then an empty user message that ``reset``
    fills with the turn's opening text), ``env_id``, ``seed``, ``turn`` and ``prefix``, and
    ``environment`` (the env id) when ``routed`` (default: when there are several ids).

    Args:
        env_ids: Registered ids.
        seeds: Reset seeds.
        turns: Turn indices to keep (default: every turn the prefix's episode opens);
            indices past an episode's last turn are skipped.
        prefix: Prefix policy (a built-in agent name, or ``"rollout:<path>#<line>"``).
        routed: Add the ``environment`` column.
        **env_kwargs: Extra :class:`~vibelife_env.env.VibeLifeEnv` arguments.

    Raises:
        ImportError: ``datasets`` is not installed (``pip install 'vibelife-env[trl]'``).
    """
    try:
        from datasets import Dataset
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError("build_dataset needs `datasets`: pip install 'vibelife-env[trl]'") from exc
    ids = [env_ids] if isinstance(env_ids, str) else list(env_ids)
    routed = len(ids) > 1 if routed is None else routed
    wanted = None if turns is None else sorted(set(int(t) for t in turns))
    rows: list[dict[str, Any]] = []
    for env_id in ids:
        for seed in seeds:
            starts = turn_starts(env_id, int(seed), prefix, **env_kwargs)
            for start in starts:
                if wanted is not None and start.turn not in wanted:
                    continue
                row = {
                    "prompt": [{"role": "system", "content": start.system}, {"role": "user", "content": ""}],
                    "env_id": env_id,
                    "seed": int(seed),
                    "turn": start.turn,
                    "prefix": prefix,
                }
                if routed:
                    row["environment"] = env_id
                rows.append(row)
    return Dataset.from_list(rows)


def _tool_arguments(arguments: Any) -> dict[str, Any]:
    args = json.loads(arguments) if isinstance(arguments, str) else dict(arguments or {})
    return json.loads(json.dumps(args, ensure_ascii=False, default=str))  # what a JSON tool call can carry


def oracle_transcripts(rows: Iterable[dict[str, Any]], env_cls: Any, *, agent: str = "oracle") -> Any:
    """The conversations a TRL rollout of ``agent``'s own turn produces, one per dataset row.

    For each row of :func:`build_dataset` (prefix ``agent``), ``agent``'s actions in the row's
    turn (recorded when its episode was played for the rows) are replayed through ``env_cls`` (a class of
    :func:`environment_class`, or the ``{env_id: class}`` dict of :func:`environment_factory`)
    exactly as ``GRPOTrainer`` would run them: the row's system prompt, the text ``reset``
    returns as the user message, one assistant message per action (its tool calls, in
    ``{"type": "function", "function": {"name", "arguments"}}`` form), the tools' JSON results
    as ``tool`` messages, the reply as an ``end_turn`` call, and an empty closing assistant
    message (the turn is over). The result is a ``datasets.Dataset`` for TRL's ``SFTTrainer``
    (``assistant_only_loss=True`` trains on the assistant messages only):

    - ``messages``: the conversation (a JSON column: each message as written);
    - ``tools``: the JSON schemas of the class's tools, in the order TRL renders them;
    - ``env_id``, ``seed``, ``turn``, and ``reward``: ``get_reward()`` after the replay
      (what a rollout that writes this transcript earns).

    Raises:
        ValueError: a row's prefix is not ``agent`` (its state is not the one ``agent``'s
            turn was played from), or ``agent`` calls a tool ``env_cls`` does not expose.
        ImportError: ``datasets`` or ``transformers`` is not installed.
    """
    import inspect

    from datasets import Dataset, Features, Json, List, Value
    from transformers.utils import get_json_schema

    classes: dict[str | None, Any] = env_cls if isinstance(env_cls, dict) else {None: env_cls}
    envs: dict[str | None, Any] = {}
    schemas: dict[str | None, list[dict[str, Any]]] = {}
    out: list[dict[str, Any]] = []
    for row in rows:
        key = row.get("environment") if isinstance(env_cls, dict) else None
        if key not in envs:
            cls = classes[key]
            envs[key] = cls()
            methods = [
                n for n, _ in inspect.getmembers(cls, predicate=inspect.isfunction)
                if n not in ("reset", "get_reward") and not n.startswith("_")
            ]  # fmt: skip
            schemas[key] = [get_json_schema(getattr(envs[key], n)) for n in methods]
        env = envs[key]
        if (row.get("prefix") or env.prefix) != agent:
            raise ValueError(f"row {row.get('seed')}/{row.get('turn')} has prefix {row.get('prefix')!r}, not {agent!r}")
        exposed = {s["function"]["name"] for s in schemas[key]}
        seed, turn = int(row.get("seed", 0)), int(row.get("turn", 0))
        actions = start_state(env.env_id, seed, turn, agent, **env.env_kwargs).actions  # cached with the rows
        text = env.reset(**{k: v for k, v in row.items() if k != "environment"})
        prompt = list(row["prompt"])
        messages = [*prompt[:-1], {**prompt[-1], "content": prompt[-1]["content"] + text}]
        for action in actions:
            calls = [(c["name"], _tool_arguments(c.get("arguments"))) for c in action.get("tool_calls") or []]
            reply = action.get("reply")
            if reply is not None:
                calls.append(("end_turn", {"reply": str(reply)}))
            missing = sorted({n for n, _ in calls} - exposed)
            if missing:
                raise ValueError(
                    f"{agent} calls {missing} in turn {turn} of {env.env_id} seed {seed}: not in the tools"
                )
            if not calls:
                continue
            messages.append(
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [{"type": "function", "function": {"name": n, "arguments": a}} for n, a in calls],
                }
            )
            for name, args in calls:
                messages.append({"role": "tool", "name": name, "content": str(getattr(env, name)(**args))})
            if reply is not None:
                break
        messages.append({"role": "assistant", "content": ""})
        out.append(
            {
                "messages": messages,
                "tools": schemas[key],
                "env_id": env.env_id,
                "seed": seed,
                "turn": turn,
                "reward": env.get_reward(),
            }
        )
    # JSON columns: Arrow would merge the tool calls' argument dicts (and the schemas) into one
    # struct, filling every key a message lacks with null
    features = Features(
        {
            "messages": List(Json()),
            "tools": List(Json()),
            "env_id": Value("string"),
            "seed": Value("int64"),
            "turn": Value("int64"),
            "reward": Value("float64"),
        }
    )
    return Dataset.from_list(out, features=features)


def main(argv: list[str] | None = None) -> int:
    """``python -m vibelife_env.integrations.trl``: GRPO with TRL on turn-indexed rows.

    ``--model tiny`` builds a small Qwen2-style model and tokenizer locally (no download, CPU);
    any other value is a Hugging Face model id or directory, loaded by TRL.
    """
    import argparse
    import os

    p = argparse.ArgumentParser(prog="python -m vibelife_env.integrations.trl", description=main.__doc__)
    p.add_argument("--env", action="append", required=True, help="env id (repeat for several tasks)")
    p.add_argument("--model", default="tiny", help="'tiny' (local, CPU) or a model id / directory")
    p.add_argument("--seeds", type=int, default=1, help="seeds 0..N-1 per env (default 1)")
    p.add_argument("--turns", type=int, nargs="*", default=None, help="turn indices to train on (default: all)")
    p.add_argument("--prefix", default="oracle", help="prefix policy or rollout:<file.jsonl>#<line>")
    p.add_argument("--tools", nargs="*", default=None, help="expose only these tools (default: all)")
    p.add_argument("--horizon", choices=HORIZONS, default="stage")
    p.add_argument("--max-steps", type=int, default=2)
    p.add_argument("--num-generations", type=int, default=2)
    p.add_argument("--max-completion-length", type=int, default=64)
    p.add_argument("--learning-rate", type=float, default=1e-6)
    p.add_argument("--out", default="runs/trl")
    args = p.parse_args(argv)
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from trl import GRPOConfig, GRPOTrainer

    dataset = build_dataset(args.env, seeds=range(args.seeds), turns=args.turns, prefix=args.prefix)
    factory = environment_factory(args.env, tools=args.tools, prefix=args.prefix, horizon=args.horizon)
    model: Any = args.model
    tokenizer = None
    if args.model == "tiny":
        from vibelife_env.integrations.tiny import tiny_model, tiny_tokenizer

        tokenizer = tiny_tokenizer(args.env)
        model = tiny_model(tokenizer)
    config = GRPOConfig(
        output_dir=args.out,
        per_device_train_batch_size=args.num_generations,
        num_generations=args.num_generations,
        max_completion_length=args.max_completion_length,
        max_steps=args.max_steps,
        learning_rate=args.learning_rate,
        logging_steps=1,
        report_to="none",
        save_strategy="no",
        use_cpu=args.model == "tiny",
    )
    trainer = GRPOTrainer(
        model=model, processing_class=tokenizer, args=config, train_dataset=dataset, environment_factory=factory
    )
    trainer.train()
    trainer.save_model(args.out)
    rewards = [
        {k: v for k, v in h.items() if k.startswith("rewards/") and k.endswith("/mean")}
        for h in trainer.state.log_history
        if any(k.startswith("rewards/") for k in h)
    ]
    print(json.dumps({"steps": trainer.state.global_step, "env_rewards": rewards, "out": args.out}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
