"""OpenEnv: VibeLife envs behind OpenEnv's HTTP/WebSocket protocol, and the matching client.

Server side, :class:`VibeLifeEnvironment` is an ``openenv.core`` ``Environment`` over one
:class:`~vibelife_env.env.VibeLifeEnv` per session, and :func:`create_app` the FastAPI app
(``/reset``, ``/step``, ``/state``, ``/schema``, ``/health`` and the ``/ws`` session
socket) that ``vibelife serve --protocol openenv`` runs::

    vibelife serve --env VibeLife-demo-errands-v0 --protocol openenv --port 8000

Client side, :class:`VibeLifeEnvClient` is an ``EnvClient`` (async; ``.sync()`` for a
blocking wrapper); each client holds one session, i.e. one episode at a time::

    from vibelife_env.integrations.openenv import VibeLifeAction, VibeLifeEnvClient

    with VibeLifeEnvClient(base_url="http://127.0.0.1:8000").sync() as env:
        result = env.reset(seed=0)                      # system prompt, tools, first event
        result = env.step(VibeLifeAction(tool_calls=[{"name": "workspace__list_files", "arguments": {}}]))
        result = env.step(VibeLifeAction(reply="All set."))   # closes the turn
        print(result.reward, result.done, env.state().score)

An action is one assistant message, as in ``env.step``: tool calls (the turn stays open)
and/or a reply (``""`` = silence) that closes the turn; ``end_turn=True`` closes it after
the calls. The observation carries the new messages (tool results, the next event), the
virtual time, stage and turn; at reset also the system prompt and the tool schemas.
``reset`` accepts ``env_id``, ``seed``, and for turn-indexed starts ``turn`` and ``prefix``
(see :mod:`vibelife_env.integrations.turns`). Check results never leave the server: the
step reward, and the final score in ``state()`` once the episode is over.

A client that goes away without closing its session (a process that exits, a dropped
connection) ends that session like a close does: its episode is dropped and its slot freed,
with one line on the ``vibelife_env.integrations.openenv`` logger instead of a traceback.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
from typing import Any, ClassVar

from openenv.core import EnvClient
from openenv.core.client_types import StepResult
from openenv.core.env_server.http_server import create_app as _create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, EnvironmentMetadata, Observation, State
from pydantic import Field
from starlette.websockets import WebSocketDisconnect

from vibelife_env.env import VERSION
from vibelife_env.episode import agent_view
from vibelife_env.integrations.session import make_env
from vibelife_env.integrations.turns import start_state

logger = logging.getLogger(__name__)

__all__ = [
    "VibeLifeAction",
    "VibeLifeEnvClient",
    "VibeLifeEnvironment",
    "VibeLifeObservation",
    "VibeLifeState",
    "create_app",
    "environment_class",
]


class VibeLifeAction(Action):
    """One assistant message: tool calls and/or a reply."""

    tool_calls: list[dict[str, Any]] = Field(
        default_factory=list, description='Calls, each {"name": "<service>__<tool>", "arguments": {...}}'
    )
    reply: str | None = Field(default=None, description="Reply that closes the turn; empty = stay silent")
    end_turn: bool = Field(default=False, description="Close the turn after the calls (with reply or silence)")


class VibeLifeObservation(Observation):
    """New messages since the last step, and where the episode is."""

    messages: list[dict[str, Any]] = Field(default_factory=list, description="OpenAI-style messages")
    time: str = Field(default="", description="Virtual time, ISO 8601")
    stage: int = Field(default=0, description="Stage in progress")
    turn: int = Field(default=0, description="Turns closed so far")
    event_id: str | None = Field(default=None, description="Id of the event that opened the current turn")
    truncated: bool = Field(
        default=False, description="The episode budget cut the tool calls short (set on the last step)"
    )
    system_prompt: str | None = Field(default=None, description="At reset: the system prompt")
    tools: list[dict[str, Any]] | None = Field(default=None, description="At reset: OpenAI tool schemas")


class VibeLifeState(State):
    """The session's episode; ``score`` (0-100) once the episode is over."""

    env_id: str | None = None
    task_id: str | None = None
    seed: int | None = None
    turn: int = 0
    stage: int = 0
    done: bool = False
    score: float | None = None


def _messages(obs: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for m in obs.get("messages", ()):
        msg = {"role": m["role"], "content": m["content"]}
        if m["role"] == "tool":
            msg.update(name=m["name"], tool_call_id=m["tool_call_id"])
        out.append(msg)
    return out


class VibeLifeEnvironment(Environment[VibeLifeAction, VibeLifeObservation, VibeLifeState]):
    """One VibeLife episode per session (see the module docstring).

    Args:
        env_id: Default env id for resets that name none.
    """

    SUPPORTS_CONCURRENT_SESSIONS: ClassVar[bool] = True  # one env per session, nothing shared
    REQUIRES_SINGLE_THREAD_EXECUTOR: ClassVar[bool] = True  # SQLite connections stay in one thread
    default_env_id: ClassVar[str] = "VibeLife-demo-errands-v0"

    def __init__(self, env_id: str | None = None) -> None:
        super().__init__()
        self._env_id = env_id or self.default_env_id
        self._env = make_env(self._env_id)
        self._state = VibeLifeState(env_id=self._env_id, task_id=self._env.task.id)

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        env_id: str | None = None,
        turn: int | None = None,
        prefix: str = "oracle",
        **kwargs: Any,
    ) -> VibeLifeObservation:
        """Start an episode (optionally of another ``env_id``, or at turn ``turn`` after ``prefix``).

        Raises:
            ValueError: unknown env id, or a turn the prefix's episode does not have.
        """
        if env_id is not None and env_id != self._env_id:
            self._env_id, self._env = env_id, make_env(env_id)
        if turn is not None:
            start = start_state(self._env_id, int(seed or 0), int(turn), prefix)
            obs, info = self._env.reset(options={"snapshot": start.snapshot})
        else:
            obs, info = self._env.reset(seed=seed)
        self._state = VibeLifeState(
            episode_id=episode_id, env_id=self._env_id, task_id=self._env.task.id, seed=seed, step_count=0
        )
        return self._observation(obs, info, 0.0, False, False, reset=True)

    def step(self, action: VibeLifeAction, timeout_s: float | None = None, **kwargs: Any) -> VibeLifeObservation:
        """Run one assistant message.

        Raises:
            RuntimeError: no episode, or it is over.
        """
        if not self._env.episode.started:
            raise RuntimeError("call reset() before step()")
        if self._env.episode.done:
            raise RuntimeError("the episode is over; call reset()")
        step: dict[str, Any] = {"tool_calls": action.tool_calls, "reply": action.reply}
        if action.end_turn and action.reply is None:
            step["reply"] = ""
        obs, reward, terminated, truncated, info = self._env.step(step)
        self._state.step_count += 1
        return self._observation(obs, info, float(reward), terminated, truncated)

    @property
    def state(self) -> VibeLifeState:
        """The session's episode (the score only once it is over)."""
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        """Name, description and version for ``/metadata``."""
        return EnvironmentMetadata(
            name="vibelife",
            description=f"VibeLife life-assistant task {self._env_id} ({self._env.task.meta.title or self._env.task.id})",
            version=VERSION,
        )

    def _observation(
        self,
        obs: dict[str, Any],
        info: dict[str, Any],
        reward: float,
        terminated: bool,
        truncated: bool,
        reset: bool = False,
    ) -> VibeLifeObservation:
        view = agent_view(info)
        done = bool(terminated or truncated)
        self._state.turn, self._state.stage, self._state.done = self._env.turn, self._env.current_stage, done
        self._state.score = round(100.0 * self._env.score, 6) if done else None
        return VibeLifeObservation(
            messages=_messages(obs),
            time=str(view.get("time", "")),
            stage=int(view.get("stage", 0)),
            turn=int(view.get("turn", 0)),
            event_id=view.get("event_id"),
            truncated=bool(truncated),
            system_prompt=view.get("system_prompt") if reset else None,
            tools=view.get("tools") if reset else None,
            done=done,
            reward=reward,
        )


def environment_class(env_id: str) -> type[VibeLifeEnvironment]:
    """A :class:`VibeLifeEnvironment` subclass whose sessions default to ``env_id``."""
    make_env(env_id)  # fail now, with the registry's message, on an unknown id
    slug = re.sub(r"[^0-9A-Za-z]+", "_", env_id).strip("_")
    return type(f"VibeLifeEnvironment_{slug}", (VibeLifeEnvironment,), {"default_env_id": env_id})


class DisconnectsEndSessions:
    """ASGI middleware: a WebSocket client that left without closing ends its session quietly.

    openenv's ``/ws`` handler frees the session (its env) in a ``finally`` and then closes
    the socket; when the client is already gone that close raises ``WebSocketDisconnect``,
    which uvicorn would log as a ~50-line "Exception in ASGI application" traceback. Here it
    is the end of that session: one log line, or none when the client had sent its
    ``close`` message first (it then only hung up before the server's close went out).
    Anything else propagates unchanged.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "websocket":
            await self.app(scope, receive, send)
            return
        closed = False

        async def watched() -> Any:
            nonlocal closed
            message = await receive()
            text = message.get("text") if message.get("type") == "websocket.receive" else None
            if text and '"close"' in text:
                with contextlib.suppress(ValueError, AttributeError):
                    closed = closed or json.loads(text).get("type") == "close"
            return message

        try:
            await self.app(scope, watched, send)
        except WebSocketDisconnect as exc:
            if closed:
                return
            client = scope.get("client") or ("?", "?")
            logger.info(
                "session of %s:%s ended: the client disconnected without closing (code %s); its episode is dropped",
                client[0],
                client[1],
                exc.code,
            )


def create_app(env_id: str, max_sessions: int = 64) -> Any:
    """The OpenEnv FastAPI app serving ``env_id`` (up to ``max_sessions`` WebSocket sessions).

    A client disconnect ends its session with one log line (:class:`DisconnectsEndSessions`).
    """
    app = _create_app(
        environment_class(env_id),
        VibeLifeAction,
        VibeLifeObservation,
        env_name="vibelife",
        max_concurrent_envs=max_sessions,
    )
    app.add_middleware(DisconnectsEndSessions)
    return app


class VibeLifeEnvClient(EnvClient[VibeLifeAction, VibeLifeObservation, VibeLifeState]):
    """The client of :func:`create_app` servers (one session = one episode at a time)."""

    def _step_payload(self, action: VibeLifeAction) -> dict[str, Any]:
        return action.model_dump(exclude={"metadata"})

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[VibeLifeObservation]:
        obs = VibeLifeObservation(
            **payload.get("observation", {}), done=payload.get("done", False), reward=payload.get("reward")
        )
        return StepResult(observation=obs, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> VibeLifeState:
        return VibeLifeState(**payload)
