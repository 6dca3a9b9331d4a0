"""``RayVectorEnv``: a ``gymnasium.vector.VectorEnv`` of Ray actors, each holding several envs.

``num_envs`` sub-environments are spread over ``num_workers`` Ray actors (contiguous blocks
whose sizes differ by at most one), so a laptop and a cluster run the same code::

    import gymnasium as gym
    import vibelife_env  # noqa: F401

    envs = gym.make_vec("VibeLife-demo-errands-v0", num_envs=4)  # the registered vector entry point
    obs, infos = envs.reset(seed=0)          # sub-env i is reset with seed 0 + i
    obs, rewards, terminated, truncated, infos = envs.step(actions)
    envs.close()

``gym.make_vec`` without a ``vectorization_mode`` calls :func:`make_vector_env`: a
``RayVectorEnv`` when Ray is installed, otherwise Gymnasium's ``SyncVectorEnv`` with one
:class:`RayFallbackWarning`. ``vectorization_mode="sync"`` and ``"async"`` give Gymnasium's
own vector envs, in this process or one process per sub-env.

Batching, the same in all of them. Observations and actions are chat-shaped dicts of
text, which do not stack into arrays: a batch is a **tuple with one entry per sub-env**
(``observation_space`` and ``action_space`` are :class:`~vibelife_env.spaces.PerEnvTuple`
spaces of the single spaces; ``single_observation_space`` is the env's own). Actions may
be given as that tuple of per-env actions or as a dict of per-env tuples
(``{"tool_calls": ([], []), "reply": ("", None)}``). Rewards, terminations and
truncations are numpy arrays; infos are batched as Gymnasium does (each key an array over
sub-envs, with a boolean ``_key`` mask of the sub-envs that reported it; nested dicts
recursively). Each sub-env carries the id's ``max_episode_steps`` (a ``TimeLimit``).

Autoreset (``metadata["autoreset_mode"]``): ``NEXT_STEP`` (default; the step after a
sub-env finished resets it and ignores its action), ``SAME_STEP`` (reset at once;
``infos["final_obs"]``/``infos["final_info"]`` hold the finished episode's last step) and
``DISABLED`` (reset finished sub-envs with ``reset(options={"reset_mask": mask})``;
stepping a finished sub-env raises).

Ray: with ``ray_address=None`` a local Ray is started unless one is already initialised;
give a cluster address (``"auto"``, ``"ray://head:10001"``) to use a cluster. Ray is never
shut down by ``close()``, which only ends this env's actors. On a cluster, ``vibelife_env``
(and custom bundles, by path) must be importable on the workers. Ray's own log lines
(start-up notices and warnings) are hidden when this module starts Ray; set
``VIBELIFE_RAY_VERBOSE=1`` or pass ``logging_level`` to :func:`ensure_ray` to see them.
What the workers themselves print still reaches the driver.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Sequence
from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv, VectorEnv
from gymnasium.vector.utils import batch_space
from gymnasium.wrappers import TimeLimit

from vibelife_env.env import VibeLifeEnv
from vibelife_env.spaces import unbatch

#: Set to ``1`` to show Ray's own log lines (hidden by default when this module starts Ray).
RAY_VERBOSE_ENV = "VIBELIFE_RAY_VERBOSE"

#: :class:`RayVectorEnv` arguments that mean nothing without Ray.
RAY_ONLY_KWARGS = ("num_workers", "num_cpus_per_worker", "ray_address")


class RayFallbackWarning(UserWarning):
    """``gym.make_vec`` asked for the Ray vector env but Ray is not installed."""


def ray_init_options(address: str | None = None, verbose: bool | None = None, **init_kwargs: Any) -> dict[str, Any]:
    """The ``ray.init`` arguments :func:`ensure_ray` uses.

    Args:
        address: ``None`` for a local Ray, or a cluster address.
        verbose: Show Ray's own log lines (default: ``VIBELIFE_RAY_VERBOSE`` is set and
            not ``0``); quiet sets the driver's Ray ``logging_level`` to ``ERROR``.
        **init_kwargs: Anything else for ``ray.init``; wins over the defaults.
    """
    if verbose is None:
        verbose = os.environ.get(RAY_VERBOSE_ENV, "").strip().lower() not in ("", "0", "false", "no", "off")
    options: dict[str, Any] = {"address": address, "include_dashboard": False, "log_to_driver": True}
    if not verbose:
        options["logging_level"] = logging.ERROR
    options.update(init_kwargs)
    return options


def ensure_ray(address: str | None = None, *, verbose: bool | None = None, **init_kwargs: Any) -> Any:
    """Import Ray and initialise it once (local when ``address`` is ``None``); returns the module.

    Ray's start-up lines are hidden unless ``verbose`` (see :func:`ray_init_options`).

    Raises:
        ImportError: Ray is not installed (``pip install 'vibelife-env[ray]'``).
    """
    try:
        import ray
    except ImportError as exc:
        raise ImportError("Ray is required for this feature: pip install 'vibelife-env[ray]'") from exc
    if not ray.is_initialized():
        ray.init(**ray_init_options(address, verbose, **init_kwargs))
    return ray


def resolve_env_kwargs(env_id: str | None, env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """Constructor kwargs of :class:`VibeLifeEnv` from a registered id and/or explicit kwargs.

    Resolving in the driver means bundles registered only there (``register_bundles``) work
    inside actors too.

    Raises:
        ValueError: neither an id nor ``task_dir`` was given, or the id is not a VibeLife env.
    """
    kwargs = dict(env_kwargs)
    if env_id is not None:
        if env_id not in gym.registry:
            raise ValueError(f"unknown env id {env_id!r}; is it registered (import vibelife_env)?")
        spec = gym.registry[env_id]
        if "task_dir" not in spec.kwargs and "family_dir" not in spec.kwargs:
            raise ValueError(f"env id {env_id!r} is not a VibeLife task (no task_dir or family_dir in its spec)")
        kwargs = {**spec.kwargs, **kwargs}
    key = "family_dir" if "family_dir" in kwargs else "task_dir"
    if key not in kwargs:
        raise ValueError("give an env id, task_dir=<bundle directory> or family_dir=<family directory>")
    kwargs[key] = str(kwargs[key])
    return kwargs


def make_env(**kwargs: Any) -> VibeLifeEnv:
    """A :class:`VibeLifeEnv` (``task_dir=``) or a family's :class:`FamilyEnv` (``family_dir=``)."""
    if "family_dir" in kwargs:
        from vibelife_env.family_env import FamilyEnv

        return FamilyEnv(**kwargs)
    return VibeLifeEnv(**kwargs)


def make_limited_env(env_kwargs: dict[str, Any], max_episode_steps: int | None = None) -> gym.Env:
    """:func:`make_env`, wrapped in ``TimeLimit`` when ``max_episode_steps`` is given."""
    env = make_env(**env_kwargs)
    return TimeLimit(env, max_episode_steps) if max_episode_steps else env


def spec_max_episode_steps(env_id: str | None) -> int | None:
    """The registered ``max_episode_steps`` of ``env_id`` (``None`` without an id or a limit)."""
    if env_id is None or env_id not in gym.registry:
        return None
    return gym.registry[env_id].max_episode_steps


def make_vector_env(
    env_id: str | None = None, num_envs: int = 1, *, max_episode_steps: int | None = None, **kwargs: Any
) -> VectorEnv:
    """The registered ``vector_entry_point``: :class:`RayVectorEnv`, or ``SyncVectorEnv`` without Ray.

    Without Ray, one :class:`RayFallbackWarning` says so and the sub-envs run in this
    process; Ray-only arguments (``num_workers``, ``num_cpus_per_worker``) are ignored.

    Args:
        env_id: A registered VibeLife id (``gym.make_vec`` passes ``task_dir`` instead).
        num_envs: Number of sub-environments.
        max_episode_steps: Each sub-env's ``TimeLimit`` (default: the id's).
        **kwargs: :class:`RayVectorEnv` arguments and env options.

    Raises:
        ImportError: Ray is not installed but a cluster ``ray_address`` was given.
    """
    try:
        import ray  # noqa: F401
    except ImportError as exc:
        missing = exc
    else:
        return RayVectorEnv(env_id, num_envs, max_episode_steps=max_episode_steps, **kwargs)
    if kwargs.get("ray_address") is not None:
        raise ImportError(f"ray_address={kwargs['ray_address']!r} needs Ray: pip install 'vibelife-env[ray]'")
    if not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
    autoreset_mode = AutoresetMode(kwargs.pop("autoreset_mode", AutoresetMode.NEXT_STEP))
    for key in RAY_ONLY_KWARGS:
        kwargs.pop(key, None)
    env_kwargs = resolve_env_kwargs(env_id, kwargs)
    steps = max_episode_steps or spec_max_episode_steps(env_id)
    warnings.warn(
        f"Ray is not installed ({missing}): running the {num_envs} sub-envs in this process with gymnasium's "
        "SyncVectorEnv instead of RayVectorEnv (same batches and results, no parallelism). "
        "Install Ray with pip install 'vibelife-env[ray]', or pass vectorization_mode='sync' to choose this.",
        RayFallbackWarning,
        stacklevel=3,
    )
    return SyncVectorEnv([partial(make_limited_env, env_kwargs, steps)] * num_envs, autoreset_mode=autoreset_mode)


def split_blocks(total: int, parts: int) -> list[range]:
    """``total`` indices in ``parts`` contiguous blocks whose sizes differ by at most one."""
    base, extra = divmod(total, parts)
    out, start = [], 0
    for p in range(parts):
        size = base + (1 if p < extra else 0)
        out.append(range(start, start + size))
        start += size
    return out


class EnvGroup:
    """K envs of one task and their autoreset bookkeeping (what one actor holds).

    Usable without Ray; :class:`RayVectorEnv` runs one per actor.
    """

    def __init__(
        self, env_kwargs: dict[str, Any], count: int, autoreset_mode: str, max_episode_steps: int | None = None
    ) -> None:
        self.envs = [make_limited_env(env_kwargs, max_episode_steps) for _ in range(count)]
        self.mode = AutoresetMode(autoreset_mode)
        self.needs_reset = [False] * count

    def reset(
        self, seeds: list[int | None], options: dict[str, Any] | None, mask: list[bool]
    ) -> list[tuple[Any, dict] | None]:
        """Reset the envs selected by ``mask``; ``None`` for the others."""
        out: list[tuple[Any, dict] | None] = []
        for i, (env, seed, selected) in enumerate(zip(self.envs, seeds, mask, strict=True)):
            if not selected:
                out.append(None)
                continue
            out.append(env.reset(seed=seed, options=options))
            self.needs_reset[i] = False
        return out

    def step(self, actions: list[Any]) -> list[tuple[Any, float, bool, bool, dict]]:
        """Step every env, applying the autoreset mode."""
        out = []
        for i, (env, action) in enumerate(zip(self.envs, actions, strict=True)):
            if self.needs_reset[i]:
                if self.mode == AutoresetMode.DISABLED:
                    raise RuntimeError(
                        f"sub-env {i} of this worker finished; reset it with options={{'reset_mask': mask}}"
                    )
                obs, info = env.reset()
                self.needs_reset[i] = False
                out.append((obs, 0.0, False, False, info))
                continue
            obs, reward, terminated, truncated, info = env.step(action)
            done = bool(terminated or truncated)
            if done and self.mode == AutoresetMode.SAME_STEP:
                final = {"final_obs": obs, "final_info": info}
                obs, info = env.reset()
                info = {**info, **final}
            else:
                self.needs_reset[i] = done
            out.append((obs, float(reward), bool(terminated), bool(truncated), info))
        return out

    def call(self, name: str, args: tuple, kwargs: dict[str, Any]) -> list[Any]:
        """Call a method (or read an attribute) on every env."""
        out = []
        for env in self.envs:
            target = env.get_wrapper_attr(name)
            out.append(target(*args, **kwargs) if callable(target) else target)
        return out

    def get_attr(self, name: str) -> list[Any]:
        """An attribute of every env (through its ``TimeLimit``, if any)."""
        return [env.get_wrapper_attr(name) for env in self.envs]

    def set_attr(self, name: str, values: list[Any]) -> None:
        """Set an attribute on every env, one value each."""
        for env, value in zip(self.envs, values, strict=True):
            env.set_wrapper_attr(name, value)

    def close(self) -> None:
        """Close every env."""
        for env in self.envs:
            env.close()


class RayVectorEnv(VectorEnv):
    """VibeLife sub-environments on Ray actors; see the module docstring.

    Args:
        env_id: A registered VibeLife id (or give ``task_dir`` in ``env_kwargs``).
        num_envs: Number of sub-environments.
        num_workers: Ray actors to spread them over (default: ``min(num_envs, cluster CPUs)``).
        ray_address: ``None`` for a local Ray, or a cluster address; ignored when Ray is
            already initialised.
        autoreset_mode: An ``AutoresetMode`` (or its string value).
        num_cpus_per_worker: CPUs each actor reserves.
        max_episode_steps: Each sub-env's ``TimeLimit`` (default: the id's registered one).
        **env_kwargs: :class:`VibeLifeEnv` arguments (``task_dir``, budgets, ...).

    Raises:
        ValueError: bad ``num_envs``/``num_workers`` or an unknown env.
        ImportError: Ray is not installed.
    """

    def __init__(
        self,
        env_id: str | None = None,
        num_envs: int = 1,
        *,
        num_workers: int | None = None,
        ray_address: str | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        num_cpus_per_worker: float = 1.0,
        max_episode_steps: int | None = None,
        **env_kwargs: Any,
    ) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        self.env_kwargs = resolve_env_kwargs(env_id, env_kwargs)
        self.max_episode_steps = max_episode_steps or spec_max_episode_steps(env_id)
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.metadata = {**VibeLifeEnv.metadata, "autoreset_mode": self.autoreset_mode}
        probe = make_env(**self.env_kwargs)  # validates the task before any actor starts
        self.render_mode = probe.render_mode
        self.num_envs = num_envs
        self.single_observation_space = probe.observation_space
        self.single_action_space = probe.action_space
        self.observation_space = batch_space(probe.observation_space, num_envs)
        self.action_space = batch_space(probe.action_space, num_envs)

        ray = ensure_ray(ray_address)
        if num_workers is None:
            cpus = max(1, int(ray.cluster_resources().get("CPU", 1) // max(num_cpus_per_worker, 1e-9)))
            num_workers = min(num_envs, cpus)
        if not isinstance(num_workers, int) or not 1 <= num_workers <= num_envs:
            raise ValueError(f"num_workers must be an int in 1..num_envs ({num_envs}), got {num_workers!r}")
        self.num_workers = num_workers
        self._blocks = split_blocks(num_envs, num_workers)
        actor_cls = ray.remote(num_cpus=num_cpus_per_worker)(EnvGroup)
        self._workers = [
            actor_cls.remote(self.env_kwargs, len(b), self.autoreset_mode.value, self.max_episode_steps)
            for b in self._blocks
        ]
        self._ray = ray
        self._pending: list[Any] | None = None
        self._obs: list[Any] = [None] * num_envs
        self._done = np.zeros(num_envs, dtype=np.bool_)

    # ------------------------------------------------------------------ reset / step
    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None):
        """Reset sub-envs; ``seed`` int → sub-env i gets ``seed + i``; a list gives one each.

        ``options["reset_mask"]`` (bool array of ``num_envs``) resets only those sub-envs;
        the other entries of the returned batch are their latest observations.
        """
        if self._pending is not None:
            raise RuntimeError("a step is in progress: call step_wait() first")
        super().reset(seed=seed if isinstance(seed, int) else None)
        seeds = self._seeds(seed)
        options = dict(options or {})
        mask = self._mask(options.pop("reset_mask", None))
        refs = [
            w.reset.remote([seeds[i] for i in b], options or None, [bool(mask[i]) for i in b])
            for w, b in zip(self._workers, self._blocks, strict=True)
        ]
        infos: dict[str, Any] = {}
        for b, results in zip(self._blocks, self._ray.get(refs), strict=True):
            for i, item in zip(b, results, strict=True):
                if item is None:
                    continue
                self._obs[i], info = item
                self._done[i] = False
                infos = self._add_info(infos, info, i)
        return tuple(self._obs), infos

    def step_async(self, actions: Any) -> None:
        """Send one action per sub-env to the actors: a tuple of actions or a dict of tuples.

        Raises:
            ValueError: ``actions`` is not a batch of ``num_envs`` (see :func:`~vibelife_env.spaces.unbatch`).
        """
        if self._pending is not None:
            raise RuntimeError("step_async called twice without step_wait")
        actions = unbatch(actions, self.num_envs)
        self._pending = [
            w.step.remote([actions[i] for i in b]) for w, b in zip(self._workers, self._blocks, strict=True)
        ]

    def step_wait(self, timeout: float | None = None):
        """Collect the results of :meth:`step_async`.

        Raises:
            TimeoutError: the actors did not answer within ``timeout`` seconds.
        """
        if self._pending is None:
            raise RuntimeError("step_wait called without step_async")
        ready, _ = self._ray.wait(self._pending, num_returns=len(self._pending), timeout=timeout)
        if len(ready) != len(self._pending):
            raise TimeoutError(f"step_wait: workers did not answer within {timeout} s")
        pending, self._pending = self._pending, None
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=np.bool_)
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        infos: dict[str, Any] = {}
        for b, results in zip(self._blocks, self._ray.get(pending), strict=True):
            for i, (obs, reward, term, trunc, info) in zip(b, results, strict=True):
                self._obs[i], rewards[i], terminated[i], truncated[i] = obs, reward, term, trunc
                infos = self._add_info(infos, info, i)
        self._done = terminated | truncated
        return tuple(self._obs), rewards, terminated, truncated, infos

    def step(self, actions: Any):
        """``step_async`` then ``step_wait``."""
        self.step_async(actions)
        return self.step_wait()

    # ------------------------------------------------------------------ attributes
    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call method ``name`` on every sub-env (or read the attribute); one result each."""
        refs = [w.call.remote(name, args, kwargs) for w in self._workers]
        return tuple(x for part in self._ray.get(refs) for x in part)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Attribute ``name`` of every sub-env."""
        refs = [w.get_attr.remote(name) for w in self._workers]
        return tuple(x for part in self._ray.get(refs) for x in part)

    def set_attr(self, name: str, values: Any | Sequence[Any]) -> None:
        """Set ``name`` on every sub-env: a list/tuple gives one value each, anything else is broadcast.

        Raises:
            ValueError: a list/tuple of the wrong length.
        """
        if isinstance(values, (list, tuple)):
            if len(values) != self.num_envs:
                raise ValueError(f"set_attr: expected {self.num_envs} values, got {len(values)}")
            values = list(values)
        else:
            values = [values] * self.num_envs
        refs = [
            w.set_attr.remote(name, [values[i] for i in b]) for w, b in zip(self._workers, self._blocks, strict=True)
        ]
        self._ray.get(refs)

    def render(self) -> tuple[Any, ...] | None:
        """Each sub-env's ``render()`` (text transcripts with ``render_mode="ansi"``)."""
        return self.call("render") if self.render_mode is not None else None

    def close_extras(self, **kwargs: Any) -> None:
        """End this env's actors (idempotent through ``VectorEnv.close``)."""
        workers, self._workers = getattr(self, "_workers", []), []
        if not workers:
            return
        try:
            self._ray.get([w.close.remote() for w in workers], timeout=30)
        except Exception as exc:  # an actor that already died cannot close its envs
            gym.logger.warn(f"RayVectorEnv.close: {type(exc).__name__}: {exc}")
        for w in workers:
            self._ray.kill(w)

    # ------------------------------------------------------------------ helpers
    def _seeds(self, seed: int | Sequence[int | None] | None) -> list[int | None]:
        if seed is None:
            return [None] * self.num_envs
        if isinstance(seed, (int, np.integer)):
            return [int(seed) + i for i in range(self.num_envs)]
        seeds = list(seed)
        if len(seeds) != self.num_envs:
            raise ValueError(f"seed list must have {self.num_envs} entries, got {len(seeds)}")
        return [None if s is None else int(s) for s in seeds]

    def _mask(self, mask: Any) -> np.ndarray:
        if mask is None:
            return np.ones(self.num_envs, dtype=np.bool_)
        mask = np.asarray(mask)
        if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
            raise ValueError(f"options['reset_mask'] must be a bool array of shape ({self.num_envs},)")
        if not mask.any():
            raise ValueError("options['reset_mask'] selects no sub-env")
        return mask

    def __repr__(self) -> str:
        return f"RayVectorEnv({self.env_kwargs.get('task_dir') or self.env_kwargs.get('family_dir')!r}, num_envs={self.num_envs}, num_workers={self.num_workers})"
