"""The loop: ``run_episode`` plays one episode to the end, grades it (``graders.evaluate``) and returns its record."""

from __future__ import annotations

import asyncio
import time

from envs.actors.protocols import Agent, Judge, UserSimulator, usage_of
from envs.domain import Domain
from envs.episode.budgets import BudgetClock, Budgets
from envs.episode.step import Episode
from envs.errors import InfraError
from envs.records import EpisodeId, EpisodeRecord
from envs.spec.schema import Task
from envs.state.database import EpisodeState
from graders import evaluate
from graders.rules.registry import validate_checks


async def run_episode(
    domain: Domain,
    task: Task,
    agent: Agent,
    user: UserSimulator,
    seed: int,
    repeat: int = 0,
    judge: Judge | None = None,
    state: EpisodeState | None = None,
    agent_seed: int | None = None,
    budgets: Budgets | None = None,
    attempt: int = 1,
    user_seed: int | None = None,
    watch=None,
) -> EpisodeRecord:
    """Play one episode to the end and grade it. Never raises for an actor's failure:
    infrastructure errors come back as a record with ``status="error"``. Raises SpecError
    before playing when a rule of the domain names a check type nobody registered.

    ``budgets`` (tokens, cost, seconds) end the episode early with termination ``budget_*``
    (``envs.episode.budgets``): graded for the record, but its reward is 0. ``attempt`` is
    recorded as is (the runner counts replays of errored episodes). ``agent_seed`` / ``user_seed``:
    the seeds sent to the agent's / user's model when they must differ from ``seed``. ``watch``
    (``envs.run.live.InFlight``) is told when the episode starts and ends, to show it live."""
    validate_checks(domain.rules.values())
    t0 = time.perf_counter()
    rec = EpisodeRecord(
        episode_id=f"{task.id}#{repeat}",
        task_id=task.id,
        domain=domain.name,
        repeat=repeat,
        seed=seed,
        actors={"agent": getattr(agent, "name", "?"), "user": getattr(user, "name", "?")},
        started_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        attempt=attempt,
    )
    clock = BudgetClock(budgets, t0)
    ep = Episode(domain, task, user, seed, repeat, state=state, agent_seed=agent_seed, user_seed=user_seed)
    if watch is not None:
        watch.started(rec.episode_id, ep, (agent, user, judge), task.scenario.max_turns)
    try:
        try:
            await _timed(clock, ep.start())
            while not ep.done:
                if over := clock.over((agent, user)):
                    ep.termination, rec.budget = over
                    break
                action = await _timed(clock, agent.act(ep.agent_view()))
                await _timed(clock, ep.step(action))
        except _OutOfTime:
            ep.termination, rec.budget = "budget_seconds", clock.seconds_note()
        if ep.termination in ("user_stop", "transfer", "max_turns") and (over := clock.over((agent, user))):
            ep.termination, rec.budget = over  # the last step overspent: it did not finish within budget
        if (ended := getattr(agent, "episode_ended", None)) is not None:
            ended(ep.agent_view(), ep.termination)  # the user's last words, for an agent that shows them
        ev = await evaluate(domain, task, ep.state, ep.events, judge, EpisodeId(task_id=task.id, repeat=repeat, seed=seed), termination=ep.termination)
        rec.grade, rec.verdicts, rec.reward = ev.grade, ev.verdicts, ev.grade.reward
        if rec.budget is not None:
            rec.reward = 0.0  # not finished: a failed trial whatever the state
        rec.timings.update(ev.timings)
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
        rec.goal_met_turn = ep.goal_met_turn
        for role, actor in (("agent", agent), ("user", user), ("judge", judge)):
            u = usage_of(actor) if actor is not None else None
            if u is not None:
                rec.usage[role] = u
        rec.timings["wall_s"] = time.perf_counter() - t0
        if watch is not None:
            watch.ended(rec.episode_id)
        if state is None:
            ep.close()
    return rec


class _OutOfTime(Exception):
    pass


async def _timed(clock: BudgetClock, aw):
    """Await ``aw`` within the episode's remaining time budget (no budget: as is)."""
    left = clock.remaining_seconds()
    if left is None:
        return await aw
    if left <= 0:
        aw.close()
        raise _OutOfTime
    try:
        return await asyncio.wait_for(aw, left)
    except asyncio.TimeoutError:
        raise _OutOfTime from None
