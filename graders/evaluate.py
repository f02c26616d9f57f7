"""The one grading entry: ``evaluate`` grades a finished episode in one go.

The runner (``envs.episode.run_episode``) and the gymnasium env (``envs.gym``) both call it,
so an episode gets the same grade and verdicts through either door. It returns:

* the outcome grade (``graders.outcome.grade``): final state diffed against the goal,
  required outputs, and the task's assertions;
* the rule verdicts (``graders.rules.verdicts``): each agent reply against the rules of
  the situation it answers, by deterministic checks or the judge;
* the assertion results inside the grade: deterministic ones as checked, ``llm_judge`` ones
  answered by ``judge.judge_question`` when a judge is given, else ``needs_review``.

Judge calls happen in that order (per-turn rules first, then the questions), each given the
episode id. ``evaluate`` is async because a judge is; a caller with a loop of its own runs it
there (the gym env does).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from envs.actors.protocols import Judge
from envs.domain import Domain
from envs.records import AssertionResult, EpisodeId, Event, Grade, Verdict
from envs.spec.schema import Task
from envs.state.database import EpisodeState
from graders.outcome.grade import grade_episode
from graders.rules.verdicts import judge_episode


# Terminations that mean the agent failed, whatever the final state.
AGENT_FAILED = frozenset({"agent_error_limit"})
# How a conversation ends: the user stopped (the goal met or not), or the agent handed over.
# Any other ending (max_steps, the turn budget, a per-episode budget, the agent error limit, an
# error) is a failed trial whatever the final state: a database left as it should be by an agent
# that looped, stalled or never spoke is not a success.
FINISHED = frozenset({"user_stop", "transfer"})

_UNFINISHED = {
    "max_steps": "the agent called tools until the per-turn step limit without replying (max_steps)",
    "max_turns": "the turn budget ran out before the conversation ended (max_turns)",
    "agent_error_limit": "the agent's replies or calls kept failing until the engine stopped it (agent_error_limit)",
    "budget_tokens": "the token budget ended the episode (budget_tokens)",
    "budget_cost": "the cost budget ended the episode (budget_cost)",
    "budget_seconds": "the time budget ended the episode (budget_seconds)",
    "error": "the episode ended in an error",
}


def unfinished(termination: str | None) -> str | None:
    """Why an episode with this ending is a failed trial whatever its state; None when it ended as a
    conversation ends (``FINISHED``)."""
    if termination in FINISHED:
        return None
    return _UNFINISHED.get(termination or "", f"the episode did not end as a conversation ends ({termination})")


@dataclass
class Evaluation:
    """What grading an episode gives: ``grade`` (its ``assertions`` final, judge answers
    included), ``verdicts`` in transcript order, and ``timings`` (seconds: ``grade_s`` for
    the outcome grade, ``verdicts_s`` for the rule verdicts and judged assertions)."""

    grade: Grade
    verdicts: list[Verdict]
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def assertions(self) -> list[AssertionResult]:
        return self.grade.assertions


async def answer_assertions(
    task: Task, results: list[AssertionResult], events: list[Event], judge: Judge | None, episode: EpisodeId
) -> list[AssertionResult]:
    """The task's assertion results with each ``llm_judge`` one answered by the judge (the
    deterministic ones, and all of them without a judge, are kept as they are)."""
    if judge is None:
        return list(results)
    out = []
    for spec, res in zip(task.assertions, results):
        if spec.type == "llm_judge":
            verdict, why = await judge.judge_question(spec.question, events, episode)
            res = res.model_copy(update={"result": verdict, "evidence": why, "turn": None})
        out.append(res)
    return out


async def evaluate(
    domain: Domain,
    task: Task,
    state: EpisodeState,
    events: list[Event],
    judge: Judge | None,
    episode: EpisodeId,
    termination: str | None = None,
) -> Evaluation:
    """Grade the finished episode whose final database is ``state`` and transcript ``events``.

    Only an episode that ended as a conversation ends (``termination`` in ``FINISHED``) can
    pass: any other ending is graded 0 whatever the state, and ``grade.unfinished`` says why
    (``unfinished``). ``termination=None`` (a caller that grades a state, not an episode) grades
    the state alone.

    Never changes ``events``; commits ``state``'s session (the diff reads the database).
    Raises what the judge raises (an ``InfraError`` once its retries are spent) and SpecError
    for a rule whose check type nobody registered."""
    t0 = time.perf_counter()
    grade = grade_episode(domain, task, state, events)
    t1 = time.perf_counter()
    verdicts = await judge_episode(domain, task, events, judge, episode)
    grade.assertions = await answer_assertions(task, grade.assertions, events, judge, episode)
    if termination is not None and (why := unfinished(termination)) is not None:
        grade.reward, grade.unfinished = 0.0, why
    t2 = time.perf_counter()
    return Evaluation(grade=grade, verdicts=verdicts, timings={"grade_s": t1 - t0, "verdicts_s": t2 - t1})
