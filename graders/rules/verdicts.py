"""Per-turn rule verdicts: each agent reply against only its situation's rules.

The situation of an agent reply is the one the user simulator played in the
user message the reply answers. Rules with a deterministic ``check`` are
decided here without a model; the others go to the judge (``judge_turn``)
when one is given, and are recorded as UNJUDGED otherwise, so the report can
say which rules went unjudged and on how many turns.
"""

from __future__ import annotations

from typing import Any, Protocol

from envs.domain import Domain
from envs.records import AgentEvent, EpisodeId, Event, ToolEvent, UserEvent, Verdict
from envs.spec.schema import Rule, Situation, Task
from graders.rules.checks import run_check


class Judge(Protocol):
    async def judge_turn(
        self, situation: Situation, rules: list[Rule], events: list[Event], reply_index: int, episode: EpisodeId
    ) -> list[Verdict]: ...


def reply_situations(events: list[Event]) -> list[tuple[int, str | None]]:
    """(index of each agent reply, situation of the user turn it answers)."""
    out = []
    current: str | None = None
    for i, e in enumerate(events):
        if isinstance(e, UserEvent):
            current = e.situation
        elif isinstance(e, AgentEvent):
            out.append((i, current))
    return out


def with_closing_action(domain: Domain, events: list[Event]) -> list[Event]:
    """The events, plus a stand-in reply when the agent answered the last user message only by
    ending the conversation with a terminal tool (a transfer to a human). That handoff is the
    agent's answer to the turn: without it, a rule such as "escalate when asked" could only
    ever be judged on the turns where the agent failed to escalate. Only rules marked
    ``on_handoff`` are judged on the stand-in."""
    last_user = max((i for i, e in enumerate(events) if isinstance(e, UserEvent)), default=-1)
    after = events[last_user + 1 :]
    if last_user < 0 or not after or not all(isinstance(e, ToolEvent) and e.side == "agent" for e in after):
        return events
    end = after[-1]
    tool = domain.agent_tools.tools.get(end.call.name)
    if tool is None or not tool.terminal or not end.ok:
        return events
    note = f"(no reply: the agent ended the conversation with {end.call.name})"
    return [*events, AgentEvent(turn=events[last_user].turn + 1, content=note)]  # as a reply to that turn would be


async def judge_episode(
    domain: Domain, task: Task, events: list[Event], judge: Any | None, episode: EpisodeId | None = None
) -> list[Verdict]:
    verdicts: list[Verdict] = []
    n = len(events)
    events = with_closing_action(domain, events)
    for idx, sid in reply_situations(events):
        sit = domain.situations.get(sid) if sid else None
        if sit is None:
            continue
        turn = events[idx].turn
        rules = [domain.rules[r] for r in sit.rules if r in domain.rules]
        if idx >= n:  # the stand-in for a handoff: only the rules about what to do
            rules = [r for r in rules if r.on_handoff]
        for_judge = []
        for rule in rules:
            if rule.check is not None:
                v, why = run_check(rule.check.type, rule.check.params, events, idx)
                verdicts.append(Verdict(turn=turn, situation=sid, rule=rule.id, verdict=v, rationale=why, source="check"))
            else:
                for_judge.append(rule)
        if not for_judge:
            continue
        if judge is None:
            verdicts.extend(
                Verdict(turn=turn, situation=sid, rule=r.id, verdict="UNJUDGED", rationale="no judge model", source="none")
                for r in for_judge
            )
        else:
            verdicts.extend(await judge.judge_turn(sit, for_judge, events, idx, episode))
    return verdicts
