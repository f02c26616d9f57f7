"""The run summary in the terminal (rich): a one-line headline first, then tables fitted to the width.

Every table is laid out for the console's width: each row is one line and no header is cut.
Columns a narrow terminal cannot hold are left out in a fixed order (least needed first) and
the table says which; long cells (task ids, rule names, first failures) are summarised to the
room left rather than cut mid-word. Rules show as id and short name, in natural order (R2
before R10); counts take their plural.
"""

from __future__ import annotations

from dataclasses import dataclass

from envs.records import RunSummary
from envs.table_style import line_table  # noqa: F401  (the one style; drawn here and by the graders)
from envs.report.rule_names import rule_label
from envs.report.summary import natural_key
from graders.repetition import describe_repetition

GAP = 3  # between two columns: padding (0, 1) on each side and the box's (blank) divider


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 episode``, ``2 episodes``, ``0 errors``."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def _ci(ci) -> str:
    return f"[{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "-"


def shorten(text: str, width: int, seps: tuple[str, ...] = ("; ", ", ")) -> str:
    """``text`` in at most ``width`` characters: whole parts (split on the first of ``seps`` that
    leaves some part whole, e.g. rows then columns of a diff) while they fit, and ``(+N more)``
    for the rest; with no part that fits, cut at a word boundary with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    for sep in seps:
        parts = text.split(sep)
        if len(parts) < 2:
            continue
        for n in range(len(parts) - 1, 0, -1):
            head = sep.join(parts[:n]) + f" (+{len(parts) - n} more)"
            if len(head) <= width:
                return head
    cut = text[: max(1, width - 1)]
    if " " in cut[width // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:") + "…"


@dataclass
class Col:
    header: str
    justify: str = "left"
    flexible: bool = False  # takes the room left; its cells are shortened to fit
    min_width: int = 0
    drop: int = 0  # > 0: may be left out on a narrow terminal, the highest first


def fit_table(title: str, cols: list[Col], rows: list[list[str]], width: int, note_dropped: bool = True):
    """A rich Table of ``rows`` that fits ``width``: one line per row, headers whole."""
    cols, rows = list(cols), [list(r) for r in rows]
    dropped: list[str] = []

    def natural(i: int) -> int:
        return max([len(cols[i].header)] + [len(r[i]) for r in rows])

    def needed() -> int:
        fixed = sum(natural(i) if not c.flexible else max(c.min_width, len(c.header)) for i, c in enumerate(cols))
        return fixed + GAP * (len(cols) - 1)

    while needed() > width and any(c.drop for c in cols):
        i = max(range(len(cols)), key=lambda j: cols[j].drop)
        dropped.append(cols[i].header)
        del cols[i]
        for r in rows:
            del r[i]
    flex = [i for i, c in enumerate(cols) if c.flexible]
    fixed = sum(natural(i) for i, c in enumerate(cols) if not c.flexible) + GAP * (len(cols) - 1)
    widths = {i: natural(i) for i in range(len(cols))}
    # Flexible columns start at their floor; the room left goes to them in column order (the
    # first, e.g. the task id, is filled to its natural width before the next gets any).
    left = width - fixed
    for i in flex:
        widths[i] = min(natural(i), max(cols[i].min_width, len(cols[i].header)))
        left -= widths[i]
    for i in flex:
        extra = max(0, min(left, natural(i) - widths[i]))
        widths[i] += extra
        left -= extra
    t = line_table(title)
    for i, c in enumerate(cols):
        t.add_column(c.header, justify=c.justify, no_wrap=True, overflow="ellipsis", width=widths[i])
    for r in rows:
        t.add_row(*[shorten(v, widths[i]) if cols[i].flexible else v for i, v in enumerate(r)])
    if dropped and note_dropped:
        t.caption = f"left out at this width: {', '.join(dropped)}"
        t.caption_justify = "left"
    return t


def headline(s: RunSummary) -> str:
    """``pass^1 0.914 [0.86, 0.96] over 35 tasks x 8; 0 errors`` and what else the reader must know."""
    p1 = s.pass_hat_k.get("1")
    head = "no episodes" if p1 is None else f"pass^1 {p1:.3f} {_ci(s.pass_hat_k_ci95.get('1'))}"
    kmax = str(s.repeats) if s.repeats and str(s.repeats) in s.pass_hat_k and s.repeats > 1 else None
    if kmax:
        head += f", pass^{kmax} {s.pass_hat_k[kmax]:.3f}"
    head += f" over {plural(s.tasks, 'task')} x {s.repeats or 1}; {plural(s.errors, 'error')}"
    budget = sum(getattr(s, "budget_stops", {}).values())
    if budget:
        head += f"; {plural(budget, 'episode')} ended by a budget"
    if getattr(s, "retried", 0):
        head += f"; {plural(s.retried, 'episode')} replayed after an error ({s.retried_ok} recovered)"
    if getattr(s, "not_played", 0):
        head += f"; {s.not_played} not played (cost cap)"
    return head


def print_summary(summary: RunSummary, console=None) -> None:
    """Print ``summary`` to ``console`` (default: a new rich Console on stdout): headline, pass^k,
    unsolved tasks, rule compliance, gaps, usage; each table fitted to the console's width."""
    from rich.console import Console

    s = summary
    console = console or Console()
    width = console.width
    say = lambda text: console.print(text, highlight=False)  # noqa: E731
    say(f"[bold]{headline(s)}[/bold]")
    say(f"run {s.run_id} - {s.domain}; agent {s.actors.get('agent')}, user {s.actors.get('user')}"
        + (f", judge {s.actors['judge']}" if s.actors.get("judge") else ""))

    rows = [
        [k, f"{v:.3f}", _ci(s.pass_hat_k_ci95.get(k)),
         f"{s.pass_hat_k_clean[k]:.3f}" if k in s.pass_hat_k_clean else "-", f"{s.pass_at_k[k]:.3f}"]
        for k, v in sorted(s.pass_hat_k.items(), key=lambda kv: int(kv[0]))
    ]
    cols = [Col("k", "right"), Col("pass^k", "right"), Col("95% CI", "right"),
            Col("clean only", "right", drop=1), Col("pass@k", "right", drop=2)]
    console.print(fit_table("pass^k (an errored episode is a failed trial)", cols, rows, width))

    mr = "-" if s.mean_reward is None else f"{s.mean_reward:.3f}"
    line = (f"{plural(s.episodes, 'episode')} over {plural(s.tasks, 'task')} x {plural(s.repeats or 1, 'repeat')}; "
            f"{plural(s.errors, 'error')}")
    if s.errors_by_role_kind:
        line += " (" + ", ".join(f"{k} {v}" for k, v in sorted(s.errors_by_role_kind.items())) + ")"
    line += f"; {plural(s.agent_errors, 'agent error')} (bad tool calls, unparseable replies); mean reward {mr}"
    if getattr(s, "budget_stops", None):
        line += "; ended by a budget: " + ", ".join(f"{k} {v}" for k, v in sorted(s.budget_stops.items()))
    say(line)

    failing = [p for p in s.per_task if p.successes < p.trials]
    if failing:
        print_failing(s, failing, console, width)

    if s.rules:
        _print_rules(s, console, width)
    if s.coverage_gaps:
        say(f"[yellow]coverage gaps[/yellow]: {plural(len(s.coverage_gaps), 'rule x situation pair')} with no judged turn")
    if s.unjudged:
        say("[yellow]unjudged[/yellow] (no deterministic check and no --judge model): "
            + ", ".join(f"{r} on {plural(n, 'turn')}" for r, n in sorted(s.unjudged.items(), key=lambda kv: natural_key(kv[0]))))
    print_simulator(s, console)
    if s.usage:
        rows = []
        for role, u in s.usage.items():
            cost = f"{u.cost:.4f}" + (f" (+{plural(u.cost_unknown_calls, 'call')} unpriced)" if u.cost_unknown_calls else "")
            rows.append([role, f"{u.calls:,}", f"{u.prompt_tokens:,}", f"{u.completion_tokens:,}", cost])
        cols = [Col("role"), Col("calls", "right"), Col("prompt", "right"), Col("completion", "right"), Col("cost (USD)", flexible=True, min_width=10)]
        console.print(fit_table("tokens and cost", cols, rows, width))


def print_failing(s: RunSummary, failing: list, console, width: int, limit: int = 40) -> None:
    """The tasks not solved every time: a line per task (id, solved, errors, how its episodes
    ended) and under it, across the whole width, its first failure with the cause first, wrapped
    and never cut (it is the line a reader came for). Long endings wrap in their column."""
    import textwrap

    from rich.padding import Padding
    from rich.text import Text

    shown = failing[:limit]
    title = f"{plural(len(failing), 'task')} not solved every time, each with its first failure"
    if len(failing) > len(shown):
        title += f" (first {len(shown)} shown; all in summary.json)"
    with_errors = any(p.errors for p in shown)  # a column of zeros says nothing the headline does not
    cells = [[p.id, f"{p.successes}/{p.trials}"] + ([str(p.errors)] if with_errors else []) for p in shown]
    heads = ["task", "solved"] + (["errors"] if with_errors else [])
    ended = [", ".join(f"{k} {v}" for k, v in sorted(p.terminations.items())) for p in shown]
    ws = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(heads)]
    ends_min = max(len("ended by"), min(14, max(map(len, ended))))  # "user_stop 8" stays whole
    ws[0] = min(ws[0], max(12, width - sum(ws[1:]) - GAP * len(ws) - ends_min))
    left = sum(ws) + GAP * len(ws)  # where "ended by" starts
    room = max(len("ended by"), width - left)

    def line(vals: list[str], end: str) -> list[str]:
        first = [vals[0].ljust(ws[0])] + [v.rjust(w) for v, w in zip(vals[1:], ws[1:])]
        head = (" " * GAP).join(first) + " " * GAP
        if len(vals[0]) > ws[0]:  # an id longer than its column: on a line of its own
            return [vals[0]] + line([""] + vals[1:], end)
        ends = textwrap.wrap(end, room, break_on_hyphens=False) or [""]
        return [(head + ends[0]).rstrip()] + [" " * left + e for e in ends[1:]]

    console.print(title, highlight=False)
    console.print("\n".join(line(heads, "ended by")), highlight=False)
    console.print("\u2500" * min(width, max(left + max(map(len, ended + ["ended by"])), left + room)), highlight=False)
    for p, row, end in zip(shown, cells, ended):
        console.print(Text("\n".join(line(row, end))), highlight=False)
        why = p.first_failure.why if p.first_failure else "-"
        rep = f"#{p.first_failure.repeat}: " if p.first_failure and p.trials > 1 else ""
        console.print(Padding(Text(rep + why, overflow="fold"), (0, 0, 0, 2)), highlight=False)


def _print_rules(s: RunSummary, console, width: int) -> None:
    names = getattr(s, "rule_names", {}) or {}
    calibrated = any(e.calibrated for e in s.rules.values())
    any_review = any(e.needs_review for e in s.rules.values())
    any_unjudged = any(e.unjudged for e in s.rules.values())
    # The rule's id and name must stay readable: other columns are left out before it is cut.
    cols = [Col("rule", flexible=True, min_width=28), Col("followed", "right"), Col("rate", "right"), Col("95% CI", "right")]
    if calibrated:
        cols += [Col("corrected", "right", drop=3), Col("corr. 95% CI", "right", drop=5), Col("judge acc.", "right", drop=6)]
    cols += [Col("n/a", "right", drop=2)]
    if any_review:
        cols += [Col("review", "right", drop=1)]
    if any_unjudged:
        cols += [Col("unjudged", "right", drop=1)]
    cols += [Col("weakest situation", flexible=True, min_width=17, drop=4)]
    rows = []
    for rule, e in sorted(s.rules.items(), key=lambda kv: natural_key(kv[0])):
        label = rule_label(rule, names) + (" *" if e.approximate else " †" if e.untrusted else "")
        row = [label, f"{e.followed}/{e.judged}", "-" if e.compliance is None else f"{e.compliance:.2f}", _ci(e.ci95)]
        if calibrated:
            row += ["-" if e.corrected is None else f"{e.corrected:.2f}", _ci(e.corrected_ci95),
                    "-" if e.judge_accuracy is None else f"{e.judge_accuracy:.2f}"]
        row += [str(e.not_applicable)]
        if any_review:
            row += [str(e.needs_review)]
        if any_unjudged:
            row += [str(e.unjudged)]
        judged = [(c.compliance, sit, c) for sit, c in e.by_situation.items() if c.judged]
        weakest = min(judged, key=lambda x: (x[0], natural_key(x[1]))) if judged else None
        # Counts first: when the column is narrow, the situation's name is what gets shortened.
        row += [f"{weakest[2].followed}/{weakest[2].judged} {weakest[1]}" if weakest else "-"]
        rows.append(row)
    console.print(fit_table("rule compliance (judged turns)", cols, rows, width))
    if any(e.approximate for e in s.rules.values()):
        console.print("* approximate: its check is below 0.8 on held-out replies", highlight=False)
    if any(e.untrusted and not e.approximate for e in s.rules.values()):
        console.print("† untrusted: the judge is below 0.8 on its gold replies", highlight=False)


def print_simulator(s: RunSummary, console) -> None:
    """The simulator block in brief: one line per flag that fired, the causes, agent-only pass^k."""
    sim = s.simulator
    if sim is None:
        return
    fired = [(n, f) for n, f in sim.flags.items() if f.count]
    console.print(
        "[bold]simulated user fidelity[/bold] (flags: times, episodes/measured): "
        + ("none fired" if not fired else ""),
    )
    for n, f in fired:
        console.print(f"  {n}: {f.count} times in {len(f.episodes)}/{f.measured} episodes", highlight=False)
    rep_line = describe_repetition(sim.cross_task_repetition)
    if rep_line:
        console.print("  " + rep_line, highlight=False)  # wrapped at the terminal's width
    unmeasured = [n for n, f in sim.flags.items() if not f.measured]
    if unmeasured:
        console.print(f"  not measured: {', '.join(unmeasured)}", highlight=False)
    if sim.causes:
        by = ", ".join(f"{k} {v}" for k, v in sorted(sim.causes.items(), key=lambda kv: -kv[1]))
        console.print(
            f"causes of the {sum(sim.causes.values())} failed episodes: {by}; "
            f"{len(sim.flagged_failures)} failed with simulator flags"
            + (f" (reviewer: {sim.reviewer})" if sim.reviewer else ""),
            highlight=False,
        )
    if s.pass_hat_k_agent_only:
        figs = " ".join(f"{k}:{v:.3f}" for k, v in s.pass_hat_k_agent_only.items())
        # wrapped by rich at spaces, so a figure ("8:0.086") is never split across lines
        console.print(f"pass^k counting only agent-caused failures (not the score): {figs}", highlight=False)
