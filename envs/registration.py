"""Registers each domain as a gymnasium environment id, once."""

from __future__ import annotations

import gymnasium

from envs.domain import _REGISTRY, discover, get_domain


def register_envs() -> list[str]:
    discover()
    ids = []
    seen = set()
    for name, factory in list(_REGISTRY.items()):
        if factory in seen:
            continue
        seen.add(factory)
        gym_id = getattr(factory, "gym_id", None) or f"{name.replace('-', '_').title().replace('_', '')}-v0"
        env_id = f"sitgym/{gym_id}"
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point="envs.gym_env:SitgymEnv", kwargs={"domain": name})
        ids.append(env_id)
    return ids


__all__ = ["register_envs", "get_domain"]
