"""What an agent needs to reach the persona's own things is stated in the world.

A careful agent given only the workspace cannot guess an opaque id: an audit's agent tried
nine user ids and five account ids and never found the team account it was told to pay
from. So, for every family (a train instance each): each bank account the persona holds is
named in the workspace, by its id or by its owner's user id.
"""

from __future__ import annotations

import gymnasium as gym
import pytest

import vibelife_env
from vibelife_env.env import base_env

FAMILY_IDS = [i for i in vibelife_env.registered_ids() if "family_dir" in gym.registry[i].kwargs]


@pytest.mark.parametrize("env_id", FAMILY_IDS)
def test_the_personas_bank_accounts_are_findable_from_the_workspace(env_id: str) -> None:
    """Every bank account's id or owner is written where the agent reads at the start: the workspace,
    or (at the paper level, where ids live where a person learns them) a mail in the inbox at reset,
    such as the IT desk's welcome mail with the logins."""
    env = gym.make(env_id, split="train", instance=0)
    base = base_env(env)
    env.reset(seed=0)
    bank = base.world.services.get("banking")  # a family without a bank holds no account to find
    mail = base.world.services.get("email")
    inbox = [f"{r[0]}\n{r[1]}" for r in mail.conn.execute("SELECT subject, body_text FROM messages")] if mail else []
    written = "\n".join([*base.task.workspace_files.values(), *inbox])
    rows = bank.conn.execute("SELECT account_id, user_id FROM accounts") if bank is not None else []
    accounts = [tuple(r) for r in rows]
    unfindable = [(a, u) for a, u in accounts if a not in written and u not in written]
    assert not unfindable, f"{env_id}: accounts whose id and owner appear nowhere in the workspace: {unfindable}"
