"""``--reviewer MODEL``: an LLM reviews the causes the deterministic rules leave weak or unknown.

The reviewing itself is ``graders.causes.review_causes`` (a function of records, usable by a
later re-grade); this module only builds its client and endpoint from the run's LLM flags.
"""

from __future__ import annotations

from typing import Any

from envs.records import EpisodeCause, EpisodeRecord
def run_reviewer(
    records: list[EpisodeRecord], domain: Any, model: str, llm: dict | None = None, api_base: str | None = None
) -> dict[str, EpisodeCause]:
    """Review the run's weak or unknown causes with ``model`` (a litellm model string or an
    OpenAI-compatible ``openai/NAME`` with ``api_base``), through the project's LLM client
    (retries, limits, cache as for any role). Checks the model before the first review (one
    line, SpecError). Returns episode id -> the reviewed cause."""
    import asyncio

    from envs.actors.roles import RoleConfig
    from envs.run.llm_flags import make_llm_context
    from graders.causes import episode_cause, review_causes
    from graders.simulator import simulator_flags

    llm = dict(llm or {})
    role = RoleConfig(spec=model, api_base=api_base or llm.get("api_base"), temperature=0.0)
    ctx = make_llm_context({"llm": llm}, {"reviewer": role})
    ctx.preflight()
    tasks = domain.tasks
    causes = {}
    for r in records:
        c = episode_cause(r, tasks.get(r.task_id), domain, simulator_flags(r, tasks.get(r.task_id), domain))
        if c is not None:
            causes[r.episode_id] = c
    return asyncio.run(review_causes(records, causes, tasks, ctx.client, ctx.endpoint("reviewer")))
