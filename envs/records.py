"""Typed records of what happens in an episode (pydantic: the single source of truth).

The transcript is a flat list of events in the order they happened. Each
carries the turn it belongs to: turn 0 is the user's opening message, and
turn N starts with the N-th agent message to the user.
"""

from __future__ import annotations

import json
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolCall(Record):
    # Left empty by callers that have no id; the episode assigns a deterministic one.
    id: str = ""
    name: str
    arguments: Union[dict[str, Any], str] = Field(default_factory=dict)

    def arguments_dict(self) -> dict[str, Any] | None:
        """The arguments as a dict, or None when they are not a JSON object."""
        if isinstance(self.arguments, dict):
            return self.arguments
        try:
            v = json.loads(self.arguments or "{}")
        except json.JSONDecodeError:
            return None
        return v if isinstance(v, dict) else None


class AgentAction(Record):
    """What the agent does in one step: a message to the user, or tool calls (or both)."""

    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    # Set by the LLM layer when the model's reply could not be parsed into an action.
    parse_error: str | None = None

    @field_validator("tool_calls", mode="before")
    @classmethod
    def _one_or_many(cls, v: Any) -> Any:
        return [v] if isinstance(v, dict) else v

    @classmethod
    def say(cls, text: str) -> "AgentAction":
        return cls(content=text)

    @classmethod
    def call(cls, name: str, **arguments: Any) -> "AgentAction":
        return cls(tool_calls=[ToolCall(name=name, arguments=arguments)])


class EpisodeId(Record):
    """Which episode this is: handed to every actor and to the judge (no hidden context)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_id: str
    """The task's id."""
    repeat: int = 0
    """Which repeat of the task (0-based)."""
    seed: int = 0
    """The episode's seed (derived from the run seed, the task and the repeat)."""

    def __str__(self) -> str:
        return f"{self.task_id}#{self.repeat}"


class UserEvent(Record):
    kind: Literal["user"] = "user"
    turn: int
    content: str
    situation: str | None = None
    stop: bool = False


class AgentEvent(Record):
    kind: Literal["agent"] = "agent"
    turn: int
    content: str


class ToolEvent(Record):
    """A tool call and its result; `side` says whose tool it was."""

    kind: Literal["tool"] = "tool"
    turn: int
    side: Literal["agent", "user"] = "agent"
    call: ToolCall
    output: str
    ok: bool = True
    error_kind: str | None = None


class ErrorEvent(Record):
    """An agent error that did not become a tool call (e.g. an unparseable reply)."""

    kind: Literal["error"] = "error"
    turn: int
    role: str
    message: str


Event = Union[UserEvent, AgentEvent, ToolEvent, ErrorEvent]


class RowChange(Record):
    key: dict[str, Any]
    # column -> {"actual": ..., "expected": ...}
    columns: dict[str, dict[str, Any]] = Field(default_factory=dict)


class TableDiff(Record):
    table: str
    # Rows present in the actual state but not in the goal (added by mistake) ...
    unexpected: list[dict[str, Any]] = Field(default_factory=list)
    # ... rows the goal has that the actual state lacks ...
    missing: list[dict[str, Any]] = Field(default_factory=list)
    # ... and rows on both sides whose columns differ.
    changed: list[RowChange] = Field(default_factory=list)

    def is_empty(self) -> bool:
        return not (self.unexpected or self.missing or self.changed)


class OutputCheck(Record):
    """One required output, matched as a value of its kind (graders/outcome/outputs.py)."""

    output: str
    """The output as the task writes it."""
    found: bool
    turn: int | None = None
    """The turn of the first agent message that states it."""
    kind: str = "text"
    """date, money, id, quantity or text."""
    expected: str = ""
    """The expected value, canonical: 2026-06-18, $49.50, 3."""
    closest: str | None = None
    """The agent's own words for it when found; else the nearest value of the same kind the
    agent said (the nearest date, amount, id; the most similar sentence); None when it said
    none."""


class AssertionResult(Record):
    type: str
    description: str = ""
    result: Literal["pass", "fail", "needs_review"]
    evidence: str = ""
    turn: int | None = None


class Grade(Record):
    reward: float
    state_match: bool
    outputs_ok: bool
    diff: list[TableDiff] = Field(default_factory=list)
    outputs: list[OutputCheck] = Field(default_factory=list)
    assertions: list[AssertionResult] = Field(default_factory=list)


class Verdict(Record):
    turn: int
    situation: str | None
    rule: str
    # UNJUDGED: the rule has no deterministic check and no judge model was given.
    verdict: Literal["FOLLOWED", "VIOLATED", "NEEDS_REVIEW", "NOT_APPLICABLE", "UNJUDGED"]
    rationale: str = ""
    source: Literal["check", "judge", "none"] = "check"


class Usage(Record):
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    # None when the model has no known price.
    cost: float | None = 0.0
    cached_calls: int = 0


class EpisodeRecord(Record):
    episode_id: str
    task_id: str
    domain: str
    repeat: int
    seed: int
    status: Literal["ok", "error"] = "ok"
    # error: infrastructure failures (retries exhausted, a crash in the engine).
    error: str | None = None
    error_role: str | None = None
    error_kind: str | None = None
    termination: str | None = None  # user_stop | transfer | max_turns | max_steps | error
    reward: float = 0.0
    grade: Grade | None = None
    transcript: list[Event] = Field(default_factory=list)
    verdicts: list[Verdict] = Field(default_factory=list)
    agent_errors: int = 0
    usage: dict[str, Usage] = Field(default_factory=dict)
    actors: dict[str, str] = Field(default_factory=dict)
    timings: dict[str, float] = Field(default_factory=dict)
    started_at: str | None = None
