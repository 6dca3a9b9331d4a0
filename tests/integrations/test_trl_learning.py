"""Oracle SFT transcripts for TRL, family train splits through the adapter, and a short SFT
that makes the tiny model write a tool call TRL parses (benchmarks/bench_trl_learning.py)."""

from __future__ import annotations

import json
import os

import pytest

pytest.importorskip("trl")
pytest.importorskip("datasets")
torch = pytest.importorskip("torch")

from vibelife_env.integrations.session import make_env  # noqa: E402
from vibelife_env.integrations.trl import build_dataset, environment_class, oracle_transcripts  # noqa: E402
from vibelife_env.integrations.turns import turn_starts  # noqa: E402

DEMO = "VibeLife-demo-errands-v0"
ROAD = "VibeLife-travel-road-trip-v0"
#: Every tool the demo's oracle calls.
DEMO_TOOLS = [
    "workspace__read_file", "workspace__append_file", "workspace__edit_file", "email__search_emails",
    "email__read_email", "email__reply_email", "email__get_emails", "email__move_email", "calendar__create_event",
    "calendar__update_event", "calendar__list_events",
]  # fmt: skip


def test_oracle_transcripts_are_the_rollouts_trl_runs() -> None:
    from vibelife_env.integrations.tiny import tiny_tokenizer

    cls = environment_class(DEMO, tools=DEMO_TOOLS)
    rows = build_dataset(DEMO, seeds=[0])
    data = oracle_transcripts(rows, cls)
    assert len(data) == len(rows) == 4
    tokenizer = tiny_tokenizer([DEMO])
    env = cls()
    for row, t in zip(rows, data, strict=True):
        messages, names = t["messages"], {s["function"]["name"] for s in t["tools"]}
        assert names == {*DEMO_TOOLS, "end_turn"} and t["reward"] == 1.0  # the replayed oracle earns full credit
        assert messages[0] == row["prompt"][0] and messages[1] == {"role": "user", "content": env.reset(**row)}
        assert messages[-1] == {"role": "assistant", "content": ""}  # the turn is over: nothing more to call
        calls = []
        i = 2
        while i < len(messages) - 1:  # an assistant message of tool calls, then one tool result per call
            m = messages[i]
            assert m["role"] == "assistant" and m["content"] == "" and m["tool_calls"], m
            names_here = [c["function"]["name"] for c in m["tool_calls"]]
            results = messages[i + 1 : i + 1 + len(names_here)]
            assert [(r["role"], r["name"]) for r in results] == [("tool", n) for n in names_here]
            assert all(isinstance(c["function"]["arguments"], dict) for c in m["tool_calls"])
            calls += names_here
            i += 1 + len(names_here)
        assert calls[-1] == "end_turn" and calls.count("end_turn") == 1 and set(calls) <= names
        assert messages[-2] == {"role": "tool", "name": "end_turn", "content": "Reply delivered; the turn is over."}
        # the prompt TRL renders is a prefix of the transcript's rendering: SFT trains on the same context
        prompt = tokenizer.apply_chat_template(
            messages[:2], tools=t["tools"], add_generation_prompt=True, tokenize=False
        )
        full = tokenizer.apply_chat_template(messages, tools=t["tools"], tokenize=False)
        assert full.startswith(prompt) and full[len(prompt) :].startswith("<tool_call>\n{")
    first = data[0]["messages"]
    assert [c["function"]["name"] for c in first[2]["tool_calls"]] == ["workspace__read_file"] * 2  # one message
    assert "Wednesday 6 May 15:30" in json.dumps(first, ensure_ascii=False)
    with pytest.raises(ValueError, match="not in the tools"):
        oracle_transcripts(rows.select([0]), environment_class(DEMO, tools=["workspace__read_file"]))
    with pytest.raises(ValueError, match="prefix"):
        oracle_transcripts(build_dataset(DEMO, seeds=[0], turns=[1], prefix="null"), cls)


def test_family_train_rows_serve_the_instance_of_their_seed() -> None:
    seeds = [1, 2]
    pickup = {s: next(t.turn for t in turn_starts(ROAD, s, "oracle", split="train", instance=s)
                      if t.snapshot.current_event_id == "pickup") for s in seeds}  # fmt: skip
    rows = [build_dataset(ROAD, seeds=[s], turns=[pickup[s]], split="train")[0] for s in seeds]
    for seed, row in zip(seeds, rows, strict=True):
        env = make_env(ROAD, split="train")
        env.reset(seed=seed)
        assert row["prompt"][0]["content"] == env.system_prompt  # the seed's persona, not instance 0's
    assert rows[0]["prompt"][0]["content"] != rows[1]["prompt"][0]["content"]
    cls = environment_class(ROAD, tools=["car_rental__report_vehicle_condition"], split="train")
    data = oracle_transcripts(rows, cls)
    assert data["reward"] == [1.0, 1.0]  # the checks of the seed's instance, on the world of its oracle
    call = data[0]["messages"][2]["tool_calls"][0]["function"]
    assert call["name"] == "car_rental__report_vehicle_condition" and call["arguments"]["phase"] == "pickup"
    env = cls()
    env.reset(**rows[1])
    assert env.get_reward() == 0.0  # silence records nothing


def test_a_short_sft_makes_the_tiny_model_write_a_tool_call_trl_parses(tmp_path) -> None:
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from transformers.trainer_callback import PrinterCallback
    from trl import SFTConfig, SFTTrainer
    from trl.chat_template_utils import add_response_schema, parse_response

    from vibelife_env.integrations.tiny import tiny_model, tiny_tokenizer

    tools = ["calendar__list_events"]
    cls = environment_class(DEMO, tools=tools)
    rows = build_dataset(DEMO, seeds=[0], turns=[3])  # "Is everything set for today?": list the day, then answer
    data = oracle_transcripts(rows, cls)
    tokenizer = tiny_tokenizer([DEMO])
    model = tiny_model(tokenizer, hidden=32)
    t = data[0]
    prompt = tokenizer.apply_chat_template(
        t["messages"][:2], tools=t["tools"], add_generation_prompt=True, return_dict=False
    )

    def first_call() -> dict:
        model.eval()
        with torch.no_grad():
            out = model.generate(torch.tensor([prompt]), max_new_tokens=60, do_sample=False)
        return parse_response(add_response_schema(tokenizer), out[0, len(prompt) :].tolist(), prefix=prompt)

    assert not first_call().get("tool_calls")  # random weights write no tool call
    trainer = SFTTrainer(
        model=model,
        processing_class=tokenizer,
        train_dataset=data.select_columns(["messages", "tools"]),
        args=SFTConfig(
            output_dir=str(tmp_path),
            per_device_train_batch_size=1,
            max_steps=80,
            lr_scheduler_type="constant",
            logging_steps=10,
            learning_rate=1e-2,
            assistant_only_loss=True,
            max_length=None,
            report_to="none",
            save_strategy="no",
            use_cpu=True,
            bf16=False,
            gradient_checkpointing=False,
            disable_tqdm=True,
            seed=0,
        ),
    )
    trainer.remove_callback(PrinterCallback)
    trainer.train()
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    assert losses[-1] < 0.1 < losses[0], losses  # fitted to the transcript's assistant messages
    message = first_call()
    calls = message.get("tool_calls") or []
    assert [c["function"]["name"] for c in calls] == ["calendar__list_events"], message
    env = cls()
    env.reset(**rows[0])
    result = json.loads(env.calendar__list_events(**calls[0]["function"]["arguments"]))
    assert "error" not in result and any("Dental" in e["summary"] for e in result)  # the call runs in the env
