"""``python -m envs.compare runs/A runs/B``: what a model or prompt change did.

Compares two runs of the same domain, task by task and rule by rule:

* pass^k of both runs, and the per-task success rates paired by task, with a
  two-sided paired sign-flip permutation test on the per-task differences
  (tasks are the unit; repeats within a task are not independent evidence);
* tasks that got better or worse;
* per rule, compliance in A and B with Fisher's exact test on the judged turns.

Only tasks present in both runs are compared, and the output says how many. Every task that
got better or worse is listed (largest change first), unless ``--top N`` asks for fewer, and
then the output says how many it left out. Rules are in natural order (R2 before R10), by id
and short name.
"""

from __future__ import annotations

from rich.markup import escape  # a message may hold brackets (paths, gold[3], .[ray]): never markup

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from envs.errors import SpecError
from envs.records import RunSummary
from envs.report.rule_names import rule_label
from envs.report.summary import natural_key
from graders.statistics import fisher_exact, paired_permutation


def _load(run_dir: Path) -> tuple[Any, dict[str, list[int]]]:
    """The run's summary, and per task [episodes, successes] over its newest records (streamed: each
    line read as an ``EpisodeOutcome``, so memory holds counts, not records)."""
    s = run_dir / "summary.json"
    e = run_dir / "episodes.jsonl"
    if not s.exists() or not e.exists():
        raise SpecError(f"{run_dir}: not a finished run (needs summary.json and episodes.jsonl)")
    from envs.records import EpisodeOutcome
    from envs.run.store import RunStore

    try:
        summary = _compared_summary().model_validate_json(s.read_bytes())
    except ValueError as e:  # pydantic's ValidationError, or JSON that does not parse
        raise SpecError(f"{s}: not a run summary ({str(e).splitlines()[0]})") from None
    store = RunStore(run_dir)
    store.repair_tail()
    return summary, task_counts(store.iter_latest(view=EpisodeOutcome))


# What compare reads of a summary.json: the rest (the simulator block lists every failed episode's
# cause, hundreds of MB at 100,000 episodes) is skipped, not built.
_COMPARED_FIELDS = ("domain", "actors", "pass_hat_k", "errors", "rules", "rule_names", "variance")


def _compared_summary():
    """``RunSummary`` narrowed to ``_COMPARED_FIELDS`` (same types and defaults; other keys ignored)."""
    from pydantic import ConfigDict, create_model

    fields = {k: (RunSummary.model_fields[k].annotation, RunSummary.model_fields[k]) for k in _COMPARED_FIELDS}
    return create_model("ComparedSummary", __config__=ConfigDict(extra="ignore"), **fields)


def task_counts(recs) -> dict[str, list[int]]:
    """Per task: [episodes, successes] (a success: status ok and reward 1)."""
    out: dict[str, list[int]] = {}
    for r in recs:
        t = out.setdefault(r.task_id, [0, 0])
        t[0] += 1
        t[1] += int(r.status == "ok" and r.reward >= 1.0)
    return out


def compare(a_dir: Path, b_dir: Path) -> dict:
    sa, ra = _load(a_dir)
    sb, rb = _load(b_dir)
    if sa.domain != sb.domain:
        raise SpecError(f"{b_dir}: domain {sb.domain!r} differs from {a_dir}'s {sa.domain!r}")

    (pa, _), (pb, _) = _trials(ra), _trials(rb)
    common = sorted(pa.keys() & pb.keys())
    diffs = [pb[t] - pa[t] for t in common]
    tasks = {
        "compared": len(common),
        "only_in_a": sorted(pa.keys() - pb.keys()),
        "only_in_b": sorted(pb.keys() - pa.keys()),
        "mean_success_a": sum(pa[t] for t in common) / len(common) if common else None,
        "mean_success_b": sum(pb[t] for t in common) / len(common) if common else None,
        "p_value": paired_permutation(diffs),
        # Largest change first, then by task id in natural order.
        "better": sorted(({"task": t, "a": pa[t], "b": pb[t]} for t in common if pb[t] > pa[t]),
                         key=lambda r: (r["a"] - r["b"], natural_key(r["task"]))),
        "worse": sorted(({"task": t, "a": pa[t], "b": pb[t]} for t in common if pb[t] < pa[t]),
                        key=lambda r: (r["b"] - r["a"], natural_key(r["task"]))),
    }
    rules = {}
    for rid in sorted(set(sa.rules) | set(sb.rules), key=natural_key):
        ea, eb = sa.rules.get(rid), sb.rules.get(rid)
        fa, na = (ea.followed, ea.judged) if ea else (0, 0)
        fb, nb = (eb.followed, eb.judged) if eb else (0, 0)
        rules[rid] = {
            "a": {"followed": fa, "judged": na, "compliance": fa / na if na else None},
            "b": {"followed": fb, "judged": nb, "compliance": fb / nb if nb else None},
            "p_value": fisher_exact(fa, na - fa, fb, nb - fb) if na and nb else None,
        }
    return {
        "a": str(a_dir),
        "b": str(b_dir),
        "domain": sa.domain,
        "actors": {"a": sa.actors, "b": sb.actors},
        "pass_hat_k": {"a": sa.pass_hat_k, "b": sb.pass_hat_k},
        "errors": {"a": sa.errors, "b": sb.errors},
        "tasks": tasks,
        "rules": rules,
        "rule_names": {**(sa.rule_names or {}), **(sb.rule_names or {})},
        "power": power_block(ra, rb, tasks),
        "variance": variance_block(sa, sb, ra, rb, tasks),
    }


def print_comparison(c: dict, alpha: float = 0.05, console=None, top: int | None = None) -> None:
    """Print the comparison; ``top`` caps each of the better / worse lists (and says how many it left out)."""
    from rich.console import Console

    from envs.report.terminal import Col, fit_table, plural

    console = console or Console()
    # The runs' names on a line of their own (wrapped, never squeezed into a table title).
    console.print(f"[bold]{c['domain']}[/bold]: A = {c['a']}  vs  B = {c['b']}", highlight=False)
    ka, kb = c["pass_hat_k"]["a"] or {}, c["pass_hat_k"]["b"] or {}
    rows = [[k, f"{ka[k]:.3f}", f"{kb[k]:.3f}", f"{kb[k] - ka[k]:+.3f}"] for k in sorted(set(ka) & set(kb), key=int)]
    cols = [Col("k", "right"), Col("pass^k A", "right"), Col("pass^k B", "right"), Col("change", "right")]
    console.print(fit_table("pass^k, A vs B", cols, rows, console.width))
    tk = c["tasks"]
    if tk["compared"]:
        sig = "significant" if tk["p_value"] < alpha else "not significant"
        console.print(
            f"per-task success over {tk['compared']} shared tasks: {tk['mean_success_a']:.3f} -> {tk['mean_success_b']:.3f} "
            f"(paired permutation p = {tk['p_value']:.3g}, {sig} at {alpha}); "
            f"{plural(len(tk['better']), 'task')} better, {len(tk['worse'])} worse; "
            f"{plural(c['errors']['a'], 'error')} in A, {c['errors']['b']} in B",
            highlight=False,  # wrapped by rich at spaces, at the terminal's width
        )
    _print_power(c, console)
    for label, rows in (("worse", tk["worse"]), ("better", tk["better"])):
        shown = rows if top is None else rows[:top]
        for r in shown:
            console.print(f"  {label}: {r['task']}  {r['a']:.2f} -> {r['b']:.2f}", soft_wrap=True, highlight=False)
        if len(shown) < len(rows):
            console.print(f"  ... and {len(rows) - len(shown)} more {label} (not shown: --top {top}; all in --json)", highlight=False)
    if c["rules"]:
        rows = []
        for rid in sorted(c["rules"], key=natural_key):
            r = c["rules"][rid]
            a, b = r["a"], r["b"]
            fmt = lambda x: "-" if x["compliance"] is None else f"{x['compliance']:.2f} ({x['followed']}/{x['judged']})"  # noqa: E731
            ch = "" if a["compliance"] is None or b["compliance"] is None else f"{b['compliance'] - a['compliance']:+.2f}"
            p = "-" if r["p_value"] is None else f"{r['p_value']:.3g}" + (" *" if r["p_value"] < alpha else "")
            rows.append([rule_label(rid, c.get("rule_names")), fmt(a), fmt(b), ch, p])
        cols = [Col("rule", flexible=True, min_width=8), Col("A"), Col("B"), Col("change", "right"), Col("p", "right")]
        console.print(fit_table(f"rule compliance, A vs B (Fisher exact test on judged turns; * p < {alpha})", cols, rows, console.width))


def _trials(counts) -> tuple[dict[str, float], dict[str, int]]:
    """Per task: success rate over its episodes, and how many (``counts``: ``task_counts``'s table,
    or records, which are counted first)."""
    if not isinstance(counts, dict):
        counts = task_counts(counts)
    return {t: c / n for t, (n, c) in counts.items()}, {t: n for t, (n, _) in counts.items()}


def power_block(ra, rb, tasks: dict) -> dict | None:
    """The smallest pass^1 difference these runs could detect (80% power, two-sided 0.05, paired
    by task; ``graders.power``), whether the observed one is inside it, and what would settle it."""
    from graders.power import paired_power

    (pa, na), (pb, nb) = _trials(ra), _trials(rb)
    pw = paired_power(pa, na, pb, nb)
    if pw is None:
        return None
    observed = tasks["mean_success_b"] - tasks["mean_success_a"]
    return {
        "tasks": pw.tasks, "repeats": pw.repeats, "sigma_d": pw.sigma_d, "between": pw.between, "within": pw.within,
        "mde": pw.mde, "observed": observed, "inside": pw.inside(observed),
        "needed": pw.needed(observed) if pw.inside(observed) and observed else None,
    }


def variance_block(sa, sb, ra, rb, tasks: dict) -> dict | None:
    """When both runs carry a measured split (``envs.variance``): the difference judged against the
    agent's own within-task variance rather than all of it (the simulated user's share taken out)."""
    from graders.power import paired_power

    va, vb = getattr(sa, "variance", None), getattr(sb, "variance", None)
    if va is None or vb is None:
        return None
    (pa, na), (pb, nb) = _trials(ra), _trials(rb)
    aa = {t.task: t.agent_var for t in va.per_task if t.agent_var is not None}
    ab = {t.task: t.agent_var for t in vb.per_task if t.agent_var is not None}
    common = sorted(pa.keys() & pb.keys() & aa.keys() & ab.keys())
    if len(common) < 2:
        return {"tasks": len(common), "note": "fewer than 2 shared tasks with the agent's share measured"}
    within = sum(aa[t] / na[t] + ab[t] / nb[t] for t in common) / len(common)
    pw = paired_power({t: pa[t] for t in common}, na, {t: pb[t] for t in common}, nb, within_override=within)
    observed = sum(pb[t] - pa[t] for t in common) / len(common)
    return {
        "tasks": pw.tasks, "agent_within": within, "between": pw.between, "mde": pw.mde, "observed": observed,
        "inside": pw.inside(observed), "needed": pw.needed(observed) if pw.inside(observed) and observed else None,
    }


def _print_power(c: dict, console) -> None:
    """The detectable-difference lines (``power_block``, ``variance_block``)."""
    pw = c.get("power")
    if pw is not None:
        _print_mde(pw, console)
    _print_variance(c, console)


def _print_mde(pw: dict, console) -> None:
    obs = pw["observed"]
    line = (
        f"detectable difference: {pw['mde']:.3f} in pass^1 (80% power, two-sided 0.05, paired over {pw['tasks']} tasks "
        f"x {pw['repeats']:g} repeats); observed {obs:+.3f}, "
    )
    if pw["inside"]:
        line += "inside it: these runs cannot tell this difference from noise"
        if pw["needed"]:
            n = pw["needed"]
            reps = f"{n['repeats']} repeats per task at these tasks" if n["repeats"] else "no number of repeats (the spread is between tasks)"
            line += f"; to settle {abs(obs):.3f}: {n['tasks']} tasks at these repeats, or {reps}"
    else:
        line += "outside it"
    console.print(line, highlight=False)


def _print_variance(c: dict, console) -> None:
    v = c.get("variance")
    if v and "mde" in v:
        line = (
            f"against the agent's own variance (envs.variance split, the simulated user's share out): detectable "
            f"{v['mde']:.3f} over {v['tasks']} tasks; observed {v['observed']:+.3f}, "
            + ("inside it" if v["inside"] else "outside it")
        )
        if v["inside"] and v["needed"]:
            n = v["needed"]
            reps = f"{n['repeats']} repeats" if n["repeats"] else "no number of repeats"
            line += f"; to settle it: {n['tasks']} tasks, or {reps}"
        console.print(line, highlight=False)
    elif v:
        console.print(f"variance split: {v['note']}", highlight=False)


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console

    ap = argparse.ArgumentParser(prog="python -m envs.compare", description="Compare two runs: A (before) and B (after).")
    ap.add_argument("a", help="run folder A (before)")
    ap.add_argument("b", help="run folder B (after)")
    ap.add_argument("--alpha", type=float, default=0.05, help="significance level the p-values are marked against (default 0.05)")
    ap.add_argument("--json", default=None, help="also write the comparison as JSON here")
    ap.add_argument("--top", type=int, default=None, help="list at most N tasks better and N worse (default: all)")
    args = ap.parse_args(argv)
    console = Console()
    try:
        c = compare(Path(args.a), Path(args.b))
    except SpecError as e:
        console.print(f"[red]error:[/red] {escape(str(e))}", soft_wrap=True, highlight=False)
        return 2
    print_comparison(c, args.alpha, console, top=args.top)
    if args.json:
        Path(args.json).write_text(json.dumps(c, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
