"""Typed records of what happens in an episode (pydantic: the single source of truth).

The transcript is a flat list of events in the order they happened. Each
carries the turn it belongs to: turn 0 is the user's opening message, and
turn N starts with the N-th agent message to the user.

Long (over 400 lines) as one file: it is the one home of the typed records, events, grades,
``EpisodeRecord`` and the ``RunSummary`` family, a list of small models with almost no logic
that the store, the graders and the reports all read; one file keeps the schema in one place.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolCall(Record):
    # Left empty by callers that have no id; the episode assigns a deterministic one.
    id: str = ""
    name: str
    arguments: Union[dict[str, Any], str] = Field(default_factory=dict)

    @field_validator("arguments", mode="before")
    @classmethod
    def _bounded(cls, v: Any) -> Any:
        # Whatever the agent sent is kept in a form the store can write and read back
        # (too deep, too large or unencodable: as capped JSON text; see envs.bounded).
        from envs.bounded import bounded_arguments

        return bounded_arguments(v)

    def arguments_dict(self) -> dict[str, Any] | None:
        """The arguments as a dict, or None when they are not a JSON object (or nest too deep to parse)."""
        if isinstance(self.arguments, dict):
            return self.arguments
        try:
            v = json.loads(self.arguments or "{}")
        except (ValueError, RecursionError):
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
    agent_seed: int | None = None
    """The seed sent to the agent's model, when it must differ from ``seed`` (grouped rollouts that
    share one user seed but want distinct agent samples); None: ``seed``."""
    user_seed: int | None = None
    """The seed sent to the simulated user's model, when it must differ from ``seed`` (``envs.variance``
    varies the user's sampling while the situations drawn from ``seed`` stay); None: ``seed``."""

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

_EVENT_KINDS = ("user", "agent", "tool", "error")


def _event_tag(v: Any) -> str:
    kind = v.get("kind") if isinstance(v, dict) else getattr(v, "kind", None)
    return kind if kind in _EVENT_KINDS else "other"


# An event read by its ``kind`` straight to its class (a record's transcript was most of its parse
# time when each event was tried against every class in turn); one without a known kind is matched
# as before, against every class.
TaggedEvent = Annotated[
    Union[
        Annotated[UserEvent, Tag("user")],
        Annotated[AgentEvent, Tag("agent")],
        Annotated[ToolEvent, Tag("tool")],
        Annotated[ErrorEvent, Tag("error")],
        Annotated[Event, Tag("other")],
    ],
    Discriminator(_event_tag),
]


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
    # The task made it part of the reward (AssertionSpec.required).
    required: bool = False


class Grade(Record):
    reward: float
    state_match: bool
    outputs_ok: bool
    # Every assertion the task marks ``required`` passed (True when it marks none).
    required_assertions_ok: bool = True
    diff: list[TableDiff] = Field(default_factory=list)
    outputs: list[OutputCheck] = Field(default_factory=list)
    assertions: list[AssertionResult] = Field(default_factory=list)
    # Why the episode failed whatever its state: it did not end as a conversation ends (the
    # ending named; graders.evaluate.unfinished). None when it did.
    unfinished: str | None = None


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
    termination: str | None = None  # user_stop | transfer | max_turns | max_steps | error | budget_*
    reward: float = 0.0
    grade: Grade | None = None
    transcript: list[TaggedEvent] = Field(default_factory=list)
    verdicts: list[Verdict] = Field(default_factory=list)
    agent_errors: int = 0
    usage: dict[str, Usage] = Field(default_factory=dict)
    actors: dict[str, str] = Field(default_factory=dict)
    timings: dict[str, float] = Field(default_factory=dict)
    started_at: str | None = None
    # The first turn at which the episode's state held every change of the task's goal
    # (None: never, or the goal changes nothing).
    goal_met_turn: int | None = None
    # Which budget ended the episode, at what figure (termination budget_tokens | budget_cost |
    # budget_seconds); such an episode did not finish and is graded as a failed trial.
    budget: str | None = None
    # 1 for the first play of (task, repeat); each replay of an errored episode (--retry-errors,
    # --resume) is the next attempt. Earlier attempts stay in the store, superseded by the last.
    attempt: int = 1


class EpisodeOutcome(BaseModel):
    """The few fields of an ``EpisodeRecord`` that a per-task success count needs (``envs.compare``
    reads a run's records as these: the rest of each line is skipped, not built)."""

    model_config = ConfigDict(extra="ignore")
    task_id: str
    repeat: int
    status: Literal["ok", "error"] = "ok"
    reward: float = 0.0


# -- the run summary (summary.json) -------------------------------------------------
# Read back by envs.report (terminal, HTML, compare) and graders.calibrate
# (apply_calibration); it lives here so graders need nothing from envs.report.

SUMMARY_SCHEMA_VERSION = 1


class SummaryPart(BaseModel):
    # Unknown keys are ignored so summaries written by older or newer versions still load.
    model_config = ConfigDict(extra="ignore", use_attribute_docstrings=True)


class UsageTotals(SummaryPart):
    """One role's LLM usage summed over the run's episodes."""

    calls: int = 0
    """Model calls, cached ones included."""
    prompt_tokens: int = 0
    """Prompt tokens over all calls."""
    completion_tokens: int = 0
    """Completion tokens over all calls."""
    cost: float = 0.0
    """USD over the priced calls."""
    cost_unknown_calls: int = 0
    """Calls to a model with no known price (not in ``cost``)."""
    cached_calls: int = 0
    """Calls answered from the response cache."""


class FirstFailure(SummaryPart):
    """The first trial of a task that did not succeed."""

    repeat: int
    """Its repeat index."""
    why: str
    """One line: the error, the first rows that differ from the goal, or the missing outputs."""


def _none(v: Any) -> bool:
    return v is None


class TaskSummary(SummaryPart):
    """One task's trials."""

    id: str
    """The task id."""
    trials: int
    """Episodes played (errored ones included)."""
    successes: int
    """Episodes that ended ``ok`` with reward 1."""
    errors: int
    """Episodes that ended in an infrastructure error."""
    clean_trials: int = 0
    """``trials`` minus ``errors``."""
    terminations: dict[str, int] = Field(default_factory=dict)
    """How the episodes ended (user_stop, transfer, max_turns, ...) and how often."""
    first_failure: FirstFailure | None = Field(default=None, exclude_if=_none)
    """The first failed trial; absent when every trial succeeded."""
    causes: dict[str, int] = Field(default_factory=dict, exclude_if=lambda v: not v)
    """Who caused its failed or errored trials (graders.causes), and how often; absent when none failed."""


class RuleCell(SummaryPart):
    """Verdict counts of one rule, over all situations or in one."""

    judged: int = 0
    """Turns judged FOLLOWED or VIOLATED (the denominator of ``compliance``)."""
    followed: int = 0
    """Turns judged FOLLOWED."""
    violated: int = 0
    """Turns judged VIOLATED."""
    needs_review: int = 0
    """Turns the judge or check could not decide."""
    not_applicable: int = 0
    """Turns where the rule's condition did not arise."""
    unjudged: int = 0
    """Turns with no deterministic check and no judge model."""
    compliance: float | None = None
    """followed / judged; None when nothing was judged."""
    ci95: tuple[float, float] | None = None
    """95% Wilson interval of ``compliance``."""
    corrected: float | None = None
    """With --calibration: compliance corrected for the judge's error (Rogan-Gladen)."""
    corrected_ci95: tuple[float, float] | None = None
    """With --calibration: 95% interval of ``corrected`` (Wilson bounds mapped through the correction, widened by the judge's error)."""


class RuleSummary(RuleCell):
    """One rule over the run, and per situation."""

    by_situation: dict[str, RuleCell] = Field(default_factory=dict)
    """The same counts per situation the turns were played in ("-": none)."""
    calibrated: bool = False
    """The calibration file had numbers for this rule."""
    judge_accuracy: float | None = None
    """With --calibration: the judge's accuracy on this rule's gold items."""
    untrusted: bool = False
    """With --calibration: the judge's accuracy on this rule is below the threshold."""
    approximate: bool = False
    """Decided by a deterministic check whose held-out accuracy (check_calibration.json) is below
    the threshold: the corrected figure is approximate."""


class CalibrationInfo(SummaryPart):
    """Which calibration corrected the rule numbers."""

    file: str
    """The calibration.json given with --calibration."""
    judge: str | None = None
    """The judge the calibration measured."""
    threshold: float | None = None
    """The accuracy below which a rule's judge is untrusted."""


class ToolCallTotals(SummaryPart):
    """One side's tool calls over the episodes summarised."""

    calls: int = 0
    """Calls made."""
    failures: int = 0
    """Calls that came back as an error (bad arguments, unknown tool, refused, crashed)."""
    failures_by_kind: dict[str, int] = Field(default_factory=dict)
    """Failures by kind."""
    by_tool: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Per tool name: {"calls": n, "failures": m}."""


class RunSummary(SummaryPart):
    """``summary.json``: what a run measured, with its denominators."""

    schema_version: int = SUMMARY_SCHEMA_VERSION
    """The layout of this file (summaries written before it was versioned read as 1)."""
    run_id: str | None = None
    """The run folder's name."""
    domain: str | None = None
    """The domain played."""
    actors: dict[str, str | None] = Field(default_factory=dict)
    """agent, user and judge as given (scripted[:variant], human, a model string, or None)."""
    seed: int | None = None
    """The run seed; each episode's seed derives from it."""
    repeats: int | None = None
    """Trials per task asked for."""
    tasks: int = 0
    """Tasks with at least one episode."""
    episodes: int = 0
    """Episodes summarised."""
    errors: int = 0
    """Episodes that ended in an infrastructure error."""
    errors_by_role_kind: dict[str, int] = Field(default_factory=dict)
    """Errors counted by "role:kind"."""
    agent_errors: int = 0
    """The agent's bad tool calls and unparseable replies, over all episodes."""
    pass_hat_k: dict[str, float] = Field(default_factory=dict)
    """pass^k for k = "1".."n" over all trials (an errored episode is a failed trial)."""
    pass_at_k: dict[str, float] = Field(default_factory=dict)
    """pass@k for k = "1".."n" over all trials."""
    pass_hat_k_ci95: dict[str, tuple[float, float]] = Field(default_factory=dict)
    """95% percentile bootstrap interval of pass^k, tasks resampled."""
    pass_hat_k_note: str = "errored episodes count as failed trials; pass_hat_k_clean leaves them out"
    """How errored episodes are counted."""
    pass_hat_k_clean: dict[str, float] = Field(default_factory=dict)
    """pass^k over clean (non-errored) trials only."""
    clean_episodes: int = 0
    """``episodes`` minus ``errors``."""
    mean_reward: float | None = None
    """Mean reward over clean (non-errored) episodes, the ones that were graded; None without any."""
    mean_reward_over: int = 0
    """The episodes ``mean_reward`` is computed over (= ``clean_episodes``)."""
    agent_failed: int = 0
    """Clean episodes ended because the agent kept failing (``agent_error_limit``): graded 0."""
    tool_calls: dict[str, ToolCallTotals] = Field(default_factory=dict)
    """Tool calls per side ("agent", "user"): calls, failures, and both by tool."""
    unreadable_records: int = 0
    """Lines of ``episodes.jsonl`` that could not be read (their episodes are not summarised)."""
    per_task: list[TaskSummary] = Field(default_factory=list)
    """One entry per task, by id."""
    usage: dict[str, UsageTotals] = Field(default_factory=dict)
    """LLM usage per role (agent, user, judge); empty for scripted runs."""
    wall_s: float | None = None
    """Wall-clock seconds of the playing phase."""
    rules: dict[str, RuleSummary] = Field(default_factory=dict)
    """Per rule: verdict counts, compliance and interval, per situation too."""
    coverage: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Judged turns per rule and situation, with every pair the domain defines (0: a gap)."""
    coverage_gaps: list[str] = Field(default_factory=list)
    """Rule x situation pairs with no judged turn, written "R1 x cooperative"."""
    unjudged: dict[str, int] = Field(default_factory=dict)
    """Rules with no check and no judge model, and on how many turns."""
    calibration: CalibrationInfo | None = None
    """With --calibration: which calibration corrected ``rules``."""
    simulator: "SimulatorReport | None" = None
    """The simulated user's fidelity flags and the cause of each failure (graders.simulator, graders.causes)."""
    pass_hat_k_agent_only: dict[str, float] = Field(default_factory=dict)
    """A second figure, not the score: pass^k leaving out trials whose failure the agent did not
    cause (simulator, task, environment, infrastructure); ``pass_hat_k`` is the honest one."""
    budget_stops: dict[str, int] = Field(default_factory=dict)
    """Episodes ended by a per-episode budget, by termination (budget_tokens, budget_cost,
    budget_seconds): neither agent failures nor errors, and failed trials in pass^k."""
    retried: int = 0
    """Episodes played more than once after an infrastructure error (--retry-errors, --resume);
    their last attempt is the one scored, earlier ones stay in episodes.jsonl."""
    retried_ok: int = 0
    """Of ``retried``, those whose last attempt ended without an error."""
    not_played: int = 0
    """Episodes of the run not played because --max-cost was spent (--resume plays them)."""
    max_cost: float | None = None
    """The run's cost cap (--max-cost), when one was given."""
    rule_names: dict[str, str] = Field(default_factory=dict)
    """Short rule names for tables (rules.yaml ``name:``, else derived from the text), by id."""
    variance: "VarianceReport | None" = Field(default=None, exclude_if=_none)
    """Whose noise the spread is (``python -m envs.variance``): the judge's flips, the simulated user's and
    the agent's outcome variance from designed repeats; absent until that command has run."""


class SimulatorFlagSummary(SummaryPart):
    """One simulator fidelity flag over the run (graders.simulator)."""

    count: int = 0
    """Times it fired, over all episodes."""
    episodes: list[str] = Field(default_factory=list)
    """The episodes it fired in ("task#repeat")."""
    measured: int = 0
    """Episodes it could be measured on (the denominator of ``share``)."""
    share: float | None = None
    """len(episodes) / measured; None when nothing was measured."""


class EpisodeCause(SummaryPart):
    """Who caused one failed or errored episode, and why we think so."""

    episode_id: str
    """The episode ("task#repeat")."""
    cause: str
    """agent, user_simulator, task, environment, infrastructure, budget or unknown."""
    source: str = "rules"
    """rules (deterministic) or reviewer (an LLM's review, with --reviewer)."""
    strength: str = "strong"
    """strong or weak: how directly the evidence names the cause."""
    evidence: list[str] = Field(default_factory=list)
    """What shows it, one line each, with turns."""
    simulator_flags: list[str] = Field(default_factory=list)
    """Simulator flags that fired in the episode (whether or not they caused the failure)."""


class CrossTaskRepetition(SummaryPart):
    """How templated the simulated user sounds across the run (graders.repetition): sentences of
    5+ words, compared with case, whitespace and digits folded."""

    sentences: int = 0
    """User sentences of 5+ words over the run, each occurrence counted."""
    distinct: int = 0
    """Distinct such sentences."""
    repeated: int = 0
    """Occurrences of a sentence said in 3 or more different tasks."""
    repeated_distinct: int = 0
    """Distinct sentences said in 3 or more different tasks."""
    share: float | None = None
    """repeated / sentences: the cross_task_repetition figure; None when no user sentence was long enough."""
    tasks: int = 0
    """Tasks in the run (the denominator of max_task_share)."""
    max_tasks: int = 0
    """The most tasks any one sentence was said in."""
    max_task_share: float | None = None
    """max_tasks / tasks: the largest share of the run's tasks one sentence occurs in."""
    max_sentence: str | None = None
    """That sentence, as first said."""
    top: list[str] = Field(default_factory=list)
    """Up to five of the most widespread sentences said in 3+ tasks, with their task counts."""
    within_episode: int = 0
    """Sentences of 5+ words said again later in the same episode (each repeat counted)."""
    within_episode_examples: list[str] = Field(default_factory=list)
    """Up to five of them, with their episode."""


# At most this many failed episodes' cause records in a summary (each holds its evidence): a run
# of 100,000 episodes keeps its memory and its summary.json bounded; the counts stay exact.
CAUSE_EPISODES_KEPT = 2_000


class SimulatorReport(SummaryPart):
    """The simulated user's measured fidelity and who caused each failure."""

    flags: dict[str, SimulatorFlagSummary] = Field(default_factory=dict)
    """Per flag: count, episodes, share."""
    flagged_failures: list[str] = Field(default_factory=list)
    """Failed or errored episodes in which a simulator flag fired: not plainly the agent's fault."""
    causes: dict[str, int] = Field(default_factory=dict)
    """Failed or errored episodes per cause."""
    episodes: list[EpisodeCause] = Field(default_factory=list)
    """Each failed or errored episode's cause with its evidence (the first ``CAUSE_EPISODES_KEPT``
    in the order read; ``causes`` and ``flagged_failures`` count them all)."""
    episodes_omitted: int = 0
    """Failed or errored episodes whose cause record was left out of ``episodes`` (past the bound)."""
    reviewer: str | None = None
    """The --reviewer model whose verdicts are in ``episodes`` (source: reviewer)."""
    cross_task_repetition: CrossTaskRepetition | None = None
    """How often the user's sentences recur verbatim across tasks (and within an episode)."""


class VarianceDesign(SummaryPart):
    """What ``envs.variance`` played: which factor each arm held and how many replays."""

    source_run: str
    """The run whose episodes are the bases (never changed)."""
    bases: int
    """Original repeats per task used as bases: each fixes the situations drawn (the episode seed)."""
    replays: int
    """Replays per base in each arm."""
    rejudge: int
    """Times each original episode's replies were re-judged, transcript frozen."""
    arms: dict[str, str] = Field(default_factory=dict)
    """user / agent / judge: what the arm held and what it varied, or why it was not played (zero by construction)."""
    cache: str | None = None
    """The response cache that holds a role fixed (the same request gets the same reply)."""
    episodes_played: int = 0
    """Designed episodes played (both arms), errored ones included."""
    errors: int = 0
    """Designed episodes that ended in an infrastructure error (left out of the variances, counted here)."""


class VarianceTask(SummaryPart):
    """One task's split of the outcome variance (per-trial variances of the 0/1 success)."""

    task: str
    """The task id."""
    total_var: float | None = None
    """Sample variance of success over the original run's repeats (everything varies)."""
    user_var: float | None = None
    """Mean within-base variance with the agent held and the user's sampling varied; 0 by construction for a scripted user."""
    agent_var: float | None = None
    """Mean within-base variance with the user held and the agent's sampling varied."""
    user_replays: int = 0
    """Clean episodes behind ``user_var``."""
    agent_replays: int = 0
    """Clean episodes behind ``agent_var``."""
    user_successes: int = 0
    """Of ``user_replays``, those that succeeded (a variance of 0 over all-failed and all-passed replays reads alike)."""
    agent_successes: int = 0
    """Of ``agent_replays``, those that succeeded."""
    pass_hat_k_agent: dict[str, float] = Field(default_factory=dict)
    """pass^k over the agent arm (the user held fixed per base), k = "1".."replays"."""


class VarianceFigure(SummaryPart):
    """A variance over tasks with its 95% interval."""

    value: float | None = None
    """The mean over tasks (None: not measured)."""
    ci95: tuple[float, float] | None = None
    """95% percentile bootstrap interval, tasks resampled (None: not measured, or zero by construction)."""
    by_construction: str | None = None
    """Why this is zero without measuring (a scripted user, checks-only verdicts), else None."""


class RuleFlips(SummaryPart):
    """One rule's re-judged verdicts, transcript frozen."""

    source: str
    """judge (a model) or check (deterministic)."""
    items: int = 0
    """Judged replies (episode, turn) re-judged."""
    rejudged: int = 0
    """Re-judgements made (items x replicas)."""
    flips: int = 0
    """Re-judgements whose verdict differs from the recorded one."""
    share: float | None = None
    """flips / rejudged."""
    ci95: tuple[float, float] | None = None
    """95% percentile bootstrap interval of ``share``, replies resampled (re-judgements of one reply are not independent)."""


class VarianceReport(SummaryPart):
    """The split of a run's spread between the judge, the simulated user and the agent (``envs.variance``)."""

    design: VarianceDesign
    """What was held, varied and played."""
    total_var: VarianceFigure = Field(default_factory=VarianceFigure)
    """Outcome variance over the original repeats, mean over tasks."""
    user_var: VarianceFigure = Field(default_factory=VarianceFigure)
    """The outcome variance the user leaves (agent held), mean over tasks."""
    agent_var: VarianceFigure = Field(default_factory=VarianceFigure)
    """The outcome variance the agent leaves (user held), mean over tasks."""
    user_share: VarianceFigure = Field(default_factory=VarianceFigure)
    """user_var / (user_var + agent_var): the instrument's share of the repeat-to-repeat spread."""
    pass_hat_k: dict[str, float] = Field(default_factory=dict)
    """The plain pass^k of the original run, k up to ``design.replays``."""
    pass_hat_k_agent: dict[str, float] = Field(default_factory=dict)
    """pass^k with the user's share taken out: over the agent arm, the user held fixed per base."""
    pass_hat_k_agent_ci95: dict[str, tuple[float, float]] = Field(default_factory=dict)
    """95% percentile bootstrap interval of ``pass_hat_k_agent``, tasks resampled."""
    judge_flip_share: VarianceFigure = Field(default_factory=VarianceFigure)
    """Share of re-judged model verdicts that flip (all rules); zero by construction with checks only."""
    judge: dict[str, RuleFlips] = Field(default_factory=dict)
    """Per rule: re-judgements and flips (verdicts do not enter the reward, so the judge's share of the
    outcome variance is zero; its share of the rule profile is this)."""
    per_task: list[VarianceTask] = Field(default_factory=list)
    """Per task, by id."""


RunSummary.model_rebuild()
