"""GRPO-style fine-tuning of a causal LM on the checker reward.

One iteration, for each task in the batch:

1. the task's start state is a forked env snapshot (``env.snapshot()`` right after
   ``reset(seed)``, or after an oracle has played ``start_turn`` turns);
2. G rollouts start from it (``env.reset(options={"snapshot": snap})``): the policy writes
   each assistant message as text (tool calls as ``<tool_call>{json}</tool_call>``, see
   :mod:`vibelife_env.training.text`), which is parsed into an env action; after
   ``max_policy_steps`` messages the episode is finished with silent replies so that every
   tier is scored. The reward of a rollout is its task score in [0, 1] (= the episode's
   return; the same offset for all G rollouts of a fork, so it cancels);
3. advantages are group-relative: ``A_i = (R_i - mean(R)) / (std(R) + eps)`` (``std`` off
   with ``scale_rewards=False``); a group whose rollouts all score alike teaches nothing;
4. the loss is the policy gradient on the tokens the policy generated (prompts and tool
   results are context only): ``-A_i * mean_t log pi(y_t | ...)`` per rollout, plus
   ``beta * KL`` to a frozen reference copy (the k3 estimator) when ``beta > 0``. One
   optimizer step per iteration keeps the update on-policy, so the PPO ratio is 1 and no
   clipping is needed.

Scalars go to TensorBoard (``<out>/tb``): reward mean/std/max overall and per group,
loss terms, per-tier check pass rates, completion lengths, tool-call rates. Checkpoints
(``<out>/checkpoint-<step>``: model, tokenizer, optimizer, step) are written every
``save_every`` iterations and at the end; ``resume`` continues from one.

Command line (tiny CPU model built locally, no downloads)::

    python -m vibelife_env.training.grpo --env VibeLife-demo-errands-v0 --model tiny \\
        --iterations 2 --group-size 2 --out runs/grpo

A real model on a GPU: ``--model Qwen/Qwen2.5-0.5B-Instruct --device cuda --dtype bfloat16
--max-prompt-tokens 8192 --max-new-tokens 512 --lr 1e-6 --beta 0.02`` (the model is loaded
with ``transformers.AutoModelForCausalLM.from_pretrained``; its chat template renders the
prompt). See ``docs/training.md`` for that and for TRL / verifiers integration.
"""

from __future__ import annotations

import argparse
import copy
import inspect
import json
import math
import sys
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import torch

import vibelife_env
from vibelife_env.agents import make_agent
from vibelife_env.episode import agent_view
from vibelife_env.training.text import INVALID_TOOL, ByteTokenizer, HFTokenizer, TextTokenizer, parse_completion


@dataclass
class GRPOConfig:
    """Everything a run needs; saved with each checkpoint.

    Attributes:
        envs: Registered env ids; each is one task.
        model: ``"tiny"`` (a 2-layer GPT-2 over :class:`ByteTokenizer`, built locally) or a
            Hugging Face model name / local path.
        out: Output directory (TensorBoard logs, checkpoints, ``rollouts.jsonl``).
        iterations: Optimizer steps to run (in total, counting resumed ones).
        group_size: G, rollouts per task per iteration.
        tasks_per_iter: Tasks per iteration (cycled through ``envs``).
        seed: Seed of the env resets and of sampling.
        start_turn: Turns the oracle plays before the start state is forked (0 = at reset).
        max_policy_steps: Assistant messages the policy writes per rollout.
        max_prompt_tokens: Prompts are cut to their last this many tokens.
        max_new_tokens: Longest assistant message.
        temperature: Sampling temperature.
        lr: AdamW learning rate.
        beta: KL weight to the frozen reference model (0 = no reference kept).
        scale_rewards: Divide advantages by the group's reward std.
        max_grad_norm: Gradient clipping.
        save_every: Checkpoint every this many iterations (the last one always).
        device: ``"cpu"``, ``"cuda"``, ...
        dtype: ``"float32"``, ``"bfloat16"`` or ``"float16"`` for a loaded model.
        tiny_layers: Layers of the tiny model.
        tiny_width: Embedding width of the tiny model.
    """

    envs: list[str]
    model: str = "tiny"
    out: str = "runs/grpo"
    iterations: int = 2
    group_size: int = 4
    tasks_per_iter: int = 1
    seed: int = 0
    start_turn: int = 0
    max_policy_steps: int = 8
    max_prompt_tokens: int = 512
    max_new_tokens: int = 64
    temperature: float = 1.0
    lr: float = 1e-5
    beta: float = 0.0
    scale_rewards: bool = True
    max_grad_norm: float = 1.0
    save_every: int = 10
    device: str = "cpu"
    dtype: str = "float32"
    tiny_layers: int = 2
    tiny_width: int = 64

    def __post_init__(self) -> None:
        if not self.envs:
            raise ValueError("GRPOConfig.envs: give at least one env id")
        for name in ("iterations", "group_size", "tasks_per_iter", "max_policy_steps", "max_new_tokens"):
            if getattr(self, name) < 1:
                raise ValueError(f"GRPOConfig.{name} must be >= 1, got {getattr(self, name)}")
        if self.group_size < 2:
            raise ValueError(f"GRPOConfig.group_size must be >= 2 for group-relative advantages, got {self.group_size}")
        if self.temperature <= 0:
            raise ValueError(f"GRPOConfig.temperature must be > 0, got {self.temperature}")
        if self.dtype not in ("float32", "bfloat16", "float16"):
            raise ValueError(f"GRPOConfig.dtype must be float32, bfloat16 or float16, got {self.dtype!r}")


@dataclass
class Turn:
    """One generated assistant message: the prompt it saw and the tokens it wrote."""

    prompt_ids: list[int]
    completion_ids: list[int]
    text: str


@dataclass
class Rollout:
    """One episode from a fork: generated turns, the final score and the check results."""

    env_id: str
    turns: list[Turn] = field(default_factory=list)
    reward: float = 0.0
    checks: list[dict[str, Any]] = field(default_factory=list)
    tool_calls: int = 0
    invalid_calls: int = 0
    truncated: bool = False


# ------------------------------------------------------------------ model and tokenizer
def build_tiny_model(tokenizer: ByteTokenizer, layers: int = 2, width: int = 64, positions: int = 2048) -> Any:
    """A small randomly initialized GPT-2 over the byte vocabulary (no download)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(
        vocab_size=tokenizer.vocab_size,
        n_positions=positions,
        n_embd=width,
        n_layer=layers,
        n_head=max(1, width // 32),
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    return GPT2LMHeadModel(config)


def load_policy(cfg: GRPOConfig, path: str | None = None) -> tuple[Any, TextTokenizer]:
    """The model and tokenizer named by ``cfg.model`` (or saved at ``path``)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()

    dtype = getattr(torch, cfg.dtype)
    source = path or cfg.model
    tok_file = Path(source) / "byte_tokenizer.json"
    if tok_file.is_file():
        tokenizer: TextTokenizer = ByteTokenizer.from_config(json.loads(tok_file.read_text()))
        model = AutoModelForCausalLM.from_pretrained(source)
    elif source == "tiny":
        tokenizer = ByteTokenizer()
        model = build_tiny_model(tokenizer, cfg.tiny_layers, cfg.tiny_width, cfg.max_prompt_tokens + cfg.max_new_tokens)
    else:
        tokenizer = HFTokenizer(AutoTokenizer.from_pretrained(source))
        model = AutoModelForCausalLM.from_pretrained(source, dtype=dtype)
    # transformers decorates PreTrainedModel.to with functools.wraps, which typeshed types as unbound
    return model.to(cfg.device), tokenizer  # type: ignore[arg-type]


# ------------------------------------------------------------------------ generation
@torch.no_grad()
def sample(model: Any, prompt_ids: list[int], cfg: GRPOConfig, eos: int, gen: torch.Generator) -> list[int]:
    """Sample a completion token by token (KV cache), stopping at ``eos``; ``eos`` is kept."""
    # transformers 5 names the KV cache ``cache``; 4.x ``past_key_values``
    key = "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"
    ids = torch.tensor([prompt_ids], device=cfg.device)
    out = model(input_ids=ids, attention_mask=torch.ones_like(ids), use_cache=True)
    tokens: list[int] = []
    for _ in range(cfg.max_new_tokens):
        probs = torch.softmax(out.logits[0, -1].float() / cfg.temperature, dim=-1)
        tok = int(torch.multinomial(probs.cpu(), 1, generator=gen))
        tokens.append(tok)
        if tok == eos:
            break
        n = len(prompt_ids) + len(tokens)
        mask = torch.ones((1, n), dtype=ids.dtype, device=cfg.device)
        step_ids = torch.tensor([[tok]], device=cfg.device)
        out = model(input_ids=step_ids, attention_mask=mask, use_cache=True, **{key: getattr(out, key)})
    return tokens


def _chat(obs: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"role": m["role"], "content": m["content"], "name": m.get("name", "")} for m in obs["messages"]]


def play_rollout(
    env: Any, snap: Any, model: Any, tokenizer: TextTokenizer, cfg: GRPOConfig, gen: torch.Generator, env_id: str
) -> Rollout:
    """One episode from ``snap``: the policy writes up to ``max_policy_steps`` messages."""
    base = env.unwrapped
    env.reset(options={"snapshot": snap})
    tools = base.tool_schemas()
    messages = [{"role": "system", "content": base.system_prompt, "name": ""}, *_chat(base.current_observation())]
    rollout = Rollout(env_id)
    done = False
    info: dict[str, Any] = {}
    for _ in range(cfg.max_policy_steps):
        prompt = tokenizer.encode(tokenizer.render(messages, tools))[-cfg.max_prompt_tokens :]
        completion = sample(model, prompt, cfg, tokenizer.eos_token_id, gen)
        text = tokenizer.decode(completion)
        rollout.turns.append(Turn(prompt, completion, text))
        action = parse_completion(text)
        rollout.tool_calls += len(action["tool_calls"])
        rollout.invalid_calls += sum(c["name"] == INVALID_TOOL for c in action["tool_calls"])
        obs, _, terminated, truncated, info = env.step(action)
        messages.append({"role": "assistant", "content": text, "name": ""})
        messages += _chat(obs)
        done = terminated or truncated
        rollout.truncated = truncated
        if done:
            break
    while not done:  # finish the timeline in silence so every tier is scored
        _, _, terminated, truncated, info = env.step({"tool_calls": [], "reply": ""})
        done = terminated or truncated
        rollout.truncated = truncated
    rollout.reward = float(info["score"]) / 100.0
    rollout.checks = [r.to_dict() for r in base.scorer.results.values()]
    return rollout


def start_state(env: Any, cfg: GRPOConfig, seed: int) -> Any:
    """The forked start state: after ``reset(seed)`` and ``cfg.start_turn`` oracle turns."""
    obs, info = env.reset(seed=seed)
    if cfg.start_turn:
        oracle = make_agent("oracle", env.unwrapped.task)
        oracle.reset(agent_view(info))
        while info["turn"] < cfg.start_turn:
            obs, _, terminated, truncated, info = env.step(oracle.act(obs, agent_view(info)))
            if terminated or truncated:
                raise ValueError(f"start_turn={cfg.start_turn} is past the end of {env.unwrapped.task.id}")
    return env.unwrapped.snapshot()


# ------------------------------------------------------------------------ the update
def group_advantages(rewards: list[float], scale: bool = True, eps: float = 1e-6) -> list[float]:
    """``(R - mean) / (std + eps)`` within one group (population std); zeros if all equal."""
    mean = sum(rewards) / len(rewards)
    std = math.sqrt(sum((r - mean) ** 2 for r in rewards) / len(rewards))
    if std < eps:
        return [0.0] * len(rewards)
    return [(r - mean) / (std + eps) if scale else r - mean for r in rewards]


def token_logprobs(model: Any, prompt_ids: list[int], completion_ids: list[int], device: str) -> torch.Tensor:
    """``log pi(y_t | prompt, y_<t)`` for each completion token (differentiable)."""
    ids = torch.tensor([prompt_ids + completion_ids], device=device)
    logits = model(input_ids=ids, attention_mask=torch.ones_like(ids)).logits[0, len(prompt_ids) - 1 : -1].float()
    target = torch.tensor(completion_ids, device=device)
    return torch.log_softmax(logits, dim=-1).gather(1, target[:, None])[:, 0]


def rollout_loss(
    model: Any, ref: Any | None, rollout: Rollout, advantage: float, cfg: GRPOConfig
) -> tuple[torch.Tensor, float, float]:
    """(loss, pg term, kl term) of one rollout, averaged over its generated tokens."""
    pg_sum = torch.zeros((), device=cfg.device)
    kl_sum = torch.zeros((), device=cfg.device)
    n = 0
    for turn in rollout.turns:
        if not turn.completion_ids:
            continue
        logp = token_logprobs(model, turn.prompt_ids, turn.completion_ids, cfg.device)
        pg_sum = pg_sum - advantage * logp.sum()
        if ref is not None and cfg.beta > 0:
            with torch.no_grad():
                ref_logp = token_logprobs(ref, turn.prompt_ids, turn.completion_ids, cfg.device)
            delta = ref_logp - logp
            kl_sum = kl_sum + (torch.exp(delta) - delta - 1).sum()
        n += len(turn.completion_ids)
    n = max(n, 1)
    loss = (pg_sum + cfg.beta * kl_sum) / n
    return loss, float(pg_sum.detach()) / n, float(kl_sum.detach()) / n


# ---------------------------------------------------------------------------- trainer
class GRPOTrainer:
    """Runs :class:`GRPOConfig`; see the module docstring.

    Args:
        cfg: The run configuration.
        resume: A checkpoint directory to continue from (model, optimizer, step).
    """

    def __init__(self, cfg: GRPOConfig, resume: str | Path | None = None) -> None:
        from torch.utils.tensorboard import SummaryWriter

        unknown = [e for e in cfg.envs if e not in gym.registry]
        if unknown:
            raise ValueError(f"unknown env id(s) {unknown}; registered: {', '.join(vibelife_env.registered_ids())}")
        self.cfg = cfg
        self.out = Path(cfg.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.step = 0
        torch.manual_seed(cfg.seed)  # weight init of the tiny model
        self.model, self.tokenizer = load_policy(cfg, str(Path(resume) / "model") if resume else None)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=cfg.lr)
        self.gen = torch.Generator().manual_seed(cfg.seed)
        if resume:
            state = torch.load(Path(resume) / "trainer.pt", weights_only=False)
            self.optimizer.load_state_dict(state["optimizer"])
            self.step = int(state["step"])
            self.gen.set_state(state["generator"])
        self.ref = copy.deepcopy(self.model).eval() if cfg.beta > 0 else None
        self.envs = {e: gym.make(e) for e in dict.fromkeys(cfg.envs)}
        self.snaps = {e: start_state(env, cfg, cfg.seed) for e, env in self.envs.items()}
        self.writer = SummaryWriter(log_dir=str(self.out / "tb"))

    def tasks_for(self, step: int) -> list[str]:
        """The env ids of iteration ``step`` (round robin over ``cfg.envs``)."""
        k = self.cfg.tasks_per_iter
        return [self.cfg.envs[(step * k + i) % len(self.cfg.envs)] for i in range(k)]

    def iteration(self) -> dict[str, Any]:
        """Collect G rollouts per task, take one optimizer step, log; returns the stats."""
        cfg, started = self.cfg, time.perf_counter()
        self.model.eval()
        groups: list[tuple[str, list[Rollout], list[float]]] = []
        for env_id in self.tasks_for(self.step):
            rollouts = [
                play_rollout(self.envs[env_id], self.snaps[env_id], self.model, self.tokenizer, cfg, self.gen, env_id)
                for _ in range(cfg.group_size)
            ]
            groups.append((env_id, rollouts, group_advantages([r.reward for r in rollouts], cfg.scale_rewards)))
        self.model.train()
        self.optimizer.zero_grad(set_to_none=True)
        count = sum(len(r) for _, r, _ in groups)
        pg = kl = 0.0
        for _, rollouts, advs in groups:
            for rollout, adv in zip(rollouts, advs, strict=True):
                if adv == 0.0 and cfg.beta == 0.0:
                    continue  # no gradient: skip the forward pass
                loss, p, k = rollout_loss(self.model, self.ref, rollout, adv, cfg)
                (loss / count).backward()
                pg, kl = pg + p / count, kl + k / count
        grad_norm = float(torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.max_grad_norm))
        self.optimizer.step()
        self.step += 1
        stats = self._log(groups, pg, kl, grad_norm, time.perf_counter() - started)
        if self.step % cfg.save_every == 0 or self.step >= cfg.iterations:
            self.save(self.out / f"checkpoint-{self.step}")
        return stats

    def _log(self, groups: list, pg: float, kl: float, grad_norm: float, seconds: float) -> dict[str, Any]:
        every = [r for _, rollouts, _ in groups for r in rollouts]
        rewards = [r.reward for r in every]
        mean = sum(rewards) / len(rewards)
        std = math.sqrt(sum((x - mean) ** 2 for x in rewards) / len(rewards))
        tiers: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for r in every:
            for c in r.checks:
                tiers[c["tier"]][0] += int(c["passed"])
                tiers[c["tier"]][1] += 1
        turns = [t for r in every for t in r.turns]
        stats = {
            "step": self.step,
            "reward/mean": mean,
            "reward/std": std,
            "reward/max": max(rewards),
            "loss/pg": pg,
            "loss/kl": kl,
            "loss/total": pg + self.cfg.beta * kl,
            "grad_norm": grad_norm,
            "rollout/turns": len(turns) / len(every),
            "rollout/completion_tokens": sum(len(t.completion_ids) for t in turns) / max(len(turns), 1),
            "rollout/tool_calls": sum(r.tool_calls for r in every) / len(every),
            "rollout/invalid_tool_calls": sum(r.invalid_calls for r in every) / len(every),
            "rollout/truncated": sum(r.truncated for r in every) / len(every),
            "time/iteration_s": seconds,
            **{f"pass_rate/{t}": 100.0 * p / n for t, (p, n) in tiers.items() if n},
        }
        for env_id, rollouts, _ in groups:
            rs = [r.reward for r in rollouts]
            m = sum(rs) / len(rs)
            stats[f"group/{env_id}/reward_mean"] = m
            stats[f"group/{env_id}/reward_std"] = math.sqrt(sum((x - m) ** 2 for x in rs) / len(rs))
        for key, value in stats.items():
            if key != "step":
                self.writer.add_scalar(key, value, self.step)
        self.writer.flush()
        with (self.out / "rollouts.jsonl").open("a", encoding="utf-8") as fh:
            for env_id, rollouts, advs in groups:
                for r, a in zip(rollouts, advs, strict=True):
                    row = {"step": self.step, "env_id": env_id, "reward": r.reward, "advantage": a}
                    row["texts"] = [t.text[:300] for t in r.turns]
                    fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        return stats

    def save(self, path: str | Path) -> Path:
        """Write model, tokenizer, optimizer, step, sampler state and config to ``path``."""
        path = Path(path)
        (path / "model").mkdir(parents=True, exist_ok=True)
        self.model.save_pretrained(path / "model")
        if isinstance(self.tokenizer, ByteTokenizer):
            (path / "model" / "byte_tokenizer.json").write_text(json.dumps(self.tokenizer.config()))
        elif isinstance(self.tokenizer, HFTokenizer):
            self.tokenizer.tok.save_pretrained(path / "model")
        else:
            raise TypeError(f"cannot save a {type(self.tokenizer).__name__}: only ByteTokenizer and HFTokenizer")
        state = {"optimizer": self.optimizer.state_dict(), "step": self.step, "generator": self.gen.get_state()}
        torch.save(state, path / "trainer.pt")
        (path / "config.json").write_text(json.dumps(asdict(self.cfg), indent=2))
        (self.out / "latest").write_text(path.name)
        return path

    def train(self) -> list[dict[str, Any]]:
        """Iterate until ``cfg.iterations`` optimizer steps have been taken."""
        history = []
        while self.step < self.cfg.iterations:
            history.append(self.iteration())
        self.writer.close()
        return history


# ------------------------------------------------------------------------------- CLI
def build_parser() -> argparse.ArgumentParser:
    """The ``python -m vibelife_env.training.grpo`` parser (flags mirror GRPOConfig)."""
    p = argparse.ArgumentParser(prog="python -m vibelife_env.training.grpo", description=__doc__.split("\n\n")[0])
    p.add_argument("--env", action="append", required=True, dest="envs", help="env id (repeatable)")
    p.add_argument("--resume", default=None, help="checkpoint directory, or 'latest' for <out>/latest")
    p.add_argument("--bundles", default=None, help="also register the bundles under this directory")
    p.add_argument("--no-scale-rewards", dest="scale_rewards", action="store_false")
    defaults = GRPOConfig(envs=["_"])
    for name, value in asdict(defaults).items():
        if name in ("envs", "scale_rewards"):
            continue
        p.add_argument(f"--{name.replace('_', '-')}", type=type(value), default=value, help=f"default {value}")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point: parse flags, train, print one line per iteration."""
    args = vars(build_parser().parse_args(argv))
    resume, bundles = args.pop("resume"), args.pop("bundles")
    if bundles:
        vibelife_env.register_bundles(bundles)
    cfg = GRPOConfig(**args)
    if resume == "latest":
        resume = str(Path(cfg.out) / (Path(cfg.out) / "latest").read_text().strip())
    trainer = GRPOTrainer(cfg, resume=resume)
    while trainer.step < cfg.iterations:
        s = trainer.iteration()
        print(
            f"step {s['step']:>4}  reward {s['reward/mean']:.3f}±{s['reward/std']:.3f} (max {s['reward/max']:.3f})"
            f"  loss {s['loss/total']:+.4f}  tool calls/rollout {s['rollout/tool_calls']:.1f}"
            f"  {s['time/iteration_s']:.1f}s",
            flush=True,
        )
    trainer.writer.close()
    print(f"checkpoints and TensorBoard logs in {cfg.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
