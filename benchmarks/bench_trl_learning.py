"""A TRL run that learns, on CPU: a tiny model fitted to the oracle, then GRPO through the adapter.

The task is one scenario family's car-rental turns (``VibeLife-travel-road-trip-v0``): on every
instance the timeline has a weekly review (look at the mail, stay quiet), the pick-up at the
rental desk and the drop-off, each graded by the family's own checks (``s*_checked_review_0``,
``s*_pickup_recorded``, ``s*_car_returned_on_time``). The right action differs per event (read
the inbox / record the ``pickup`` condition / record the ``return`` condition), the events are
worded in English or Chinese and name different rental firms per instance; nothing the model
writes needs copying from the prompt, which a 2-layer model cannot learn in a few CPU minutes
(an odometer-copying variant stayed at 0: see docs/training.md).

Rows are turn-indexed (:func:`~vibelife_env.integrations.trl.build_dataset`, the oracle as
prefix) on the family's train split (``split="train"``, one instance per seed); the held-out
sets are the family's four frozen test instances (``split="test"``) and train-split seeds never
trained on. The model sees the three tools of the allow-list (``email__get_emails``,
``car_rental__report_vehicle_condition``, ``end_turn``).

1. held-out reward of the randomly initialised tiny model (TRL's ``GRPOTrainer.evaluate``);
2. SFT with TRL's ``SFTTrainer`` (``assistant_only_loss``) on
   :func:`~vibelife_env.integrations.trl.oracle_transcripts` of the train rows: the
   conversations a TRL rollout of the oracle's turn produces;
3. held-out reward after SFT;
4. GRPO with TRL's ``GRPOTrainer(environment_factory=...)`` on the train rows: the reward is
   the env's ``get_reward()`` (the turn's stage checks), nothing else;
5. held-out reward after GRPO.

Rewards are sampled at ``--temperature`` (0.7, the policy GRPO trains, at every stage); the
curve also holds the oracle's own reward on the held-out rows (the ceiling: a few instances put
other probes' checks in the same stage). ``--out`` gets ``learning_curve.json`` (config,
timings, the curve, the GRPO log with the within-group reward standard deviation per step, the
train reward per kind ten steps at a time), ``learning_curve.csv`` and the fitted model
(``sft-model/``; ``--sft-model`` starts GRPO from it). About 17 minutes on one core:

    python benchmarks/bench_trl_learning.py --out runs/trl_learning
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, ClassVar

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ENV = "VibeLife-travel-road-trip-v0"
KINDS = ("review_0", "pickup", "return")
TOOLS = ("email__get_emails", "car_rental__report_vehicle_condition")
TEST_SEEDS = range(4)  # the family's frozen test instances
HELDOUT_BASE = 100_000  # held-out train-split seeds start here (training uses 0..N-1)


def turn_rows(split: str, seeds: range) -> Any:
    """Rows of the :data:`KINDS` turns of ``seeds`` on ``split``, with a ``kind`` column."""
    from datasets import concatenate_datasets

    from vibelife_env.integrations.trl import build_dataset
    from vibelife_env.integrations.turns import turn_starts

    parts = []
    for seed in seeds:
        starts = turn_starts(ENV, seed, "oracle", split=split, instance=seed)
        kind = {s.turn: s.snapshot.current_event_id for s in starts}
        turns = [t for t, k in kind.items() if k in KINDS]
        rows = build_dataset(ENV, seeds=[seed], turns=turns, split=split)
        parts.append(rows.add_column("kind", [kind[t] for t in rows["turn"]]))
    return concatenate_datasets(parts)


def recorded(cls: type) -> type:
    """``cls`` logging every scored rollout (seed, turn, kind, reward) in ``cls.scored``.

    Bookkeeping only: the reward is ``cls.get_reward()`` unchanged.
    """

    class Recorded(cls):  # type: ignore[misc, valid-type]
        scored: ClassVar[list[tuple[int, int, str, float]]] = []

        def reset(self, **row: Any) -> str:
            self._row = (int(row.get("seed", 0)), int(row.get("turn", 0)), str(row.get("kind", "")))
            return super().reset(**row)

        def get_reward(self) -> float:
            reward = super().get_reward()
            type(self).scored.append((*self._row, reward))
            return reward

    Recorded.__name__ = Recorded.__qualname__ = cls.__name__  # TRL names the reward column after the class
    return Recorded


def by_kind(scored: list[tuple[int, int, str, float]]) -> dict[str, float]:
    groups: dict[str, list[float]] = defaultdict(list)
    for _, _, kind, reward in scored:
        groups[kind].append(reward)
    return {k: round(statistics.fmean(v), 4) for k, v in sorted(groups.items())}


def within_group_std(scored: list[tuple[int, int, str, float]]) -> float:
    """Mean over groups (same seed and turn) of the rewards' population standard deviation."""
    groups: dict[tuple[int, int], list[float]] = defaultdict(list)
    for seed, turn, _, reward in scored:
        groups[(seed, turn)].append(reward)
    stds = [statistics.pstdev(v) for v in groups.values() if len(v) > 1]
    return round(statistics.fmean(stds), 4) if stds else 0.0


def grpo_config(args: argparse.Namespace, out: Path, **extra: Any) -> Any:
    from trl import GRPOConfig

    options: dict[str, Any] = dict(
        output_dir=str(out),
        per_device_train_batch_size=args.prompts_per_step * args.num_generations,
        num_generations=args.num_generations,
        num_generations_eval=args.eval_generations,
        per_device_eval_batch_size=4 * args.eval_generations,
        max_completion_length=args.max_completion_length,
        max_tool_calling_iterations=3,  # the tool call, end_turn, the closing message
        temperature=args.temperature,
        learning_rate=args.grpo_lr,
        lr_scheduler_type="constant_with_warmup",
        warmup_steps=args.grpo_warmup,  # a fresh Adam's first steps are sign steps: 1e-3 at once wrecks the model
        logging_steps=1,
        report_to="none",
        save_strategy="no",
        use_cpu=True,
        bf16=False,
        gradient_checkpointing=False,
        disable_tqdm=True,
        seed=args.seed,
        data_seed=args.seed,
    )
    options.update(extra)
    return GRPOConfig(**options)


def quiet(trainer: Any) -> Any:
    """``trainer`` without the callback that prints every log dict (the benchmark prints its own)."""
    from transformers.trainer_callback import PrinterCallback

    trainer.remove_callback(PrinterCallback)
    return trainer


def evaluate(model: Any, tokenizer: Any, rows: Any, env_cls: type, args: argparse.Namespace, out: Path) -> dict:
    """Sampled reward of ``model`` on ``rows`` through TRL's ``GRPOTrainer.evaluate``."""
    from trl import GRPOTrainer

    env_cls.scored.clear()  # type: ignore[attr-defined]
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        args=grpo_config(args, out),
        train_dataset=rows,
        eval_dataset=rows,
        environment_factory=env_cls,
    )
    quiet(trainer).evaluate()
    log = trainer.state.log_history[-1]
    scored = list(env_cls.scored)  # type: ignore[attr-defined]
    rewards = [r for *_, r in scored]
    return {
        "reward": round(statistics.fmean(rewards), 4),
        "stderr": round(statistics.stdev(rewards) / len(rewards) ** 0.5, 4),
        "reward_std": round(statistics.pstdev(rewards), 4),
        "within_group_std": within_group_std(scored),
        "by_kind": by_kind(scored),
        "rollouts": len(scored),
        "tool_call_frequency": round(float(log.get("eval_tools/call_frequency", 0.0)), 3),
        "tool_failure_frequency": round(float(log.get("eval_tools/failure_frequency", 0.0)), 3),
        "trl_reward": round(float(log.get(f"eval_rewards/{env_cls.__name__}/mean", float("nan"))), 4),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", default="runs/trl_learning")
    p.add_argument("--train-seeds", type=int, default=24, help="train-split seeds 0..N-1 (3 turns each)")
    p.add_argument("--heldout-seeds", type=int, default=4, help="held-out train-split seeds (100000..)")
    p.add_argument("--hidden", type=int, default=64, help="tiny model width")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--sft-steps", type=int, default=400)
    p.add_argument("--sft-lr", type=float, default=5e-3)
    p.add_argument("--sft-batch", type=int, default=2, help="transcripts per SFT step (gradient accumulation)")
    p.add_argument("--grpo-steps", type=int, default=80)
    p.add_argument("--grpo-lr", type=float, default=3e-4)
    p.add_argument("--grpo-warmup", type=int, default=5)
    p.add_argument("--num-generations", type=int, default=16, help="GRPO group size")
    p.add_argument("--prompts-per-step", type=int, default=1)
    p.add_argument("--eval-generations", type=int, default=8, help="samples per held-out row")
    p.add_argument("--max-completion-length", type=int, default=320)
    p.add_argument("--temperature", type=float, default=0.7, help="sampling temperature (GRPO and evaluation)")
    p.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    p.add_argument("--sft-model", default=None, help="start GRPO from this saved SFT model (skips the SFT phase)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    import torch
    from transformers import AutoModelForCausalLM, set_seed
    from trl import GRPOTrainer, SFTConfig, SFTTrainer

    from vibelife_env.integrations.tiny import tiny_model, tiny_tokenizer
    from vibelife_env.integrations.trl import environment_class, oracle_transcripts

    if args.threads:
        torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    set_seed(args.seed)
    timings: dict[str, float] = {}
    started = time.perf_counter()

    def phase(name: str, t0: float) -> None:
        timings[name] = round(time.perf_counter() - t0, 1)
        print(f"[{name}] {timings[name]:.1f} s", flush=True)

    # ------------------------------------------------------------------ data
    t0 = time.perf_counter()
    train_rows = turn_rows("train", range(args.train_seeds))
    held = {"test": turn_rows("test", TEST_SEEDS)}
    if args.heldout_seeds:
        held["heldout_train_seeds"] = turn_rows("train", range(HELDOUT_BASE, HELDOUT_BASE + args.heldout_seeds))
    train_cls = recorded(environment_class(ENV, tools=list(TOOLS), split="train"))
    test_cls = recorded(environment_class(ENV, tools=list(TOOLS), split="test"))
    classes = {"test": test_cls, "heldout_train_seeds": train_cls}
    transcripts = oracle_transcripts(train_rows, train_cls)
    train_cls.scored.clear()
    oracle_reward = statistics.fmean(transcripts["reward"])
    tokenizer = tiny_tokenizer([ENV])
    model = tiny_model(tokenizer, hidden=args.hidden, layers=args.layers, seed=args.seed)
    phase("data", t0)
    print(
        f"{len(train_rows)} train rows ({args.train_seeds} seeds), held out: "
        + ", ".join(f"{k} {len(v)} rows" for k, v in held.items())
        + f"; oracle transcripts earn {oracle_reward:.3f}; model {sum(q.numel() for q in model.parameters()):,} params",
        flush=True,
    )

    curve: list[dict[str, Any]] = []
    for split, rows in held.items():  # the ceiling: the oracle's own turn, replayed through the adapter
        replay = oracle_transcripts(rows, classes[split])
        classes[split].scored.clear()
        ceiling = [float(r) for r in replay["reward"]]
        kinds = {k: round(statistics.fmean(r for r, kk in zip(ceiling, rows["kind"], strict=True) if kk == k), 4)
                 for k in KINDS}  # fmt: skip
        curve.append(
            {"stage": "oracle", "split": split, "reward": round(statistics.fmean(ceiling), 4), "by_kind": kinds}
        )

    def held_out(stage: str) -> None:
        t0 = time.perf_counter()
        for split, rows in held.items():
            res = evaluate(model, tokenizer, rows, classes[split], args, out / "eval")
            curve.append({"stage": stage, "split": split, **res})
            print(
                f"  {stage:>10} {split:<20} reward {res['reward']:.3f} ± {res['stderr']:.3f}  "
                f"within-group std {res['within_group_std']:.3f}  {res['by_kind']}",
                flush=True,
            )
        phase(f"eval_{stage}", t0)

    held_out("before_sft")

    # ------------------------------------------------------------------- SFT
    t0 = time.perf_counter()
    sft_log: list[dict[str, Any]] = []
    if args.sft_model:  # a model this script fitted before (its ``sft-model`` folder): GRPO runs only
        model = AutoModelForCausalLM.from_pretrained(args.sft_model)
    else:
        sft = SFTTrainer(
            model=model,
            processing_class=tokenizer,
            train_dataset=transcripts.remove_columns(["env_id", "seed", "turn", "reward"]),
            args=SFTConfig(
                output_dir=str(out / "sft"),
                per_device_train_batch_size=1,  # unpadded sequences: SDPA's fast causal path on CPU
                gradient_accumulation_steps=args.sft_batch,
                max_steps=args.sft_steps,
                learning_rate=args.sft_lr,
                lr_scheduler_type="cosine",
                warmup_steps=min(10, args.sft_steps // 4),
                assistant_only_loss=True,  # the assistant messages only: not the prompt, not the tool results
                max_length=None,
                logging_steps=25,
                report_to="none",
                save_strategy="no",
                use_cpu=True,
                bf16=False,
                gradient_checkpointing=False,
                disable_tqdm=True,
                seed=args.seed,
                data_seed=args.seed,
            ),
        )
        quiet(sft).train()
        sft_log = [
            {"step": h["step"], "loss": round(h["loss"], 4), "mean_token_accuracy": round(h["mean_token_accuracy"], 4)}
            for h in sft.state.log_history
            if "loss" in h and "mean_token_accuracy" in h
        ]
        model.save_pretrained(out / "sft-model")
    phase("sft", t0)
    held_out("after_sft")

    # ------------------------------------------------------------------ GRPO
    t0 = time.perf_counter()
    train_cls.scored.clear()
    grpo_log: list[dict[str, Any]] = []
    grpo_windows: list[dict[str, Any]] = []
    if not args.grpo_steps:  # SFT only
        return report(args, out, timings, started, curve, sft_log, grpo_log, grpo_windows, oracle_reward)
    grpo = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        args=grpo_config(args, out / "grpo", max_steps=args.grpo_steps),
        train_dataset=train_rows,
        environment_factory=train_cls,
    )
    quiet(grpo).train()
    batch = args.prompts_per_step * args.num_generations
    scored = list(train_cls.scored)
    for h in (h for h in grpo.state.log_history if "reward" in h):
        step = int(h["step"])
        chunk = scored[(step - 1) * batch : step * batch]
        grpo_log.append(
            {
                "step": step,
                "reward": round(h["reward"], 4),
                "reward_std": round(h["reward_std"], 4),
                "within_group_std": within_group_std(chunk),
                "frac_reward_zero_std": round(h.get("frac_reward_zero_std", float("nan")), 4),
                "tool_call_frequency": round(h.get("tools/call_frequency", 0.0), 3),
                "kinds": by_kind(chunk),
            }
        )
        print(
            f"  grpo step {step:>3}  reward {h['reward']:.3f}  reward_std {h['reward_std']:.3f}  "
            f"within-group std {grpo_log[-1]['within_group_std']:.3f}  {grpo_log[-1]['kinds']}",
            flush=True,
        )
    phase("grpo", t0)
    window = 10
    for start in range(0, len(scored), window * batch):  # the train reward by kind, 10 steps at a time
        chunk = scored[start : start + window * batch]
        first = start // batch + 1
        grpo_windows.append(
            {
                "steps": f"{first}-{first + len(chunk) // batch - 1}",
                "reward": round(statistics.fmean(r for *_, r in chunk), 4),
                "kinds": by_kind(chunk),
            }
        )
        print(
            f"  grpo steps {grpo_windows[-1]['steps']:>7}  reward {grpo_windows[-1]['reward']:.3f}  {grpo_windows[-1]['kinds']}"
        )
    held_out("after_grpo")
    return report(args, out, timings, started, curve, sft_log, grpo_log, grpo_windows, oracle_reward)


def report(
    args: argparse.Namespace,
    out: Path,
    timings: dict[str, float],
    started: float,
    curve: list[dict[str, Any]],
    sft_log: list[dict[str, Any]],
    grpo_log: list[dict[str, Any]],
    grpo_windows: list[dict[str, Any]],
    oracle_reward: float,
) -> int:
    """Write ``learning_curve.json`` and ``learning_curve.csv`` to ``out``."""
    import torch

    timings["total"] = round(time.perf_counter() - started, 1)
    result = {
        "env": ENV,
        "kinds": list(KINDS),
        "tools": [*TOOLS, "end_turn"],
        "config": vars(args),
        "torch_threads": torch.get_num_threads(),
        "oracle_transcript_reward": round(oracle_reward, 4),
        "timings_s": timings,
        "curve": curve,
        "sft_log": sft_log,
        "grpo_log": grpo_log,
        "grpo_windows": grpo_windows,
    }
    (out / "learning_curve.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    with (out / "learning_curve.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["stage", "split", "step", "reward", "reward_std", "within_group_std", *KINDS])
        for c in curve:
            w.writerow([c["stage"], c["split"], "", c["reward"], c.get("reward_std", ""), c.get("within_group_std", "")] + [
                c["by_kind"].get(k, "") for k in KINDS
            ])  # fmt: skip
        for g in grpo_log:
            w.writerow(["grpo", "train", g["step"], g["reward"], g["reward_std"], g["within_group_std"]] + [
                g["kinds"].get(k, "") for k in KINDS
            ])  # fmt: skip
    print(json.dumps({"timings_s": timings, "out": str(out)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
