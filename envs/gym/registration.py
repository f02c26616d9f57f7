"""Registers each domain as a gymnasium environment id, once."""

from __future__ import annotations

import gymnasium

from envs.domain import _GYM_IDS, discover


def register_envs() -> list[str]:
    """Register ``sitgym/<GymId>`` for every discovered domain; returns the ids."""
    discover()
    ids = []
    for name, gym_id in _GYM_IDS.items():
        env_id = f"sitgym/{gym_id}"
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point="envs.gym.env:SitgymEnv", kwargs={"domain": name})
        ids.append(env_id)
    return ids
