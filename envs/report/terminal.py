"""The run summary's terminal tables (rich): pass^k, unsolved tasks, rule compliance, usage."""

from __future__ import annotations

from envs.records import RunSummary
from envs.report.summary import natural_key


def _ci(ci) -> str:
    return f"[{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""


def print_summary(summary: RunSummary, console=None) -> None:
    """Print ``summary`` as tables to ``console`` (default: a new rich Console on stdout)."""
    from rich.console import Console
    from rich.table import Table

    s = summary
    console = console or Console()
    t = Table(title=f"sitgym run {s.run_id} - {s.domain}", show_lines=False)
    t.add_column("k", justify="right")
    t.add_column("pass^k (all trials)", justify="right")
    t.add_column("95% CI", justify="right")
    t.add_column("pass^k (clean only)", justify="right")
    t.add_column("pass@k", justify="right")
    for k, v in s.pass_hat_k.items():
        t.add_row(
            k,
            f"{v:.3f}",
            _ci(s.pass_hat_k_ci95.get(k)),
            f"{s.pass_hat_k_clean[k]:.3f}" if k in s.pass_hat_k_clean else "-",
            f"{s.pass_at_k[k]:.3f}",
        )
    console.print(t)
    console.print(
        f"{s.episodes} episodes over {s.tasks} tasks x {s.repeats} repeats; "
        f"errors: {s.errors} {s.errors_by_role_kind or ''}; "
        f"agent errors (bad tool calls, unparseable replies): {s.agent_errors}; "
        f"mean reward {s.mean_reward if s.mean_reward is None else round(s.mean_reward, 3)}"
    )
    failing = [p for p in s.per_task if p.successes < p.trials]
    if failing:
        ft = Table(title="tasks not solved every time")
        for col in ("task", "solved", "errors", "ended by", "first failure (vs the goal state)"):
            ft.add_column(col)
        for p in failing[:40]:
            ft.add_row(
                p.id,
                f"{p.successes}/{p.trials}",
                str(p.errors),
                ", ".join(f"{k} {v}" for k, v in p.terminations.items()),
                p.first_failure.why if p.first_failure else "",
            )
        console.print(ft)
    if s.rules:
        calibrated = any(e.calibrated for e in s.rules.values())
        rt = Table(title="rule compliance (judged turns)")
        cols = ["rule", "compliance", "followed/judged", "95% CI"]
        if calibrated:
            cols += ["corrected", "corrected 95% CI", "judge acc."]
        cols += ["needs review", "n/a", "unjudged", "weakest situation"]
        for col in cols:
            rt.add_column(col)
        for rule, e in sorted(s.rules.items(), key=lambda kv: natural_key(kv[0])):
            row = [
                rule + (" [yellow](approximate: weak check)[/yellow]" if e.approximate else " [red](untrusted judge)[/red]" if e.untrusted else ""),
                "-" if e.compliance is None else f"{e.compliance:.2f}",
                f"{e.followed}/{e.judged}",
                _ci(e.ci95),
            ]
            if calibrated:
                row += [
                    "-" if e.corrected is None else f"{e.corrected:.2f}",
                    _ci(e.corrected_ci95),
                    "-" if e.judge_accuracy is None else f"{e.judge_accuracy:.2f}",
                ]
            judged_cells = [(c.compliance, sit, c) for sit, c in e.by_situation.items() if c.judged]
            weakest = min(judged_cells, key=lambda x: x[0]) if judged_cells else None
            row += [
                str(e.needs_review),
                str(e.not_applicable),
                str(e.unjudged),
                f"{weakest[1]} {weakest[2].followed}/{weakest[2].judged}" if weakest else "-",
            ]
            rt.add_row(*row)
        console.print(rt)
    if s.coverage_gaps:
        console.print(
            f"[yellow]coverage gaps[/yellow] (rule x situation pairs with no judged turn): {len(s.coverage_gaps)}",
            soft_wrap=True,
        )
    if s.unjudged:
        console.print(
            "[yellow]unjudged (no deterministic check and no --judge model):[/yellow] "
            + ", ".join(f"{r} on {n} turns" for r, n in sorted(s.unjudged.items(), key=lambda kv: natural_key(kv[0])))
        )
    print_simulator(s, console)
    if s.usage:
        ut = Table(title="tokens and cost")
        for col in ("role", "calls", "prompt", "completion", "cost (USD)"):
            ut.add_column(col)
        for role, u in s.usage.items():
            cost = f"{u.cost:.4f}" + (f" (+{u.cost_unknown_calls} calls unpriced)" if u.cost_unknown_calls else "")
            ut.add_row(role, str(u.calls), str(u.prompt_tokens), str(u.completion_tokens), cost)
        console.print(ut)


def print_simulator(s: RunSummary, console) -> None:
    """The simulator block in brief: one line per flag that fired, the causes, agent-only pass^k."""
    sim = s.simulator
    if sim is None:
        return
    fired = [(n, f) for n, f in sim.flags.items() if f.count]
    console.print(
        "[bold]simulated user fidelity[/bold] (flags: times, episodes/measured): "
        + ("none fired" if not fired else ""),
        soft_wrap=True,
    )
    for n, f in fired:
        console.print(f"  {n}: {f.count} times in {len(f.episodes)}/{f.measured} episodes", soft_wrap=True, highlight=False)
    unmeasured = [n for n, f in sim.flags.items() if not f.measured]
    if unmeasured:
        console.print(f"  not measured: {', '.join(unmeasured)}", soft_wrap=True, highlight=False)
    if sim.causes:
        by = ", ".join(f"{k} {v}" for k, v in sorted(sim.causes.items(), key=lambda kv: -kv[1]))
        console.print(
            f"causes of the {sum(sim.causes.values())} failed episodes: {by}; "
            f"{len(sim.flagged_failures)} failed with simulator flags"
            + (f" (reviewer: {sim.reviewer})" if sim.reviewer else ""),
            soft_wrap=True,
            highlight=False,
        )
    if s.pass_hat_k_agent_only:
        figs = " ".join(f"{k}:{v:.3f}" for k, v in s.pass_hat_k_agent_only.items())
        console.print(f"pass^k counting only agent-caused failures (not the score): {figs}", soft_wrap=True, highlight=False)
