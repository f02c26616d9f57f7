"""The support domain: customer support for a large online marketplace.

Registers ``support`` (gym id ``Support-v0``); nothing is built at import time.
"""

from __future__ import annotations

from pathlib import Path

from envs.domain import Domain, register_domain

SEED = 20260615


def make_support_domain() -> Domain:
    from domains.support import checks  # noqa: F401  (registers the support rule checks)
    from domains.support.agents import CarefulAgent, EagerAgent
    from domains.support.models import Base
    from domains.support.seed import seed
    from domains.support.tools import AGENT_TOOLS, USER_TOOLS
    from envs.domain.tools import ToolSet

    return Domain(
        name="support",
        gym_id="Support-v0",
        base=Base,
        seed_fn=seed,
        agent_tools=ToolSet.of("agent", AGENT_TOOLS),
        user_tools=ToolSet.of("user", USER_TOOLS),
        package_dir=Path(__file__).parent,
        scripted_agents={"careful": CarefulAgent, "eager": EagerAgent},
        default_agent="careful",
        seed=SEED,
        description="Marketplace customer support: orders, deliveries, refunds, claims and escalations.",
        families=_families,
    )


def _families():
    from domains.support.families import families

    return families()


register_domain("support", make_support_domain, gym_id="Support-v0")
