"""verifiers (``verifiers.v1``): VibeLife tasks as a taskset, an env and an in-process harness.

The current verifiers release (0.4) ships only the ``verifiers.v1`` stack: a *taskset*
yields tasks, an *env* decides how one task becomes an episode (``run(task, agents)``),
and an agent is a *harness* (the program that talks to the model) × model × runtime;
every model call goes through verifiers' interception server, which records the trace.
The ``MultiTurnEnv`` / ``env_response`` API of earlier releases is gone. Here:

- :class:`VibeLifeTaskset` yields one task per (env id, seed), with no prompt: the env
  opens the conversation with the first event;
- :class:`VibeLifeEnv` holds the live VibeLife episode and plays the user: each turn's
  event is sent with ``interaction.turn(event)``; the harness segment's last reply closes
  the VibeLife turn; at the end the task score (0-1) is recorded as the ``score`` reward;
- :class:`VibeLifeHarness` is an in-process chat loop (the contract allows one: every model
  call goes through the interception endpoint) that offers the task's tools and runs them
  on the episode the env holds. No subprocess, container, ``uv`` or download is involved.

verifiers resolves plugins by a top-level module name, so importing this module also
registers it as ``vibelife_verifiers`` (the id to put in configs)::

    import asyncio

    import verifiers.v1 as vf
    from vibelife_env.integrations.verifiers import TASKSET_ID, VibeLifeEnvConfig, VibeLifeTasksetConfig, run_eval

    config = VibeLifeEnvConfig(taskset=VibeLifeTasksetConfig(id=TASKSET_ID, envs=["VibeLife-demo-errands-v0"], seeds=[0, 1]))
    client = vf.EvalClientConfig(base_url="http://127.0.0.1:8000/v1", api_key_var="OPENAI_API_KEY")
    episodes = asyncio.run(run_eval(config, model="my-model", client=client))
    print([e.traces[0].reward for e in episodes])

verifiers' own command line (``vf-eval vibelife_verifiers ...``) imports the plugin by that
name before anything else, so it needs a module of that name on the path; it finds the
taskset, env and harness through the module's ``__all__``, which ``import *`` does not
copy. :data:`SHIM` is that one-line module (``vibelife_verifiers.py``)::

    from vibelife_env.integrations.verifiers import __all__, VibeLifeEnv, VibeLifeHarness, VibeLifeTaskset  # noqa: F401
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from collections.abc import Iterator
from typing import Any

import verifiers.v1 as vf
from pydantic import Field
from verifiers.v1.dialects.chat import message_to_wire

from vibelife_env.integrations.session import EpisodeSession

__all__ = ["VibeLifeEnv", "VibeLifeHarness", "VibeLifeTaskset"]

#: The plugin id of this module in verifiers configs.
TASKSET_ID = "vibelife_verifiers"
sys.modules.setdefault(TASKSET_ID, sys.modules[__name__])

#: The text of ``vibelife_verifiers.py``, the module ``vf-eval vibelife_verifiers`` imports:
#: it re-exports ``__all__`` and the three classes it names (``import *`` would not copy ``__all__``).
SHIM = f"from {__name__} import __all__, {', '.join(__all__)}  # noqa: F401\n"

_EPISODES: dict[str, EpisodeSession] = {}
_KEYS = itertools.count()


class VibeLifeTasksetConfig(vf.TasksetConfig):
    """Which tasks: env ids × seeds."""

    envs: list[str] = Field(default_factory=lambda: ["VibeLife-demo-errands-v0"])
    seeds: list[int] = Field(default_factory=lambda: [0])


class VibeLifeTaskData(vf.TaskData):
    """A task's data: ``info = {"env_id", "seed"}`` (and, while running, ``"episode"``)."""

    info: dict[str, Any] = Field(default_factory=dict)


class VibeLifeTask(vf.Task[VibeLifeTaskData, vf.State, vf.TaskConfig]):
    """One VibeLife episode to play; scored by :class:`VibeLifeEnv`."""


class VibeLifeTaskset(vf.Taskset[VibeLifeTask, VibeLifeTasksetConfig]):
    """One task per (env id, seed), in that order."""

    def load(self) -> Iterator[VibeLifeTask]:
        for env_id in self.config.envs:
            system = EpisodeSession(env_id).system_prompt
            for seed in self.config.seeds:
                yield VibeLifeTask(
                    VibeLifeTaskData(
                        id=f"{env_id}#{seed}",
                        name=f"{env_id}#{seed}",
                        prompt=None,  # the env opens the conversation with the first event
                        system_prompt=system,
                        info={"env_id": env_id, "seed": seed},
                    ),
                    self.config.task,
                )


class VibeLifeHarnessConfig(vf.HarnessConfig):
    """The in-process chat loop's knobs."""

    id: str = TASKSET_ID
    max_steps_per_turn: int = 64
    """Model calls per VibeLife turn before the turn is closed in silence."""


class VibeLifeHarness(vf.Harness[VibeLifeHarnessConfig]):
    """An in-process chat loop over the live VibeLife episode (see the module docstring)."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self,
        ctx: Any,
        trace: Any,
        runtime: Any,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: Any,
    ) -> Any:
        """Run the model on the conversation until it answers without tool calls."""
        import openai

        key = (getattr(data, "info", None) or {}).get("episode")
        session = _EPISODES.get(key) if key is not None else None
        if session is None:
            raise vf.HarnessError("VibeLifeHarness runs only inside VibeLifeEnv (no live episode for this task)")
        system, prompt = self.resolve_prompt(data)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        elif prompt:
            messages += [message_to_wire(m) for m in prompt]
        client = openai.AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0)
        try:
            for _ in range(self.config.max_steps_per_turn):
                request: dict[str, Any] = {
                    "model": ctx.model,
                    "messages": messages,
                    "tools": session.tools,
                    "tool_choice": "auto",
                }
                response = await client.chat.completions.create(**request)
                message = response.choices[0].message
                calls = message.tool_calls or []
                wire: dict[str, Any] = {"role": "assistant", "content": message.content}
                if calls:
                    wire["tool_calls"] = [
                        {
                            "id": c.id,
                            "type": "function",
                            "function": {"name": c.function.name, "arguments": c.function.arguments},
                        }
                        for c in calls
                    ]
                messages.append(wire)
                if not calls or session.done:
                    break
                for c in calls:
                    result = session.call(c.function.name, c.function.arguments or "{}")
                    messages.append(
                        {
                            "role": "tool",
                            "tool_call_id": c.id,
                            "content": json.dumps(result, ensure_ascii=False, default=str),
                        }
                    )
        finally:
            await client.close()
        return vf.ProgramResult(exit_code=0, stdout="", stderr="")


class VibeLifeEnvConfig(vf.EnvConfig):
    """The env's config: the one ``assistant`` seat, running in this process (the harness
    needs no sandbox: it only talks to the model and to the episode the env holds)."""

    assistant: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())


class VibeLifeEnv(vf.Env[VibeLifeEnvConfig]):
    """Plays the VibeLife world as the run's user; records the task score as ``score``."""

    async def run(self, task: Any, agents: Any) -> None:
        info = dict(task.data.info)
        session = EpisodeSession(info["env_id"])
        session.start(int(info.get("seed", 0)))
        key = f"vibelife-{next(_KEYS)}"
        _EPISODES[key] = session
        try:
            live = task.with_data(info={**info, "episode": key})
            async with agents.assistant.interaction(live) as interaction:
                while not session.done:
                    segment = await interaction.turn(session.event or "")
                    if segment.terminated:
                        break
                    if not session.done:
                        session.end_turn(segment.last_reply)
            trace = interaction.trace
            trace.record_reward("score", session.score / 100.0, 1.0)
            trace.info["vibelife_score"] = session.score
            trace.info["vibelife_truncated"] = session.truncated
        finally:
            _EPISODES.pop(key, None)


async def run_eval(config: VibeLifeEnvConfig, model: str, client: Any, rollouts_per_task: int = 1) -> list[Any]:
    """Run every task of the config's taskset through its env; the finished episodes.

    ``client`` is a ``vf.EvalClientConfig`` (the OpenAI-compatible endpoint).
    """
    env = VibeLifeEnv(config)
    ctx = vf.ModelContext(model=model, client=client)
    async with env.serving():
        slots = [slot for task in env.taskset for slot in env.slots(task, rollouts_per_task)]
        return list(await asyncio.gather(*(env.run_slot(slot, ctx) for slot in slots)))
