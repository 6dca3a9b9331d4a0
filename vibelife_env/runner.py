"""Episode-level rollouts on Ray actors, for data generation with slow policies.

Whole episodes run inside actors (:func:`vibelife_env.rollout.run_episode`) and results
come back **in completion order**, so one slow LLM episode never holds up the others::

    runner = EpisodeRunner(policy="oracle", num_workers=2)
    jobs = [EpisodeJob("VibeLife-demo-errands-v0", seed=s) for s in range(8)]
    for r in runner.run(jobs):
        print(r.job.seed, r.result.score, r.attempts)
    runner.close()

A policy is one of:

- an agent name as :func:`vibelife_env.agents.make_agent` takes it (``"oracle"``, ``"null"``,
  ``"openai"``, ``"module:factory"``...) or an :class:`~vibelife_env.agents.AgentSpec`: built
  inside each actor for the task of each episode (a scenario family changes task with the seed);
- an agent object (``reset(info)`` / ``act(obs, info)``), pickled to the actors;
- any picklable callable ``obs -> action``;
- a factory: a zero-argument callable (or :class:`AgentFactory`) called once inside each
  actor to build the agent there (e.g. an HTTP client of an LLM server).

A worker that dies (segfault, ``os._exit``, OOM kill, lost node) is replaced by a new
actor and each episode that was queued on it is retried once; ``RolloutResult.attempts`` is then 2. An ordinary
exception in the policy or env is not retried: it is reported in ``RolloutResult.error``.

Group rollouts (GRPO-style): :meth:`EpisodeRunner.fork_group` starts G episodes from one
``env.snapshot()`` across actors, without re-seeding; all G share the world, clock and
timeline position of the snapshot, and differ only by what the policy does.

Agents receive ``info["job"] = {"seed", "tag", "forked"}`` at reset, and, for a forked
episode, ``info["history"]`` (the messages that led to the snapshot, when given).
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from vibelife_env.env import EnvSnapshot, VibeLifeEnv, base_env
from vibelife_env.rollout import EpisodeResult, run_episode
from vibelife_env.vector import ensure_ray, make_env, resolve_env_kwargs


@dataclass(frozen=True)
class AgentFactory:
    """Marks ``build`` as a zero-argument factory called inside each actor."""

    build: Callable[[], Any]


@dataclass
class EpisodeJob:
    """One episode to run: an env (id or ``task_dir`` kwargs), a seed, optionally a snapshot.

    Attributes:
        env_id: Registered VibeLife id (or ``None`` with ``env_kwargs["task_dir"]``).
        seed: Reset seed (ignored when ``snapshot`` is given).
        snapshot: Start from this ``EnvSnapshot`` instead of a fresh reset.
        history: OpenAI messages that led to the snapshot (prefix of the transcript and
            ``info["history"]`` for the agent).
        env_kwargs: Extra :class:`VibeLifeEnv` arguments.
        tag: Free label carried to the result (e.g. the group index).
    """

    env_id: str | None
    seed: int | None = None
    snapshot: EnvSnapshot | None = None
    history: list[dict[str, Any]] = field(default_factory=list)
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    tag: Any = None


@dataclass
class RolloutResult:
    """What came back for one job: the episode, or the error that prevented it."""

    job: EpisodeJob
    index: int
    result: EpisodeResult | None
    attempts: int = 1
    error: str = ""
    worker: int = -1

    @property
    def ok(self) -> bool:
        """True when the episode ran to its end."""
        return self.result is not None and not self.error


class _CallablePolicy:
    """Adapts ``fn(obs) -> action`` to the agent protocol."""

    def __init__(self, fn: Callable[[Any], Any], name: str) -> None:
        self.fn, self.name = fn, name

    def reset(self, info: dict[str, Any]) -> None:
        reset = getattr(self.fn, "reset", None)
        if callable(reset):
            reset(info)

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        return self.fn(observation)


def _is_factory(policy: Any) -> bool:
    """A class, an :class:`AgentFactory`, or a callable with no required positional argument."""
    if isinstance(policy, (AgentFactory, type)):
        return True
    if hasattr(policy, "act") or not callable(policy):
        return False
    try:
        params = inspect.signature(policy).parameters.values()
    except (TypeError, ValueError):
        return False
    return not any(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


def _as_agent(obj: Any) -> Any:
    if hasattr(obj, "act") and hasattr(obj, "reset"):
        return obj
    if callable(obj):
        return _CallablePolicy(obj, getattr(obj, "__name__", type(obj).__name__))
    raise TypeError(
        f"policy must be an agent (reset/act), a callable obs->action or a factory, got {type(obj).__name__}"
    )


def check_policy(policy: Any) -> None:
    """Reject what can never be a policy, before any actor starts.

    Raises:
        TypeError: not a name, agent, callable or factory.
        ValueError: an unknown built-in agent name.
    """
    from vibelife_env.agents import AgentSpec, builtin_names, load_factory

    if isinstance(policy, AgentFactory):
        if not callable(policy.build):
            raise TypeError(f"AgentFactory.build must be callable, got {type(policy.build).__name__}")
        return
    if isinstance(policy, AgentSpec):
        return
    if isinstance(policy, str):
        if ":" in policy:
            load_factory(policy)  # raises ValueError naming what is wrong
            return
        if policy not in builtin_names():
            raise ValueError(
                f"unknown agent {policy!r}; built-in: {', '.join(builtin_names())}, or module:factory for "
                "your own (a bundle's own variants: pass AgentSpec(name))"
            )
        return
    if not (callable(policy) or hasattr(policy, "act")):
        raise TypeError(f"policy must be an agent name, agent, callable or factory, got {type(policy).__name__}")


class _JobEnv(gym.Wrapper):
    """Adds ``info["job"]`` (seed, tag) at reset; with a snapshot, resumes it instead.

    Resuming shows the open turn's event (after the system prompt) as the observation.
    """

    def __init__(self, env: VibeLifeEnv, job: EpisodeJob) -> None:
        super().__init__(env)
        self.job = job

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        base = base_env(self.env)
        job_info = {"seed": self.job.seed, "tag": self.job.tag, "forked": self.job.snapshot is not None}
        if self.job.snapshot is None:
            obs, info = base.reset(seed=seed, options=options)
            info["job"] = job_info
            return obs, info
        obs, info = base.reset(options={"snapshot": self.job.snapshot})
        info.update(history=list(self.job.history), job=job_info)
        return obs, info


class EpisodeWorker:
    """Runs whole episodes in one process (the body of each Ray actor; usable in-process)."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self._envs: dict[tuple, VibeLifeEnv] = {}
        self._agents: dict[int, Any] = {}
        self._built: Any = None

    def _agent(self, env: VibeLifeEnv) -> Any:
        policy = self.policy
        from vibelife_env.agents import AgentForTask, AgentSpec

        if isinstance(policy, (str, AgentSpec)):
            # built for the task the env holds at each reset: a scenario family changes task with the seed
            if id(env) not in self._agents:
                self._agents[id(env)] = AgentForTask(policy, env)
            return self._agents[id(env)]
        if _is_factory(policy):
            if self._built is None:
                build = policy.build if isinstance(policy, AgentFactory) else policy
                self._built = _as_agent(build())
            return self._built
        if self._built is None:
            self._built = _as_agent(policy)
        return self._built

    def run(self, job: EpisodeJob) -> EpisodeResult:
        """One episode of ``job``."""
        kwargs = resolve_env_kwargs(job.env_id, job.env_kwargs)
        key = tuple(sorted((k, repr(v)) for k, v in kwargs.items()))
        if key not in self._envs:
            self._envs[key] = make_env(**kwargs)
        agent = self._agent(self._envs[key])
        result = run_episode(_JobEnv(self._envs[key], job), agent, seed=job.seed)
        if job.history:
            result.messages = [*job.history, *result.messages[1:]]
        return result

    def ping(self) -> bool:
        """Liveness probe (also forces the actor to start)."""
        return True


class EpisodeRunner:
    """Runs :class:`EpisodeJob` s on ``num_workers`` Ray actors (``0``: in this process).

    Args:
        policy: See the module docstring.
        num_workers: Actors; ``0`` runs episodes in-process without Ray.
        ray_address: ``None`` for a local Ray, or a cluster address (ignored when Ray is
            already initialised).
        num_cpus_per_worker: CPUs each actor reserves (less when ``num_workers`` of them would
            not fit in the CPUs Ray has: see :func:`fit_cpus`).
        max_in_flight: Episodes queued on each actor at once (2 hides the round trip between
            episodes; when an actor dies, every episode queued on it is retried once).
        worker_cls: The actor body (Ray only): :class:`EpisodeWorker`, or
            :class:`vibelife_env.async_rollout.AsyncEpisodeWorker` to run ``max_in_flight``
            LLM-bound episodes at once per actor (e.g. 256).

    Raises:
        ValueError / TypeError: see :func:`check_policy`; negative ``num_workers``.
    """

    def __init__(
        self,
        policy: Any,
        num_workers: int = 1,
        ray_address: str | None = None,
        num_cpus_per_worker: float = 1.0,
        max_in_flight: int = 2,
        worker_cls: type = EpisodeWorker,
    ) -> None:
        check_policy(policy)
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError(f"num_workers must be an int >= 0, got {num_workers!r}")
        if not isinstance(max_in_flight, int) or max_in_flight < 1:
            raise ValueError(f"max_in_flight must be an int >= 1, got {max_in_flight!r}")
        self.policy = policy
        self.num_workers = num_workers
        self.max_in_flight = max_in_flight
        self._local = EpisodeWorker(policy) if num_workers == 0 else None
        self._ray = ensure_ray(ray_address) if num_workers else None
        self.num_cpus_per_worker = num_cpus_per_worker
        if self._ray is not None:
            self.num_cpus_per_worker = fit_cpus(num_workers, num_cpus_per_worker, self._ray.cluster_resources())
        self._cls = (
            self._ray.remote(num_cpus=self.num_cpus_per_worker, max_restarts=0)(worker_cls) if self._ray else None
        )
        self._actors: list[Any] = [self._new_actor() for _ in range(num_workers)]

    def _new_actor(self) -> Any:
        assert self._cls is not None
        return self._cls.remote(self.policy)

    def warm_up(self) -> None:
        """Block until every actor is up (to keep start-up out of throughput figures)."""
        if self._ray is not None:
            self._ray.get([a.ping.remote() for a in self._actors])

    def run(self, jobs: Iterable[EpisodeJob]) -> Iterator[RolloutResult]:
        """Run ``jobs``; yield a :class:`RolloutResult` per job as each completes.

        ``RolloutResult.index`` is the job's position in ``jobs``.
        """
        queue = list(enumerate(jobs))
        if self._local is not None:
            for index, job in queue:
                yield self._run_local(index, job)
            return
        assert self._ray is not None
        from ray.exceptions import RayActorError, RayTaskError

        pending = iter(queue)
        in_flight: dict[Any, tuple[int, Any, int, EpisodeJob, int]] = {}  # ref -> (worker, actor, index, job, attempt)

        def submit(worker: int, index: int, job: EpisodeJob, attempt: int) -> None:
            actor = self._actors[worker]
            in_flight[actor.run.remote(job)] = (worker, actor, index, job, attempt)

        for _ in range(self.max_in_flight):  # round-robin, so every worker starts at once
            for worker in range(self.num_workers):
                nxt = next(pending, None)
                if nxt is not None:
                    submit(worker, nxt[0], nxt[1], 1)
        while in_flight:
            [ref], _ = self._ray.wait(list(in_flight), num_returns=1)
            worker, actor, index, job, attempt = in_flight.pop(ref)
            try:
                out = RolloutResult(job, index, self._ray.get(ref), attempt, worker=worker)
            except RayActorError as exc:
                if self._actors[worker] is actor:  # first of its jobs to report the death
                    self._ray.kill(actor)
                    self._actors[worker] = self._new_actor()
                if attempt == 1:
                    submit(worker, index, job, 2)
                    continue
                out = RolloutResult(job, index, None, attempt, f"worker died twice: {_short(exc)}", worker)
            except RayTaskError as exc:
                out = RolloutResult(job, index, None, attempt, _short(exc), worker)
            yield out
            nxt = next(pending, None)
            if nxt is not None:
                submit(worker, nxt[0], nxt[1], 1)

    def _run_local(self, index: int, job: EpisodeJob) -> RolloutResult:
        assert self._local is not None
        try:
            return RolloutResult(job, index, self._local.run(job), worker=0)
        except Exception as exc:
            return RolloutResult(job, index, None, error=f"{type(exc).__name__}: {exc}", worker=0)

    def fork_group(
        self,
        snapshot: EnvSnapshot,
        group_size: int,
        env_id: str | None = None,
        history: list[dict[str, Any]] | None = None,
        **env_kwargs: Any,
    ) -> Iterator[RolloutResult]:
        """G episodes from one snapshot across the actors (no re-seeding); completion order.

        ``RolloutResult.job.tag`` is the member's index in the group.

        Raises:
            ValueError: ``group_size < 1``.
        """
        if group_size < 1:
            raise ValueError(f"group_size must be >= 1, got {group_size}")
        jobs = [
            EpisodeJob(env_id, None, snapshot, list(history or []), dict(env_kwargs), tag=g) for g in range(group_size)
        ]
        return self.run(jobs)

    def close(self) -> None:
        """End the actors (Ray itself keeps running). Idempotent."""
        actors, self._actors = self._actors, []
        if self._ray is None:  # no actors without Ray
            return
        for a in actors:
            self._ray.kill(a)

    def __enter__(self) -> EpisodeRunner:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def fit_cpus(workers: int, per_worker: float, resources: dict[str, float]) -> float:
    """The CPUs each of ``workers`` actors can reserve so that all of them get scheduled.

    Actors that ask for more CPUs than the cluster has would wait forever with the jobs dealt
    to them; above the CPU count each gets a share (``--workers 3`` on 2 CPUs: 0.67 each),
    and a warning says so once.

    >>> fit_cpus(2, 1.0, {"CPU": 2.0}), round(fit_cpus(3, 1.0, {"CPU": 2.0}), 3)
    (1.0, 0.667)
    """
    total = float(resources.get("CPU", 0.0))
    if total <= 0 or workers * per_worker <= total:
        return per_worker
    share = total / workers
    warnings.warn(
        f"{workers} workers x {per_worker:g} CPU > the {total:g} CPUs Ray has: each worker reserves {share:.2f} CPU",
        RuntimeWarning,
        stacklevel=3,
    )
    return share


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[-1] if text else ''}"[:500]
