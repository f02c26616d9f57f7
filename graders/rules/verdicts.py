"""Per-turn rule verdicts: each agent reply against only its situation's rules.

The situation of an agent reply is the one the user simulator played in the
user message the reply answers. Rules with a deterministic ``check`` are
decided here without a model, unless a judge is given and the rule's ``judge:``
says ``prefer`` (the judge decides, the check answers where the judge gives no
verdict) or ``fallback`` (the check decides, the judge only where the check
answers NEEDS_REVIEW); ``never`` keeps the check alone. Rules without a check
go to the judge (``judge_turn``) when one is given, and are recorded as
UNJUDGED otherwise, so the report can say which rules went unjudged.
"""

from __future__ import annotations

from envs.actors.protocols import Judge
from envs.domain import Domain
from envs.records import AgentEvent, EpisodeId, Event, ToolEvent, UserEvent, Verdict
from envs.spec.schema import Task
from graders.rules.checks import run_check
from graders.rules.conditions import condition_verdict
from graders.rules.registry import CheckContext


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
    domain: Domain, task: Task, events: list[Event], judge: Judge | None, episode: EpisodeId | None = None
) -> list[Verdict]:
    """One verdict per (agent reply, rule of the situation it answers), in transcript order:
    rules with a check by it or the judge as their ``judge:`` mode says (see the module), the
    others by ``judge.judge_turn`` (given ``episode``, by default ``EpisodeId(task_id=task.id)``)
    or UNJUDGED without a judge. Raises SpecError
    for a check type nobody registered."""
    episode = episode or EpisodeId(task_id=task.id)
    verdicts: list[Verdict] = []
    n = len(events)
    events = with_closing_action(domain, events)
    context = CheckContext(task=task, domain=domain)
    for idx, sid in reply_situations(events):
        sit = domain.situations.get(sid) if sid else None
        if sit is None:
            continue
        turn = events[idx].turn
        rules = [domain.rules[r] for r in sit.rules if r in domain.rules]
        if idx >= n:  # the stand-in for a handoff: only the rules about what to do
            rules = [r for r in rules if r.on_handoff]
        checked: dict[str, Verdict] = {}
        for_judge = []
        for rule in rules:
            na = condition_verdict(rule, events, idx, context)
            if na is not None:  # the rule's condition does not arise: no check or judge is asked
                checked[rule.id] = Verdict(turn=turn, situation=sid, rule=rule.id, verdict=na[0], rationale=na[1], source="check")
                continue
            if rule.check is None:
                for_judge.append(rule)
                continue
            v, why = run_check(rule.check.type, rule.check.params, events, idx, rule=rule.id, context=context)
            checked[rule.id] = Verdict(turn=turn, situation=sid, rule=rule.id, verdict=v, rationale=why, source="check")
            if judge is not None and (rule.judge == "prefer" or (rule.judge == "fallback" and v == "NEEDS_REVIEW")):
                for_judge.append(rule)
        judged = await judge.judge_turn(sit, for_judge, events, idx, episode) if judge is not None and for_judge else None
        verdicts.extend(_decide(rules, checked, for_judge, judged, turn, sid))
    return verdicts


def _decide(rules, checked: dict[str, Verdict], for_judge, judged: list[Verdict] | None, turn: int, sid: str) -> list[Verdict]:
    """One verdict per rule, in ``rules`` order: the judge's for the rules it was asked about
    (a "prefer" rule falls back to its check when the judge gives no decided verdict), the
    check's for the others, UNJUDGED for a rule without a check when there is no judge."""
    asked = {r.id for r in for_judge}
    by_rule: dict[str, Verdict] = {}
    for v in judged or []:
        by_rule.setdefault(v.rule, v)
    out: list[Verdict] = []
    for rule in rules:
        c = checked.get(rule.id)
        j = by_rule.get(rule.id)
        if rule.id in asked and judged is not None:
            if j is not None and (c is None or j.verdict in ("FOLLOWED", "VIOLATED", "NOT_APPLICABLE")):
                out.append(j)
            elif c is not None:
                out.append(c.model_copy(update={"rationale": f"{c.rationale} (the judge gave no verdict)"}))
        elif c is not None:
            out.append(c)
        elif judged is None:
            out.append(Verdict(turn=turn, situation=sid, rule=rule.id, verdict="UNJUDGED", rationale="no judge model", source="none"))
    return out
