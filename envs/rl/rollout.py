"""Grouped rollouts: N episodes of each task from the identical initial state, with the group's advantages.

``rollout_groups`` plays ``group_size`` rollouts of every task concurrently (one asyncio loop, each
rollout its own in-memory database copied from the task's initial state). The user's randomness is
controlled per rollout: ``user_seed="same"`` gives every rollout of a group the same episode seed (the
same situation draws and the same scripted user), ``"distinct"`` a seed per rollout. The agent's model
is sent a seed of its own per rollout (``EpisodeId.agent_seed``), so a provider that honours seeds
still samples distinct replies within a group. Each trajectory is what the agent saw and did
(``envs.rl.chat``) with its reward parts (``envs.rl.rewards``) and its advantage: reward minus the
group's mean, divided by the group's standard deviation when ``scale_by_std`` (GRPO's form).
"""

from __future__ import annotations

import asyncio
import statistics
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field

from envs.episode import episode_seed, run_episode
from envs.records import EpisodeRecord
from envs.rl.chat import chat_messages, system_prompt
from envs.rl.rewards import RewardParts, RewardWeights, reward_parts


class TurnReward(BaseModel):
    """The reward earned on one agent turn, and the message that ends that turn."""

    model_config = ConfigDict(extra="forbid")

    turn: int
    """The agent turn (1 = the agent's first message)."""
    message_index: int
    """Index in ``messages`` of the assistant message that ends the turn."""
    reward: float
    """The weighted parts earned on this turn."""


class Trajectory(BaseModel):
    """One rollout, in the agent's view, with its reward parts and advantage."""

    model_config = ConfigDict(extra="forbid")

    episode_id: str
    """``task#repeat`` (the rollout index is the repeat)."""
    task_id: str
    group: str
    """The group's id (the task id, and the batch's seed)."""
    rollout: int
    """Index within the group."""
    seed: int
    """The episode seed (the user's randomness)."""
    agent_seed: int | None = None
    """The seed sent to the agent's model."""
    status: str
    """``ok`` or ``error`` (an errored rollout's outcome is 0; see ``error``)."""
    error: str | None = None
    termination: str | None = None
    # Why the episode is a failed trial whatever its state (it did not end as a conversation ends).
    unfinished: str | None = None
    messages: list[dict[str, Any]]
    """System, user, assistant (with ``tool_calls``) and tool messages: only what the agent saw and did."""
    tools: list[dict[str, Any]]
    """The agent tools' JSON schemas (OpenAI function format)."""
    reward: RewardParts
    turn_rewards: list[TurnReward] = Field(default_factory=list)
    """The dense reward, per agent turn."""
    advantage: float = 0.0
    """Reward minus the group's mean (divided by the group's std when asked)."""


class Group(BaseModel):
    """The rollouts of one task, with the group's statistics."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    mean: float
    std: float
    trajectories: list[Trajectory]


def _turn_rewards(messages: list[dict], parts: RewardParts) -> list[TurnReward]:
    """Each turn's reward, placed on the assistant message that ends the turn (its message, or the
    last tool call of a turn that ended in a handoff)."""
    ends: dict[int, int] = {}
    turn, pending = 0, None
    for i, m in enumerate(messages):
        if m["role"] != "assistant":
            continue
        if m.get("tool_calls"):
            pending = i
        else:
            turn += 1
            ends[turn], pending = i, None
    if pending is not None:
        ends[turn + 1] = pending
    last = ends[max(ends)] if ends else 0
    return [TurnReward(turn=t, message_index=ends.get(t, last), reward=r) for t, r in sorted(parts.per_turn.items())]


def trajectory(rec: EpisodeRecord, domain: Any, weights: RewardWeights, group: str, rollout: int, agent_seed: int | None) -> Trajectory:
    msgs = chat_messages(rec.transcript, system_prompt(domain))
    parts = reward_parts(rec, weights)
    return Trajectory(
        episode_id=rec.episode_id,
        task_id=rec.task_id,
        group=group,
        rollout=rollout,
        seed=rec.seed,
        agent_seed=agent_seed,
        status=rec.status,
        error=rec.error,
        termination=rec.termination,
        unfinished=rec.grade.unfinished if rec.grade else (rec.error if rec.status == "error" else None),
        messages=msgs,
        tools=domain.agent_tools.schemas(),
        reward=parts,
        turn_rewards=_turn_rewards(msgs, parts),
    )


def advantages(rewards: list[float], scale_by_std: bool = False, eps: float = 1e-6) -> tuple[list[float], float, float]:
    """(advantages, mean, population std) of one group's rewards."""
    mean = statistics.fmean(rewards) if rewards else 0.0
    std = statistics.pstdev(rewards) if len(rewards) > 1 else 0.0
    adv = [r - mean for r in rewards]
    if scale_by_std:
        adv = [a / (std + eps) for a in adv]
    return adv, mean, std


async def rollout_groups(
    domain: Any,
    task_ids: list[str],
    agent_factory: Callable[[], Any],
    user_factory: Callable[[], Any],
    *,
    group_size: int,
    seed: int = 0,
    user_seed: str = "same",
    weights: RewardWeights | None = None,
    judge_factory: Callable[[], Any] | None = None,
    concurrency: int = 8,
    scale_by_std: bool = False,
) -> list[Group]:
    """``group_size`` rollouts of each task (see the module docstring); groups in ``task_ids`` order."""
    if group_size < 1:
        raise ValueError("group_size must be at least 1")
    if user_seed not in ("same", "distinct"):
        raise ValueError("user_seed must be 'same' or 'distinct'")
    weights = weights or RewardWeights()
    sem = asyncio.Semaphore(max(1, concurrency))

    async def one(task_id: str, i: int) -> Trajectory:
        task = domain.tasks[task_id]
        s = episode_seed(seed, task_id, 0 if user_seed == "same" else i)
        a_seed = episode_seed(seed, f"{task_id}/agent", i)
        async with sem:
            judge = judge_factory() if judge_factory else None
            rec = await run_episode(domain, task, agent_factory(), user_factory(), s, repeat=i, judge=judge, agent_seed=a_seed)
        return trajectory(rec, domain, weights, group=f"{task_id}@{seed}", rollout=i, agent_seed=a_seed)

    results = await asyncio.gather(*(one(t, i) for t in task_ids for i in range(group_size)))
    groups = []
    for k, task_id in enumerate(task_ids):
        trajs = list(results[k * group_size : (k + 1) * group_size])
        adv, mean, std = advantages([t.reward.total for t in trajs], scale_by_std)
        for t, a in zip(trajs, adv):
            t.advantage = a
        groups.append(Group(task_id=task_id, mean=mean, std=std, trajectories=trajs))
    return groups
