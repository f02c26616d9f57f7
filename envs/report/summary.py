"""The run summary (``summary.json``): built from the episode records as a typed ``RunSummary``.

Numbers are what was measured, with denominators: pass^k over all trials
(an errored episode is a failed trial) and, beside it, over clean trials only;
``mean_reward`` over clean episodes (``mean_reward_over`` says how many); tool calls and
their failures per side (agent, user) and tool;
rule compliance per rule and situation with the counts behind it, and the
rules that went unjudged. The records are in ``envs.records`` (``RunSummary``
and its parts); the intervals in ``graders.statistics``; the terminal tables
in ``envs.report.terminal``.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Any, Iterable

from envs.records import (
    SUMMARY_SCHEMA_VERSION,
    EpisodeRecord,
    FirstFailure,
    RuleCell,
    RuleSummary,
    RunSummary,
    TaskSummary,
    ToolCallTotals,
    ToolEvent,
    UsageTotals,
)
from envs.run.config import RunConfig
from graders.evaluate import AGENT_FAILED
from graders.statistics import bootstrap_pass_hat_k, pass_k_means, wilson


class _TaskAcc:
    """What the summary keeps of one task's episodes: counts, and its first failed one."""

    __slots__ = ("trials", "successes", "errors", "terminations", "first_failed")

    def __init__(self) -> None:
        self.trials = self.successes = self.errors = 0
        self.terminations: Counter = Counter()
        self.first_failed: tuple[int, str] | None = None  # (repeat, why)


def summarize(
    records: Iterable[EpisodeRecord], config: RunConfig | dict[str, Any], wall_s: float | None = None, domain: Any = None,
    unreadable: int = 0, reviews: dict | None = None, reviewer: str | None = None,
) -> RunSummary:
    """The summary of ``records`` (one per (task, repeat)); ``domain`` adds every rule x situation pair to coverage,
    lets the simulator block (``envs.report.fidelity``) read the tasks and the checks' measured error correct the
    rules they decide; ``reviews`` are a --reviewer's causes.

    ``records`` is read once, one record at a time (a generator such as
    ``RunStore.iter_latest`` keeps memory bounded): only counts are kept, and per task the
    reason of its first failed repeat."""
    cfg = config if isinstance(config, RunConfig) else RunConfig.model_validate(config)
    tasks: dict[str, _TaskAcc] = defaultdict(_TaskAcc)
    err_by: Counter = Counter()
    usage: dict[str, list] = {}
    cells: dict[tuple[str, str], Counter] = defaultdict(Counter)
    tools: dict[str, _ToolAcc] = {}
    n = n_err = agent_errors = agent_failed = 0
    reward_sum = 0.0
    from envs.report.fidelity import SimulatorAccumulator

    sim = SimulatorAccumulator(domain, reviews, reviewer)
    sources: dict[str, Counter] = defaultdict(Counter)  # per rule, decided verdicts by source
    for r in records:
        n += 1
        sim.add(r)
        acc = tasks[r.task_id]
        acc.trials += 1
        ok = r.status == "ok"
        success = ok and r.reward >= 1.0
        acc.successes += success
        acc.terminations[r.termination or "?"] += 1
        agent_errors += r.agent_errors
        if not ok:
            acc.errors += 1
            n_err += 1
            err_by[f"{r.error_role}:{r.error_kind}"] += 1
        else:
            reward_sum += r.reward
            agent_failed += r.termination in AGENT_FAILED
        if not success and (acc.first_failed is None or r.repeat < acc.first_failed[0]):
            acc.first_failed = (r.repeat, _why_failed(r, domain))
        for role, u in r.usage.items():
            tot = usage.get(role)
            if tot is None:
                tot = usage[role] = [0, 0, 0, 0, 0, 0.0]  # UsageTotals' fields, as plain numbers until the end
            tot[0] += u.calls
            tot[1] += u.prompt_tokens
            tot[2] += u.completion_tokens
            tot[3] += u.cached_calls
            if u.cost is None:
                tot[4] += u.calls
            else:
                tot[5] += u.cost
        for v in r.verdicts:
            cells[(v.rule, v.situation or "-")][v.verdict] += 1
            if v.verdict in ("FOLLOWED", "VIOLATED"):
                sources[v.rule][v.source] += 1
        for e in r.transcript:
            if isinstance(e, ToolEvent):
                _count_tool(tools.get(e.side) or tools.setdefault(e.side, _ToolAcc()), e)

    per_task, all_trials, clean_trials = [], [], []
    for tid, acc in sorted(tasks.items()):
        per_task.append(
            TaskSummary(
                id=tid,
                trials=acc.trials,
                successes=acc.successes,
                errors=acc.errors,
                clean_trials=acc.trials - acc.errors,
                terminations=dict(acc.terminations),
                first_failure=None if acc.first_failed is None else FirstFailure(repeat=acc.first_failed[0], why=acc.first_failed[1]),
            )
        )
        all_trials.append((acc.trials, acc.successes))
        if acc.trials - acc.errors > 0:
            clean_trials.append((acc.trials - acc.errors, acc.successes))
    agg = pass_k_means(all_trials)
    kmax = len(agg["pass_hat_k"])
    clean = pass_k_means(clean_trials)
    n_clean = n - n_err
    simulator, task_causes, agent_only = sim.finish()
    for p in per_task:
        p.causes = task_causes.get(p.id, {})
    summary = RunSummary(
        schema_version=SUMMARY_SCHEMA_VERSION,
        run_id=cfg.run_id,
        domain=cfg.domain,
        actors={"agent": cfg.agent, "user": cfg.user, "judge": cfg.judge},
        seed=cfg.seed,
        repeats=cfg.repeats,
        tasks=len(tasks),
        episodes=n,
        errors=n_err,
        errors_by_role_kind=dict(err_by),
        agent_errors=agent_errors,
        pass_hat_k=agg["pass_hat_k"],
        pass_at_k=agg["pass_at_k"],
        pass_hat_k_ci95=bootstrap_pass_hat_k(all_trials, kmax),
        pass_hat_k_clean=clean["pass_hat_k"],
        clean_episodes=n_clean,
        mean_reward=(reward_sum / n_clean) if n_clean else None,
        mean_reward_over=n_clean,
        agent_failed=agent_failed,
        tool_calls={side: t.totals() for side, t in tools.items()},
        unreadable_records=unreadable,
        per_task=per_task,
        usage={role: UsageTotals(calls=u[0], prompt_tokens=u[1], completion_tokens=u[2], cached_calls=u[3],
                                 cost_unknown_calls=u[4], cost=u[5]) for role, u in usage.items()},
        wall_s=wall_s,
        simulator=simulator,
        pass_hat_k_agent_only=agent_only,
        **_profile_from_cells(cells, domain),
    )
    if domain is not None:
        # checked rules carry their check's measured error (domains/<d>/check_calibration.json)
        from graders.calibrate.check_calibration import apply_check_calibration

        apply_check_calibration(summary, None, domain, sources=sources)
    return summary


class _ToolAcc:
    """One side's ``ToolCallTotals`` as plain counters while records stream (a pydantic attribute
    set per tool call was a tenth of the summary's time at scale)."""

    __slots__ = ("calls", "failures", "failures_by_kind", "by_tool")

    def __init__(self) -> None:
        self.calls = self.failures = 0
        self.failures_by_kind: dict[str, int] = {}
        self.by_tool: dict[str, dict[str, int]] = {}

    def totals(self) -> ToolCallTotals:
        return ToolCallTotals(calls=self.calls, failures=self.failures, failures_by_kind=self.failures_by_kind, by_tool=self.by_tool)


def _count_tool(tot: _ToolAcc, e: ToolEvent) -> None:
    tot.calls += 1
    per = tot.by_tool.get(e.call.name)
    if per is None:
        per = tot.by_tool[e.call.name] = {"calls": 0, "failures": 0}
    per["calls"] += 1
    if not e.ok:
        tot.failures += 1
        per["failures"] += 1
        kind = e.error_kind or "error"
        tot.failures_by_kind[kind] = tot.failures_by_kind.get(kind, 0) + 1


def _why_failed(rec: EpisodeRecord, domain: Any = None) -> str:
    """One line, the cause first (``graders.outcome.in_words``); with the domain, the actions too."""
    from graders.outcome.in_words import why_failed

    task = domain.tasks.get(rec.task_id) if domain is not None else None
    return why_failed(rec, task, domain, AGENT_FAILED)


def rule_profile(recs: list[EpisodeRecord], domain: Any = None) -> dict[str, Any]:
    """Per rule and situation: judged turns and compliance; coverage; unjudged rules.

    Returns the ``rules``, ``coverage``, ``coverage_gaps`` and ``unjudged`` parts
    of a ``RunSummary``. With the domain, ``coverage`` holds every (rule,
    situation) pair the domain defines, so a rule never exercised shows as a 0
    (a gap), not as a pass.
    """
    cells: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for r in recs:
        for v in r.verdicts:
            cells[(v.rule, v.situation or "-")][v.verdict] += 1
    return _profile_from_cells(cells, domain)


def _profile_from_cells(cells: dict[tuple[str, str], Counter], domain: Any = None) -> dict[str, Any]:
    """``rule_profile`` from verdict counts per (rule, situation)."""
    rules: dict[str, RuleSummary] = {}
    coverage: dict[str, dict[str, int]] = defaultdict(dict)
    unjudged: dict[str, int] = Counter()
    for (rule, sit), c in sorted(cells.items()):
        judged = c["FOLLOWED"] + c["VIOLATED"]
        entry = rules.setdefault(rule, RuleSummary())
        cell = RuleCell(
            judged=judged,
            followed=c["FOLLOWED"],
            violated=c["VIOLATED"],
            needs_review=c["NEEDS_REVIEW"],
            # the rule's condition did not arise on that turn (e.g. no identity check failed)
            not_applicable=c["NOT_APPLICABLE"],
            unjudged=c["UNJUDGED"],
            compliance=(c["FOLLOWED"] / judged) if judged else None,
            ci95=wilson(c["FOLLOWED"], judged),
        )
        entry.by_situation[sit] = cell
        for k in ("followed", "violated", "needs_review", "not_applicable", "unjudged"):
            setattr(entry, k, getattr(entry, k) + getattr(cell, k))
        coverage[rule][sit] = judged
        if c["UNJUDGED"]:
            unjudged[rule] += c["UNJUDGED"]
    if domain is not None:
        for sit in domain.situations.values():
            for rid in sit.rules:
                coverage.setdefault(rid, {}).setdefault(sit.id, 0)
        # A rule no turn reached still gets its row (0/0): left out, a reader would take it as absent, not unmeasured.
        for rid in domain.rules:
            rules.setdefault(rid, RuleSummary())
    gaps = sorted(f"{r} x {s}" for r, cells_ in coverage.items() for s, n in cells_.items() if n == 0)
    for entry in rules.values():
        n = entry.followed + entry.violated
        entry.judged = n
        entry.compliance = entry.followed / n if n else None
        entry.ci95 = wilson(entry.followed, n)
    return {"rules": rules, "coverage": dict(coverage), "coverage_gaps": gaps, "unjudged": dict(unjudged)}


def natural_key(rule_id: str) -> list:
    """R2 before R10: digits compare as numbers."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", rule_id)]


def write_summary(run_dir, summary: RunSummary) -> None:
    """``summary.json`` and, next to it, the JSON Schema it validates against (``summary.schema.json``)."""
    import json
    from pathlib import Path

    d = Path(run_dir)
    (d / "summary.json").write_text(summary.model_dump_json(indent=2), encoding="utf-8")
    (d / "summary.schema.json").write_text(json.dumps(summary_schema(), indent=2), encoding="utf-8")


def read_summary(run_dir) -> RunSummary:
    """A run folder's ``summary.json`` (any version so far) as a ``RunSummary``."""
    from pathlib import Path

    return RunSummary.model_validate_json((Path(run_dir) / "summary.json").read_text(encoding="utf-8"))


def summary_schema() -> dict:
    """The JSON Schema of ``summary.json``."""
    schema = RunSummary.model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


__all__ = ["summarize", "rule_profile", "natural_key", "write_summary", "read_summary", "summary_schema", "RunSummary"]
