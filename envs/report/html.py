"""A self-contained ``report.html`` for a run: inline SVG plots and an inline viewer, no network.

Shows pass^k (all trials and clean trials) with intervals, the rule x
situation compliance matrix (gaps shown as gaps; a cell opens the replies
judged on it), the per-task table, the errors, and every episode: a task x
repeat grid of pass/fail/error cells with filters, each opening its
transcript, verdicts and grade (``envs.report.html_viewer``, data packed by
``envs.report.html_data``). Written next to ``summary.json``;
``python -m envs.report.html RUN_DIR`` rebuilds it.
"""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path

from envs.records import EpisodeRecord, RunSummary
from envs.report.html_data import episode_context, episode_index, packed_episodes, read_episodes, script_json
from envs.report.html_viewer import CSS, JS
from envs.report.summary import natural_key, read_summary
from graders.repetition import describe_repetition


def _pass_k_svg(s: RunSummary) -> str:
    ks = list(s.pass_hat_k)
    if not ks:
        return "<p>No episodes.</p>"
    w, h, pad = 60 * len(ks) + 80, 220, 40
    bw = 22
    parts = [f'<svg width="{w}" height="{h}" role="img" aria-label="pass^k">']
    parts.append(f'<line x1="{pad}" y1="{h - pad}" x2="{w - 10}" y2="{h - pad}" stroke="#444"/>')
    for tick in (0, 0.5, 1.0):
        y = h - pad - tick * (h - 2 * pad)
        parts.append(f'<text x="4" y="{y + 4:.0f}" font-size="11">{tick:.1f}</text>')
        parts.append(f'<line x1="{pad}" y1="{y:.0f}" x2="{w - 10}" y2="{y:.0f}" stroke="#ddd"/>')
    for i, k in enumerate(ks):
        x = pad + 10 + i * 60
        v = s.pass_hat_k[k]
        vc = s.pass_hat_k_clean.get(k)
        y = h - pad - v * (h - 2 * pad)
        parts.append(f'<rect x="{x}" y="{y:.1f}" width="{bw}" height="{h - pad - y:.1f}" fill="#3b6ea8"><title>pass^{k} = {v:.3f}</title></rect>')
        if vc is not None:
            yc = h - pad - vc * (h - 2 * pad)
            parts.append(f'<rect x="{x + bw}" y="{yc:.1f}" width="{bw}" height="{h - pad - yc:.1f}" fill="#9cc0e6"><title>clean trials: {vc:.3f}</title></rect>')
        ci = s.pass_hat_k_ci95.get(k)
        if ci:
            y0, y1 = (h - pad - c * (h - 2 * pad) for c in ci)
            parts.append(f'<line x1="{x + bw / 2}" y1="{y0:.1f}" x2="{x + bw / 2}" y2="{y1:.1f}" stroke="#000"/>')
        parts.append(f'<text x="{x}" y="{max(12, y - 4):.0f}" font-size="10">{v:.2f}</text>')
        parts.append(f'<text x="{x + 8}" y="{h - pad + 16}" font-size="12">k={k}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _heat(v: float | None) -> str:
    if v is None:
        return "#eee"
    r = int(220 - 160 * v)
    g = int(80 + 140 * v)
    return f"rgb({r},{g},90)"


def _rules_table(s: RunSummary, texts: dict | None = None) -> str:
    cov = s.coverage
    if not cov:
        return "<p>No rule verdicts.</p>"
    sits = sorted({sit for cells in cov.values() for sit in cells})
    rows = ['<div class="scroll"><table><tr><th>rule</th><th>all</th>' + "".join(f"<th>{html.escape(x)}</th>" for x in sits) + "</tr>"]
    for rid in sorted(cov, key=natural_key):
        e = s.rules.get(rid)
        comp = e.compliance if e else None
        flag = " (untrusted judge)" if e and e.untrusted else ""
        ra = html.escape(rid, quote=True)
        cells = [f'<td class="rc" data-rule="{ra}" title="the replies judged on {ra}" style="background:{_heat(comp)}">{"-" if comp is None else f"{comp:.2f}"} ({e.followed if e else 0}/{e.judged if e else 0}){_corrected(e)}</td>']
        for sit in sits:
            if sit not in cov[rid]:
                cells.append("<td></td>")
                continue
            cell = e.by_situation.get(sit) if e else None
            if not cell or not cell.judged:
                na = cell.not_applicable if cell else 0
                # n/a: the rule's condition never arose on those turns, so it is still a gap
                cells.append(f'<td class="gap">gap{f" (n/a on {na})" if na else ""}</td>')
            else:
                c = cell.compliance
                sa = html.escape(sit, quote=True)
                cells.append(
                    f'<td class="rc" data-rule="{ra}" data-sit="{sa}" title="the replies judged on {ra} in {sa}" '
                    f'style="background:{_heat(c)}">{c:.2f} ({cell.followed}/{cell.judged})</td>'
                )
        name = (s.rule_names or {}).get(rid) or ((texts or {}).get(rid) or {}).get("name", "")
        text = ((texts or {}).get(rid) or {}).get("text", "")
        rows.append(f'<tr><th class="rh" data-rule="{ra}" title="{html.escape(text, quote=True)}">{html.escape(rid)}'
                    f'{" <span class=rn>" + html.escape(name) + "</span>" if name else ""}{html.escape(flag)}</th>{"".join(cells)}</tr>')
    rows.append("</table></div><p>Click a rule or a cell to see the replies judged on it.</p>")
    un = s.unjudged
    if un:
        rows.append("<p>Unjudged (no check, no judge model): " + ", ".join(f"{html.escape(r)} on {n} turns" for r, n in sorted(un.items(), key=lambda kv: natural_key(kv[0]))) + "</p>")
    return "".join(rows)


def _simulator_html(s: RunSummary) -> str:
    """The simulator block: a row per flag, the causes, agent-only pass^k (a second figure)."""
    sim = s.simulator
    if sim is None:
        return ""
    rows = "".join(
        f"<tr><td>{html.escape(n)}</td><td>{f.count}</td><td>{len(f.episodes)}/{f.measured}</td>"
        f"<td>{html.escape(', '.join(f.episodes[:8]) + (' ...' if len(f.episodes) > 8 else ''))}</td></tr>"
        for n, f in sim.flags.items()
    )
    causes = ", ".join(f"{html.escape(k)}: {v}" for k, v in sorted(sim.causes.items())) or "no failures"
    eps = "".join(
        f"<tr><td>{html.escape(c.episode_id)}</td><td>{html.escape(c.cause)}</td><td>{html.escape(c.source)}</td>"
        f"<td>{html.escape('; '.join(c.evidence[:2]))}</td></tr>"
        for c in sim.episodes[:60]
    )
    agent_only = " ".join(f"k={k}: {v:.3f}" for k, v in s.pass_hat_k_agent_only.items())
    return (
        "<h2>Simulated user fidelity and causes of failure</h2>"
        f"<div class=\"scroll\"><table><tr><th>flag</th><th>times</th><th>episodes/measured</th><th>episodes</th></tr>{rows}</table></div>"
        f"<p>Causes: {causes}. Failed with simulator flags: {len(sim.flagged_failures)}."
        f"{' Reviewer: ' + html.escape(sim.reviewer) + '.' if sim.reviewer else ''}</p>"
        f"<p>pass^k counting only agent-caused failures (a second figure, not the score): {agent_only or '-'}</p>"
        + (f"<p>Templated lines: {html.escape(describe_repetition(sim.cross_task_repetition))}.</p>" if describe_repetition(sim.cross_task_repetition) else "")
        + f"<div class=\"scroll\"><table><tr><th>episode</th><th>cause</th><th>source</th><th>evidence</th></tr>{eps}</table></div>"
    )


def _corrected(e) -> str:
    if e is None or e.corrected is None:
        return ""
    return f"<br>corrected {e.corrected:.2f}"


def _episodes_section(episodes: list[EpisodeRecord] | None, unreadable: int, context: dict | None = None) -> str:
    if episodes is None:
        return ""
    context = context or {"tasks": {}, "rules": {}, "causes": {}, "flags": {}}
    note = f" {unreadable} record line(s) in episodes.jsonl could not be read and are not shown." if unreadable else ""
    return f"""<h2 id="episodes">Episodes</h2>
<p>One cell per episode (green: solved, red: failed, striped amber: error); click one to open it.{note}</p>
<div id="sg-filters"></div><div id="sg-grid"></div>
<section id="sg-episode" class="panel" hidden></section><section id="sg-replies" class="panel" hidden></section>
<script type="application/json" id="sg-index">{script_json(episode_index(episodes, context))}</script>
<script type="application/json" id="sg-context">{script_json(context)}</script>
<script type="application/octet-stream" id="sg-episodes">{packed_episodes(episodes)}</script>
<script>{JS}</script>"""


def variance_html(s: RunSummary) -> str:
    from envs.report.html_variance import variance_html as section

    return section(s)


def render(summary: RunSummary, episodes: list[EpisodeRecord] | None = None, unreadable: int = 0, domain=None) -> str:
    """The report page for ``summary``, as one self-contained HTML string; with ``episodes``
    (the run's records), the episode grid and viewer too (``unreadable``: record lines that
    could not be read, said on the page); with the ``domain``, each episode's view shows its
    task's goal, the rules' texts and its simulator flags with their evidence."""
    s = summary
    context = episode_context(episodes or [], s, domain) if episodes is not None else None
    rules = (context or {}).get("rules", {})
    per_task = "".join(
        f"<tr><td>{html.escape(p.id)}</td><td>{p.successes}/{p.trials}</td><td>{p.errors}</td>"
        f"<td>{html.escape(', '.join(f'{k} {v}' for k, v in p.terminations.items()))}</td></tr>"
        for p in s.per_task
    )
    errs = ", ".join(f"{html.escape(k)}: {v}" for k, v in s.errors_by_role_kind.items()) or "none"
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>sitgym {html.escape(str(s.run_id))}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>{CSS}</style>
</head><body>
<h1>sitgym run {html.escape(str(s.run_id))}</h1>
<p>domain <b>{html.escape(str(s.domain))}</b>; actors {html.escape(json.dumps(s.actors))};
{s.episodes} episodes over {s.tasks} tasks x {s.repeats} repeats; errors {s.errors} ({errs});
agent errors {s.agent_errors}.</p>
<h2>pass^k</h2><p>Dark: all trials (errors count as failures), with 95% bootstrap interval over tasks. Light: clean trials only.</p>
<div class="scroll">{_pass_k_svg(s)}</div>
<h2 id="rules">Rule compliance by situation</h2>{_rules_table(s, rules)}
{_simulator_html(s)}
{variance_html(s)}
<h2>Tasks</h2><div class="scroll"><table><tr><th>task</th><th>solved</th><th>errors</th><th>ended by</th></tr>{per_task}</table></div>
{_episodes_section(episodes, unreadable, context)}
</body></html>"""


def run_domain(run_dir: Path):
    """The domain of the run in ``run_dir`` as its ``config.json`` configured it (options
    included), or None when it cannot be built here (then the report shows what the records hold)."""
    from envs.errors import SpecError
    from envs.run.config import RunConfig, configure_domain

    try:
        cfg = RunConfig.model_validate_json((Path(run_dir) / "config.json").read_text(encoding="utf-8"))
        return configure_domain(cfg, {}, False)
    except (OSError, ValueError, SpecError, KeyError):
        return None


def write_report(run_dir: Path, summary: RunSummary, domain=None) -> Path:
    """Write ``report.html`` for ``summary`` into ``run_dir``, with the episodes of its
    ``episodes.jsonl`` (the summary's tasks and repeats); ``domain`` (default: the run's, from
    its ``config.json``) gives the goals, rule texts and flag evidence. Returns its path."""
    out = Path(run_dir) / "report.html"
    tasks = [p.id for p in summary.per_task] if summary.per_task else None
    episodes, unreadable = read_episodes(run_dir, tasks, summary.repeats)
    domain = domain if domain is not None else run_domain(run_dir)
    out.write_text(render(summary, episodes, unreadable, domain), encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m envs.report.html RUN_DIR``: (re)write a run's report.html from its summary.json.
    Bad input (no folder, no summary, a malformed one) is one line and exit code 2."""
    import argparse

    from pydantic import ValidationError

    ap = argparse.ArgumentParser(prog="python -m envs.report.html", description=main.__doc__.split("\n")[0])
    ap.add_argument("run_dir", help="a run folder holding summary.json")
    args = ap.parse_args(argv)
    d = Path(args.run_dir)
    if not d.is_dir():
        print(f"error: {d}: no such run folder", file=sys.stderr)
        return 2
    try:
        summary = read_summary(d)
    except FileNotFoundError:
        print(f"error: {d / 'summary.json'}: file not found (is the run finished?)", file=sys.stderr)
        return 2
    except (ValidationError, ValueError, UnicodeDecodeError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        print(f"error: {d / 'summary.json'}: not a run summary ({first})", file=sys.stderr)
        return 2
    print(write_report(d, summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
