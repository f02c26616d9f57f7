"""The YAML specs (tasks, personas, situations, rules), validated by pydantic.

Long because every spec file's fields live here with a docstring each, so a reader finds what any
YAML field means in one place (the loading is elsewhere).

A bad file fails at load with one line naming the file, the field and the
reason (``SpecError``); the CLI prints that line, never a traceback. Reading
a file into these models (strict YAML, ``load_one``, ``load_list``) is
``envs.spec.loading``.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Literal, Union

from envs.errors import SpecError  # noqa: F401  (re-exported: specs raise it)
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


# --- personas -----------------------------------------------------------------


class Persona(Spec):
    """A simulated user's character: one value per dimension, plus style notes."""

    id: str
    name: str | None = None
    dimensions: dict[str, str] = Field(default_factory=dict)
    style: str = ""


# --- tasks ----------------------------------------------------------------------


class HiddenFact(Spec):
    """A fact the user only reveals once the agent asks for it.

    ``topic`` names one of the domain's topics (its ``topics.yaml``): the agent asked
    when a question or request of its message is about that topic, in any wording.
    ``asked_by`` are optional extra words (any of them in the message also counts).
    At least one of the two is given; the domain checks the topic exists at load."""

    id: str
    fact: str
    topic: str | None = None
    asked_by: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _how_asked(self) -> "HiddenFact":
        if not self.topic and not self.asked_by:
            raise ValueError("a hidden fact needs a `topic` (or `asked_by` words)")
        return self


class UserToolUse(Spec):
    """A user tool the simulated user calls when the agent asks it to (or at a turn).

    ``arguments`` values may hold ``{entity}`` placeholders (entities of the domain's
    topics.yaml, e.g. ``{order_id}``), resolved from the episode: what the user has said,
    else the scenario's facts. A required parameter named like an entity and left out
    is filled the same way. Validated against the tool's schema when the task loads."""

    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    # Called when the agent asks about this topic (any wording), or its message contains
    # any of ``when_asked``; neither given = on the first turn.
    topic: str | None = None
    when_asked: list[str] = Field(default_factory=list)
    # What the user then says; "{result}" is replaced by the tool's output.
    say: str = "I checked: {result}"


class MindChange(Spec):
    """The user changes what they want the first time the agent proposes something.

    Triggered by an agent message of kind ``act`` (``confirm``: a "shall I ...?" request;
    ``refusal``; ``done``: the agent's report once the user has agreed to a change, i.e. a
    change of mind after the action; ``any``) about ``topic`` (any topic when none), or containing
    any of ``when_asked``. At least one of ``topic``, ``when_asked`` or an ``act`` other than any."""

    when_asked: list[str] = Field(default_factory=list)
    topic: str | None = None
    act: Literal["confirm", "refusal", "done", "any"] = "any"
    say: str

    @model_validator(mode="after")
    def _trigger(self) -> "MindChange":
        if not self.when_asked and not self.topic and self.act == "any":
            raise ValueError("a mind change needs `topic`, `when_asked` or `act`")
        return self


class Scenario(Spec):
    goal: str
    # The user's own words for the request (scripted user's opening line; LLM user's starting point).
    request: str
    # Further requests of the same conversation, in the user's words, raised one at a time: the
    # next once the agent has handled the one before (done it, refused it, or asked "anything else?").
    more_requests: list[str] = Field(default_factory=list)
    known_facts: list[str] = Field(default_factory=list)
    hidden_facts: list[HiddenFact] = Field(default_factory=list)
    situations: list[str] = Field(default_factory=lambda: ["cooperative"])
    max_turns: int = Field(default=12, ge=1, le=200)
    user_tools: list[UserToolUse] = Field(default_factory=list)
    mind_change: MindChange | None = None
    # Does the user agree when the agent asks for confirmation?
    accepts: bool = True
    # The user considers the goal met (or refused) once an agent message contains any of these.
    done_when: list[str] = Field(default_factory=list)


class RowUpdate(Spec):
    table: str
    where: dict[str, Any] = Field(min_length=1)
    set: dict[str, Any] = Field(min_length=1)


class RowInsert(Spec):
    table: str
    row: dict[str, Any] = Field(min_length=1)


class RowDelete(Spec):
    table: str
    where: dict[str, Any] = Field(min_length=1)


class InitialStatePatch(Spec):
    update: list[RowUpdate] = Field(default_factory=list)
    insert: list[RowInsert] = Field(default_factory=list)
    delete: list[RowDelete] = Field(default_factory=list)

    def is_empty(self) -> bool:
        return not (self.update or self.insert or self.delete)


class Action(Spec):
    """A tool call, as annotated in a task (``kwargs`` accepted as tau-bench spells it)."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _kwargs_alias(cls, v: Any) -> Any:
        if isinstance(v, dict) and "kwargs" in v and "arguments" not in v:
            v = dict(v)
            v["arguments"] = v.pop("kwargs")
        return v


AssertionType = Literal[
    "transcript_contains",
    "transcript_not_contains",
    "transcript_contains_any",
    "tool_called",
    "tool_not_called",
    "tool_called_before",
    "llm_judge",
]


class AssertionSpec(Spec):
    type: AssertionType
    # transcript_*: the text (or texts, for contains_any); regex if `regex: true`.
    text: str | None = None
    texts: list[str] = Field(default_factory=list)
    regex: bool = False
    # Whose messages: agent (default), user, or all.
    speaker: Literal["agent", "user", "all"] = "agent"
    # tool_*: the tool, optional argument subset that must match.
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    # tool_called_before: `tool` must be called before `before`.
    before: str | None = None
    # llm_judge: a yes/no question about the whole transcript (yes = pass).
    question: str | None = None
    description: str = ""
    # Part of the reward: a required assertion that fails makes the trial a failure, as an
    # unstated required output does (what a task honestly requires the agent to do, such as
    # reading the order before declining). Deterministic types only: a reward never waits on a judge.
    required: bool = False

    @model_validator(mode="after")
    def _fields_for_type(self) -> "AssertionSpec":
        need = {
            "transcript_contains": ["text"],
            "transcript_not_contains": ["text"],
            "transcript_contains_any": ["texts"],
            "tool_called": ["tool"],
            "tool_not_called": ["tool"],
            "tool_called_before": ["tool", "before"],
            "llm_judge": ["question"],
        }[self.type]
        for f in need:
            if not getattr(self, f):
                raise ValueError(f"an assertion of type {self.type} needs `{f}`")
        if self.required and self.type == "llm_judge":
            raise ValueError("an llm_judge assertion cannot be `required` (a reward never waits on a judge)")
        return self


class RequiredOutput(Spec):
    """A fact the agent must state: a value of a kind (graders/outcome/outputs.py).

    Written ``{value: 2026-06-18, kind: date}`` or as the plain string, whose kind is
    then inferred (a bare ISO date is a date, "$49.50" money, "O-00042" an id, "3" a
    quantity, anything else text)."""

    value: str
    kind: Literal["date", "money", "id", "quantity", "text"] | None = None

    @model_validator(mode="before")
    @classmethod
    def _plain(cls, v: Any) -> Any:
        if not isinstance(v, dict):
            v = {"value": v}
        # YAML reads an unquoted 2026-06-18 as a date and 49.5 as a float
        if isinstance(v.get("value"), (dt.date, int, float)) and not isinstance(v.get("value"), bool):
            v = dict(v)
            v["value"] = v["value"].isoformat() if isinstance(v["value"], dt.date) else str(v["value"])
        return v

    @model_validator(mode="after")
    def _is_a_value(self) -> "RequiredOutput":
        from graders.outcome.outputs import validate_output  # the one parser of values

        validate_output(self.value, self.kind)
        return self


class Task(Spec):
    id: str
    domain: str
    description: str = ""
    persona: Union[str, Persona, None] = None
    scenario: Scenario
    initial_state: InitialStatePatch = Field(default_factory=InitialStatePatch)
    expected_actions: list[Action] = Field(default_factory=list)
    outputs: list[RequiredOutput] = Field(default_factory=list)
    # The policy sections (their headings in the domain's policy.md) the goal relies on;
    # checked against the policy when the domain loads its tasks.
    relies_on: list[str] = Field(default_factory=list)
    assertions: list[AssertionSpec] = Field(default_factory=list)
    # "table.column" pairs left out of the state comparison (timestamps, free text).
    ignore_columns: list[str] = Field(default_factory=list)
    # Which scripted agents this task is built to catch (documentation + tests).
    catches: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    # Domain-specific extras (e.g. the tutoring problem id); opaque to the engine.
    extra: dict[str, Any] = Field(default_factory=dict)

    @field_validator("ignore_columns")
    @classmethod
    def _table_dot_column(cls, v: list[str]) -> list[str]:
        for item in v:
            if item.count(".") != 1:
                raise ValueError(f"{item!r} must be written table.column")
        return v


_HEADING = re.compile(r"^#{1,6}\s+(?:\d+(?:\.\d+)*\.?\s+)?(.+?)\s*#*\s*$", re.M)


def policy_headings(policy: str) -> set[str]:
    """The section headings of a policy in Markdown, as ``relies_on`` names them: the
    heading's text without its number ("## 3. Cases" is "Cases")."""
    out = set()
    for m in _HEADING.finditer(policy):
        out.add(m.group(1))
        out.add(m.group(1).split(" (")[0])  # "Escalation (`escalate_to_human`, ...)" is "Escalation"
    return out


# --- situations and rules -------------------------------------------------------


class LineFit(Spec):
    """Where a scripted line fits (envs/actors/enactment.py); a line without one fits anywhere.

    ``at``: ``opening`` (first message only), ``later`` (never the first), ``pause`` (when the
    user comes back from checking something, or was asked to wait: where a person says what
    happened meanwhile), ``any``.
    ``answering``: only when the message answers something the agent asked.
    ``telling``: only when the message tells something the agent asked for (an email, a number, what
    happened), not where it decides a proposal or a choice ("Had to hunt around for that." before a
    yes to a refund belongs to no moment).
    ``warm``: thanks or a kind word; never said by a cold persona, after a cold turn, or in answer to a refusal.
    ``after_help``: thanks for help, only right after the agent did something for the user (a call that
    changes the state, since the user's last message).
    ``after_change``: only once the user has changed its mind ("sorry, I keep going back and forth").
    ``deciding``: only where the user has something to decide (a proposal, a choice, its change of
    mind): "hmm, let me think" before its own email address is a person unsure of it.
    ``after_refusal``: only once the agent has refused something this conversation (this message or
    an earlier one): "You'd do it for anyone else." pushes back on a no, and before one is anger from nowhere.
    ``when``: only from a persona with these dimension values (an aside is that person's own).
    ``reacts_to``: only where the message reacts to one of these (``opening``: the complaint itself;
    ``refusal``: the agent's no; ``delay``: a wait the agent named; ``again``: a question it answered
    already; ``wait``: no progress, or a long wait with nothing done): a mood said about what happened,
    not a tag that fits any message ("Chop chop." after an email address, "Get this right for once!"
    before anything went wrong).
    ``about``: only where the request in hand matches this pattern (case-insensitive): the line is
    about the matter itself ("Does anyone check these before they go out?" for a damaged item, never
    for a cancellation)."""

    at: Literal["any", "opening", "later", "pause"] = "any"
    reacts_to: list[Literal["opening", "refusal", "delay", "again", "wait"]] = Field(default_factory=list)
    about: str = ""
    answering: bool = False
    telling: bool = False
    warm: bool = False
    after_help: bool = False
    after_change: bool = False
    deciding: bool = False
    after_refusal: bool = False
    when: dict[str, str] = Field(default_factory=dict)


class ScriptedLines(Spec):
    """How the offline scripted user plays a situation: lines around its message.

    One fitting line of each list is picked with the episode's seed ("" plays the
    situation with no line); ``fits`` says where a line fits (keyed by the line's text).
    ``withhold`` makes the user keep its known facts back on the opening (a customer who
    withholds a detail); ``cold`` marks an angry or curt mood, after which warm lines
    are not said, and whose lines react to something: the opening's complaint, or what the
    agent just did (a refusal, a delay, a question asked again, a long wait), one line a
    message; elsewhere the mood is in the words alone (``voice``). ``at: opening``: the
    situation lives in how the request is first put (a loosely worded request); drawn later
    it cannot be played, and the turn is labelled with what was played ("Not sure how to
    put this. Yes, go ahead." is no ambiguous request).
    """

    prefix: list[str] = Field(default_factory=list)
    suffix: list[str] = Field(default_factory=list)
    at: Literal["any", "opening"] = "any"
    withhold: bool = False
    cold: bool = False
    fits: dict[str, LineFit] = Field(default_factory=dict)
    voice: dict[str, str] = Field(default_factory=dict)
    """Persona dimension values the user's own words take while this situation plays (an angry
    turn's yes, facts and "I don't know" in the angry register): the mood in its own words, not a
    stock line glued to a plain answer."""
    per_episode: int = 0
    """At most this many of the situation's lines in one episode (0: no limit but the repertoire):
    a person makes small talk once, not on every message."""
    aside: bool = False
    """The lines are asides (small talk): a message with one carries no other (the persona's own
    chatty aside in the opening is left out)."""
    reacts: bool = False
    """The lines react to something, as a cold mood's do (the opening's request, a refusal, a wait):
    "Do the decent thing." belongs after a refusal, not after an email address."""

    @model_validator(mode="after")
    def _fits_name_lines(self) -> "ScriptedLines":
        for line in self.fits:
            if line not in self.prefix and line not in self.suffix:
                raise ValueError(f"fits: {line!r} is neither a prefix nor a suffix line")
        return self


class Situation(Spec):
    id: str
    description: str
    how_to_play: str
    rules: list[str] = Field(default_factory=list)
    scripted: ScriptedLines = Field(default_factory=ScriptedLines)


class RuleCheck(Spec):
    """A deterministic check of one agent reply (the check registry: graders/rules/registry.py; the generic checks in graders/rules/checks.py, a domain's own in its package)."""

    type: str
    params: dict[str, Any] = Field(default_factory=dict)


class Rule(Spec):
    id: str
    # A short name for tables ("clarify ambiguity"); reports derive one from ``text`` when absent.
    name: str | None = None
    category: str
    text: str
    violation: str
    good_example: str
    bad_example: str
    check: RuleCheck | None = None
    # When the rule's condition arises, read from the dialogue (graders/rules/conditions.py): where
    # it does not, the rule is NOT_APPLICABLE on that reply, before any check or judge is asked.
    condition: RuleCheck | None = None
    # Also judged when the agent answers a turn only by handing the conversation over (a
    # terminal tool such as a transfer to a human), for rules about what to do, e.g. "escalate
    # when asked". Rules about what the reply says are not: there is no reply.
    on_handoff: bool = False
    # When a judge model is given, who decides a rule that also has a check: "prefer" (the judge;
    # the check only where the judge gives no verdict), "fallback" (the check; the judge only where
    # the check cannot decide) or "never" (the check alone). Rules without a check ask the judge.
    judge: Literal["prefer", "fallback", "never"] = "fallback"
    # A rule whose condition is every reply ("never read out the customer's address"): judged in
    # every situation, as though each situation listed it (Domain.situations adds it).
    every_situation: bool = False
