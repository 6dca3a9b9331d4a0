"""A tiny tool-calling chat model built locally: tokenizer, Qwen2.5 chat template, weights.

For CPU smoke runs and tests of the trainer integrations (no download, no GPU): a byte-level
BPE tokenizer trained in a second on the tasks' own text, carrying TRL's copy of the
Qwen2.5 chat template (so TRL recognises it, renders tools and parses
``<tool_call>{json}</tool_call>`` blocks), and a randomly initialised 2-layer Qwen2 model.

:func:`imprint` optionally fits the model for a few dozen steps to one prompt/completion
pair, so that its samples are tool calls in the right format (a randomly initialised model
never writes one); sampling still varies, so a group of rollouts gets different rewards.

Needs the ``trl`` extra (``transformers``, ``tokenizers``, ``torch``, ``trl``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
#: Single tokens, but ordinary text (as in Qwen's tokenizer): decoding must keep them.
TAG_TOKENS = ["<tool_call>", "</tool_call>"]


def _corpus(env_ids: Sequence[str]) -> list[str]:
    from vibelife_env.integrations.session import EpisodeSession
    from vibelife_env.integrations.turns import turn_starts

    texts = ['{"name": "end_turn", "arguments": {"reply": ""}}', "<tool_response>\n</tool_response>"]
    for env_id in env_ids:
        session = EpisodeSession(env_id)
        texts.append(session.system_prompt)
        texts += [json.dumps(t, ensure_ascii=False) for t in session.tools]
        texts += [s.event for s in turn_starts(env_id, 0, "oracle")]
    return texts


def tiny_tokenizer(env_ids: Sequence[str] = ("VibeLife-demo-errands-v0",), vocab_size: int = 2048) -> Any:
    """A ``PreTrainedTokenizerFast`` with the Qwen2.5 chat template, trained on the tasks' text."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    from trl.chat_template_utils import qwen2_5_chat_template

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_corpus(env_ids), trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=SPECIAL_TOKENS[1:],
    )
    fast.add_tokens([AddedToken(t, special=False, normalized=False) for t in TAG_TOKENS])
    fast.chat_template = qwen2_5_chat_template
    fast.padding_side = "left"
    return fast


def tiny_model(tokenizer: Any, hidden: int = 64, layers: int = 2, positions: int = 8192, seed: int = 0) -> Any:
    """A randomly initialised ``Qwen2ForCausalLM`` sized for CPU tests."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=positions,
        bos_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    model = Qwen2ForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


def imprint(
    model: Any,
    tokenizer: Any,
    examples: Iterable[tuple[list[dict[str, Any]], list[dict[str, Any]], str]],
    steps: int = 60,
    lr: float = 3e-3,
) -> float:
    """Fit ``model`` to complete each ``(messages, tools, completion)`` with ``completion``.

    Returns the final loss (cross-entropy on the completion tokens only).
    """
    import torch

    batch = []
    for messages, tools, completion in examples:
        prompt = tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=True, tokenize=False)
        p_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        c_ids = tokenizer(completion, add_special_tokens=False)["input_ids"]
        ids = torch.tensor([p_ids + c_ids])
        labels = ids.clone()
        labels[0, : len(p_ids)] = -100
        batch.append((ids, labels))
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    model.train()
    loss = torch.tensor(0.0)
    for _ in range(steps):
        for ids, labels in batch:
            loss = model(input_ids=ids, labels=labels).loss
            loss.backward()
            opt.step()
            opt.zero_grad()
    model.eval()
    return float(loss.detach())
