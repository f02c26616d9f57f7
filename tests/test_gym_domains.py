"""gymnasium's own check_env on every shipped domain's environment, and a full gym episode on support."""

from __future__ import annotations

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import envs  # noqa: F401
from conftest import SHARED
from envs.gym.registration import register_envs


@pytest.mark.parametrize("env_id", ["sitgym/Support-v0", "sitgym/Tutoring-v0", "sitgym/TaubenchRetail-v0"])
def test_check_env(env_id):
    if env_id == "sitgym/TaubenchRetail-v0" and not (SHARED / "tau-bench-retail").is_dir():
        pytest.skip("tau-bench retail data not found at ../shared/data/tau-bench-retail")
    register_envs()
    env = gymnasium.make(env_id)
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_support_episode_through_gym_with_the_careful_agent():
    """The scripted careful agent, driven through the gym API, earns reward 1 on a task."""
    import asyncio

    from envs.actors.protocols import AgentView
    from envs.domain import get_domain
    from envs.records import UserEvent

    d = get_domain("support")
    env = gymnasium.make("sitgym/Support-v0", task_id="sup_cancel_before_dispatch")
    obs, info = env.reset(seed=3)
    agent = d.scripted_agents["careful"]()
    events = [UserEvent.model_validate(e).model_copy(update={"situation": None}) for e in info["events"]]
    from envs.records import AgentEvent, ToolEvent

    terminated = truncated = False
    reward = 0.0
    while not (terminated or truncated):
        view = AgentView(policy=info.get("policy", ""), tools=[], events=events, task_id="?", seed=3)
        action = asyncio.run(agent.act(view))
        obs, reward, terminated, truncated, info = env.step(action)
        for e in info["events"]:
            kind = e["kind"]
            if kind == "user":
                events.append(UserEvent.model_validate(e).model_copy(update={"situation": None}))
            elif kind == "agent":
                events.append(AgentEvent.model_validate(e))
            elif kind == "tool" and e["side"] == "agent":
                events.append(ToolEvent.model_validate(e))
    assert terminated and reward == 1.0, info.get("grade")
    env.close()
