"""GRPO trainer: text tool-call format, advantages, gradient direction, a tiny end-to-end run."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("tensorboard")

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

from vibelife_env.training.grpo import (  # noqa: E402
    GRPOConfig,
    GRPOTrainer,
    Rollout,
    Turn,
    build_tiny_model,
    group_advantages,
    main,
    rollout_loss,
    token_logprobs,
)
from vibelife_env.training.text import (  # noqa: E402
    INVALID_TOOL,
    ByteTokenizer,
    format_tool_call,
    parse_completion,
    render_plain,
)

DEMO = "VibeLife-demo-errands-v0"


def test_tool_call_text_round_trip():
    text = "Checking.\n" + format_tool_call("email__search_emails", {"query": "clinic 15:30"})
    action = parse_completion(text)
    assert action["reply"] is None and action["tool_calls"][0]["name"] == "email__search_emails"
    assert json.loads(action["tool_calls"][0]["arguments"]) == {"query": "clinic 15:30"}
    assert parse_completion("  All set for 16:00. ") == {"tool_calls": [], "reply": "All set for 16:00."}
    broken = parse_completion("<tool_call>{not json</tool_call>")
    assert broken["tool_calls"][0]["name"] == INVALID_TOOL and broken["reply"] is None


def test_byte_tokenizer_and_prompt():
    tok = ByteTokenizer()
    assert tok.decode(tok.encode("预约 15:30")) == "预约 15:30"
    tools = [
        {
            "function": {
                "name": "email__send_email",
                "parameters": {"properties": {"to": {}, "cc": {}}, "required": ["to"]},
            }
        }
    ]
    prompt = render_plain([{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}], tools)
    assert "email__send_email(to, cc?)" in prompt and prompt.endswith("<|assistant|>\n")


def test_group_advantages():
    assert group_advantages([0.5, 0.5, 0.5]) == [0.0, 0.0, 0.0]
    adv = group_advantages([0.0, 1.0])
    assert adv[0] == pytest.approx(-1.0, abs=1e-4) and adv[1] == pytest.approx(1.0, abs=1e-4)
    assert group_advantages([0.0, 1.0], scale=False) == [-0.5, 0.5]


def test_positive_advantage_raises_the_completion_likelihood():
    torch.manual_seed(0)
    tok = ByteTokenizer()
    model = build_tiny_model(tok, layers=1, width=32, positions=128)
    cfg = GRPOConfig(envs=[DEMO], lr=1e-2)
    prompt, completion = tok.encode("<|user|>\nhi\n<|assistant|>\n"), tok.encode("silent")
    rollout = Rollout(DEMO, [Turn(prompt, completion, "silent")])
    before = float(token_logprobs(model, prompt, completion, "cpu").sum().detach())
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    loss, _, _ = rollout_loss(model, None, rollout, advantage=1.0, cfg=cfg)
    loss.backward()
    opt.step()
    after = float(token_logprobs(model, prompt, completion, "cpu").sum().detach())
    assert after > before


def _scalars(logdir):
    acc = EventAccumulator(str(logdir))
    acc.Reload()
    return {tag: [e.value for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


def test_tiny_grpo_run_logs_checkpoints_and_resumes(tmp_path):
    out = tmp_path / "run"
    flags = ["--env", DEMO, "--group-size", "2", "--max-prompt-tokens", "192", "--max-new-tokens", "16"]
    flags += ["--max-policy-steps", "3", "--beta", "0.05", "--out", str(out)]
    assert main([*flags, "--iterations", "2"]) == 0
    ckpt = out / "checkpoint-2"
    assert (ckpt / "trainer.pt").is_file() and (ckpt / "model" / "byte_tokenizer.json").is_file()
    assert (out / "latest").read_text() == "checkpoint-2"
    scalars = _scalars(out / "tb")
    for tag in ("reward/mean", "reward/std", "loss/total", "loss/kl", "pass_rate/stage", "pass_rate/final"):
        assert len(scalars[tag]) == 2, tag
    assert f"group/{DEMO}/reward_mean" in scalars
    # a random byte model earns nothing on the demo: all rewards in [0, 1]
    assert all(0.0 <= v <= 1.0 for v in scalars["reward/mean"])

    cfg = GRPOConfig(
        envs=[DEMO], group_size=2, max_prompt_tokens=192, max_new_tokens=16, max_policy_steps=3,
        beta=0.05, out=str(out), iterations=3,
    )  # fmt: skip
    trainer = GRPOTrainer(cfg, resume=ckpt)
    assert trainer.step == 2
    assert trainer.optimizer.state_dict()["state"], "optimizer moments restored"
    saved = torch.load(ckpt / "trainer.pt", weights_only=False)
    assert saved["step"] == 2
    trainer.train()
    assert trainer.step == 3 and (out / "checkpoint-3" / "trainer.pt").is_file()


def test_bad_config_is_rejected():
    with pytest.raises(ValueError, match="group_size"):
        GRPOConfig(envs=[DEMO], group_size=1)
    with pytest.raises(ValueError, match="unknown env"):
        GRPOTrainer(GRPOConfig(envs=["VibeLife-nope-v0"]))
