"""Re-grading a saved run: the logic behind ``python -m envs.regrade RUN_DIR``.

For each recorded episode, ``regrade_record``:

1. rebuilds the final state by replaying the recorded tool calls (agent and user, in transcript
   order) on the task's initial state, and compares each replayed output with the recorded one
   (a difference is a *replay mismatch*: the tools or the data changed since the run);
2. grades the rebuilt state with the current outcome graders and compares it with the recorded
   grade (reward, state match, row diff, outputs): a difference is reported, never hidden;
3. re-grades and re-judges through ``graders.evaluate`` (the current checks, the current judge
   when one is given) and returns the new record with what changed.

No agent or user model is called: the transcript is taken as it was. An episode recorded as an
infrastructure error has no final state worth grading; it is kept as it was and counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from envs.domain import Domain
from envs.records import EpisodeId, EpisodeRecord, Grade, ToolEvent, Verdict
from envs.state.database import EpisodeState
from graders import evaluate


@dataclass
class EpisodeChange:
    """What re-grading did to one episode (one entry of ``regrade.json``)."""

    episode_id: str
    task_id: str
    repeat: int
    status: str
    """regraded | kept_error (an errored episode, copied as it was) | failed (see ``problem``)."""
    old_reward: float | None = None
    new_reward: float | None = None
    replay_mismatches: list[str] = field(default_factory=list)
    """Recorded tool calls whose replayed output or ok flag differs from the recording."""
    recorded_grade_reproduced: bool | None = None
    """The rebuilt state, graded now, gives the recorded reward, state match, diff and outputs."""
    grade_differences: list[str] = field(default_factory=list)
    """Which parts of the recorded grade the rebuilt state does not reproduce."""
    verdict_changes: list[dict[str, Any]] = field(default_factory=list)
    """{turn, situation, rule, old, new, source}: verdicts that differ (old/new None: absent)."""
    assertion_changes: list[dict[str, Any]] = field(default_factory=list)
    """{index, type, old, new}: assertion results that differ."""
    problem: str | None = None

    @property
    def changed(self) -> bool:
        return bool(
            self.old_reward != self.new_reward
            or self.replay_mismatches
            or self.grade_differences
            or self.verdict_changes
            or self.assertion_changes
            or self.problem
        )

    def as_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items()}
        d["changed"] = self.changed
        return d


def replay(domain: Domain, rec: EpisodeRecord, state: EpisodeState | None = None) -> tuple[EpisodeState, list[str]]:
    """The episode's final state rebuilt from its recorded tool calls, and the calls whose
    replayed output differs from the recorded one. ``state``, when given, is reloaded and
    reused (a reset costs far less than a new database); else a new one is made, which the
    caller closes."""
    task = domain.tasks[rec.task_id]
    if state is None:
        state = EpisodeState(domain.base, domain.initial_bytes(task))
    else:
        state.load(domain.initial_bytes(task))
    state.new_ids.seed = rec.seed  # the ids the episode's tools handed out
    mismatches: list[str] = []
    for i, ev in enumerate(rec.transcript):
        if not isinstance(ev, ToolEvent):
            continue
        tools = domain.agent_tools if ev.side == "agent" else domain.user_tools
        out = tools.call(state.session, ev.call.name, ev.call.arguments)
        if out.output != ev.output or out.ok != ev.ok:
            mismatches.append(
                f"event {i} (turn {ev.turn}, {ev.side} tool {ev.call.name}): recorded "
                f"{'ok' if ev.ok else 'error'} {_short(ev.output)!r}, replayed {'ok' if out.ok else 'error'} {_short(out.output)!r}"
            )
    return state, mismatches


def _short(s: str, n: int = 80) -> str:
    return s if len(s) <= n else s[: n - 3] + "..."


def grade_differences(old: Grade | None, new: Grade) -> list[str]:
    """The parts of the recorded outcome grade that ``new`` does not reproduce (assertions are
    compared apart, since llm_judge ones depend on the judge)."""
    if old is None:
        return ["no recorded grade"]
    out = []
    for name in ("reward", "state_match", "outputs_ok"):
        if getattr(old, name) != getattr(new, name):
            out.append(f"{name}: recorded {getattr(old, name)}, now {getattr(new, name)}")
    if [d.model_dump() for d in old.diff] != [d.model_dump() for d in new.diff]:
        out.append(f"diff: recorded {len(old.diff)} table(s) differing, now {len(new.diff)}")
    if [o.model_dump() for o in old.outputs] != [o.model_dump() for o in new.outputs]:
        out.append("outputs: the required-output checks differ")
    return out


def _verdict_key(v: Verdict) -> tuple:
    return (v.turn, v.situation, v.rule)


def verdict_changes(old: list[Verdict], new: list[Verdict]) -> list[dict[str, Any]]:
    """Verdicts added, removed, or changed (verdict, rationale or source), keyed by turn,
    situation and rule, in turn order."""
    a = {_verdict_key(v): v for v in old}
    b = {_verdict_key(v): v for v in new}
    out = []
    for key in sorted(a.keys() | b.keys(), key=lambda k: (k[0], str(k[1]), k[2])):
        va, vb = a.get(key), b.get(key)
        if va is not None and vb is not None and (va.verdict, va.rationale, va.source) == (vb.verdict, vb.rationale, vb.source):
            continue
        out.append(
            {
                "turn": key[0],
                "situation": key[1],
                "rule": key[2],
                "old": va.verdict if va else None,
                "new": vb.verdict if vb else None,
                "old_rationale": va.rationale if va else None,
                "new_rationale": vb.rationale if vb else None,
                "source": (vb or va).source,
            }
        )
    return out


async def regrade_record(
    domain: Domain, rec: EpisodeRecord, judge: Any = None, state: EpisodeState | None = None
) -> tuple[EpisodeRecord, EpisodeChange]:
    """The record re-graded now (a copy; ``rec`` is not changed) and what changed. ``state``:
    a database to reuse (kept open), else one is made and closed here.

    The outcome parts of the new grade (reward, state match, diff, outputs) depend on the
    rebuilt state only, never on the judge, so comparing them with the recorded grade says
    whether the replay reproduced the episode's end."""
    ch = EpisodeChange(rec.episode_id, rec.task_id, rec.repeat, "regraded", old_reward=rec.reward)
    if rec.status == "error":
        ch.status, ch.new_reward = "kept_error", rec.reward
        return rec.model_copy(deep=True), ch
    task = domain.tasks.get(rec.task_id)
    if task is None:
        ch.status, ch.problem = "failed", f"task {rec.task_id!r} is no longer in domain {domain.name}"
        return rec.model_copy(deep=True), ch
    own = state is None
    state, ch.replay_mismatches = replay(domain, rec, state)
    try:
        ev = await evaluate(domain, task, state, rec.transcript, judge, EpisodeId(task_id=rec.task_id, repeat=rec.repeat, seed=rec.seed),
                            termination=rec.termination)
    finally:
        if own:
            state.close()
    ch.grade_differences = grade_differences(rec.grade, ev.grade)
    ch.recorded_grade_reproduced = not ch.grade_differences
    new = rec.model_copy(deep=True)
    new.grade, new.verdicts, new.reward = ev.grade, ev.verdicts, ev.grade.reward
    new.timings = {**rec.timings, **{f"regrade_{k}": v for k, v in ev.timings.items()}}
    ch.new_reward = new.reward
    ch.verdict_changes = verdict_changes(rec.verdicts, new.verdicts)
    old_as = rec.grade.assertions if rec.grade else []
    for i in range(max(len(old_as), len(new.grade.assertions))):
        oa = old_as[i] if i < len(old_as) else None
        na = new.grade.assertions[i] if i < len(new.grade.assertions) else None
        if (oa and oa.model_dump()) != (na and na.model_dump()):
            ch.assertion_changes.append(
                {"index": i, "type": (na or oa).type, "old": oa.result if oa else None, "new": na.result if na else None}
            )
    return new, ch


def changes_report(changes: list[EpisodeChange], source: str, judge: str | None, rules_file: str | None) -> dict[str, Any]:
    """``regrade.json``: totals first, then one entry per episode (unchanged ones included)."""
    n = len(changes)
    return {
        "source_run": source,
        "judge": judge,
        "rules_file": rules_file,
        "episodes": n,
        "regraded": sum(c.status == "regraded" for c in changes),
        "kept_errors": sum(c.status == "kept_error" for c in changes),
        "failed": sum(c.status == "failed" for c in changes),
        "changed": sum(c.changed for c in changes),
        "reward_changed": sum(c.old_reward != c.new_reward for c in changes),
        "verdicts_changed": sum(len(c.verdict_changes) for c in changes),
        "replay_mismatches": sum(len(c.replay_mismatches) for c in changes),
        "recorded_grade_not_reproduced": sum(c.recorded_grade_reproduced is False for c in changes),
        "per_episode": [c.as_dict() for c in changes],
    }
