"""The run summary (``summary.json``): built from the episode records as a typed ``RunSummary``.

Numbers are what was measured, with denominators: pass^k over all trials
(an errored episode is a failed trial) and, beside it, over clean trials only;
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
    UsageTotals,
)
from envs.run.config import RunConfig
from graders.pass_k import aggregate
from graders.statistics import bootstrap_pass_hat_k, wilson


def summarize(
    records: Iterable[EpisodeRecord], config: RunConfig | dict[str, Any], wall_s: float | None = None, domain: Any = None
) -> RunSummary:
    """The summary of ``records`` (one per (task, repeat)); ``domain`` adds every rule x situation pair to coverage."""
    cfg = config if isinstance(config, RunConfig) else RunConfig.model_validate(config)
    recs = sorted(records, key=lambda r: (r.task_id, r.repeat))
    by_task: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for r in recs:
        by_task[r.task_id].append(r)
    per_task = []
    all_trials, clean_trials = [], []
    for tid, rs in sorted(by_task.items()):
        succ = sum(1 for r in rs if r.status == "ok" and r.reward >= 1.0)
        errs = sum(1 for r in rs if r.status == "error")
        failed = next((r for r in rs if not (r.status == "ok" and r.reward >= 1.0)), None)
        per_task.append(
            TaskSummary(
                id=tid,
                trials=len(rs),
                successes=succ,
                errors=errs,
                clean_trials=len(rs) - errs,
                terminations=dict(Counter(r.termination or "?" for r in rs)),
                first_failure=None if failed is None else FirstFailure(repeat=failed.repeat, why=_why_failed(failed)),
            )
        )
        all_trials.append((len(rs), succ))
        if len(rs) - errs > 0:
            clean_trials.append((len(rs) - errs, succ))
    agg = aggregate(all_trials)
    kmax = len(agg["pass_hat_k"])
    clean = aggregate(clean_trials)
    errors = [r for r in recs if r.status == "error"]
    err_by = Counter(f"{r.error_role}:{r.error_kind}" for r in errors)

    usage: dict[str, UsageTotals] = {}
    for r in recs:
        for role, u in r.usage.items():
            acc = usage.setdefault(role, UsageTotals())
            acc.calls += u.calls
            acc.prompt_tokens += u.prompt_tokens
            acc.completion_tokens += u.completion_tokens
            acc.cached_calls += u.cached_calls
            if u.cost is None:
                acc.cost_unknown_calls += u.calls
            else:
                acc.cost += u.cost

    return RunSummary(
        schema_version=SUMMARY_SCHEMA_VERSION,
        run_id=cfg.run_id,
        domain=cfg.domain,
        actors={"agent": cfg.agent, "user": cfg.user, "judge": cfg.judge},
        seed=cfg.seed,
        repeats=cfg.repeats,
        tasks=len(by_task),
        episodes=len(recs),
        errors=len(errors),
        errors_by_role_kind=dict(err_by),
        agent_errors=sum(r.agent_errors for r in recs),
        pass_hat_k=agg["pass_hat_k"],
        pass_at_k=agg["pass_at_k"],
        pass_hat_k_ci95=bootstrap_pass_hat_k(all_trials, kmax),
        pass_hat_k_clean=clean["pass_hat_k"],
        clean_episodes=len(recs) - len(errors),
        mean_reward=(sum(r.reward for r in recs) / len(recs)) if recs else None,
        per_task=per_task,
        usage=usage,
        wall_s=wall_s,
        **rule_profile(recs, domain),
    )


def _why_failed(rec: EpisodeRecord) -> str:
    """One short line: the error, the first rows that differ from the goal, or the missing outputs."""
    from graders.outcome.state_diff import render_diff

    if rec.status == "error":
        return f"error ({rec.error_role}:{rec.error_kind}): {rec.error}"[:300]
    if rec.budget:  # ended by a per-episode budget: it did not finish, whatever the state
        return f"{rec.termination}: {rec.budget}"[:300]
    g = rec.grade
    if g is None:
        return "no grade"
    if g.diff:
        return render_diff(g.diff, limit=2).replace("\n", "; ")[:300]
    from graders.outcome.outputs import describe

    missing = [describe(o) for o in g.outputs if not o.found]
    return f"required outputs not stated: {'; '.join(missing)}"[:300]


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
