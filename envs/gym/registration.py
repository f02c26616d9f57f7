"""Registers each domain as a gymnasium environment id, once: at ``import envs`` when gymnasium
is already loaded, else the moment it is (``register_when_gymnasium_loads``).

gymnasium (with numpy) was a quarter of the start-up of ``envs.check`` and of an LLM run, neither
of which uses it; its registry is only read after ``import gymnasium``, so registering right after
that import gives every gymnasium user the same ids as registering at ``import envs`` did.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys


def register_envs() -> list[str]:
    """Register ``sitgym/<GymId>`` and the user side ``sitgym/<Name>User-<v>`` for every discovered domain; returns the ids."""
    import gymnasium

    from envs.domain import _GYM_IDS, discover

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


class _RegisterAfterLoad(importlib.abc.Loader):
    """gymnasium's own loader, then ``register_envs`` once the module has run."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def create_module(self, spec):  # noqa: ANN001
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:  # noqa: ANN001
        self.loader.exec_module(module)
        register_envs()


class _GymnasiumHook(importlib.abc.MetaPathFinder):
    """Finds gymnasium through the other finders and wraps its loader; removes itself on first use."""

    def find_spec(self, name, path=None, target=None):  # noqa: ANN001
        if name != "gymnasium":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = _RegisterAfterLoad(spec.loader)
        return spec


def register_when_gymnasium_loads() -> None:
    """``register_envs`` now if gymnasium is loaded, else right after it is first imported."""
    if "gymnasium" in sys.modules:
        register_envs()
    elif not any(isinstance(f, _GymnasiumHook) for f in sys.meta_path):
        sys.meta_path.insert(0, _GymnasiumHook())
