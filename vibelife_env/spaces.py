"""Gymnasium spaces for chat-shaped observations and actions, and how vector envs batch them.

``gymnasium.spaces.Text`` only admits characters of a fixed charset; task text is
Chinese, English, emoji and JSON. :class:`UnicodeText` admits any ``str`` up to a length
and samples short printable strings, so ``check_env`` and ``space.sample()`` work.

:class:`AssistantAction` contains exactly the actions ``step`` accepts (every form of
:mod:`vibelife_env.actions`: the plain dict with optional keys, an OpenAI assistant
message, a bare reply string). :class:`ChatObservation` is the observation dict.

Batches. Chat values do not stack into arrays, so every vector env of VibeLife (Gymnasium's
sync and async ones, :class:`~vibelife_env.vector.RayVectorEnv`) batches them the same
way: a **tuple with one entry per sub-env** (:class:`PerEnvTuple`, registered with
Gymnasium's ``batch_space``, ``concatenate``, ``iterate`` and shared-memory functions).
Action batches may also be given as a dict of sequences, one entry per sub-env
(``{"reply": ("", "ok"), "tool_calls": ([], [])}``); :func:`unbatch` turns either form
into one action per sub-env.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator, Mapping
from collections.abc import Sequence as SequenceABC
from copy import deepcopy
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import (
    batch_space,
    concatenate,
    create_empty_array,
    create_shared_memory,
    iterate,
    read_from_shared_memory,
    write_to_shared_memory,
)

from vibelife_env.actions import parse_action
from vibelife_env.errors import ActionError

_SAMPLE_CHARS = tuple("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:-_{}\"'李伟旅行预算")

MESSAGE_ROLES = ("system", "user", "assistant", "tool")


class UnicodeText(spaces.Text):
    """Any Python ``str`` of length ``min_length..max_length``.

    Args:
        max_length: Longest admitted string.
        min_length: Shortest admitted string (default 0: the empty string is valid).
        sample_max_length: Longest string :meth:`sample` produces.
    """

    def __init__(self, max_length: int, *, min_length: int = 0, sample_max_length: int = 24, seed: Any = None):
        super().__init__(max_length, min_length=min_length, charset="".join(sorted(set(_SAMPLE_CHARS))), seed=seed)
        self.sample_max_length = min(sample_max_length, max_length)

    def contains(self, x: Any) -> bool:
        """True for any ``str`` whose length is within bounds."""
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """A short random printable string."""
        if mask is not None or probability is not None:
            return super().sample(mask=mask, probability=probability)
        hi = max(self.min_length, self.sample_max_length)
        length = int(self.np_random.integers(self.min_length, hi + 1))
        chars = self.character_list
        return "".join(chars[int(i)] for i in self.np_random.integers(0, len(chars), size=length))

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, UnicodeText) and (self.min_length, self.max_length) == (
            other.min_length,
            other.max_length,
        )


class ChatObservation(spaces.Dict):
    """The observation: new messages since the last step, the virtual time and the stage.

    A plain ``Dict`` space; its own class only tells vector envs to batch it per sub-env.
    """

    def __repr__(self) -> str:
        return f"ChatObservation({dict(self.spaces)!r})"


class AssistantAction(spaces.Dict):
    """One assistant message, in any form ``step`` accepts.

    The subspaces (``tool_calls``: a sequence of ``{"name", "arguments"}`` with JSON text
    arguments; ``reply``: a string) describe the canonical form, which :meth:`sample`
    produces. :meth:`contains` is true exactly when ``step`` accepts the action without
    :class:`~vibelife_env.errors.ActionError`: the plain dict with either key optional
    (arguments a dict or JSON text, a ``None`` reply), an OpenAI assistant message
    (``role``, ``content``, ``tool_calls`` with ``function``, ``end_turn``), or a bare reply
    string. Arguments that are not usable JSON are contained: they are the agent's
    mistake, answered with an error result for that call (see :mod:`vibelife_env.actions`).

    Example:
        >>> space = AssistantAction()
        >>> space.contains({"reply": "All set."}), space.contains({"tool_calls": []})
        (True, True)
        >>> space.contains({"role": "assistant", "content": None, "tool_calls": [
        ...     {"id": "c1", "type": "function", "function": {"name": "email__get_emails", "arguments": "{}"}}]})
        True
        >>> space.contains({"reply": 3}), space.contains({"replies": "hi"}), space.contains(["hi"])
        (False, False, False)
    """

    def __init__(self, seed: Any = None) -> None:
        call = spaces.Dict({"name": UnicodeText(256, min_length=1), "arguments": UnicodeText(200_000)})
        super().__init__({"tool_calls": spaces.Sequence(call, stack=False), "reply": UnicodeText(200_000)}, seed=seed)

    def contains(self, x: Any) -> bool:
        """True when ``step`` accepts ``x`` (see the class docstring)."""
        try:
            parse_action(x)
        except ActionError:
            return False
        return True

    def __repr__(self) -> str:
        return "AssistantAction(plain dict | OpenAI assistant message | reply str)"


CHAT_SPACES = (ChatObservation, AssistantAction)


class PerEnvTuple(spaces.Tuple):
    """A batch of a chat space: one value per sub-env (see the module docstring).

    :meth:`contains` also admits a dict of sequences (one entry per sub-env), the other
    batch form :func:`unbatch` accepts.

    Args:
        single: The sub-env's space.
        n: Number of sub-envs.
    """

    def __init__(self, single: spaces.Space[Any], n: int, seed: Any = None) -> None:
        super().__init__(tuple(deepcopy(single) for _ in range(n)), seed=seed)
        self.single = single

    def contains(self, x: Any) -> bool:
        """True for a batch of ``n`` values of the single space, in either form."""
        try:
            items = unbatch(x, len(self.spaces))
        except ValueError:
            return False
        return all(space.contains(item) for space, item in zip(self.spaces, items, strict=True))


def unbatch(batch: Any, n: int) -> list[Any]:
    """One value per sub-env from a batch of ``n``: a sequence of ``n`` values (tuple of
    dicts), or a mapping whose every value is a sequence of ``n`` entries (dict of tuples).

    >>> unbatch({"reply": ("", "ok"), "tool_calls": ([], None)}, 2)
    [{'reply': '', 'tool_calls': []}, {'reply': 'ok', 'tool_calls': None}]

    Raises:
        ValueError: ``batch`` is neither form, or a length is not ``n``.
    """
    if isinstance(batch, Mapping):
        columns = {}
        for key, column in batch.items():
            if isinstance(column, (str, bytes, Mapping)) or not isinstance(column, (SequenceABC, np.ndarray)):
                raise ValueError(
                    f"a dict batch needs a sequence of {n} entries (one per sub-env) under every key; "
                    f"{key!r} holds a {type(column).__name__} (for one action per sub-env, pass a tuple of {n} actions)"
                )
            if len(column) != n:
                raise ValueError(f"a dict batch needs {n} entries under every key; {key!r} has {len(column)}")
            columns[key] = column
        return [{key: column[i] for key, column in columns.items()} for i in range(n)]
    if isinstance(batch, (str, bytes)) or not isinstance(batch, (SequenceABC, np.ndarray)):
        raise ValueError(
            f"a batch is a sequence of {n} values (one per sub-env) or a dict of such sequences, "
            f"got {type(batch).__name__}"
        )
    if len(batch) != n:
        raise ValueError(f"a batch needs {n} values (one per sub-env), got {len(batch)}")
    return list(batch)


# ---------------------------------------------------------------- Gymnasium's vector utilities
def _batch_per_env(space: spaces.Space[Any], n: int = 1) -> PerEnvTuple:
    batched = PerEnvTuple(space, n)
    batched.seed([int(s) for s in deepcopy(space.np_random).integers(0, 10**8, n)])
    return batched


def _concatenate_per_env(space: spaces.Space[Any], items: Any, out: Any) -> tuple[Any, ...]:
    return tuple(items)


def _empty_per_env(space: spaces.Space[Any], n: int = 1, fn: Any = np.zeros) -> tuple[None, ...]:
    return (None,) * n


for _chat_space in CHAT_SPACES:
    batch_space.register(_chat_space, _batch_per_env)
    concatenate.register(_chat_space, _concatenate_per_env)
    create_empty_array.register(_chat_space, _empty_per_env)


def _iterate_per_env(space: PerEnvTuple, items: Any) -> Iterator[Any]:
    return iter(unbatch(items, len(space.spaces)))


iterate.register(PerEnvTuple, _iterate_per_env)


class SharedSlots:
    """What Gymnasium's async vector env uses as "shared memory" for chat observations.

    Observations have no fixed size, so instead of arrays they go through one list held by
    a ``multiprocessing`` manager process: each worker writes its slot, the main process
    reads the whole list. Only the list proxy travels to the workers.
    """

    def __init__(self, n: int, ctx: Any) -> None:
        self.manager = ctx.Manager()
        self.slots = self.manager.list([None] * n)

    def __getstate__(self) -> dict[str, Any]:
        return {"manager": None, "slots": self.slots}  # the manager stays with the main process


class SharedObservations(SequenceABC):
    """The async vector env's observation batch: a live, read-only view of :class:`SharedSlots`.

    Gymnasium returns a deep copy (the default, ``copy=True``), which is a plain tuple.
    """

    def __init__(self, shared: SharedSlots) -> None:
        self.shared = shared

    def __len__(self) -> int:
        return len(self.shared.slots)

    def __getitem__(self, index: Any) -> Any:
        return self.shared.slots[index]

    def __deepcopy__(self, memo: dict[int, Any]) -> tuple[Any, ...]:
        return tuple(self.shared.slots._getvalue())


@create_shared_memory.register(ChatObservation)
def _create_shared_slots(space: ChatObservation, n: int = 1, ctx: Any = multiprocessing) -> SharedSlots:
    return SharedSlots(n, ctx)


@read_from_shared_memory.register(ChatObservation)
def _read_shared_slots(space: ChatObservation, shared_memory: SharedSlots, n: int = 1) -> SharedObservations:
    return SharedObservations(shared_memory)


@write_to_shared_memory.register(ChatObservation)
def _write_shared_slot(space: ChatObservation, index: int, value: Any, shared_memory: SharedSlots) -> None:
    shared_memory.slots[index] = value


def message_space() -> spaces.Dict:
    """One chat message: role, content, tool name and tool-call id (empty when unused)."""
    return spaces.Dict(
        {
            "role": UnicodeText(16),
            "content": UnicodeText(1_000_000),
            "name": UnicodeText(256),
            "tool_call_id": UnicodeText(256),
        }
    )


def observation_space(num_stages: int) -> ChatObservation:
    """New messages since the last step, plus the virtual time and stage."""
    return ChatObservation(
        {
            "messages": spaces.Sequence(message_space(), stack=False),
            "time": UnicodeText(64),
            "stage": spaces.Discrete(max(num_stages, 1)),
        }
    )


def action_space() -> AssistantAction:
    """One assistant message: tool calls and/or a reply, in any accepted form (see :class:`AssistantAction`)."""
    return AssistantAction()


def chat_messages(obs: Any) -> list[dict[str, Any]]:
    """An observation's messages in OpenAI chat format (tool results keep their id and name)."""
    out: list[dict[str, Any]] = []
    for m in obs.get("messages", ()):
        msg: dict[str, Any] = {"role": m["role"], "content": m["content"]}
        if m["role"] == "tool":
            msg["tool_call_id"] = m["tool_call_id"]
            msg["name"] = m["name"]
        out.append(msg)
    return out


def empty_message(role: str, content: str, name: str = "", tool_call_id: str = "") -> dict[str, str]:
    """A message in the observation's shape."""
    return {"role": role, "content": content, "name": name, "tool_call_id": tool_call_id}


def as_int(value: Any) -> int:
    """Plain ``int`` (numpy integers are not JSON-able)."""
    return int(np.asarray(value).item())
