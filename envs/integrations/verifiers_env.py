"""sitgym as a verifiers (``verifiers==0.4.0``, ``verifiers.v1``) environment: ``vf-eval sitgym-verifiers``.

verifiers resolves a taskset id to an importable module (``sitgym-verifiers`` -> ``sitgym_verifiers``,
the top-level shim that re-exports this module) and takes from its ``__all__`` the ``Taskset``, the
``Env`` and the ``Harness`` that play it. Here:

* ``SitgymTaskset`` yields one ``SitgymTask`` per sitgym task of ``--env.taskset.domain`` (filtered by
  ``--env.taskset.tasks``, ids or globs); the task data carries the domain, the task id and the
  user, judge and reward settings, so a trace says what was played.
* ``SitgymHarness`` is the policy's program, run in-process: it plays one sitgym episode with
  sitgym's own LLM agent (``envs.actors.llm_agent``: the domain's policy prompt, the agent tools)
  whose every model call goes to verifiers' interception endpoint, so verifiers records the policy's
  requests and completions on its trace as for any harness. The simulated user (scripted or an LLM)
  and the tools run against the episode's own SQLite copy, as in ``python -m envs.run``; the episode
  is graded by ``graders.evaluate`` (through ``run_episode``).
* ``SitgymTask`` scores the trace with sitgym's reward parts (``envs.rl.rewards``): one reward per
  part, weighted by ``--env.taskset.weights`` (default: the outcome only), so verifiers' reward is
  sitgym's ``total``; the unweighted units are metrics. An episode that errored (the model endpoint,
  the user's model, an engine crash) fails the harness with the reason: verifiers counts it as an
  errored rollout, never as a score.

The task's ``prompt`` is only a label naming the episode: verifiers requires one, but the simulated
user opens the conversation and the harness never sends the label to the model.
"""

from __future__ import annotations

import fnmatch
import hashlib
from typing import Any, Literal

import verifiers.v1 as vf
from pydantic import Field

from envs.actors.roles import RoleConfig, judge_factory, user_factory
from envs.errors import SpecError
from envs.episode import episode_seed, run_episode
from envs.report.summary import _why_failed
from envs.rl.rewards import RewardWeights, reward_parts

TASKSET_ID = "sitgym-verifiers"


class SitgymTasksetConfig(vf.TasksetConfig):
    """``--env.taskset.*``: which sitgym tasks, and the world they are played in."""

    domain: str = "support"
    """A registered sitgym domain (support, tutoring, taubench-retail, or a third-party one)."""
    tasks: list[str] = Field(default_factory=list)
    """Task ids or globs (``sup_ambig*``); empty: every task of the domain."""
    domain_options: dict[str, str] = Field(default_factory=dict)
    """Domain options, as ``--domain-option KEY=VALUE`` (tutoring ``problems``, taubench-retail ``data``)."""
    user: str = "scripted"
    """The simulated user: ``scripted[:VARIANT]`` or a model string (as ``--user``)."""
    user_api_base: str | None = None
    """OpenAI-compatible server for an LLM user (as ``--user-api-base``)."""
    judge: str | None = None
    """A judge model for the rules without a deterministic check (as ``--judge``); none: unjudged."""
    judge_api_base: str | None = None
    seed: int = 0
    """The run seed the episode seeds derive from (as ``--seed``)."""
    user_seed: Literal["same", "distinct"] = "same"
    """``same``: every rollout of a task meets the same user (same situation draws); ``distinct``: a
    seed per rollout (derived from the trace id, recorded in ``trace.info``)."""
    weights: str = ""
    """Reward weights, as ``python -m envs.rollout --weights`` (``outcome=1,violations=-0.1``)."""


class SitgymData(vf.TaskData):
    domain: str
    task_id: str
    domain_options: dict[str, str] = Field(default_factory=dict)
    user: str = "scripted"
    user_api_base: str | None = None
    judge: str | None = None
    judge_api_base: str | None = None
    seed: int = 0
    user_seed: Literal["same", "distinct"] = "same"
    weights: str = ""


def _record(trace: vf.Trace) -> dict:
    info = trace.info.get("sitgym")
    if not isinstance(info, dict) or "reward" not in info:
        raise vf.TaskError("sitgym: the trace carries no sitgym episode (did the sitgym harness play it?)")
    return info


class SitgymTask(vf.Task[SitgymData, vf.State, vf.TaskConfig]):
    @property
    def key(self) -> str:
        return f"{self.data.domain}/{self.data.task_id}"

    @vf.reward
    async def sitgym(self, trace: vf.Trace) -> dict[str, float]:
        """One reward per sitgym reward part (already weighted): their sum is sitgym's ``total``."""
        return dict(_record(trace)["reward"]["parts"])

    @vf.metric
    async def sitgym_units(self, trace: vf.Trace) -> dict[str, float]:
        """The unweighted parts (verdicts, milestones, thousands of tokens, turns) and the outcome."""
        info = _record(trace)
        out = {f"units_{k}": float(v) for k, v in info["reward"]["units"].items()}
        out["sitgym_outcome"] = float(info["outcome"])
        return out


def _domain(name: str, options: dict[str, str]):
    from envs.domain import get_domain

    return get_domain(name, dict(options) or None)


def select_tasks(domain: Any, patterns: list[str]) -> list[str]:
    """The domain's task ids matching ``patterns`` (ids or globs) in the domain's order; SpecError
    naming a pattern that matches nothing."""
    ids = list(domain.tasks)
    if not patterns:
        return ids
    for p in patterns:
        if not fnmatch.filter(ids, p):
            raise SpecError(f"--env.taskset.tasks: {p!r} matches no task of domain {domain.name}")
    return [t for t in ids if any(fnmatch.fnmatchcase(t, p) for p in patterns)]


class SitgymTaskset(vf.Taskset[SitgymTask, SitgymTasksetConfig]):
    def load(self):
        c = self.config
        RewardWeights.parse(c.weights)  # a bad weight fails before any rollout
        domain = _domain(c.domain, c.domain_options)
        for tid in select_tasks(domain, c.tasks):
            yield SitgymTask(
                SitgymData(
                    id=tid,
                    name=tid,
                    prompt=f"[sitgym {c.domain}/{tid}: the simulated user opens the conversation]",
                    domain=c.domain,
                    task_id=tid,
                    domain_options=c.domain_options,
                    user=c.user,
                    user_api_base=c.user_api_base,
                    judge=c.judge,
                    judge_api_base=c.judge_api_base,
                    seed=c.seed,
                    user_seed=c.user_seed,
                    weights=c.weights,
                ),
                c.task,
            )


class SitgymHarnessConfig(vf.HarnessConfig):
    id: str = TASKSET_ID
    tool_mode: Literal["native", "json"] = "native"
    """How the policy calls tools: native tool calls, or one JSON action per reply (small models)."""
    temperature: float | None = None
    """Sent with each request; the run's ``--sampling.*`` still override it at the interception."""
    max_tokens: int | None = None
    request_timeout: float = 120.0
    max_retries: int = 2


def _trace_seed(data: SitgymData, trace_id: str, what: str) -> int:
    base = data.task_id if data.user_seed == "same" and what == "user" else f"{data.task_id}/{what}/{trace_id}"
    return episode_seed(data.seed, base, 0)


class SitgymHarness(vf.Harness[SitgymHarnessConfig]):
    """Plays one sitgym episode in-process; the policy's model calls go through ``endpoint``."""

    APPENDS_SYSTEM_PROMPT = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(self, ctx, trace, runtime, endpoint, secret, mcp_urls, data, tool_interception_url=None):
        from envs.actors.llm_agent import LLMAgent
        from envs.actors.prompts import Prompts
        from envs.llm.client import LLMClient
        from envs.llm.endpoints import Endpoint
        from envs.run.llm_flags import make_llm_context

        if not isinstance(data, SitgymData):
            data = SitgymData.model_validate(data.model_dump())
        try:
            domain = _domain(data.domain, data.domain_options)
            task = domain.tasks[data.task_id]
            weights = RewardWeights.parse(data.weights)
            roles = {"user": RoleConfig(spec=data.user, api_base=data.user_api_base)}
            if data.judge:
                roles["judge"] = RoleConfig(spec=data.judge, api_base=data.judge_api_base)
            llm = make_llm_context({}, roles)
            make_user = user_factory(domain, roles["user"], llm)
            make_judge = judge_factory(domain, roles.get("judge"), llm)
        except (SpecError, KeyError) as e:
            raise vf.TaskError(f"sitgym {data.domain}/{data.task_id}: {e}") from None
        # No response cache: a policy being trained must sample afresh on every call.
        client = LLMClient(
            cache_dir=None,
            request_timeout=self.config.request_timeout,
            max_retries=self.config.max_retries,
            model_concurrency=64,
        )
        ep = Endpoint(
            role="agent",
            spec=ctx.model,
            model=f"openai/{ctx.model}",
            api_base=endpoint,
            api_key=secret,
            temperature=self.config.temperature,
            max_tokens=self.config.max_tokens,
            tool_mode=self.config.tool_mode,
            direct=True,
        )
        agent = LLMAgent(client, ep, Prompts.for_domain(domain))
        seed = _trace_seed(data, trace.id, "user")
        rec = await run_episode(
            domain,
            task,
            agent,
            make_user(),
            seed,
            judge=make_judge() if make_judge else None,
            agent_seed=_trace_seed(data, trace.id, "agent"),
        )
        parts = reward_parts(rec, weights)
        trace.info["sitgym"] = {
            "episode_id": rec.episode_id,
            "seed": seed,
            "status": rec.status,
            "error": rec.error,
            "termination": rec.termination,
            "outcome": rec.reward if rec.status == "ok" else 0.0,
            "reward": parts.model_dump(mode="json"),
            "first_failure": None if rec.status == "ok" and rec.reward else _why_failed(rec),
        }
        trace.info["sitgym_record"] = rec.model_dump(mode="json")
        if rec.status != "ok":
            # Counted by verifiers as an errored rollout (never a score): who failed and why.
            raise vf.HarnessError(f"sitgym episode {rec.episode_id}: {rec.error_role}/{rec.error_kind}: {rec.error}")
        return vf.ProgramResult(exit_code=0, stdout=f"{rec.episode_id}: reward {parts.total:g} ({rec.termination})", stderr="")


class SitgymEnvConfig(vf.EnvConfig):
    # The harness is left to the taskset's default (the Harness this module exports): pinning it
    # here would resolve the plugin while this module is still being imported.
    agent: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())
    """The policy's seat: sitgym's harness, on the local runtime (the harness runs no program)."""


class SitgymEnv(vf.Env[SitgymEnvConfig]):
    """One seat, ``agent``: the policy under evaluation plays sitgym's agent."""

    async def run(self, task, agents):
        await agents.agent.run(task)


def load_environment(
    domain: str = "support",
    tasks: list[str] | None = None,
    user: str = "scripted",
    **taskset: Any,
) -> SitgymEnv:
    """The verifiers environment of a sitgym domain, built in Python (``vf-eval sitgym-verifiers
    --env.taskset.domain ...`` builds the same from flags); extra keywords are
    ``SitgymTasksetConfig`` fields."""
    config = SitgymEnvConfig(
        taskset=SitgymTasksetConfig(id=TASKSET_ID, domain=domain, tasks=list(tasks or []), user=user, **taskset)
    )
    return vf.load_environment(config)


__all__ = [
    "SitgymData",
    "SitgymEnv",
    "SitgymEnvConfig",
    "SitgymHarness",
    "SitgymHarnessConfig",
    "SitgymTask",
    "SitgymTaskset",
    "SitgymTasksetConfig",
    "load_environment",
    "select_tasks",
]
