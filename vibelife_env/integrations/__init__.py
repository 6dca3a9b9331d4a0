"""Ecosystem adapters: trainers, agent harnesses and serving, each behind an optional extra.

========================================  ==========================================  =================
module                                    what it gives                               extra
========================================  ==========================================  =================
:mod:`~vibelife_env.integrations.session` one live episode driven call by call          (core)
:mod:`~vibelife_env.integrations.turns`   turn-indexed start states (prefix policy or   (core)
                                          recorded rollout), cached snapshots
:mod:`~vibelife_env.integrations.toolfns` task tools as Python functions with real       (core)
                                          signatures and Google docstrings
:mod:`~vibelife_env.integrations.trl`     ``GRPOTrainer(environment_factory=...)``       ``trl``
                                          classes and the turn-indexed dataset builder
:mod:`~vibelife_env.integrations.verifiers`  a ``verifiers.v1`` taskset, env and harness  ``verifiers``
:mod:`~vibelife_env.integrations.openenv` an OpenEnv server (HTTP/WebSocket) and client  ``openenv``
:mod:`~vibelife_env.integrations.mcp_server`  one live episode over MCP (``vibelife      ``mcp``
                                          serve``)
========================================  ==========================================  =================

The adapters hold no copy of the engine: every one of them drives a
:class:`~vibelife_env.env.VibeLifeEnv` through its public API (``reset``, ``step``,
``snapshot``) and hands a policy only :func:`~vibelife_env.episode.agent_view` data.
Importing this package imports none of the optional libraries.
"""
