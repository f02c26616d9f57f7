"""Who caused each failed or errored episode, with its evidence.

``episode_cause(rec, task, domain, flags)`` decides by deterministic rules, first match wins:

1. ``infrastructure``: the episode ended in an error (retries exhausted, a model or the
   engine failing): the record's error; ``budget``: a per-episode budget (tokens, cost,
   seconds) ended it before it finished: the budget, not the agent;
2. ``environment``: a tool failed on arguments it had accepted (it crashed, as opposed to
   refusing by the domain's rules or rejecting bad arguments);
3. ``task``: the goal cannot be reached (one of the task's own expected actions fails when
   replayed), or a required output (an id or a text; dates, amounts and counts may have to
   be computed) that the agent did not state is shown by nothing it could have read: no
   tool output of the episode, no output of the goal's actions, no user message, not the
   policy;
4. ``user_simulator``: a causal simulator flag (``graders.simulator.CAUSAL_FLAGS``: a spoken
   tool error, an unanswered question, a premature stop, a contradiction of the situation)
   fired before the agent's first wrong action (anywhere, when it made none);
5. ``agent``: extra, wrong or missing actions, required outputs not stated, rules violated,
   assertions failed, rows differing from the goal. ``strength`` is ``strong`` when an
   action, a verdict or an assertion names the fault, ``weak`` when only the diff does;
   ``unknown`` when nothing shows one.

``review_causes`` (async) has an LLM review the episodes the rules leave as weak ``agent``
or ``unknown``; its verdicts replace those causes and say ``source: reviewer``.
"""

from __future__ import annotations

from typing import Any

from envs.records import AgentEvent, EpisodeCause, EpisodeRecord, ToolEvent, UserEvent
from graders.outcome.in_words import call_args
from graders.simulator import CAUSAL_FLAGS, FlagHit, snippet

# Output kinds an agent may have to compute rather than read (not blamed on the task when unshown).
DERIVABLE = ("date", "money", "quantity")
CAUSES = ("agent", "user_simulator", "task", "environment", "infrastructure", "budget", "unknown")


def failed(rec: EpisodeRecord) -> bool:
    return not (rec.status == "ok" and rec.reward >= 1.0)


def _matches(got: dict | None, expected: dict) -> bool:
    if got is None:
        return False
    return all(str(got.get(k)) == str(v) for k, v in expected.items())


def _agent_calls(rec: EpisodeRecord) -> list[ToolEvent]:
    return [e for e in rec.transcript if isinstance(e, ToolEvent) and e.side == "agent"]


def _goal_outputs(domain: Any, task: Any) -> list[str]:
    """The outputs of the task's expected actions replayed on a fresh copy (cached per task)."""
    cache = getattr(domain.cache, "_goal_outputs", None)
    if cache is None:
        cache = {}
        object.__setattr__(domain.cache, "_goal_outputs", cache)
    if task.id not in cache:
        from envs.state.database import EpisodeState

        st = EpisodeState(domain.base, domain.initial_bytes(task))
        try:
            outs = []
            for a in task.expected_actions:
                tools = domain.agent_tools if a.name in domain.agent_tools else domain.user_tools
                outs.append(tools.call(st.session, a.name, a.arguments).output)
        finally:
            st.close()
        cache[task.id] = outs
    return cache[task.id]


def _unshown_outputs(rec: EpisodeRecord, task: Any, domain: Any) -> list[str]:
    """Required outputs the agent did not state that nothing it could read shows."""
    from graders.outcome.outputs import check_outputs

    missing = [o for o in (rec.grade.outputs if rec.grade else []) if not o.found]
    if not missing or task is None:
        return []
    texts = [e.output for e in rec.transcript if isinstance(e, ToolEvent)]
    texts += [e.content for e in rec.transcript if isinstance(e, UserEvent)]
    texts += list(task.scenario.known_facts) + [f.fact for f in task.scenario.hidden_facts]
    if domain is not None:
        texts += _goal_outputs(domain, task) + [domain.policy]
    # The grader's own matching rule, applied as if each text had been said by the agent.
    shown = [AgentEvent(turn=0, content=t) for t in texts if t]
    specs = {o.value: o for o in task.outputs}
    out = []
    for m in missing:
        spec = specs.get(m.output)
        # a date, amount or count may be computed from what the tools show (delivery + 30 days)
        if spec is None or m.kind in DERIVABLE:
            continue
        if not check_outputs([spec], shown, getattr(domain, "outputs_mode", "normalised"))[0].found:
            out.append(m.output)
    return out


def _agent_evidence(rec: EpisodeRecord, task: Any, domain: Any) -> tuple[list[str], list[str], int | None]:
    """(strong evidence, weak evidence, turn of the first wrong action)."""
    strong, weak = [], []
    first_wrong: int | None = None
    expected = list(task.expected_actions) if task is not None else []
    calls = _agent_calls(rec)
    ok_calls = [c for c in calls if c.ok]
    if task is not None and domain is not None:
        for c in ok_calls:
            tool = domain.agent_tools.tools.get(c.call.name)
            if tool is None or not getattr(tool, "mutates", False):
                continue
            if not any(a.name == c.call.name and _matches(c.call.arguments_dict(), a.arguments) for a in expected):
                strong.append(f"turn {c.turn}: extra or wrong action {c.call.name}({snippet(call_args(c.call.arguments), 120)})")
                first_wrong = c.turn if first_wrong is None else first_wrong
        for a in expected:
            tool = domain.agent_tools.tools.get(a.name)
            # a read the agent skipped changes no row: the diff or a missing output shows what it cost
            if tool is not None and getattr(tool, "mutates", False) and not any(
                c.call.name == a.name and _matches(c.call.arguments_dict(), a.arguments) for c in ok_calls
            ):
                strong.append(f"missing action {a.name}({snippet(call_args(a.arguments), 120)})")
    for v in rec.verdicts:
        if v.verdict == "VIOLATED":
            strong.append(f"turn {v.turn}: {v.rule} violated ({snippet(v.rationale, 80)})")
    for a in rec.grade.assertions if rec.grade else []:
        if a.result == "fail":
            strong.append(f"turn {a.turn}: assertion {a.type} failed ({snippet(a.evidence, 80)})")
    g = rec.grade
    if g is not None:
        missing = [o.output for o in g.outputs if not o.found]
        if missing:
            strong.append(f"required outputs not stated: {', '.join(missing)}")
        if g.diff:
            from graders.outcome.in_words import diff_in_words, join_phrases

            weak.append("state differs from the goal: " + join_phrases(diff_in_words(g.diff), 200))
    return strong, weak, first_wrong


def _flag_names(flags: dict[str, list[FlagHit]] | None) -> list[str]:
    return sorted(k for k, v in (flags or {}).items() if v)


def episode_cause(
    rec: EpisodeRecord, task: Any = None, domain: Any = None, flags: dict[str, list[FlagHit]] | None = None
) -> EpisodeCause | None:
    """The cause of a failed or errored episode (None for a success); see the module docstring."""
    if not failed(rec):
        return None
    fired = _flag_names(flags)

    def cause(kind: str, evidence: list[str], strength: str = "strong") -> EpisodeCause:
        return EpisodeCause(
            episode_id=rec.episode_id, cause=kind, strength=strength, evidence=evidence[:8], simulator_flags=fired
        )

    if rec.status == "error":
        return cause("infrastructure", [f"error ({rec.error_role}:{rec.error_kind}): {snippet(rec.error or '', 200)}"])
    if rec.budget:  # a per-episode budget ended it (README: neither an error nor the agent's fault)
        return cause("budget", [f"{rec.termination}: {rec.budget}"])
    crashed = [e for e in rec.transcript if isinstance(e, ToolEvent) and e.error_kind == "crashed"]
    if crashed:
        return cause(
            "environment",
            [f"turn {e.turn}: {e.side} tool {e.call.name} failed on accepted arguments: {snippet(e.output, 100)}" for e in crashed],
        )
    if task is not None and domain is not None:
        problems = domain.goal(task)[2]
        if problems:
            return cause("task", [f"the goal cannot be reached: expected action {p}" for p in problems])
    unshown = _unshown_outputs(rec, task, domain)
    if unshown:
        return cause("task", [f"required output {o!r} is shown by no tool, no user message and not the policy" for o in unshown])
    strong, weak, first_wrong = _agent_evidence(rec, task, domain)
    causal = [
        (name, h)
        for name in CAUSAL_FLAGS
        for h in (flags or {}).get(name, [])
        # a user turn N answers agent reply N and comes before the tool calls of reply N + 1
        if h.causal and (first_wrong is None or (h.turn is not None and h.turn < first_wrong))
    ]
    if causal:
        ev = [f"turn {h.turn}: {name}: {h.evidence}" for name, h in causal]
        if first_wrong is not None:
            ev.append(f"before the agent's first wrong action (turn {first_wrong})")
        return cause("user_simulator", ev)
    if strong:
        return cause("agent", strong + weak)
    if weak:
        return cause("agent", weak, strength="weak")
    return cause("unknown", ["no error, no tool failure, no simulator flag and no agent fault found"], strength="weak")


# --- the LLM reviewer ----------------------------------------------------------------------

REVIEW_PROMPT = """You review one failed episode of a test of a conversational agent against a simulated user.
Decide who caused the failure. Answer one of:
- agent: the agent did something wrong, missed an action, or broke its policy;
- user_simulator: the simulated user did not play its task faithfully (withheld a fact it was asked for,
  contradicted itself or its situation, left too early, spoke tool errors);
- task: the task cannot be solved as written (a required fact no tool shows, an unreachable goal);
- environment: a tool misbehaved on valid input.
The user's goal: {goal}
What the graders found: {evidence}
The conversation:
{dialogue}
Reply with JSON only: {{"cause": "...", "rationale": "one or two sentences"}}"""

REVIEWABLE = ("agent", "user_simulator", "task", "environment")


def needs_review(c: EpisodeCause) -> bool:
    """The rules left it as ``unknown`` or as ``agent`` on weak evidence."""
    return c.cause == "unknown" or (c.cause == "agent" and c.strength == "weak")


def _dialogue(rec: EpisodeRecord, limit: int = 6000) -> str:
    lines = []
    for e in rec.transcript:
        if isinstance(e, UserEvent):
            lines.append(f"[turn {e.turn}] USER: {e.content}")
        elif isinstance(e, AgentEvent):
            lines.append(f"[turn {e.turn}] AGENT: {e.content}")
        elif isinstance(e, ToolEvent):
            lines.append(f"[turn {e.turn}] {e.side.upper()} TOOL {e.call.name}: {snippet(e.output, 200)}")
    text = "\n".join(lines)
    return text if len(text) <= limit else text[: limit // 2] + "\n...\n" + text[-limit // 2 :]


async def review_causes(
    records: list[EpisodeRecord], causes: dict[str, EpisodeCause], tasks: dict[str, Any], client: Any, endpoint: Any
) -> dict[str, EpisodeCause]:
    """The causes ``needs_review`` picks, reviewed by the model behind ``endpoint``
    (an ``envs.llm`` endpoint, through ``client.complete``). Returns episode id -> the
    reviewer's cause (``source: reviewer``); an unparseable reply keeps the rules' cause
    and says so in its evidence. Raises InfraError when the model cannot be reached."""
    from envs.llm.parsing import extract_json

    out: dict[str, EpisodeCause] = {}
    for rec in records:
        c = causes.get(rec.episode_id)
        if c is None or not needs_review(c):
            continue
        task = tasks.get(rec.task_id)
        prompt = REVIEW_PROMPT.format(
            goal=task.scenario.goal if task is not None else "?",
            evidence="; ".join(c.evidence),
            dialogue=_dialogue(rec),
        )
        done = await client.complete(endpoint, [{"role": "user", "content": prompt}], seed=rec.seed, repeat=rec.repeat)
        obj = extract_json(done.content)
        verdict = str(obj.get("cause", "")).strip() if isinstance(obj, dict) else ""
        if verdict not in REVIEWABLE:
            out[rec.episode_id] = c.model_copy(
                update={"evidence": c.evidence + [f"reviewer gave no usable cause: {snippet(done.content or '', 80)!r}"]}
            )
            continue
        why = str(obj.get("rationale", "")).strip()
        out[rec.episode_id] = c.model_copy(
            update={
                "cause": verdict,
                "source": "reviewer",
                "evidence": [f"reviewer: {snippet(why, 200)}"] + c.evidence,
            }
        )
    return out

