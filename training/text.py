"""Text side of LM training: a local byte tokenizer, prompt rendering, tool-call parsing.

A language-model policy writes one assistant message as plain text. Tool calls are
rendered inside tags, one JSON object each::

    I will check the inbox first.
    <tool_call>{"name": "email__search_emails", "arguments": {"query": "clinic"}}</tool_call>

:func:`parse_completion` turns such text back into an env action: with at least one tool
call the turn stays open (the text around the calls is narration); without any, the whole
text is the reply that closes the turn (empty text = deliberate silence). A block whose JSON
is broken still becomes a call, to the impossible tool name ``invalid_tool_call``, so the
policy sees an error result instead of having its mistake silently dropped.

:class:`ByteTokenizer` needs no download or training: ids 0-255 are UTF-8 bytes and three
special ids follow. It is what the tiny CPU model of the tests uses; a real run passes a
Hugging Face tokenizer instead (:class:`HFTokenizer` adapts it to the same small surface).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol

from vibelife_env.wrappers.action import INVALID_CALL as INVALID_TOOL
from vibelife_env.wrappers.action import parse_tool_call_text


class TextTokenizer(Protocol):
    """What the trainer needs from a tokenizer."""

    eos_token_id: int
    pad_token_id: int
    vocab_size: int

    def encode(self, text: str) -> list[int]:
        """Text → ids (no special tokens added)."""

    def decode(self, ids: Sequence[int]) -> str:
        """Ids → text (special ids skipped)."""

    def render(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> str:
        """The prompt text for the next assistant message."""


def format_tool_call(name: str, arguments: dict[str, Any]) -> str:
    """One call in the text format the policy writes."""
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False) + "</tool_call>"


def parse_completion(text: str) -> dict[str, Any]:
    """A generated assistant message → an env action (plain form); see the module docstring.

    Blocks are parsed by :func:`vibelife_env.wrappers.parse_tool_call_text` (the same parser
    as the ``TextToolCallAction`` wrapper; an unclosed last block runs to the end of the text).
    A malformed block becomes a call to ``invalid_tool_call`` carrying the parse error.
    """
    calls, errors, _rest = parse_tool_call_text(text)
    if calls:
        out = [
            {"name": INVALID_TOOL, "arguments": {"parse_error": err}} if c["name"] == INVALID_TOOL else c
            for c, err in zip(calls, errors, strict=True)
        ]
        return {"tool_calls": out, "reply": None}
    return {"tool_calls": [], "reply": text.strip()}


def tool_catalog(tools: Sequence[dict[str, Any]], detail: str = "names") -> str:
    """The tools as prompt text: ``"names"`` (name and parameters), ``"schemas"`` (full JSON), ``"none"``."""
    if detail == "none" or not tools:
        return ""
    if detail == "schemas":
        return "Tools (OpenAI function schemas):\n" + "\n".join(json.dumps(t, ensure_ascii=False) for t in tools)
    if detail != "names":
        raise ValueError(f"tool catalog detail must be 'names', 'schemas' or 'none', got {detail!r}")
    lines = []
    for t in tools:
        fn = t["function"]
        props = fn.get("parameters", {}).get("properties", {})
        req = set(fn.get("parameters", {}).get("required", []))
        params = ", ".join(p + ("" if p in req else "?") for p in props)
        lines.append(f"{fn['name']}({params})")
    return "Tools:\n" + "\n".join(lines)


CALL_HELP = (
    'Call a tool by writing <tool_call>{"name": "<tool>", "arguments": {...}}</tool_call>. '
    "A message with tool calls keeps the turn open and you will see the results; a message without "
    "tool calls is your reply to the user and ends the turn (an empty message stays silent)."
)


def render_plain(messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]], detail: str = "names") -> str:
    """A simple role-tagged transcript ending with an open assistant tag."""
    parts = []
    for i, m in enumerate(messages):
        content = m.get("content") or ""
        if i == 0 and m["role"] == "system":
            content = "\n".join(x for x in (content, CALL_HELP, tool_catalog(tools, detail)) if x)
        tag = f"<|{m['role']}|>" + (f" {m['name']}" if m["role"] == "tool" and m.get("name") else "")
        parts.append(f"{tag}\n{content}\n")
    parts.append("<|assistant|>\n")
    return "".join(parts)


class ByteTokenizer:
    """UTF-8 bytes as ids 0-255, then ``<pad>`` 256, ``<bos>`` 257, ``<eos>`` 258.

    Args:
        tool_detail: How :meth:`render` lists tools (see :func:`tool_catalog`).
    """

    pad_token_id = 256
    bos_token_id = 257
    eos_token_id = 258
    vocab_size = 259

    def __init__(self, tool_detail: str = "names") -> None:
        self.tool_detail = tool_detail

    def encode(self, text: str) -> list[int]:
        """Bytes of ``text``."""
        return list(text.encode("utf-8"))

    def decode(self, ids: Sequence[int]) -> str:
        """Bytes back to text; special ids dropped, broken UTF-8 replaced."""
        return bytes(i for i in ids if i < 256).decode("utf-8", errors="replace")

    def render(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> str:
        """Plain role-tagged prompt."""
        return render_plain(messages, tools, self.tool_detail)

    def config(self) -> dict[str, Any]:
        """What :meth:`from_config` needs to rebuild this tokenizer."""
        return {"kind": "byte", "tool_detail": self.tool_detail}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> ByteTokenizer:
        """Inverse of :meth:`config`."""
        return cls(config.get("tool_detail", "names"))


class HFTokenizer:
    """A Hugging Face tokenizer behind the :class:`TextTokenizer` surface.

    The prompt uses the tokenizer's chat template when it has one (tools passed as OpenAI
    schemas, tool results as ``tool`` messages); otherwise :func:`render_plain`.
    """

    def __init__(self, tokenizer: Any, tool_detail: str = "names") -> None:
        self.tok = tokenizer
        self.tool_detail = tool_detail
        if tokenizer.eos_token_id is None:
            raise ValueError("the tokenizer has no eos token; generation could not stop")
        self.eos_token_id = int(tokenizer.eos_token_id)
        pad = tokenizer.pad_token_id
        self.pad_token_id = int(pad if pad is not None else tokenizer.eos_token_id)
        self.vocab_size = len(tokenizer)

    def encode(self, text: str) -> list[int]:
        """Ids without special tokens (the template adds its own)."""
        return list(self.tok.encode(text, add_special_tokens=False))

    def decode(self, ids: Sequence[int]) -> str:
        """Text with special tokens removed."""
        return self.tok.decode(list(ids), skip_special_tokens=True)

    def render(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> str:
        """The chat template's generation prompt (or the plain transcript)."""
        if getattr(self.tok, "chat_template", None):
            msgs = [{"role": m["role"], "content": m.get("content") or ""} for m in messages]
            if msgs and msgs[0]["role"] == "system":
                msgs[0]["content"] += "\n" + CALL_HELP
            return self.tok.apply_chat_template(msgs, tools=list(tools), add_generation_prompt=True, tokenize=False)
        return render_plain(messages, tools, self.tool_detail)
