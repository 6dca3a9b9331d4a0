"""An LLM agent for any OpenAI-compatible chat endpoint (vLLM, SGLang, hosted APIs).

:class:`OpenAIChatAgent` keeps the episode's chat history in OpenAI format, sends a
window of it with the env's tool schemas (native tool calling), and returns the model's
assistant message as the action: a message with ``tool_calls`` keeps the turn open, one
without closes it with its content as the reply (see :mod:`vibelife_env.actions`).

Configuration comes from arguments, else environment variables:

=====================  ==========================================================
``OPENAI_BASE_URL``    endpoint, e.g. ``http://127.0.0.1:8000/v1`` (vLLM, SGLang)
``OPENAI_API_KEY``     key; ``"EMPTY"`` is used for a custom endpoint without one
``VIBELIFE_MODEL``     model name (required)
``VIBELIFE_TEMPERATURE``, ``VIBELIFE_TOP_P``, ``VIBELIFE_MAX_TOKENS``, ``VIBELIFE_SEED``
                       sampling parameters
``VIBELIFE_TIMEOUT``   seconds per request (default 120)
``VIBELIFE_MAX_RETRIES``  own retries on transient errors (default 3)
``VIBELIFE_WINDOW_TURNS``, ``VIBELIFE_WINDOW_CHARS``  transcript window
=====================  ==========================================================

Context management for multi-week episodes: the request holds the system prompt plus
the most recent turns (``window_turns``) cut further to a character budget
(``window_chars``, roughly 4 characters per token for English). An assistant message
with tool calls and its tool results are dropped or kept together, never split, and
the message that opened the current turn is always kept. The system prompt tells the
model that old turns vanish and that durable notes belong in workspace files, which
are the agent's long-term memory.
"""

from __future__ import annotations

import itertools
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

MEMORY_NOTE = (
    "Your view of this conversation is limited: older turns are dropped from it as the weeks go by. "
    "Keep durable notes (commitments, bookings and their ids, deadlines, pending questions, what the user "
    "authorized) in workspace files such as NOTES.md with the workspace__* tools, and re-read them "
    "instead of relying on memory."
)
TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


def _env_value(name: str, cast: Callable[[str], Any]) -> Any:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return None
    try:
        return cast(raw)
    except ValueError as exc:
        raise ValueError(f"environment variable {name}={raw!r} is not a valid {cast.__name__}") from exc


def _units(messages: Sequence[Mapping[str, Any]]) -> list[list[int]]:
    """Indices grouped so an assistant message with tool calls stays with its tool results."""
    units: list[list[int]] = []
    for i, m in enumerate(messages):
        if m.get("role") == "tool" and units and messages[units[-1][0]].get("tool_calls"):
            units[-1].append(i)
        else:
            units.append([i])
    return units


def _size(message: Mapping[str, Any]) -> int:
    size = len(message.get("content") or "")
    for call in message.get("tool_calls") or ():
        fn = call.get("function", {})
        size += len(fn.get("name", "")) + len(str(fn.get("arguments", "")))
    return size


def _fit(body: list[Mapping[str, Any]], kept: list[list[int]], budget: int) -> list[list[int]]:
    """Drop whole older turns, then the oldest groups of the current turn, to fit ``budget``."""
    sizes = [sum(_size(body[i]) for i in u) for u in kept]
    total = sum(sizes)
    opens = [k for k, u in enumerate(kept) if body[u[0]].get("role") == "user"]
    pinned = opens[-1] if opens else 0
    drop: set[int] = set()
    edges = [0, *(o for o in opens if 0 < o < pinned), pinned] if pinned > 0 else []
    for start, end in itertools.pairwise(edges):
        if total <= budget:
            break
        drop.update(range(start, end))
        total -= sum(sizes[start:end])
    for k in range(pinned + 1, len(kept) - 1):
        if total <= budget:
            break
        drop.add(k)
        total -= sizes[k]
    return [u for k, u in enumerate(kept) if k not in drop]


def window_messages(
    history: Sequence[Mapping[str, Any]], window_turns: int | None = None, window_chars: int | None = None
) -> tuple[list[dict[str, Any]], int]:
    """The part of ``history`` sent to the model, and how many messages were left out.

    ``history[0]`` must be the system message; it is always kept. A turn starts at a
    ``user`` message. Tool calls are never separated from their results, and the user
    message that opened the last turn is always kept.

    Args:
        history: The whole OpenAI-format conversation.
        window_turns: Keep at most this many most recent turns (``None``: all).
        window_chars: Then drop the oldest messages until the content fits this many
            characters (``None``: no limit). The last message group is always kept.

    Raises:
        ValueError: bad limits, or ``history`` does not start with a system message.
    """
    if not history or history[0].get("role") != "system":
        raise ValueError("history must start with the system message")
    for label, value in (("window_turns", window_turns), ("window_chars", window_chars)):
        if value is not None and (not isinstance(value, int) or value < 1):
            raise ValueError(f"{label} must be a positive int or None, got {value!r}")
    body = list(history[1:])
    units = _units(body)
    starts = [k for k, u in enumerate(units) if body[u[0]].get("role") == "user"]
    first = 0
    if window_turns is not None and len(starts) > window_turns:
        first = starts[-window_turns]
    kept = units[first:]
    if window_chars is not None:
        kept = _fit(body, kept, window_chars)
    out = [dict(history[0])] + [dict(body[i]) for u in kept for i in u]
    return out, len(history) - len(out)


class OpenAIChatAgent:
    """Drive a VibeLife episode with an OpenAI-compatible chat model.

    Args:
        model: Model name (default ``$VIBELIFE_MODEL``).
        base_url: Endpoint (default ``$OPENAI_BASE_URL``, else the OpenAI API).
        api_key: Key (default ``$OPENAI_API_KEY``; ``"EMPTY"`` for a custom endpoint).
        temperature, top_p, max_tokens, seed: Sampling parameters (``None``: the server's).
        extra_body: Extra request fields for the server (e.g. vLLM's ``top_k`` or
            ``chat_template_kwargs``).
        timeout: Seconds per request.
        max_retries: Own retries on transient failures (connection errors, timeouts,
            HTTP 408/409/425/429/5xx), with exponential backoff; other errors raise at once.
        retry_backoff: First backoff in seconds (doubles each retry, capped at 30 s).
        client_max_retries: Retries inside the ``openai`` client itself (default 0, so
            the bound above is the only one).
        window_turns: Keep this many most recent turns in each request (``None``: all).
        window_chars: Character budget of each request's messages (``None``: none).
        max_tool_result_chars: Cut each tool result to this many characters in requests.
        memory_note: Appended to the env's system prompt (``""`` for none).
        client: A ready ``openai.OpenAI``-like client (then URL, key and timeouts are unused).
        sleep: Function used to wait between retries (tests pass a no-op).

    Raises:
        ValueError: no model, a bad numeric setting, or no key for the OpenAI API.
    """

    name = "openai"

    def __init__(
        self,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        temperature: float | None = None,
        top_p: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        retry_backoff: float = 1.0,
        client_max_retries: int = 0,
        window_turns: int | None = None,
        window_chars: int | None = None,
        max_tool_result_chars: int | None = 20_000,
        memory_note: str = MEMORY_NOTE,
        client: Any = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.model = model or os.environ.get("VIBELIFE_MODEL")
        if not self.model:
            raise ValueError("OpenAIChatAgent needs a model: pass model=... or set VIBELIFE_MODEL")
        self.sampling = {
            "temperature": temperature if temperature is not None else _env_value("VIBELIFE_TEMPERATURE", float),
            "top_p": top_p if top_p is not None else _env_value("VIBELIFE_TOP_P", float),
            "max_tokens": max_tokens if max_tokens is not None else _env_value("VIBELIFE_MAX_TOKENS", int),
            "seed": seed if seed is not None else _env_value("VIBELIFE_SEED", int),
        }
        self.extra_body = dict(extra_body or {})
        self.timeout = timeout if timeout is not None else (_env_value("VIBELIFE_TIMEOUT", float) or 120.0)
        retries = max_retries if max_retries is not None else _env_value("VIBELIFE_MAX_RETRIES", int)
        self.max_retries = 3 if retries is None else retries
        self.window_turns = window_turns if window_turns is not None else _env_value("VIBELIFE_WINDOW_TURNS", int)
        self.window_chars = window_chars if window_chars is not None else _env_value("VIBELIFE_WINDOW_CHARS", int)
        for label, value in (
            ("max_retries", self.max_retries),
            ("client_max_retries", client_max_retries),
        ):
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"{label} must be a non-negative int, got {value!r}")
        if self.timeout <= 0 or retry_backoff < 0:
            raise ValueError(f"timeout must be > 0 and retry_backoff >= 0, got {self.timeout}, {retry_backoff}")
        window_messages([{"role": "system"}], self.window_turns, self.window_chars)  # validates the limits
        self.retry_backoff = retry_backoff
        self.max_tool_result_chars = max_tool_result_chars
        self.memory_note = memory_note
        self._sleep = sleep
        if client is None:
            client = self._make_client(base_url, api_key, client_max_retries)
        self.client = client
        self.tools: list[dict[str, Any]] = []
        self.history: list[dict[str, Any]] = []
        self.usage = {"requests": 0, "retries": 0, "prompt_tokens": 0, "completion_tokens": 0}
        self._turn: int | None = None
        self._calls_in_turn = 0
        self._budget_turn = 30
        self._next_id = 0

    def _make_client(self, base_url: str | None, api_key: str | None, client_max_retries: int) -> Any:
        import openai

        base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        api_key = api_key or os.environ.get("OPENAI_API_KEY") or None
        if api_key is None:
            if base_url is None:
                raise ValueError("no API key: pass api_key=... or set OPENAI_API_KEY (or give a base_url)")
            api_key = "EMPTY"
        return openai.OpenAI(base_url=base_url, api_key=api_key, timeout=self.timeout, max_retries=client_max_retries)

    # ------------------------------------------------------------------ protocol
    def reset(self, info: dict[str, Any]) -> None:
        """Start an episode from the ``info`` of ``env.reset`` (tools and system prompt).

        Raises:
            ValueError: ``info`` has no ``tools`` list.
        """
        tools = info.get("tools")
        if not isinstance(tools, list):
            raise ValueError("info['tools'] must be the list of tool schemas returned by env.reset")
        self.tools = tools
        self.history = []
        self._turn = info.get("turn")
        self._calls_in_turn = 0
        self._budget_turn = int(info.get("max_tool_calls_per_turn", 30))
        self._next_id = 0
        prompt = info.get("system_prompt")
        if prompt:
            self.history.append({"role": "system", "content": self._system(prompt)})

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        """Add the observation to the history, ask the model, return its assistant message."""
        self._observe(observation, info)
        remaining = max(self._budget_turn - self._calls_in_turn, 0)
        message = self._complete(force_reply=remaining == 0)
        calls = (message.get("tool_calls") or [])[:remaining]  # never exceed the env's per-turn budget
        action: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
        if calls:
            action["tool_calls"] = calls
        else:
            action["content"] = action["content"] or ""
        self._calls_in_turn += len(calls)
        self.history.append(dict(action))
        return action

    # ----------------------------------------------------------------- internals
    def _system(self, prompt: str) -> str:
        return f"{prompt}\n\n{self.memory_note}" if self.memory_note else prompt

    def _observe(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> None:
        turn = info.get("turn")
        if turn != self._turn:
            self._turn, self._calls_in_turn = turn, 0
        for m in observation.get("messages", ()):
            role, content = m.get("role"), m.get("content", "")
            if role == "system":
                if self.history and self.history[0]["role"] == "system":
                    continue
                self.history.insert(0, {"role": "system", "content": self._system(content)})
            elif role == "tool":
                self.history.append(
                    {
                        "role": "tool",
                        "tool_call_id": m.get("tool_call_id", ""),
                        "name": m.get("name", ""),
                        "content": content,
                    }
                )
            else:
                self.history.append({"role": role, "content": content})
        if not self.history or self.history[0]["role"] != "system":
            raise ValueError("the first observation must carry the system prompt (or reset(info) must)")

    def request_messages(self) -> list[dict[str, Any]]:
        """The messages of the next request (window applied, long tool results cut)."""
        messages, omitted = window_messages(self.history, self.window_turns, self.window_chars)
        if omitted:
            messages[0]["content"] += (
                f"\n\n[{omitted} earlier messages of this episode are not shown; your workspace notes persist.]"
            )
        limit = self.max_tool_result_chars
        for m in messages:
            if m["role"] == "tool" and limit is not None and len(m["content"]) > limit:
                m["content"] = m["content"][:limit] + f"... [cut: {len(m['content']) - limit} more characters]"
        return messages

    def _complete(self, force_reply: bool) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": self.model, "messages": self.request_messages()}
        if self.tools:
            kwargs["tools"] = self.tools
            kwargs["tool_choice"] = "none" if force_reply else "auto"
        kwargs.update({k: v for k, v in self.sampling.items() if v is not None})
        if self.extra_body:
            kwargs["extra_body"] = self.extra_body
        response = self._with_retries(kwargs)
        usage = getattr(response, "usage", None)
        if usage is not None:
            self.usage["prompt_tokens"] += int(getattr(usage, "prompt_tokens", 0) or 0)
            self.usage["completion_tokens"] += int(getattr(usage, "completion_tokens", 0) or 0)
        if not response.choices:
            raise RuntimeError(f"the model endpoint returned no choices for model {self.model!r}")
        return self._message(response.choices[0].message)

    def _with_retries(self, kwargs: dict[str, Any]) -> Any:
        attempt = 0
        while True:
            self.usage["requests"] += 1
            try:
                return self.client.chat.completions.create(**kwargs)
            except Exception as exc:
                if attempt >= self.max_retries or not _transient(exc):
                    raise
                self.usage["retries"] += 1
                self._sleep(min(self.retry_backoff * 2**attempt, 30.0))
                attempt += 1

    def _message(self, msg: Any) -> dict[str, Any]:
        calls = []
        for call in getattr(msg, "tool_calls", None) or ():
            fn = call.function
            args = fn.arguments
            if not isinstance(args, str):
                args = json.dumps(args if args is not None else {}, ensure_ascii=False)
            call_id = getattr(call, "id", None)
            if not call_id:
                call_id = f"call_agent_{self._next_id}"
                self._next_id += 1
            calls.append({"id": call_id, "type": "function", "function": {"name": fn.name, "arguments": args}})
        return {"content": getattr(msg, "content", None), "tool_calls": calls}


def _transient(exc: Exception) -> bool:
    """Whether a failed request is worth retrying."""
    import openai

    if isinstance(exc, (openai.APIConnectionError, openai.APITimeoutError)):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in TRANSIENT_STATUS or exc.status_code >= 500
    return False
