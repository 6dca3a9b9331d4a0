"""LLM-bound rollouts on asyncio: hundreds of episodes in flight per process.

An LLM episode spends almost all its time waiting for completions. One thread per episode
(or two episodes per Ray actor) leaves an inference server idle; here every episode is a
coroutine on one event loop, the env steps run inline between requests (they take
milliseconds), and an :class:`asyncio.Semaphore` bounds how many episodes are in flight::

    from vibelife_env.async_rollout import AsyncOpenAIChatAgent, run_jobs
    from vibelife_env.runner import EpisodeJob

    jobs = [EpisodeJob("VibeLife-demo-errands-v0", seed=s) for s in range(1024)]
    make = lambda: AsyncOpenAIChatAgent("my-model", "http://127.0.0.1:8000/v1", "EMPTY")
    async for r in run_jobs(jobs, make, max_in_flight=256):   # completion order
        print(r.index, r.result.score)

Each episode has its own env and its own agent (built by the factory), so a trajectory
depends only on its job and on the completions it receives: results are the same at any
concurrency. Agents may be synchronous (``act``) or asynchronous (``async act`` /
``act_async``); synchronous ones run inline.

A failed episode (the agent raised, the endpoint refused, a library is missing) never
passes silently: each failure is logged as it happens (one warning line on this module's
logger), and once every job has run :func:`run_jobs_sync` and :func:`run_jobs` raise
:class:`EpisodesFailed`, which says how many failed and why and holds every result. With
``on_error="report"`` they return the failed results (``ok`` false, ``error`` set) and log
the same summary as a warning instead.

The agents work with every ``openai`` release the package allows (``openai>=1.55.3,<3``;
earlier ones cannot build a client on httpx 0.28): requests go through the client's own
``post``, the raw response read back as bytes, so no HTTP library is imported here.

On Ray, :class:`AsyncEpisodeWorker` is an async actor body with the same ``run(job)`` /
``ping()`` surface as :class:`vibelife_env.runner.EpisodeWorker`; give it to
:class:`~vibelife_env.runner.EpisodeRunner` with ``worker_cls=AsyncEpisodeWorker`` and a
large ``max_in_flight`` to keep that many episodes in flight per actor.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import json
import logging
import ssl
import types
import weakref
from collections import Counter
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable
from typing import Any, Literal

from vibelife_env.agents.openai_agent import OpenAIChatAgent, _transient
from vibelife_env.env import VibeLifeEnv
from vibelife_env.episode import agent_view
from vibelife_env.rollout import EpisodeResult, assistant_message
from vibelife_env.runner import AgentFactory, EpisodeJob, RolloutResult, _as_agent, _JobEnv, check_policy
from vibelife_env.spaces import chat_messages
from vibelife_env.vector import resolve_env_kwargs

__all__ = [
    "AsyncEpisodeWorker",
    "AsyncOpenAIChatAgent",
    "ClientPool",
    "EpisodesFailed",
    "client_pool",
    "failure_summary",
    "run_episode_async",
    "run_jobs",
    "run_jobs_sync",
]

logger = logging.getLogger(__name__)

OnError = Literal["raise", "report"]


class ClientPool:
    """``AsyncOpenAI`` clients shared by the agents of one event loop.

    Building a client costs tens of milliseconds (TLS context, CA bundle), too much per
    episode; one client for hundreds of agents is slow too (the HTTP pool scans its
    connections on every request). So agents of the same endpoint share clients, at most
    ``per_client`` agents each; a client whose agents are all gone is kept for the next
    ones, and :meth:`close_idle` closes them.
    """

    def __init__(self, per_client: int = 4) -> None:
        self.per_client = per_client
        self._clients: dict[tuple, list[list[Any]]] = {}  # key -> [[client, users], ...]

    def acquire(self, key: tuple, build: Callable[[], Any]) -> Any:
        """A client for ``key`` with room for one more agent (built when none has)."""
        entries = self._clients.setdefault(key, [])
        for entry in entries:
            if entry[1] < self.per_client:
                entry[1] += 1
                return entry[0]
        entries.append([build(), 1])
        return entries[-1][0]

    def release(self, client: Any) -> None:
        """One agent of ``client`` is done."""
        for entries in self._clients.values():
            for entry in entries:
                if entry[0] is client:
                    entry[1] -= 1
                    return

    async def close_idle(self) -> None:
        """Close the clients no agent uses."""
        for key, entries in list(self._clients.items()):
            for entry in [e for e in entries if e[1] <= 0]:
                entries.remove(entry)
                await entry[0].close()
            if not entries:
                del self._clients[key]


_POOLS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, ClientPool] = weakref.WeakKeyDictionary()


def client_pool() -> ClientPool:
    """The :class:`ClientPool` of the running event loop."""
    loop = asyncio.get_running_loop()
    if loop not in _POOLS:
        _POOLS[loop] = ClientPool()
    return _POOLS[loop]


class AsyncOpenAIChatAgent(OpenAIChatAgent):
    """:class:`~vibelife_env.agents.openai_agent.OpenAIChatAgent` on ``openai.AsyncOpenAI``.

    Same arguments, history, windowing, budgets and retries; ``await agent.act_async(obs,
    info)`` instead of ``agent.act``. Without ``client=``, the agent borrows a client of its
    endpoint from the event loop's :class:`ClientPool` at its first request and gives it back
    in :meth:`aclose` (the runners call it after the episode).

    Requests go through the client's plain ``post`` (the JSON body as built, no per-request
    re-validation of the tool schemas by the SDK, which costs milliseconds per request at
    dozens of tools), the response read back as bytes (``cast_to=bytes``, which every
    ``openai`` release since 1.0 supports whatever HTTP library it is built on). The body
    goes as bytes to a ``post`` that takes raw ``content=`` (openai 2.15 and later), as a
    dict to the earlier ones. A client without ``post`` is called as
    ``chat.completions.create``.
    """

    name = "openai-async"

    def __init__(self, *args: Any, async_sleep: Callable[[float], Any] = asyncio.sleep, **kwargs: Any) -> None:
        self._endpoint: tuple | None = None
        self._tools_json: tuple[Any, str] | None = None
        super().__init__(*args, **kwargs)
        self._async_sleep = async_sleep

    def _make_client(self, base_url: str | None, api_key: str | None, client_max_retries: int) -> Any:
        import os

        base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        api_key = api_key or os.environ.get("OPENAI_API_KEY") or None
        if api_key is None:
            if base_url is None:
                raise ValueError("no API key: pass api_key=... or set OPENAI_API_KEY (or give a base_url)")
            api_key = "EMPTY"
        self._endpoint = (base_url, api_key, self.timeout, client_max_retries)
        return None  # borrowed from the loop's pool at the first request

    def _borrow(self) -> Any:
        import openai

        assert self._endpoint is not None
        base_url, api_key, timeout, retries = self._endpoint
        self.client = client_pool().acquire(
            self._endpoint,
            lambda: openai.AsyncOpenAI(
                base_url=base_url,
                api_key=api_key,
                timeout=timeout,
                max_retries=retries,
                http_client=openai.DefaultAsyncHttpxClient(verify=_tls_context()),
            ),
        )
        return self.client

    async def aclose(self) -> None:
        """Give a borrowed client back to the pool (a client passed in is left alone)."""
        if self._endpoint is not None and self.client is not None:
            client_pool().release(self.client)
            self.client = None

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """Not available: this agent is asynchronous.

        Raises:
            TypeError: always; use ``await act_async(...)``.
        """
        raise TypeError("AsyncOpenAIChatAgent is asynchronous: use `await agent.act_async(obs, info)`")

    async def act_async(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        """Add the observation to the history, ask the model, return its assistant message."""
        self._observe(observation, info)
        remaining = max(self._budget_turn - self._calls_in_turn, 0)
        message = await self._complete_async(force_reply=remaining == 0)
        calls = (message.get("tool_calls") or [])[:remaining]
        action: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
        if calls:
            action["tool_calls"] = calls
        else:
            action["content"] = action["content"] or ""
        self._calls_in_turn += len(calls)
        self.history.append(dict(action))
        return action

    async def _complete_async(self, force_reply: bool) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": self.model, "messages": self.request_messages()}
        if self.tools:
            kwargs["tools"] = self.tools
            kwargs["tool_choice"] = "none" if force_reply else "auto"
        kwargs.update({k: v for k, v in self.sampling.items() if v is not None})
        if self.extra_body:
            kwargs["extra_body"] = self.extra_body
        attempt = 0
        while True:
            self.usage["requests"] += 1
            try:
                response = await self._post(kwargs)
                break
            except Exception as exc:
                if attempt >= self.max_retries or not _transient(exc):
                    raise
                self.usage["retries"] += 1
                await self._async_sleep(min(self.retry_backoff * 2**attempt, 30.0))
                attempt += 1
        usage = response.get("usage") or {}
        self.usage["prompt_tokens"] += int(usage.get("prompt_tokens") or 0)
        self.usage["completion_tokens"] += int(usage.get("completion_tokens") or 0)
        choices = response.get("choices") or []
        if not choices:
            raise RuntimeError(f"the model endpoint returned no choices for model {self.model!r}")
        return self._message(_namespace(choices[0].get("message") or {}))

    async def _post(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """One chat completion as a plain JSON dict."""
        client = self.client if self.client is not None else self._borrow()
        post = getattr(client, "post", None)
        if post is None:
            response = await client.chat.completions.create(**kwargs)
            return response.model_dump() if hasattr(response, "model_dump") else response
        payload = {k: v for k, v in kwargs.items() if k not in ("extra_body", "tools")}
        payload.update(kwargs.get("extra_body") or {})
        if not _takes_content(post):  # openai releases before `content=` encode the body themselves
            if "tools" in kwargs:
                payload["tools"] = kwargs["tools"]
            return _json_body(await post("/chat/completions", body=payload, cast_to=bytes))
        text = json.dumps(payload, ensure_ascii=False)
        if "tools" in kwargs:  # the same list every request: encoded once per episode
            if self._tools_json is None or self._tools_json[0] is not kwargs["tools"]:
                self._tools_json = (kwargs["tools"], json.dumps(kwargs["tools"], ensure_ascii=False))
            text = f'{text[:-1]}, "tools": {self._tools_json[1]}}}'
        return _json_body(await post("/chat/completions", content=text.encode("utf-8"), cast_to=bytes))


def _json_body(raw: Any) -> dict[str, Any]:
    """A completion response body (bytes, or an object with ``.content``) as a dict.

    Raises:
        RuntimeError: the body is not a JSON object.
    """
    data = getattr(raw, "content", raw)
    try:
        body = json.loads(data)
    except (TypeError, ValueError) as exc:
        raise RuntimeError(f"the model endpoint answered with no JSON completion: {str(data)[:200]!r}") from exc
    if not isinstance(body, dict):
        raise RuntimeError(f"the model endpoint answered with no JSON completion: {str(data)[:200]!r}")
    return body


def _takes_content(post: Any) -> bool:
    """Whether a client's ``post`` takes raw bytes as ``content=`` (openai 2.15 and later)."""
    func = getattr(post, "__func__", post)
    try:
        return _accepts_content(func)
    except TypeError:  # unhashable callables
        return _accepts_content.__wrapped__(func)


@functools.lru_cache(maxsize=64)
def _accepts_content(func: Any) -> bool:
    try:
        return "content" in inspect.signature(func).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return False


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """One TLS context for every pooled client (building one costs ~30 ms)."""
    try:
        import certifi

        return ssl.create_default_context(cafile=certifi.where())
    except ImportError:  # pragma: no cover - certifi comes with httpx
        return ssl.create_default_context()


def _namespace(value: Any) -> Any:
    """JSON dicts as attribute objects (the shape ``OpenAIChatAgent._message`` reads)."""
    if isinstance(value, dict):
        return types.SimpleNamespace(**{k: _namespace(v) for k, v in value.items() if k.isidentifier()})
    if isinstance(value, list):
        return [_namespace(v) for v in value]
    return value


async def _act(agent: Any, observation: dict[str, Any], info: dict[str, Any]) -> Any:
    act = getattr(agent, "act_async", None)
    if act is None:
        act = agent.act
    out = act(observation, info)
    return await out if inspect.isawaitable(out) else out


async def run_episode_async(env: Any, agent: Any, seed: int | None = None, max_steps: int = 10_000) -> EpisodeResult:
    """:func:`vibelife_env.rollout.run_episode` for agents that may be asynchronous.

    Same result (transcript, rewards, checks) as the synchronous runner for the same
    actions; the agent sees :func:`~vibelife_env.episode.agent_view` data only.
    """
    base: VibeLifeEnv = env.unwrapped
    obs, info = env.reset(seed=seed)
    reset = agent.reset(agent_view(info))
    if inspect.isawaitable(reset):
        await reset
    result = EpisodeResult(base.task.id, getattr(agent, "name", type(agent).__name__), seed, 0.0)
    result.messages.extend(chat_messages(obs))
    terminated = truncated = False
    while not (terminated or truncated) and result.steps < max_steps:
        action = await _act(agent, obs, agent_view(info))
        result.messages.append(assistant_message(action, base.next_call_prefix()))
        obs, reward, terminated, truncated, info = env.step(action)
        result.rewards.append(float(reward))
        result.steps += 1
        result.mutation_errors += info.get("mutation_errors", [])
        result.check_errors += info.get("check_errors", [])
        result.messages.extend(chat_messages(obs))
    result.terminated, result.truncated = terminated, truncated
    result.score = float(info["score"])
    result.tool_calls = int(info["tool_calls"])
    result.checks = [r.to_dict() for r in base.scorer.results.values()]
    known = {c["id"] for c in result.checks}
    result.checks += [
        {"id": c.id, "tier": c.tier, "stage": c.stage, "weight": c.weight, "passed": False, "error": "not evaluated"}
        for c in base.task.checks
        if c.id not in known
    ]
    return result


def _build_env(kwargs: dict[str, Any]) -> VibeLifeEnv:
    try:
        from vibelife_env.vector import make_env
    except ImportError:  # pragma: no cover - older trees
        return VibeLifeEnv(**kwargs)
    return make_env(**kwargs)


class _EnvPool:
    """Idle envs per constructor kwargs: an env serves one episode at a time, then is reused."""

    def __init__(self) -> None:
        self._idle: dict[tuple, list[VibeLifeEnv]] = {}

    def take(self, kwargs: dict[str, Any]) -> tuple[tuple, VibeLifeEnv]:
        key = tuple(sorted((k, repr(v)) for k, v in kwargs.items()))
        idle = self._idle.setdefault(key, [])
        return key, (idle.pop() if idle else _build_env(kwargs))

    def give(self, key: tuple, env: VibeLifeEnv) -> None:
        self._idle[key].append(env)


def _agent_of(obj: Any) -> Any:
    """An agent with ``reset`` and ``act_async`` (or ``act``), or a plain callable adapted."""
    if hasattr(obj, "reset") and (hasattr(obj, "act_async") or hasattr(obj, "act")):
        return obj
    return _as_agent(obj)


def _check_factory(policy: Any) -> None:
    """Reject a policy that cannot build a fresh agent per episode.

    Raises:
        TypeError / ValueError: see :func:`vibelife_env.runner.check_policy`.
    """
    if isinstance(policy, str | AgentFactory):
        check_policy(policy)
        return
    if not callable(policy) or hasattr(policy, "act") or hasattr(policy, "act_async"):
        raise TypeError(
            "run_jobs needs a policy that builds a fresh agent per episode: an agent name, "
            f"an AgentFactory or a zero-argument callable, got {type(policy).__name__}"
        )


def _make_agent(policy: Any, env: VibeLifeEnv) -> Any:
    """A fresh agent per episode: a built-in name, a factory, or (not shared) a class."""
    if isinstance(policy, str):
        from vibelife_env.agents import make_agent

        return make_agent(policy, env.task)
    if isinstance(policy, AgentFactory):
        return _agent_of(policy.build())
    if callable(policy) and not hasattr(policy, "act") and not hasattr(policy, "act_async"):
        return _agent_of(policy())
    raise TypeError(
        "run_jobs needs a policy that builds a fresh agent per episode: an agent name, "
        f"an AgentFactory or a zero-argument callable, got {type(policy).__name__}"
    )


async def _close(agent: Any) -> None:
    close = getattr(agent, "aclose", None)
    if close is not None:
        await close()


class EpisodesFailed(RuntimeError):
    """Some episodes of a run failed (raised once every job has run; see :func:`run_jobs`).

    Attributes:
        results: Every result of the run, failed or not (job order from
            :func:`run_jobs_sync`, completion order from :func:`run_jobs`).
        failures: The failed ones (``ok`` false, ``error`` says why).
    """

    def __init__(self, results: list[RolloutResult]) -> None:
        self.results = results
        self.failures = [r for r in results if not r.ok]
        super().__init__(failure_summary(results))


def _describe(job: EpisodeJob) -> str:
    return f"{job.env_id or job.env_kwargs.get('task_dir') or job.env_kwargs.get('family_dir')} seed {job.seed}"


def failure_summary(results: Iterable[RolloutResult], most: int = 3) -> str:
    """One line on the failed results: how many of all, and the commonest errors with the
    episodes they hit (``""`` when none failed).

    >>> failure_summary([])
    ''
    """
    results = list(results)
    failed = [r for r in results if not r.ok]
    if not failed:
        return ""
    by_error = Counter(r.error or "no result" for r in failed)
    parts = []
    for error, count in by_error.most_common(most):
        hit = [r for r in failed if (r.error or "no result") == error]
        where = ", ".join(_describe(r.job) for r in hit[:3]) + (", ..." if len(hit) > 3 else "")
        parts.append(f"{error} ({count}: {where})")
    more = len(by_error) - most
    tail = f"; and {more} other error{'s' * (more > 1)}" if more > 0 else ""
    return f"{len(failed)} of {len(results)} episodes failed: " + "; ".join(parts) + tail


async def _run_job(job: EpisodeJob, index: int, policy: Any, pool: _EnvPool) -> RolloutResult:
    kwargs = resolve_env_kwargs(job.env_id, job.env_kwargs)
    key, env = pool.take(kwargs)
    try:
        agent = _make_agent(policy, env)
        try:
            result = await run_episode_async(_JobEnv(env, job), agent, seed=job.seed)
        finally:
            await _close(agent)
        if job.history:
            result.messages = [*job.history, *result.messages[1:]]
        return RolloutResult(job, index, result, worker=0)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        logger.warning("episode %d (%s) failed: %s", index, _describe(job), error)
        return RolloutResult(job, index, None, error=error, worker=0)
    finally:
        pool.give(key, env)


def _check_on_error(on_error: str) -> None:
    if on_error not in ("raise", "report"):
        raise ValueError(f'on_error must be "raise" or "report", got {on_error!r}')


async def run_jobs(
    jobs: Iterable[EpisodeJob], policy: Any, max_in_flight: int = 256, on_error: OnError = "raise"
) -> AsyncIterator[RolloutResult]:
    """Run ``jobs`` concurrently on this event loop; yield results in completion order.

    Args:
        jobs: The episodes (``RolloutResult.index`` is a job's position here).
        policy: A built-in agent name, an :class:`~vibelife_env.runner.AgentFactory` or a
            zero-argument callable returning a fresh agent (sync or async) per episode.
        max_in_flight: Episodes running at once.
        on_error: What failed episodes do once every job has run: ``"raise"`` (default)
            raises :class:`EpisodesFailed`; ``"report"`` logs its summary as a warning.

    An exception in an episode fails that episode only: it is logged at once (a warning),
    its result is yielded with ``ok`` false and ``error`` set, and the others go on.

    Raises:
        ValueError: ``max_in_flight < 1`` or an unknown ``on_error``.
        EpisodesFailed: with ``on_error="raise"``, after the last result, when any failed.
    """
    _check_on_error(on_error)
    seen: list[RolloutResult] = []
    async with contextlib.aclosing(_run_all(jobs, policy, max_in_flight)) as results:  # a break stops them all
        async for result in results:
            seen.append(result)
            yield result
    _end_of_run(seen, on_error)


def run_jobs_sync(
    jobs: Iterable[EpisodeJob], policy: Any, max_in_flight: int = 256, on_error: OnError = "raise"
) -> list[RolloutResult]:
    """:func:`run_jobs` from synchronous code (its own event loop); results in job order.

    Raises:
        EpisodesFailed: with ``on_error="raise"`` (default), when any episode failed; its
            ``results`` are every result, in job order.
        ValueError: see :func:`run_jobs`.
    """
    _check_on_error(on_error)

    async def collect() -> list[RolloutResult]:
        return [r async for r in _run_all(jobs, policy, max_in_flight)]

    results = sorted(asyncio.run(collect()), key=lambda r: r.index)
    _end_of_run(results, on_error)
    return results


def _end_of_run(results: list[RolloutResult], on_error: str) -> None:
    """Raise :class:`EpisodesFailed`, or log its summary, when any episode failed."""
    if all(r.ok for r in results):
        return
    if on_error == "raise":
        raise EpisodesFailed(results)
    logger.warning(failure_summary(results))


async def _run_all(jobs: Iterable[EpisodeJob], policy: Any, max_in_flight: int) -> AsyncGenerator[RolloutResult, None]:
    """The episodes of ``jobs``, ``max_in_flight`` at a time, in completion order."""
    if not isinstance(max_in_flight, int) or max_in_flight < 1:
        raise ValueError(f"max_in_flight must be an int >= 1, got {max_in_flight!r}")
    _check_factory(policy)
    pending = iter(enumerate(jobs))
    pool = _EnvPool()
    running: set[asyncio.Task[RolloutResult]] = set()

    def fill() -> None:
        while len(running) < max_in_flight:
            nxt = next(pending, None)
            if nxt is None:
                return
            running.add(asyncio.ensure_future(_run_job(nxt[1], nxt[0], policy, pool)))

    fill()
    try:
        while running:
            done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for task in sorted(done, key=lambda t: t.result().index):
                running.discard(task)
                yield task.result()
            fill()
    finally:
        for task in running:
            task.cancel()
        await client_pool().close_idle()


class AsyncEpisodeWorker:
    """An async Ray actor body: many episodes at once on the actor's event loop.

    ``EpisodeRunner(policy, num_workers=M, max_in_flight=K, worker_cls=AsyncEpisodeWorker)``
    keeps ``M * K`` episodes in flight; Ray runs up to ``max_concurrency`` (default 1000)
    calls of an async actor at once. Usable in-process too (``await worker.run(job)``).
    ``policy`` must build a fresh agent per episode (see :func:`run_jobs`).
    """

    def __init__(self, policy: Any) -> None:
        _check_factory(policy)
        self.policy = policy
        self._pool = _EnvPool()

    async def run(self, job: EpisodeJob) -> EpisodeResult:
        """One episode of ``job`` (exceptions propagate, as with ``EpisodeWorker.run``)."""
        kwargs = resolve_env_kwargs(job.env_id, job.env_kwargs)
        key, env = self._pool.take(kwargs)
        try:
            agent = _make_agent(self.policy, env)
            try:
                result = await run_episode_async(_JobEnv(env, job), agent, seed=job.seed)
            finally:
                await _close(agent)
        finally:
            self._pool.give(key, env)
        if job.history:
            result.messages = [*job.history, *result.messages[1:]]
        return result

    async def ping(self) -> bool:
        """Liveness probe (also forces the actor to start)."""
        return True
