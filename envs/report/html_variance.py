"""The report's section on ``summary.variance`` (``envs.variance``): the design, the split of the
outcome variance with intervals, pass^k with the user's share out beside the plain one, the judge's
flips per rule. Empty when the run has no split."""

from __future__ import annotations

import html

from envs.records import RunSummary, VarianceFigure


def _fig(f: VarianceFigure) -> str:
    if f.value is None:
        return "-"
    if f.by_construction:
        return f"{f.value:.3f} <i>by construction</i>"
    ci = f" [{f.ci95[0]:.3f}, {f.ci95[1]:.3f}]" if f.ci95 else ""
    return f"{f.value:.3f}{ci}"


def variance_html(s: RunSummary) -> str:
    v = s.variance
    if v is None:
        return ""
    d = v.design
    arms = "".join(f"<li><b>{html.escape(k)}</b>: {html.escape(n)}</li>" for k, n in d.arms.items())
    f3 = lambda x: "-" if x is None else f"{x:.3f}"  # noqa: E731
    tasks = "".join(
        f"<tr><td>{html.escape(t.task)}</td><td>{f3(t.total_var)}</td><td>{f3(t.user_var)} ({t.user_successes}/{t.user_replays} succeeded)</td>"
        f"<td>{f3(t.agent_var)} ({t.agent_successes}/{t.agent_replays} succeeded)</td><td>{f3(t.pass_hat_k_agent.get('1'))}</td></tr>"
        for t in v.per_task
    )
    ks = sorted(set(v.pass_hat_k) | set(v.pass_hat_k_agent), key=int)
    pk = "".join(
        f"<tr><td>{k}</td><td>{f3(v.pass_hat_k.get(k))}</td><td>{f3(v.pass_hat_k_agent.get(k))}"
        + (f" [{c[0]:.3f}, {c[1]:.3f}]" if (c := v.pass_hat_k_agent_ci95.get(k)) else "") + "</td></tr>"
        for k in ks
    )
    rules = "".join(
        f"<tr><td>{html.escape(rid)}</td><td>{r.source}</td><td>{r.items}</td><td>{r.rejudged}</td><td>{r.flips}</td>"
        f"<td>{f3(r.share)}{f' [{r.ci95[0]:.2f}, {r.ci95[1]:.2f}]' if r.ci95 else ''}</td></tr>"
        for rid, r in v.judge.items()
    )
    return (
        '<h2 id="variance">Whose noise: the agent, the simulated user, the judge</h2>'
        f"<p>Designed repeats beside run {html.escape(d.source_run)}: {d.bases} base(s) per task, {d.replays} replays per base "
        f"and arm, {d.episodes_played} episodes played ({d.errors} errored, left out), each episode re-judged {d.rejudge} times.</p>"
        f"<ul>{arms}</ul>"
        f"<p>Outcome variance per trial, mean over tasks (95% bootstrap over tasks): all repeats {_fig(v.total_var)}; "
        f"user, agent held {_fig(v.user_var)}; agent, user held {_fig(v.agent_var)}; user share {_fig(v.user_share)}. "
        f"Judge: share of model verdicts that flip {_fig(v.judge_flip_share)} (verdicts do not enter the reward).</p>"
        f"<div class=\"scroll\"><table><tr><th>k</th><th>pass^k (the run)</th><th>pass^k, user's share out</th></tr>{pk}</table></div>"
        f"<div class=\"scroll\"><table><tr><th>task</th><th>all repeats</th><th>user (agent held)</th><th>agent (user held)</th>"
        f"<th>pass^1 agent arm</th></tr>{tasks}</table></div>"
        + (f"<div class=\"scroll\"><table><tr><th>rule</th><th>source</th><th>replies</th><th>re-judged</th><th>flips</th>"
           f"<th>share</th></tr>{rules}</table></div>" if rules else "")
    )
