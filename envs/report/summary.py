"""The run summary (``summary.json``) and its terminal tables.

Numbers are what was measured, with denominators: pass^k over all trials
(an errored episode is a failed trial) and, beside it, over clean trials only;
rule compliance per rule and situation with the counts behind it, and the
rules that went unjudged.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter, defaultdict
from typing import Any, Iterable

from envs.records import EpisodeRecord, Usage
from graders.pass_k import aggregate


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float] | None:
    """95% Wilson score interval for a proportion (None when n == 0)."""
    if n == 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _bootstrap_ci(trials: list[tuple[int, int]], kmax: int, reps: int = 1000, seed: int = 0) -> dict[str, list[float]]:
    """Percentile bootstrap over tasks (tasks are the sampling unit)."""
    if not trials:
        return {}
    rng = random.Random(seed)
    samples: dict[str, list[float]] = defaultdict(list)
    for _ in range(reps):
        draw = [trials[rng.randrange(len(trials))] for _ in trials]
        for k, v in aggregate(draw, kmax)["pass_hat_k"].items():
            samples[k].append(v)
    out = {}
    for k, vals in samples.items():
        vals.sort()
        out[k] = [vals[int(0.025 * (len(vals) - 1))], vals[int(0.975 * (len(vals) - 1))]]
    return out


def summarize(
    records: Iterable[EpisodeRecord], config: dict[str, Any], wall_s: float | None = None, domain: Any = None
) -> dict:
    recs = sorted(records, key=lambda r: (r.task_id, r.repeat))
    by_task: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for r in recs:
        by_task[r.task_id].append(r)
    per_task = []
    all_trials, clean_trials = [], []
    for tid, rs in sorted(by_task.items()):
        succ = sum(1 for r in rs if r.status == "ok" and r.reward >= 1.0)
        errs = sum(1 for r in rs if r.status == "error")
        entry = {
            "id": tid,
            "trials": len(rs),
            "successes": succ,
            "errors": errs,
            "clean_trials": len(rs) - errs,
            "terminations": dict(Counter(r.termination or "?" for r in rs)),
        }
        failed = next((r for r in rs if not (r.status == "ok" and r.reward >= 1.0)), None)
        if failed is not None:
            entry["first_failure"] = {"repeat": failed.repeat, "why": _why_failed(failed)}
        per_task.append(entry)
        all_trials.append((len(rs), succ))
        if len(rs) - errs > 0:
            clean_trials.append((len(rs) - errs, succ))
    agg = aggregate(all_trials)
    kmax = len(agg["pass_hat_k"])
    clean = aggregate(clean_trials)
    errors = [r for r in recs if r.status == "error"]
    err_by = Counter(f"{r.error_role}:{r.error_kind}" for r in errors)

    usage: dict[str, dict[str, Any]] = {}
    for r in recs:
        for role, u in r.usage.items():
            acc = usage.setdefault(role, {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost": 0.0, "cost_unknown_calls": 0, "cached_calls": 0})
            acc["calls"] += u.calls
            acc["prompt_tokens"] += u.prompt_tokens
            acc["completion_tokens"] += u.completion_tokens
            acc["cached_calls"] += u.cached_calls
            if u.cost is None:
                acc["cost_unknown_calls"] += u.calls
            else:
                acc["cost"] += u.cost

    summary = {
        "run_id": config.get("run_id"),
        "domain": config.get("domain"),
        "actors": {k: config.get(k) for k in ("agent", "user", "judge")},
        "seed": config.get("seed"),
        "repeats": config.get("repeats"),
        "tasks": len(by_task),
        "episodes": len(recs),
        "errors": len(errors),
        "errors_by_role_kind": dict(err_by),
        "agent_errors": sum(r.agent_errors for r in recs),
        "pass_hat_k": agg["pass_hat_k"],
        "pass_at_k": agg["pass_at_k"],
        "pass_hat_k_ci95": _bootstrap_ci(all_trials, kmax),
        "pass_hat_k_note": "errored episodes count as failed trials; pass_hat_k_clean leaves them out",
        "pass_hat_k_clean": clean["pass_hat_k"],
        "clean_episodes": len(recs) - len(errors),
        "mean_reward": (sum(r.reward for r in recs) / len(recs)) if recs else None,
        "per_task": per_task,
        "usage": usage,
        "wall_s": wall_s,
    }
    summary.update(rule_profile(recs, domain))
    return summary


def _why_failed(rec: EpisodeRecord) -> str:
    """One short line: the error, the first rows that differ from the goal, or the missing outputs."""
    from graders.outcome.state_diff import render_diff

    if rec.status == "error":
        return f"error ({rec.error_role}:{rec.error_kind}): {rec.error}"[:300]
    g = rec.grade
    if g is None:
        return "no grade"
    if g.diff:
        return render_diff(g.diff, limit=2).replace("\n", "; ")[:300]
    from graders.outcome.outputs import describe

    missing = [describe(o) for o in g.outputs if not o.found]
    return f"required outputs not stated: {'; '.join(missing)}"[:300]


def rule_profile(recs: list[EpisodeRecord], domain: Any = None) -> dict:
    """Per rule and situation: judged turns and compliance; coverage; unjudged rules.

    With the domain, ``coverage`` holds every (rule, situation) pair the domain
    defines, so a rule never exercised shows as a 0 (a gap), not as a pass.
    """
    cells: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for r in recs:
        for v in r.verdicts:
            cells[(v.rule, v.situation or "-")][v.verdict] += 1
    rules: dict[str, dict] = {}
    coverage: dict[str, dict[str, int]] = defaultdict(dict)
    unjudged: dict[str, int] = Counter()
    for (rule, sit), c in sorted(cells.items()):
        judged = c["FOLLOWED"] + c["VIOLATED"]
        entry = rules.setdefault(
            rule, {"by_situation": {}, "followed": 0, "violated": 0, "needs_review": 0, "not_applicable": 0, "unjudged": 0}
        )
        cell = {
            "judged": judged,
            "followed": c["FOLLOWED"],
            "violated": c["VIOLATED"],
            "needs_review": c["NEEDS_REVIEW"],
            # the rule's condition did not arise on that turn (e.g. no identity check failed)
            "not_applicable": c["NOT_APPLICABLE"],
            "unjudged": c["UNJUDGED"],
            "compliance": (c["FOLLOWED"] / judged) if judged else None,
            "ci95": wilson(c["FOLLOWED"], judged),
        }
        entry["by_situation"][sit] = cell
        for k in ("followed", "violated", "needs_review", "not_applicable", "unjudged"):
            entry[k] += cell[k]
        coverage[rule][sit] = judged
        if c["UNJUDGED"]:
            unjudged[rule] += c["UNJUDGED"]
    if domain is not None:
        for sit in domain.situations.values():
            for rid in sit.rules:
                coverage.setdefault(rid, {}).setdefault(sit.id, 0)
    gaps = sorted(f"{r} x {s}" for r, cells_ in coverage.items() for s, n in cells_.items() if n == 0)
    for entry in rules.values():
        n = entry["followed"] + entry["violated"]
        entry["judged"] = n
        entry["compliance"] = entry["followed"] / n if n else None
        entry["ci95"] = wilson(entry["followed"], n)
    return {"rules": rules, "coverage": dict(coverage), "coverage_gaps": gaps, "unjudged": dict(unjudged)}


def natural_key(rule_id: str) -> list:
    """R2 before R10: digits compare as numbers."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", rule_id)]


def print_summary(summary: dict, console=None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    t = Table(title=f"sitgym run {summary.get('run_id')} - {summary['domain']}", show_lines=False)
    t.add_column("k", justify="right")
    t.add_column("pass^k (all trials)", justify="right")
    t.add_column("95% CI", justify="right")
    t.add_column("pass^k (clean only)", justify="right")
    t.add_column("pass@k", justify="right")
    for k, v in summary["pass_hat_k"].items():
        ci = summary["pass_hat_k_ci95"].get(k)
        t.add_row(
            k,
            f"{v:.3f}",
            f"[{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "",
            f"{summary['pass_hat_k_clean'][k]:.3f}" if k in summary["pass_hat_k_clean"] else "-",
            f"{summary['pass_at_k'][k]:.3f}",
        )
    console.print(t)
    console.print(
        f"{summary['episodes']} episodes over {summary['tasks']} tasks x {summary['repeats']} repeats; "
        f"errors: {summary['errors']} {summary['errors_by_role_kind'] or ''}; "
        f"agent errors (bad tool calls, unparseable replies): {summary['agent_errors']}; "
        f"mean reward {summary['mean_reward'] if summary['mean_reward'] is None else round(summary['mean_reward'], 3)}"
    )
    failing = [p for p in summary["per_task"] if p["successes"] < p["trials"]]
    if failing:
        ft = Table(title="tasks not solved every time")
        for col in ("task", "solved", "errors", "ended by", "first failure (vs the goal state)"):
            ft.add_column(col)
        for p in failing[:40]:
            ft.add_row(
                p["id"],
                f"{p['successes']}/{p['trials']}",
                str(p["errors"]),
                ", ".join(f"{k} {v}" for k, v in p["terminations"].items()),
                p.get("first_failure", {}).get("why", ""),
            )
        console.print(ft)
    if summary.get("rules"):
        calibrated = any(e.get("calibrated") for e in summary["rules"].values())
        rt = Table(title="rule compliance (judged turns)")
        cols = ["rule", "compliance", "followed/judged", "95% CI"]
        if calibrated:
            cols += ["corrected", "corrected 95% CI", "judge acc."]
        cols += ["needs review", "n/a", "unjudged", "weakest situation"]
        for col in cols:
            rt.add_column(col)
        fmt_ci = lambda ci: f"[{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""  # noqa: E731
        for rule, e in sorted(summary["rules"].items(), key=lambda kv: natural_key(kv[0])):
            row = [
                rule + (" [red](untrusted judge)[/red]" if e.get("untrusted") else ""),
                "-" if e["compliance"] is None else f"{e['compliance']:.2f}",
                f"{e['followed']}/{e['judged']}",
                fmt_ci(e["ci95"]),
            ]
            if calibrated:
                corr = e.get("corrected")
                row += [
                    "-" if corr is None else f"{corr:.2f}",
                    fmt_ci(e.get("corrected_ci95")),
                    "-" if e.get("judge_accuracy") is None else f"{e['judge_accuracy']:.2f}",
                ]
            judged_cells = [(c["compliance"], s, c) for s, c in e["by_situation"].items() if c["judged"]]
            weakest = min(judged_cells, key=lambda x: x[0]) if judged_cells else None
            row += [
                str(e["needs_review"]),
                str(e.get("not_applicable", 0)),
                str(e["unjudged"]),
                f"{weakest[1]} {weakest[2]['followed']}/{weakest[2]['judged']}" if weakest else "-",
            ]
            rt.add_row(*row)
        console.print(rt)
    if summary.get("coverage_gaps"):
        console.print(
            f"[yellow]coverage gaps[/yellow] (rule x situation pairs with no judged turn): {len(summary['coverage_gaps'])}",
            soft_wrap=True,
        )
    if summary.get("unjudged"):
        console.print(
            "[yellow]unjudged (no deterministic check and no --judge model):[/yellow] "
            + ", ".join(f"{r} on {n} turns" for r, n in sorted(summary["unjudged"].items(), key=lambda kv: natural_key(kv[0])))
        )
    if summary.get("usage"):
        ut = Table(title="tokens and cost")
        for col in ("role", "calls", "prompt", "completion", "cost (USD)"):
            ut.add_column(col)
        for role, u in summary["usage"].items():
            cost = f"{u['cost']:.4f}" + (f" (+{u['cost_unknown_calls']} calls unpriced)" if u["cost_unknown_calls"] else "")
            ut.add_row(role, str(u["calls"]), str(u["prompt_tokens"]), str(u["completion_tokens"]), cost)
        console.print(ut)


__all__ = ["summarize", "print_summary", "wilson", "Usage"]
