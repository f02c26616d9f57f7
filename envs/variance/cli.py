"""``python -m envs.variance RUN [--replays N] [--bases B] [--rejudge N] [--max-episodes N] [--out DIR]``.

Adds the designed repeats a run needs to split its spread between the agent, the simulated user and
the judge (see ``envs.variance``), and prints the design and the split. The run's folder is only read;
everything goes to ``--out`` (default ``RUN-variance``). Bad input (not a run, no LLM role, a budget
too small for the design, a person in a role) is one line and exit 2, before anything is played or
written.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import time
from pathlib import Path

from envs.errors import InfraError, SpecError


def build_parser() -> argparse.ArgumentParser:
    from envs.run.llm_flags import add_llm_arguments

    ap = argparse.ArgumentParser(prog="python -m envs.variance", description=__doc__.split("\n\n")[1])
    ap.add_argument("run_dir", help="a finished run folder (config.json and episodes.jsonl)")
    ap.add_argument("--replays", type=int, default=4, help="replays per base in each arm (default 4; at least 2)")
    ap.add_argument("--bases", type=int, default=1, help="original repeats per task used as bases (default 1)")
    ap.add_argument("--rejudge", type=int, default=3, help="times each original episode is re-judged (default 3; 0: none)")
    ap.add_argument("--max-episodes", type=int, default=None, metavar="N",
                    help="budget: designed episodes played plus episodes re-judged (each re-judgement counts one)")
    ap.add_argument("--out", default=None, help="the new folder (default RUN-variance)")
    ap.add_argument("--concurrency", type=int, default=4, help="chains (one base's replays) in flight at once (default 4)")
    ap.add_argument("--quiet", action="store_true", help="no progress lines while the runs play")
    add_llm_arguments(ap)  # --cache DIR, api bases, temperatures: as the run's, overridable
    return ap


def _read_run(src: Path):
    """The run's config and its newest record per (task, repeat), read only."""
    from envs.run.store import RunStore

    if not src.is_dir() or not (src / "config.json").exists() or not (src / "episodes.jsonl").exists():
        raise SpecError(f"{src}: not a run folder (needs config.json and episodes.jsonl)")
    store = RunStore(src)
    try:
        cfg = store.read_config()
    except ValueError as e:
        raise SpecError(f"{src / 'config.json'}: not a run config ({str(e).splitlines()[0]})") from None
    recs = list(store.iter_latest(lambda t, r: r < (cfg.repeats or 1)))
    if not recs:
        raise SpecError(f"{src / 'episodes.jsonl'}: no episode records")
    return cfg, recs


def prepare(args: argparse.Namespace):
    """Everything checked before anything is played or written: (cfg, records, arms, out, design counts)."""
    from envs.variance.design import choose_arms

    src = Path(args.run_dir)
    cfg, recs = _read_run(src)
    if args.replays < 2:
        raise SpecError("--replays: at least 2 (a variance needs two replays of a base)")
    if args.bases < 1:
        raise SpecError("--bases: at least 1")
    if args.rejudge < 0:
        raise SpecError("--rejudge: 0 or more")
    if args.bases > (cfg.repeats or 1):
        raise SpecError(f"--bases: the run has {cfg.repeats} repeat(s) per task; at most that many bases")
    arms = choose_arms(cfg.agent, cfg.user, cfg.judge)
    out = Path(args.out) if args.out else src.with_name(src.name + "-variance")
    if out.resolve() == src.resolve() or src.resolve() in out.resolve().parents:
        raise SpecError("--out: must be outside RUN (the run's files are never changed)")
    if out.exists() and any(out.iterdir()):
        raise SpecError(f"--out: {out} is not empty; pick another folder")
    by_task: dict[str, list] = {}
    for r in recs:
        by_task.setdefault(r.task_id, []).append(r)
    bases = {t: sorted(rs, key=lambda r: r.repeat)[: args.bases] for t, rs in by_task.items()}
    n_arm = len(arms.played) * sum(len(b) for b in bases.values()) * args.replays
    n_judge = args.rejudge * sum(r.status == "ok" for r in recs)
    if args.max_episodes is not None and n_arm + n_judge > args.max_episodes:
        raise SpecError(
            f"--max-episodes {args.max_episodes}: the design needs {n_arm + n_judge} ({len(arms.played)} arm(s) x "
            f"{sum(len(b) for b in bases.values())} bases x {args.replays} replays = {n_arm} episodes, and {n_judge} "
            f"re-judged); lower --replays, --bases or --rejudge, or raise the budget"
        )
    return src, cfg, recs, by_task, bases, arms, out, n_arm, n_judge


def run_variance(args: argparse.Namespace, console) -> dict:
    from envs.actors.roles import agent_factory, judge_factory, user_factory
    from envs.records import VarianceDesign
    from envs.report.html import write_report
    from envs.report.summary import read_summary, summarize, write_summary
    from envs.run.args import llm_settings_from_args, needs_llm, role_configs
    from envs.run.config import configure_domain
    from envs.variance import design, split

    src, cfg, recs, by_task, bases, arms, out, n_arm, n_judge = prepare(args)
    domain = configure_domain(cfg, {}, False)
    missing = sorted(t for t in by_task if t not in domain.tasks)
    if missing:
        raise SpecError(f"{src}: task {missing[0]!r} is no longer in domain {domain.name}")
    cfg.llm.update(llm_settings_from_args(args))
    # the cache is what holds a role fixed: always on, fresh in the new folder unless --cache names one
    # (the run's own cache is not written to unless asked for)
    cache = args.cache or str(out / "cache")
    cfg.llm["cache"] = cache
    roles = role_configs(cfg)
    ctx = None
    if needs_llm(roles):
        from envs.run.llm_flags import make_llm_context

        ctx = make_llm_context(cfg.model_dump(), roles, run_concurrency=max(1, args.concurrency))
        ctx.preflight()  # one line naming the role and model, before anything is played or written
    agent_f = agent_factory(domain, roles["agent"], ctx)
    user_f = user_factory(domain, roles["user"], ctx)
    judge_f = judge_factory(domain, roles["judge"], ctx)

    zero = {a: n for a, n in arms.notes.items() if "by construction" in n}
    print_design(console, src, out, arms, args, n_arm, n_judge, cache)
    out.mkdir(parents=True, exist_ok=True)
    for name in ("config.json", "episodes.jsonl"):  # copies, so the folder reads as a run (envs.compare)
        shutil.copyfile(src / name, out / name)
    done = {"n": 0}
    total = n_arm + n_judge

    def tick() -> None:
        done["n"] += 1
        if not args.quiet and (done["n"] == total or done["n"] % max(1, total // 10) == 0):
            console.print(f"  {done['n']}/{total} played or re-judged", highlight=False)

    t0 = time.perf_counter()
    chains = design.plan(bases, arms.played)
    from envs.episode.budgets import Budgets

    budgets = Budgets(**(cfg.llm.get("limits") or {}))  # the run's per-episode budgets, stored in its config

    async def all_():
        rows = await design.play_arms(domain, chains, args.replays, (agent_f, user_f), args.concurrency, out / "design.jsonl", tick,
                                     budgets)
        rj = await design.rejudge(domain, recs, args.rejudge, judge_f, args.concurrency, out / "rejudged.jsonl", tick) if args.rejudge else []
        return rows, rj

    try:
        rows, rejudged = asyncio.run(all_())
    except InfraError as e:  # a judge failure past its retries (an arm's errors are records, counted)
        raise SpecError(f"{e.role or 'model'}: {e} (what was played is in {out})") from None
    wall = time.perf_counter() - t0

    try:
        summary = read_summary(src)
    except (FileNotFoundError, ValueError):
        summary = summarize(iter(recs), cfg, domain=domain)
    # a recorded user_seed or agent_seed is in each design.jsonl line; the design states the rest
    dz = VarianceDesign(
        source_run=str(src), bases=args.bases, replays=args.replays, rejudge=args.rejudge, arms=arms.notes, cache=cache,
        episodes_played=len(rows), errors=sum(r["record"].status == "error" for r in rows),
    )
    rep = split.split(dz, by_task, rows, rejudged, summary.pass_hat_k, zero)
    summary.variance = rep
    summary.run_id = out.name
    write_summary(out, summary)
    write_report(out, summary)
    (out / "variance.json").write_text(rep.model_dump_json(indent=2), encoding="utf-8")
    return {"report": rep, "out": str(out), "wall_s": wall}


def print_design(console, src, out, arms, args, n_arm, n_judge, cache) -> None:
    console.print(f"design for {src} -> {out}", highlight=False)
    for arm in ("user", "agent", "judge"):
        console.print(f"  {arm}: {arms.notes[arm]}", highlight=False, soft_wrap=True)
    console.print(
        f"  {args.bases} base(s) per task (original repeats 0..{args.bases - 1}: each fixes the situations drawn), "
        f"{args.replays} replays per base in {len(arms.played)} arm(s) = {n_arm} episodes; {n_judge} episode re-judgements "
        f"({args.rejudge} per clean episode); response cache {cache}",
        highlight=False, soft_wrap=True,
    )


def _fig(f, digits: int = 3, unit: str = "tasks") -> str:
    if f.value is None:
        return "-"
    s = f"{f.value:.{digits}f}"
    if f.by_construction:
        return s + " (by construction)"
    if f.ci95 is not None:
        s += f" [{f.ci95[0]:.{digits}f}, {f.ci95[1]:.{digits}f}]"
    else:
        s += f" (no interval: fewer than 2 {unit})"
    return s


def print_split(rep, console) -> None:
    from envs.table_style import line_table

    from envs.report.summary import natural_key

    d = rep.design
    console.print(
        f"outcome variance per trial (mean over {len(rep.per_task)} tasks, 95% bootstrap over tasks): "
        f"all repeats {_fig(rep.total_var)}; user (agent held) {_fig(rep.user_var)}; agent (user held) {_fig(rep.agent_var)}; "
        f"user share {_fig(rep.user_share)}",
        highlight=False, soft_wrap=True,
    )
    if d.errors:
        console.print(f"  {d.errors} of {d.episodes_played} designed episodes errored (left out, counted)", highlight=False)
    for arm in ("user", "agent"):
        n = sum(getattr(t, f"{arm}_replays") for t in rep.per_task)
        if n:
            ok = sum(getattr(t, f"{arm}_successes") for t in rep.per_task)
            console.print(f"  {arm} arm: {ok} of {n} clean replays succeeded, over {len(rep.per_task)} tasks", highlight=False)
    if rep.user_share.value is None and not rep.user_var.by_construction and rep.user_var.value == 0 and rep.agent_var.value == 0:
        console.print("  user share: not defined (neither arm varied: every replay of a base ended alike)", highlight=False)
    for name, f in (("user", rep.user_var), ("agent", rep.agent_var), ("judge", rep.judge_flip_share)):
        if f.by_construction:
            console.print(f"  {name}: zero by construction ({f.by_construction.split(':')[0]})", highlight=False, soft_wrap=True)
    if rep.pass_hat_k_agent:
        ks = sorted(rep.pass_hat_k_agent, key=int)
        plain = " ".join(f"{k}:{rep.pass_hat_k[k]:.3f}" for k in ks if k in rep.pass_hat_k)
        agent = " ".join(
            f"{k}:{rep.pass_hat_k_agent[k]:.3f}" + (f"[{c[0]:.2f},{c[1]:.2f}]" if (c := rep.pass_hat_k_agent_ci95.get(k)) else "")
            for k in ks
        )
        console.print(f"pass^k plain (the run): {plain}", highlight=False, soft_wrap=True)
        console.print(f"pass^k with the user's share out (agent arm, user held): {agent}", highlight=False, soft_wrap=True)
    t = line_table("per task: outcome variance per trial")
    for c in ("task", "all repeats", "user (agent held)", "agent (user held)", "pass^1 agent arm"):
        t.add_column(c, justify="left" if c == "task" else "right")
    f3 = lambda x: "-" if x is None else f"{x:.3f}"  # noqa: E731
    for vt in rep.per_task:
        t.add_row(vt.task, f3(vt.total_var), f3(vt.user_var) + (f" ({vt.user_successes}/{vt.user_replays})" if vt.user_replays else ""),
                  f3(vt.agent_var) + (f" ({vt.agent_successes}/{vt.agent_replays})" if vt.agent_replays else ""), f3(vt.pass_hat_k_agent.get("1")))
    console.print(t)
    if rep.judge:
        t = line_table(f"verdicts re-judged {d.rejudge} times, transcript frozen: share that flips (95% bootstrap over replies)")
        for c in ("rule", "source", "replies", "re-judged", "flips", "share"):
            t.add_column(c, justify="left" if c in ("rule", "source") else "right")
        for rid in sorted(rep.judge, key=natural_key):
            r = rep.judge[rid]
            share = "-" if r.share is None else f"{r.share:.3f}" + (f" [{r.ci95[0]:.2f}, {r.ci95[1]:.2f}]" if r.ci95 else "")
            t.add_row(rid, r.source, str(r.items), str(r.rejudged), str(r.flips), share)
        console.print(t)
    console.print(f"judge: share of model verdicts that flip {_fig(rep.judge_flip_share, unit='judged replies')}", highlight=False, soft_wrap=True)


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console
    from rich.markup import escape

    console = Console()
    args = build_parser().parse_args(argv)
    try:
        res = run_variance(args, console)
    except SpecError as e:
        console.print(f"[red]error:[/red] {escape(str(e))}", highlight=False, soft_wrap=True)
        return 2
    print_split(res["report"], console)
    console.print(f"wrote {res['out']} (variance.json, design.jsonl, rejudged.jsonl, summary.json, report.html) in {res['wall_s']:.1f} s",
                  highlight=False, soft_wrap=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
