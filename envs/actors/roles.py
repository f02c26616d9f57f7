"""Building the actors of a run from role specs.

A role spec is ``scripted`` / ``scripted:VARIANT`` (offline), optionally with ``@slip=RATE`` (a
seeded slip around it, ``envs.actors.slipping``: an instrument for validating ``envs.variance``), ``human`` (a
person at the terminal, agent or user), or any litellm model string (handled by the LLM layer). Each
episode gets fresh actor instances, so scripted actors may keep state and
token accounting is per episode. LLM actors get the domain's prompts (its
words and any template it overrides; ``envs.actors.prompts``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from envs.domain import Domain
from envs.errors import SpecError


@dataclass
class RoleConfig:
    """One role's settings (the LLM layer reads the model fields)."""

    spec: str
    api_base: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    tool_mode: str | None = None  # native | json (LLM roles)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def is_scripted(self) -> bool:
        base = self.spec.split("@", 1)[0]  # scripted...@slip=RATE is scripted too (envs.actors.slipping)
        return base == "scripted" or base.startswith("scripted:")

    @property
    def variant(self) -> str | None:
        return self.spec.split(":", 1)[1] if ":" in self.spec and self.is_scripted else None


def agent_factory(domain: Domain, role: RoleConfig, llm_context: Any = None) -> Callable[[], Any]:
    from envs.actors.slipping import parse_slip, wrap_agent

    base, rate = parse_slip(role.spec, "agent")
    if rate is not None:  # a seeded slip around a scripted agent (an instrument for envs.variance)
        inner = agent_factory(domain, RoleConfig(base, role.api_base, role.temperature, role.max_tokens, role.tool_mode, role.extra))
        return wrap_agent(inner, rate, domain)
    if role.is_scripted:
        from envs.actors.null_agents import null_agents

        variant = role.variant or domain.default_agent
        agents = {**null_agents(domain), **domain.scripted_agents}  # the domain's own names first
        if variant not in agents:
            known = ", ".join(f"scripted:{k}" for k in agents) or "none"
            raise SpecError(f"--agent: domain {domain.name} has no scripted agent {variant!r} (known: {known})")
        return agents[variant]
    if role.spec == "human":
        from envs.actors.human_agent import HumanAgent

        return HumanAgent
    return make_llm_agent(domain, role, llm_context)


def user_factory(domain: Domain, role: RoleConfig, llm_context: Any = None) -> Callable[[], Any]:
    from envs.actors.human_user import HumanUser
    from envs.actors.scripted_user import ScriptedUser
    from envs.actors.slipping import parse_slip, wrap_user

    base, rate = parse_slip(role.spec, "user")
    if rate is not None:  # a seeded slip around a scripted user (an instrument for envs.variance)
        inner = user_factory(domain, RoleConfig(base, role.api_base, role.temperature, role.max_tokens, role.tool_mode, role.extra))
        return wrap_user(inner, rate)
    if role.is_scripted:
        variant = role.variant or "default"
        if variant in domain.scripted_users:
            return domain.scripted_users[variant]
        if role.variant and role.variant != "default":
            known = ", ".join(f"scripted:{k}" for k in domain.scripted_users) or "scripted"
            raise SpecError(f"--user: domain {domain.name} has no scripted user {variant!r} (known: {known})")
        return ScriptedUser
    if role.spec == "human":
        return HumanUser
    return make_llm_user(domain, role, llm_context)


def judge_factory(domain: Domain, role: RoleConfig | None, llm_context: Any = None) -> Callable[[], Any] | None:
    if role is None or role.spec in ("", "none"):
        return None
    if role.is_scripted:
        raise SpecError("--judge: there is no scripted judge; deterministic rule checks always run")
    return make_llm_judge(domain, role, llm_context)


# --- the LLM actors (one factory per role; each call builds a fresh actor) -----------------------


def _context(llm_context: Any) -> Any:
    from envs.llm.context import LLMContext

    if not isinstance(llm_context, LLMContext):
        raise TypeError("LLM roles need an LLMContext (envs.llm.context.make_llm_context)")
    return llm_context


def make_llm_agent(domain: Domain, role: RoleConfig, llm_context: Any) -> Callable[[], Any]:
    from envs.actors.llm_agent import LLMAgent
    from envs.actors.prompts import Prompts

    ctx = _context(llm_context)
    ep, prompts = ctx.endpoint("agent"), Prompts.for_domain(domain)
    return lambda: LLMAgent(ctx.client, ep, prompts)


def make_llm_user(domain: Domain, role: RoleConfig, llm_context: Any) -> Callable[[], Any]:
    from envs.actors.llm_user import LLMUser
    from envs.actors.prompts import Prompts

    ctx = _context(llm_context)
    ep, prompts = ctx.endpoint("user"), Prompts.for_domain(domain)
    mutating = {name for name, t in domain.agent_tools.tools.items() if getattr(t, "mutates", False)}
    return lambda: LLMUser(ctx.client, ep, mutating, prompts)


def make_llm_judge(domain: Domain, role: RoleConfig | None, llm_context: Any) -> Callable[[], Any]:
    from envs.actors.llm_judge import LLMJudge
    from envs.actors.prompts import Prompts

    ctx = _context(llm_context)
    ep, prompts = ctx.endpoint("judge"), Prompts.for_domain(domain)
    return lambda: LLMJudge(ctx.client, ep, prompts)
