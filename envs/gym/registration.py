"""Registers each domain as a gymnasium environment id, once."""

from __future__ import annotations

import gymnasium

from envs.domain import _GYM_IDS, discover


def register_envs() -> list[str]:
    """Register ``sitgym/<GymId>`` and the user side ``sitgym/<Name>User-<v>`` for every discovered domain; returns the ids."""
    discover()
    ids = []
    for name, gym_id in _GYM_IDS.items():
        env_id = f"sitgym/{gym_id}"
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point="envs.gym.env:SitgymEnv", kwargs={"domain": name})
        ids.append(env_id)
        # The user side: the policy plays the simulated user (envs.gym.user_env).
        base, _, version = gym_id.rpartition("-")
        user_id = f"sitgym/{base}User-{version}" if base else f"sitgym/{gym_id}User"
        if user_id not in gymnasium.registry:
            gymnasium.register(id=user_id, entry_point="envs.gym.user_env:SitgymUserEnv", kwargs={"domain": name})
        ids.append(user_id)
    return ids
