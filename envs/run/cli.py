"""``python -m envs.run``: play every selected task N times, grade, report pass^k.

    python -m envs.run --domain support --repeats 8
    python -m envs.run --resume runs/<run-id>          # continue an interrupted run

Episodes run concurrently on one asyncio loop (``--concurrency``); each is
appended to ``runs/<run-id>/episodes.jsonl`` the moment it ends, and
``summary.json`` (a ``RunSummary``, with its JSON Schema beside it) is written
at the end. ``config.json`` is the run's ``RunConfig``. Domain options are
given as ``--domain-option KEY=VALUE`` (repeatable) and validated by the
domain's options model; ``--taubench-data`` and ``--problems`` are aliases
kept for existing commands. Bad input (a malformed task file, an unknown
domain, agent or domain option) is reported in one line, with exit code 2.
Budgets, the cost cap and replays of errored episodes are ``envs.run.limits``.

(Past 400 lines: the flags, the playing loop and the worker plumbing share state that is being
reworked by several changes at once; splitting the file is left until those have landed.)
"""

from __future__ import annotations

import argparse
import asyncio
import fnmatch
import gc
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from envs.run.config import RunConfig, configure_domain, parse_domain_options
from envs.run.limits import record_cost

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m envs.run", description=__doc__.split("\n\n")[0])
    ap.add_argument("--domain", help="domain name (support, tutoring, taubench-retail, ...)")
    ap.add_argument("--repeats", type=int, default=None, help="trials per task (pass^1..pass^N); default 1")
    ap.add_argument("--tasks", nargs="*", default=None, help="task ids or globs (space or comma separated)")
    ap.add_argument("--agent", default=None, help="scripted[:variant], human (you play the agent), or a litellm model string")
    ap.add_argument("--user", default=None, help="scripted, human (you play the user), or a litellm model string")
    ap.add_argument("--judge", default=None, help="a litellm model string for rules without a check (default: none)")
    ap.add_argument("--seed", type=int, default=None, help="run seed; each episode's seed derives from it (default 0)")
    ap.add_argument("--out", default=None, help="run folder (default runs/<run-id>)")
    ap.add_argument("--concurrency", type=int, default=None, help="episodes in flight at once (default 1 scripted, 8 LLM)")
    ap.add_argument("--resume", default=None, metavar="RUN_DIR", help="continue an interrupted run in RUN_DIR")
    ap.add_argument(
        "--domain-option", action="append", default=None, metavar="KEY=VALUE",
        help="a domain option, validated by the domain (repeatable), e.g. problems=FILE.jsonl",
    )
    # Aliases of domain options, kept so existing commands work (see OPTION_ALIASES).
    ap.add_argument("--taubench-data", default=None, help="= --domain-option data=PATH (taubench-retail)")
    ap.add_argument(
        "--problems", default=None,
        help="= --domain-option problems=FILE.jsonl (tutoring): tasks for the first 20 problems of the file; "
        "--domain-option problem_tasks=N for more",
    )
    ap.add_argument("--calibration", default=None, help="calibration.json from graders.calibrate.calibration")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    ap.add_argument(
        "--reviewer", default=None, metavar="MODEL",
        help="an LLM that reviews the failures the deterministic cause rules leave weak or unknown (graders.causes)",
    )
    ap.add_argument("--reviewer-api-base", default=None, help="server for the reviewer (default: --api-base)")
    ap.add_argument(
        "--workers", type=int, default=None,
        help="processes playing episodes in parallel (default 1); for LLM runs whose client CPU saturates one core",
    )
    ap.add_argument(
        "--backend", choices=("local", "ray"), default="local",
        help="local (default): this process (and --workers processes); ray: long-lived Ray workers (--workers of them, default 2)",
    )
    ap.add_argument("--ray-address", default=None, metavar="auto|ray://HOST:PORT",
                    help="the Ray cluster to join (default: start a local Ray instance)")

    from envs.run.limits import add_limit_arguments

    add_limit_arguments(ap)
    # Internal: a worker process reads its episodes from stdin and writes records to stdout.
    ap.add_argument("--worker-stdin", action="store_true", help=argparse.SUPPRESS)
    try:
        from envs.run.llm_flags import add_llm_arguments

        add_llm_arguments(ap)
    except ImportError:
        pass
    return ap


def _select_tasks(all_ids: list[str], patterns: list[str] | None) -> list[str]:
    if not patterns:
        return all_ids
    pats = [p for item in patterns for p in item.split(",") if p]
    chosen = [t for t in all_ids if any(fnmatch.fnmatchcase(t, p) for p in pats)]
    unmatched = [p for p in pats if not any(fnmatch.fnmatchcase(t, p) for t in all_ids)]
    if unmatched:
        from envs.errors import SpecError

        raise SpecError(f"--tasks: no task matches {unmatched[0]!r}")
    return chosen


RUN_KEYS = ("domain", "repeats", "tasks", "agent", "user", "judge", "seed", "calibration")
# Flags kept as aliases of a domain option: flag dest -> option name.
OPTION_ALIASES = {"taubench_data": "data", "problems": "problems"}


def _domain_options_from_args(args: argparse.Namespace) -> dict[str, str]:
    """The domain options given on the command line (aliases included), raw strings by name."""
    given = {opt: getattr(args, dest) for dest, opt in OPTION_ALIASES.items() if getattr(args, dest, None) is not None}
    return {**given, **parse_domain_options(args.domain_option or [])}

def _llm_settings_from_args(args: argparse.Namespace) -> dict[str, Any]:
    return {k: v for k, v in vars(args).items() if k.startswith(("agent_", "user_", "judge_", "api_", "tool_mode", "cache", "client", "request_", "max_retries", "model_concurrency")) and v is not None}


def _config_from_args(args: argparse.Namespace) -> RunConfig:
    """The run's config: the resumed run's, else the flags' (defaults filled in).

    Domain options are merged in by ``_configure_domain``, which validates them.
    """
    from envs.errors import SpecError

    if args.resume:
        from envs.run.store import RunStore

        cfg = RunStore(Path(args.resume)).read_config()
        refuse_changed_run(cfg, args)
        given = {k: getattr(args, k) for k in RUN_KEYS if getattr(args, k, None) is not None}
        cfg = cfg.model_copy(update=given)
    else:
        given = {k: getattr(args, k) for k in RUN_KEYS if getattr(args, k, None) is not None}
        if not given.get("domain"):
            raise SpecError("--domain: required (or --resume RUN_DIR)")
        cfg = RunConfig.model_validate(given)
    llm = _llm_settings_from_args(args)
    if args.resume:
        refuse_changed_llm(cfg, llm)
    cfg.llm.update(llm)
    return cfg


async def _play(domain, plan, factories, store, concurrency: int, progress, limits=None, gate=None) -> None:
    """Play ``plan`` ((task, repeat, run seed[, attempt]) tuples). With ``limits``, episodes get
    their budgets and an errored one is replayed up to ``limits.retry_errors`` times (each attempt
    appended to the store; ``progress`` sees the last); with ``gate``, an episode starts only while
    the run's cost cap is not spent (the ones refused are counted by the gate)."""
    from envs.episode import episode_seed, run_episode
    from envs.run.limits import RunLimits, replayable
    from envs.episode.budgets import Budgets

    from envs.state.database import EpisodeState

    agent_f, user_f, judge_f = factories
    # What is loaded by now (litellm, the domain and its templates) lives for the whole run:
    # keep it out of the collector's full passes, which would otherwise walk some 400,000
    # objects again and again while episodes wait on their models.
    gc.freeze()
    # One episode database per slot, reused: a reset is a byte copy into it.
    free: asyncio.Queue = asyncio.Queue()
    for _ in range(min(concurrency, max(1, len(plan)))):
        free.put_nowait(None)

    lim = limits or RunLimits(budgets=Budgets(), retry_errors=0)

    async def one(task_id: str, repeat: int, seed: int, attempt: int = 1) -> None:
        replays = 0
        while True:
            state = await free.get()
            try:
                if gate is not None and not gate.may_start():
                    return
                task = domain.tasks[task_id]
                if state is None:
                    state = EpisodeState(domain.base, domain.initial_bytes(task))
                rec = await run_episode(
                    domain,
                    task,
                    agent_f(),
                    user_f(),
                    seed=episode_seed(seed, task_id, repeat),
                    repeat=repeat,
                    judge=judge_f() if judge_f else None,
                    state=state,
                    budgets=lim.budgets,
                    attempt=attempt,
                )
                store.append(rec)
                if gate is not None:
                    gate.add(rec)
            finally:
                free.put_nowait(state)
            if not replayable(rec) or replays >= lim.retry_errors:
                progress(rec)
                return
            # An infrastructure error: the record stays (superseded by the next attempt); wait
            # with the slot free, then play the same episode (same seed) again.
            await asyncio.sleep(lim.retry_backoff * (2**replays))
            replays += 1
            attempt += 1

    try:
        await asyncio.gather(*(one(*p) for p in plan))
    finally:
        while not free.empty():
            st = free.get_nowait()
            if st is not None:
                st.close()
        gc.unfreeze()


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console

    from envs.errors import SpecError

    console = Console(stderr=False)
    args = build_parser().parse_args(argv)
    try:
        _check_flags(args)
        return _main(args, console)
    except SpecError as e:
        console.print(f"[red]error:[/red] {e}", highlight=False, soft_wrap=True)
        return 2
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/yellow]: finished episodes are saved; continue with --resume RUN_DIR")
        return 130
    finally:
        while _HELD_LOCKS:
            _HELD_LOCKS.pop().release()


# The run folder's lock, held by ``_main`` until ``main`` returns.
_HELD_LOCKS: list = []


def _main(args: argparse.Namespace, console) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from envs.actors.roles import RoleConfig, agent_factory, judge_factory, user_factory
    from envs.errors import SpecError
    from envs.report.summary import summarize, write_summary
    from envs.report.terminal import print_summary
    from envs.run.store import RunStore

    from envs.run.limits import CostGate, annotate_summary, limits_from_args

    cfg = _config_from_args(args)
    limits = limits_from_args(args, cfg.llm, bool(args.resume))
    domain = configure_domain(cfg, _domain_options_from_args(args), bool(args.resume))
    if not args.worker_stdin:  # the parent checked the domain for its workers
        _check_domain(args, cfg, domain, console)
    task_ids = _select_tasks(sorted(domain.tasks), cfg.tasks)
    if cfg.repeats < 1:
        raise SpecError("--repeats: must be at least 1")

    llm_context = None
    roles = {
        r: RoleConfig(spec=getattr(cfg, r), **_role_llm_settings(cfg, r)) if getattr(cfg, r) else None
        for r in ("agent", "user", "judge")
    }
    if any(rc and not rc.is_scripted and rc.spec not in ("human", "none") for rc in roles.values()):
        from envs.run.llm_flags import make_llm_context

        from envs.run.llm_flags import model_concurrency_for

        in_flight = args.concurrency or 8  # the LLM default below; a worker is given its share
        llm_context = make_llm_context(cfg.model_dump(), roles, run_concurrency=in_flight)
        note = model_concurrency_for(in_flight, cfg.llm.get("model_concurrency"))[1]
        if note and not args.worker_stdin:
            console.print(f"[yellow]note:[/yellow] {note}", highlight=False, soft_wrap=True)
    factories = (
        agent_factory(domain, roles["agent"], llm_context),
        user_factory(domain, roles["user"], llm_context),
        judge_factory(domain, roles["judge"], llm_context),
    )
    if llm_context is not None and args.worker_stdin:
        llm_context.start_local()  # the parent ran the preflight for its workers
    elif llm_context is not None:
        llm_context.preflight()  # fails fast, one line per role, before any episode starts
        from envs.run.limits import warn_unpriced

        warn_unpriced(limits, console)
    if args.worker_stdin:  # a worker never touches the run folder: the parent writes the store
        return _worker(domain, factories, args.concurrency or 1, limits)

    if args.resume:
        run_dir = Path(args.resume)
    else:
        run_id = time.strftime("%Y%m%d-%H%M%S") + f"-{domain.name}-{cfg.agent.replace('/', '_').replace(':', '-')}"
        run_dir = Path(args.out) if args.out else Path("runs") / run_id
        if (run_dir / "episodes.jsonl").exists():
            raise SpecError(f"--out: {run_dir} already holds a run; use --resume {run_dir} or another folder")
        cfg.run_id = run_dir.name
    if cfg.run_id is None:
        cfg.run_id = run_dir.name
    from envs.run.store import RunLock

    # Held until this process exits: a second run on the folder is refused (exit 2).
    lock = RunLock(run_dir).acquire()
    _HELD_LOCKS.append(lock)
    if lock.previous and args.resume:
        console.print(f"took over the lock of a run no longer running ({lock.previous})", soft_wrap=True, highlight=False)
    store = RunStore(run_dir)
    store.write_config(cfg)
    store.repair_tail()
    # The newest record of each episode: (status, attempt), and what the kept ones spent.
    done: dict[tuple[str, int], tuple[str, int]] = {}
    spent = 0.0
    for rec in store.iter_latest():
        done[(rec.task_id, rec.repeat)] = (rec.status, rec.attempt)
        spent += record_cost(rec)
    for line in store.skipped_lines:
        console.print(f"[yellow]skipped unreadable record[/yellow] {line}")
    plan = [
        (t, r, cfg.seed, done[(t, r)][1] + 1 if (t, r) in done else 1)
        for t in task_ids
        for r in range(cfg.repeats)
        if not ((t, r) in done and done[(t, r)][0] == "ok")
    ]
    # The run's cost cap counts what its kept episodes already spent.
    gate = CostGate(limits.max_cost, spent)
    kept = len(task_ids) * cfg.repeats - len(plan)
    concurrency = args.concurrency or (1 if all(rc is None or rc.is_scripted for rc in roles.values()) else 8)
    person = any(rc is not None and rc.spec == "human" for rc in (roles["agent"], roles["user"]))
    if person:  # one episode at a time, no progress bar redrawn over what the person types,
        # and no replay of an episode the person quit (--resume plays it again if they want)
        concurrency, args.quiet, workers_asked, limits.retry_errors = 1, True, None, 0
    else:
        workers_asked = args.workers
    if args.resume:
        console.print(f"resuming {run_dir}: {kept} episodes kept, {len(plan)} to play", soft_wrap=True)
    workers = max(1, min(workers_asked or 1, len(plan) or 1))

    t0 = time.perf_counter()
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("solved {task.fields[solved]}  errors {task.fields[errors]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        disable=args.quiet,
        transient=False,
    ) as progress:
        bar = progress.add_task(f"{domain.name}", total=len(plan), solved=0, errors=0)
        counts = {"solved": 0, "errors": 0}

        def tick(rec) -> None:
            counts["solved"] += int(rec.status == "ok" and rec.reward >= 1.0)
            counts["errors"] += int(rec.status == "error")
            progress.update(bar, advance=1, **counts)

        if args.backend == "ray":
            from envs.run.ray_backend import play_on_ray

            n = args.workers or 2
            facts = play_on_ray(cfg, plan, store, tick, address=args.ray_address, workers=n,
                                per_worker=max(1, -(-concurrency // n)), model_concurrency=cfg.llm.get("model_concurrency"))
            console.print(f"ray: {n} workers ready in {facts['startup_s']:.1f} s", highlight=False)
            if facts["workers_lost"]:
                console.print(f"[yellow]ray:[/yellow] {facts['workers_lost']} worker(s) lost; their episodes were played elsewhere")
        elif workers > 1:
            asyncio.run(_play_in_workers(run_dir, plan, workers, concurrency, store, tick, console, limits, gate))
        else:
            asyncio.run(_play(domain, plan, factories, store, concurrency, tick, limits, gate))
    wall = time.perf_counter() - t0

    chosen = set(task_ids)
    if not args.quiet:
        console.print("summarising ...", highlight=False)
    reviews = None
    if args.reviewer:
        from envs.run.review import run_reviewer

        reviews = run_reviewer(list(store.iter_latest(lambda t, r: t in chosen and r < cfg.repeats)), domain, args.reviewer,
                               cfg.llm, args.reviewer_api_base)
        (run_dir / "reviews.json").write_text(
            json.dumps({k: v.model_dump() for k, v in reviews.items()}, indent=2), encoding="utf-8"
        )
    # Streamed: the newest record per episode, one at a time (memory holds the index).
    store.skipped_lines.clear()
    summary = summarize(store.iter_latest(lambda t, r: t in chosen and r < cfg.repeats), cfg, wall_s=wall, domain=domain,
                        reviews=reviews, reviewer=args.reviewer)
    summary.unreadable_records = len(store.skipped_lines)
    recorded = store.index()
    unplayed = sum(1 for t in task_ids for r in range(cfg.repeats) if (t, r) not in recorded)
    annotate_summary(
        summary, store.iter_latest(lambda t, r: t in chosen and r < cfg.repeats),
        not_played=unplayed if limits.max_cost is not None else 0, cost_cap=limits.max_cost, domain=domain,
    )
    if cfg.calibration:
        from graders.calibrate.calibration import apply_calibration

        apply_calibration(summary, Path(cfg.calibration))
    write_summary(run_dir, summary)
    from envs.report.html import write_report

    write_report(run_dir, summary)
    print_summary(summary, console)
    if summary.not_played:
        console.print(
            f"[yellow]cost cap reached[/yellow]: ${gate.spent:.4f} spent of --max-cost ${limits.max_cost:g}; "
            f"{summary.not_played} of {len(task_ids) * cfg.repeats} episodes not played; "
            f"play them with --resume {run_dir} --max-cost HIGHER",
            soft_wrap=True, highlight=False,
        )
    console.print(
        f"wrote {run_dir / 'episodes.jsonl'}, {run_dir / 'summary.json'} and {run_dir / 'report.html'} ({wall:.1f} s)",
        soft_wrap=True,
    )
    return 0


def _worker(domain, factories, concurrency: int, limits=None) -> int:
    """A worker process: episodes to play come as JSON on stdin; each record goes out as one
    JSON line on stdout the moment it ends (the parent process is the only writer of the store)."""

    class StdoutStore:
        def append(self, rec) -> None:
            sys.stdout.write(rec.model_dump_json() + "\n")
            sys.stdout.flush()

    from envs.run.limits import CostGate

    plan = [tuple(x) for x in json.loads(sys.stdin.read() or "[]")]
    from envs.run.orphan import die_with_parent

    die_with_parent(os.environ.get("SITGYM_PARENT_PID"))
    gate = CostGate(limits.max_cost) if limits is not None else None
    asyncio.run(_play(domain, plan, factories, StdoutStore(), concurrency, lambda rec: None, limits, gate))
    return 0


async def _play_in_workers(run_dir: Path, plan, workers: int, concurrency: int, store, tick, console, limits=None, gate=None) -> None:
    """Split the plan over worker processes (round robin); append their records as they arrive.

    Each worker replays errors itself (``--retry-errors``) and gets an equal share of what is
    left of ``--max-cost``, so together they never start an episode past the cap."""
    from envs.records import EpisodeRecord
    from envs.run.limits import replayable

    per = max(1, concurrency // workers)
    first = {(p[0], p[1]): (p[3] if len(p) > 3 else 1) for p in plan}
    procs = []
    env = dict(os.environ)
    env["SITGYM_PARENT_PID"] = str(os.getpid())  # a worker stops when this process is gone
    if "envs.llm.pricing" in sys.modules:  # what the preflight learnt about prices, so workers skip litellm
        env["SITGYM_UNPRICED"] = ",".join(sys.modules["envs.llm.pricing"].unpriced_models())
    try:
        for i in range(workers):
            shard = plan[i::workers]
            extra = []
            if limits is not None:
                extra += ["--retry-errors", str(limits.retry_errors), "--retry-backoff", str(limits.retry_backoff)]
                if gate is not None and gate.cap is not None:
                    extra += ["--max-cost", repr(max(1e-12, (gate.cap - gate.spent) / workers))]
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "envs.run", "--resume", str(run_dir), "--worker-stdin",
                "--concurrency", str(per), "--quiet", *extra,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env,
                limit=1 << 28,  # one record is one line, and transcripts can be long
            )
            proc.stdin.write(json.dumps(shard).encode())
            await proc.stdin.drain()
            proc.stdin.close()
            procs.append(proc)

        async def collect(proc) -> None:
            while line := await proc.stdout.readline():
                text = line.decode("utf-8", "replace").strip()
                if not text.startswith("{"):
                    console.print(f"[yellow]worker:[/yellow] {text}", soft_wrap=True, highlight=False)
                    continue
                rec = EpisodeRecord.model_validate_json(text)
                store.append(rec)
                if gate is not None:
                    gate.add(rec)
                # Workers send every attempt; the progress bar counts an episode once, at its last.
                replays = rec.attempt - first.get((rec.task_id, rec.repeat), rec.attempt)
                if limits is None or not replayable(rec) or replays >= limits.retry_errors:
                    tick(rec)
            await proc.wait()

        await asyncio.gather(*(collect(p) for p in procs))
        failed = [p.returncode for p in procs if p.returncode]
        if failed:
            from envs.errors import SpecError

            raise SpecError(f"--workers: {len(failed)} worker(s) failed (exit {failed[0]}); finished episodes are saved, continue with --resume {run_dir}")
    finally:
        for p in procs:
            if p.returncode is None:
                p.kill()
                await p.wait()


def _check_flags(args: argparse.Namespace) -> None:
    """Every flag checked before anything is built (envs/run/flag_check.py): one line, exit 2."""
    from envs.run.flag_check import check_flags

    check_flags(args)


def _check_domain(args: argparse.Namespace, cfg: RunConfig, domain, console) -> None:
    """The calibration file against the domain's rules, and every spec of the domain
    with the task lint (envs/spec/check.py), before any episode; SpecError lists every problem."""
    from envs.errors import SpecError
    from envs.run.flag_check import check_domain_flags
    from envs.spec.check import check_domain

    check_domain_flags(domain, cfg.calibration)
    report = check_domain(domain, gold=False)  # the gold sets are calibration's, not the run's
    if not report.ok:
        lines = "\n".join(report.problems)
        raise SpecError(f"{len(report.problems)} problems in domain {domain.name} (python -m envs.check --domain {domain.name}):\n{lines}")
    if report.warnings:
        console.print(f"{len(report.warnings)} lint warnings on imported tasks (python -m envs.check --domain {domain.name})", highlight=False)


# Resuming may not change which episodes belong to the run or how they are played and judged.
RUN_DEFINING = ("domain", "repeats", "tasks", "agent", "user", "judge", "seed")
# LLM settings that change the answers (and so the episodes); api bases, cache, timeouts,
# retries and concurrency may change on resume.
LLM_DEFINING = ("_temperature", "_max_tokens", "tool_mode")


def refuse_changed_run(cfg: RunConfig, args: argparse.Namespace) -> None:
    """SpecError naming the first flag whose value differs from the resumed run's config
    (a flag the run was started without counts as a change: ``--judge M`` on a judge-less run)."""
    from envs.errors import SpecError

    for k in RUN_DEFINING:
        v = getattr(args, k, None)
        if v is None:
            continue
        current = getattr(cfg, k)
        if k == "tasks":
            v = [p for item in v for p in item.split(",") if p] or None
            current = [p for item in current for p in item.split(",") if p] if current else None
        if v != current:
            raise SpecError(f"--{k}: differs from the run being resumed ({current!r}); a run folder is one run, drop it")


def refuse_changed_llm(cfg: RunConfig, llm: dict[str, Any]) -> None:
    """SpecError naming the first LLM flag that would change how the run's episodes are played or judged."""
    from envs.errors import SpecError

    for k, v in llm.items():
        if k.endswith(LLM_DEFINING) and cfg.llm.get(k) != v:
            raise SpecError(
                f"--{k.replace('_', '-')}: differs from the run being resumed ({cfg.llm.get(k)!r}); a run folder is one run, drop it"
            )


def _role_llm_settings(cfg: RunConfig, role: str) -> dict:
    llm = cfg.llm
    return {
        "api_base": llm.get(f"{role}_api_base") or llm.get("api_base"),
        "temperature": llm.get(f"{role}_temperature"),
        "max_tokens": llm.get(f"{role}_max_tokens"),
        "tool_mode": llm.get(f"{role}_tool_mode") or llm.get("tool_mode"),
    }


if __name__ == "__main__":
    sys.exit(main())
