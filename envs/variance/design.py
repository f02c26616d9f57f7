"""The designed repeats of ``envs.variance``: which arms to play, their episodes, and the re-judging.

An arm is a list of chains, one per (task, base): a base is an original episode (its seed fixes the
situations drawn), and its replays are played one after another, so a request the cache holds fixed
is answered once and then replayed rather than raced by a concurrent twin. Chains run concurrently.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from envs.errors import SpecError
from envs.records import EpisodeRecord

ARMS = ("user", "agent")


def replay_seed(seed: int, arm: str, replay: int) -> int:
    """The seed a role gets in replay ``replay`` of an arm (stable, distinct from the episode seed)."""
    h = hashlib.sha256(f"{seed}:variance:{arm}:{replay}".encode()).digest()
    return int.from_bytes(h[:4], "big") & 0x7FFFFFFF


@dataclass
class Arms:
    """Which arms are played, and why one is not (zero by construction)."""

    played: list[str]
    notes: dict[str, str]
    """user / agent / judge: what is held and varied, or why it is zero by construction."""


def choose_arms(agent: str, user: str, judge: str | None) -> Arms:
    """The design for a run's roles. Raises SpecError (one line) for a run nothing can be split in:
    no LLM role, or a person in a role (a person cannot be replayed)."""
    def scripted(spec: str) -> bool:
        return spec == "scripted" or spec.startswith("scripted:")

    for role, spec in (("agent", agent), ("user", user)):
        if spec == "human":
            raise SpecError(f"{role}: a person played the {role}; a person's turns cannot be replayed")
    has_judge = judge not in (None, "", "none")
    if scripted(agent) and scripted(user) and not has_judge:
        raise SpecError(
            "the run has no LLM role (scripted agent, scripted user, checks only): every share is zero by construction, nothing to measure"
        )
    played, notes = [], {}
    if scripted(user):
        notes["user"] = "scripted user: no sampling of its own (its lines follow the episode seed, which the design holds): zero by construction, not played"
    else:
        played.append("user")
        notes["user"] = "agent held (its seed fixed, its replies from the response cache), situations held (episode seed), the user's model seed varied per replay"
    if scripted(agent) and scripted(user):
        notes["agent"] = "scripted agent against a scripted user: deterministic given the episode seed, which the design holds: zero by construction, not played"
    else:
        played.append("agent")
        held = "scripted: deterministic given the episode seed" if scripted(user) else "its seed fixed, its replies from the response cache"
        notes["agent"] = (
            f"user held ({held}), situations held (episode seed), the agent's "
            + ("seed varied per replay (a scripted agent: measured, not assumed)" if scripted(agent) else "model seed varied per replay")
        )
    notes["judge"] = (
        f"judge {judge}: each original episode re-judged with the transcript frozen, a new judge seed each time"
        if has_judge
        else "checks only: deterministic, zero by construction (the checks are re-run all the same and their flips counted)"
    )
    return Arms(played, notes)


@dataclass
class Chain:
    """One base's replays in one arm."""

    arm: str
    base: EpisodeRecord


def plan(bases: dict[str, list[EpisodeRecord]], arms: list[str]) -> list[Chain]:
    return [Chain(arm, rec) for arm in arms for t in sorted(bases) for rec in bases[t]]


async def play_arms(
    domain, chains: list[Chain], replays: int, factories: tuple[Callable, Callable], concurrency: int,
    out: Path, progress: Callable[[], None], budgets=None,
) -> list[dict]:
    """Play every chain's replays (``run_episode``, the runner's loop; no judge: arms measure the
    outcome, which verdicts do not enter), each under the run's own per-episode ``budgets``
    (``envs.episode.budgets``: a budget decides how an episode ends, so a replay without it would
    not be the run's episode). Each result goes to ``out`` (``design.jsonl``) as it ends:
    {arm, task_id, base, replay, agent_seed, user_seed, record}."""
    from envs.episode import run_episode

    agent_f, user_f = factories
    sem = asyncio.Semaphore(max(1, concurrency))
    results: list[dict] = []

    async def chain(c: Chain) -> None:
        for j in range(replays):
            varied = replay_seed(c.base.seed, c.arm, j)
            agent_seed, user_seed = (varied, None) if c.arm == "agent" else (None, varied)
            async with sem:
                rec = await run_episode(
                    domain, domain.tasks[c.base.task_id], agent_f(), user_f(), seed=c.base.seed, repeat=c.base.repeat,
                    agent_seed=agent_seed, user_seed=user_seed, budgets=budgets,
                )
            row = {"arm": c.arm, "task_id": c.base.task_id, "base": c.base.repeat, "replay": j,
                   "agent_seed": agent_seed, "user_seed": user_seed, "record": rec.model_dump(mode="json")}
            with open(out, "a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")
            results.append(row | {"record": rec})
            progress()

    await asyncio.gather(*(chain(c) for c in chains))
    return results


class ReplicaJudge:
    """The run's judge, sent another seed for replica ``j`` (so its cache key and a seeded provider's
    sample differ from the recorded judgement's); everything else passes through."""

    def __init__(self, judge: Any, j: int):
        self._judge, self._j = judge, j

    def _ep(self, episode):
        return None if episode is None else episode.model_copy(update={"seed": replay_seed(episode.seed, "judge", self._j)})

    async def judge_turn(self, situation, rules, events, reply_index, episode=None):
        return await self._judge.judge_turn(situation, rules, events, reply_index, self._ep(episode))

    async def judge_question(self, question, events, episode=None):
        return await self._judge.judge_question(question, events, self._ep(episode))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._judge, name)


async def rejudge(domain, records: list[EpisodeRecord], times: int, judge_f: Callable | None, concurrency: int,
                  out: Path, progress: Callable[[], None]) -> list[dict]:
    """Each clean record re-graded ``times`` times with its transcript frozen (``regrade_record``):
    the checks re-run, and the judge (when the run had one) given a new seed per replica. Writes
    {episode_id, replica, verdicts} lines to ``out`` (``rejudged.jsonl``)."""
    from envs.report.regrade import regrade_record

    sem = asyncio.Semaphore(max(1, concurrency))
    results: list[dict] = []

    async def one(rec: EpisodeRecord, j: int) -> None:
        async with sem:
            judge = ReplicaJudge(judge_f(), j) if judge_f else None
            new, ch = await regrade_record(domain, rec, judge)
        row = {"episode_id": rec.episode_id, "task_id": rec.task_id, "repeat": rec.repeat, "replica": j,
               "problem": ch.problem, "verdicts": [v.model_dump(mode="json") for v in new.verdicts]}
        with open(out, "a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
        results.append(row | {"old": rec.verdicts, "new": new.verdicts})
        progress()

    await asyncio.gather(*(one(r, j) for r in records if r.status == "ok" for j in range(times)))
    return results
