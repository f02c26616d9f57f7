"""The loop: ``run_episode`` plays one episode to the end, grades it and returns its record."""

from __future__ import annotations

import time

from envs.actors.protocols import Agent, UserSimulator, usage_of
from envs.domain import Domain
from envs.episode.step import Episode
from envs.errors import InfraError
from envs.records import EpisodeId, EpisodeRecord
from envs.spec.schema import Task
from envs.state.database import EpisodeState


async def _judge_assertions(task: Task, results, events, judge, episode: EpisodeId):
    """Answer the task's ``llm_judge`` assertions with the judge (deterministic ones are kept)."""
    out = []
    for spec, res in zip(task.assertions, results):
        if spec.type == "llm_judge":
            verdict, why = await judge.judge_question(spec.question, events, episode)
            res = res.model_copy(update={"result": verdict, "evidence": why, "turn": None})
        out.append(res)
    return out


async def run_episode(
    domain: Domain,
    task: Task,
    agent: Agent,
    user: UserSimulator,
    seed: int,
    repeat: int = 0,
    judge=None,
    state: EpisodeState | None = None,
) -> EpisodeRecord:
    """Play one episode to the end and grade it. Never raises for an actor's failure:
    infrastructure errors come back as a record with ``status="error"``."""
    t0 = time.perf_counter()
    rec = EpisodeRecord(
        episode_id=f"{task.id}#{repeat}",
        task_id=task.id,
        domain=domain.name,
        repeat=repeat,
        seed=seed,
        actors={"agent": getattr(agent, "name", "?"), "user": getattr(user, "name", "?")},
        started_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    )
    ep = Episode(domain, task, user, seed, repeat, state=state)
    try:
        await ep.start()
        while not ep.done:
            action = await agent.act(ep.agent_view())
            await ep.step(action)
        t1 = time.perf_counter()
        rec.grade = ep.grade()
        rec.reward = rec.grade.reward
        rec.timings["grade_s"] = time.perf_counter() - t1
        from graders.rules.verdicts import judge_episode

        episode = EpisodeId(task_id=task.id, repeat=repeat, seed=seed)
        rec.verdicts = await judge_episode(domain, task, ep.events, judge, episode)
        if judge is not None and hasattr(judge, "judge_question"):
            rec.grade.assertions = await _judge_assertions(task, rec.grade.assertions, ep.events, judge, episode)
    except InfraError as e:
        rec.status, rec.error, rec.error_role, rec.error_kind = "error", str(e), e.role, e.kind
        ep.termination = ep.termination or "error"
    except Exception as e:  # an engine or actor bug: recorded, counted, never dropped
        rec.status, rec.error, rec.error_role, rec.error_kind = "error", f"{type(e).__name__}: {e}", "engine", "crash"
        ep.termination = ep.termination or "error"
    finally:
        rec.transcript = list(ep.events)
        rec.termination = ep.termination
        rec.agent_errors = ep.agent_errors
        for role, actor in (("agent", agent), ("user", user), ("judge", judge)):
            u = usage_of(actor) if actor is not None else None
            if u is not None:
                rec.usage[role] = u
        rec.timings["wall_s"] = time.perf_counter() - t0
        if state is None:
            ep.close()
    return rec
