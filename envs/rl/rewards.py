"""Rewards with parts: the outcome, plus optional dense parts, each with a weight the caller sets.

Parts (each recorded apart, so a user sees which one moved):

* ``outcome``: the episode's reward (1/0 from the state diff and required outputs), at the last turn;
  an errored episode's outcome is 0.
* ``violations``: one unit per VIOLATED rule verdict, on the turn of the reply judged (dense);
* ``milestones``: one unit per passed ``tool_called`` / ``tool_called_before`` assertion, on the turn
  its evidence names (ordered tool calls, as ToolSandbox scores milestones);
* ``minefields``: one unit per failed ``tool_not_called`` assertion (a forbidden tool called), on its turn;
* ``tokens``: the agent's tokens (prompt + completion) in thousands, at the last turn;
* ``turns``: the agent's turns used, at the last turn.

A part's value is units x weight; the default weights (outcome 1, the rest 0) give tau-bench's reward.
Turns are agent turns: agent turn N is the tool calls and the message that end with the N-th agent
message (turn 0 is the user's opening); a reply judged on turn N, or a tool call made on the way to
it, earns its part there.
"""

from __future__ import annotations

from collections import defaultdict

from pydantic import BaseModel, ConfigDict, Field

from envs.errors import SpecError
from envs.records import EpisodeRecord

PARTS = ("outcome", "violations", "milestones", "minefields", "tokens", "turns")


class RewardWeights(BaseModel):
    """The weight of each reward part (a penalty is a negative weight)."""

    model_config = ConfigDict(extra="forbid")

    outcome: float = 1.0
    """Weight of the 1/0 outcome."""
    violations: float = 0.0
    """Per VIOLATED rule verdict (e.g. -0.1)."""
    milestones: float = 0.0
    """Per milestone reached (a passed tool_called / tool_called_before assertion)."""
    minefields: float = 0.0
    """Per minefield hit (a failed tool_not_called assertion), e.g. -0.5."""
    tokens: float = 0.0
    """Per thousand agent tokens, e.g. -0.01."""
    turns: float = 0.0
    """Per agent turn used, e.g. -0.01."""

    @classmethod
    def parse(cls, text: str | None) -> "RewardWeights":
        """``"outcome=1,violations=-0.1"`` as weights (one-line SpecError on a bad entry)."""
        if not text:
            return cls()
        values: dict[str, float] = {}
        for item in filter(None, (x.strip() for x in text.split(","))):
            key, eq, val = item.partition("=")
            if not eq or key.strip() not in PARTS:
                raise SpecError(f"--weights: {item!r}: expected PART=NUMBER with PART one of {', '.join(PARTS)}")
            try:
                values[key.strip()] = float(val)
            except ValueError:
                raise SpecError(f"--weights: {key.strip()}: {val!r} is not a number") from None
        return cls(**values)


class RewardParts(BaseModel):
    """An episode's reward, split into parts, and where each part was earned."""

    model_config = ConfigDict(extra="forbid")

    total: float
    """The sum of the weighted parts."""
    parts: dict[str, float]
    """Weighted value of each part (every part listed, zero when it did not move)."""
    units: dict[str, float]
    """Unweighted count of each part (verdicts, milestones, thousands of tokens, ...)."""
    per_turn: dict[int, float] = Field(default_factory=dict)
    """The total split by the agent turn it was earned on (dense reward; sums to ``total``)."""
    last_turn: int = 0
    """The episode's last agent turn (where outcome, tokens and turns are credited)."""


def reward_parts(rec: EpisodeRecord, weights: RewardWeights | None = None) -> RewardParts:
    """The weighted reward parts of one finished episode record."""
    w = weights or RewardWeights()
    # An agent message of turn N ends agent turn N; the tool calls before it carry the same turn.
    last = max([e.turn for e in rec.transcript if e.kind == "agent" or (e.kind == "tool" and e.side == "agent")], default=0)
    units: dict[str, float] = {p: 0.0 for p in PARTS}
    per_turn: dict[int, float] = defaultdict(float)

    def credit(part: str, n: float, turn: int | None) -> None:
        units[part] += n
        per_turn[last if turn is None else turn] += n * getattr(w, part)

    credit("outcome", rec.reward if rec.status == "ok" else 0.0, last)
    for v in rec.verdicts:
        if v.verdict == "VIOLATED":
            credit("violations", 1, v.turn)
    for a in rec.grade.assertions if rec.grade else []:
        turn = a.turn  # a tool call's turn is the agent turn it belongs to
        if a.type in ("tool_called", "tool_called_before") and a.result == "pass":
            credit("milestones", 1, turn)
        elif a.type == "tool_not_called" and a.result == "fail":
            credit("minefields", 1, turn)
    u = rec.usage.get("agent")
    if u is not None:
        credit("tokens", (u.prompt_tokens + u.completion_tokens) / 1000.0, last)
    credit("turns", float(last), last)
    parts = {p: units[p] * getattr(w, p) for p in PARTS}
    return RewardParts(
        total=sum(parts.values()),
        parts=parts,
        units=units,
        per_turn={t: v for t, v in sorted(per_turn.items()) if v},
        last_turn=last,
    )
