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

The parser and the flags' config are ``envs.run.args``, scheduling (slots, worker processes)
``envs.run.scheduling``, what a resume refuses ``envs.run.resume``, the checks before any
episode ``envs.run.flag_check`` and ``envs.run.prerun``; this module runs them in order.
"""

from __future__ import annotations

from rich.markup import escape  # a message may hold brackets (paths, gold[3], .[ray]): never markup

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

from envs.run.args import build_parser, config_from_args, domain_options_from_args, needs_llm, role_configs, select_tasks
from envs.run.config import configure_domain
from envs.run.flag_check import check_flags
from envs.run.limits import record_cost
from envs.run.prerun import check_domain_before_run
from envs.run.scheduling import play, play_in_workers, serve_worker

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console

    from envs.errors import SpecError

    console = Console(stderr=False)
    args = build_parser().parse_args(argv)
    try:
        check_flags(args)
        return _main(args, console)
    except SpecError as e:
        _Doing.stop_all()  # the error line replaces the status line
        console.print(f"[red]error:[/red] {escape(str(e))}", highlight=False, soft_wrap=True)
        return 2
    except KeyboardInterrupt:
        _Doing.stop_all()
        console.print("[yellow]interrupted[/yellow]: finished episodes are saved; continue with --resume RUN_DIR")
        return 130
    finally:
        _Doing.stop_all()
        while _HELD_LOCKS:
            _HELD_LOCKS.pop().release()


class _Doing:
    """One transient status line saying what the run is doing before its first episode (reading
    the domain, checking the tasks, asking the model servers), so a wait is never silent; on a
    terminal only, replaced by the next phase and gone when the progress bar starts."""

    live: list["_Doing"] = []  # started and not yet stopped: main stops them before an error line

    def __init__(self, console, quiet: bool) -> None:
        self.console, self.quiet, self.status = console, quiet or not console.is_terminal, None
        _Doing.live.append(self)

    @classmethod
    def stop_all(cls) -> None:
        while cls.live:
            cls.live.pop().done()

    def __call__(self, what: str) -> None:
        if self.quiet:
            return
        if self.status is None:
            self.status = self.console.status(f"{what} ...")
            self.status.start()
        else:
            self.status.update(f"{what} ...")

    def done(self) -> None:
        if self.status is not None:
            self.status.stop()
            self.status = None


# The run folder's lock, held by ``_main`` until ``main`` returns.
_HELD_LOCKS: list = []


def _main(args: argparse.Namespace, console) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from envs.actors.roles import agent_factory, judge_factory, user_factory
    from envs.errors import SpecError
    from envs.report.summary import summarize, write_summary
    from envs.report.terminal import print_summary
    from envs.run.store import RunStore

    from envs.run.limits import CostGate, annotate_summary, limits_from_args

    cfg = config_from_args(args)
    limits = limits_from_args(args, cfg.llm, bool(args.resume))
    doing = _Doing(console, quiet=args.quiet or bool(args.worker_stdin))
    doing(f"reading domain {cfg.domain}")
    domain = configure_domain(cfg, domain_options_from_args(args), bool(args.resume))
    if not args.worker_stdin:  # the parent checked the domain for its workers
        doing(f"checking {domain.name}'s tasks (saved while their files are unchanged)")
        check_domain_before_run(cfg, domain, console)
    task_ids = select_tasks(domain.tasks, cfg.tasks, cfg.tags)
    if cfg.repeats < 1:
        raise SpecError("--repeats: must be at least 1")
    from envs.run.resume import refuse_changed_tasks, task_hashes

    if args.resume:
        refuse_changed_tasks(cfg, domain, task_ids)  # the run pins its tasks
    if not cfg.task_hashes:
        cfg.task_hashes = task_hashes(domain, task_ids)

    llm_context = None
    roles = role_configs(cfg)
    if needs_llm(roles):
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
        doing("asking the model servers whether the models are there")
        llm_context.preflight()  # fails fast, one line per role, before any episode starts
        from envs.run.limits import warn_unpriced

        warn_unpriced(limits, console)
    if args.worker_stdin:  # a worker never touches the run folder: the parent writes the store
        return serve_worker(domain, factories, args.concurrency or 1, limits)

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

    doing(f"building {domain.name}'s database")
    domain.template()  # before the bar: its first seconds are not an episode's
    doing.done()
    t0 = time.perf_counter()
    walls = ProcessWalls(run_dir)
    from envs.run.live import InFlight, LiveProgress, ended_line

    live = needs_llm(roles) and not args.quiet  # scripted episodes end in milliseconds: the bar says enough
    in_flight = InFlight() if live else None
    with LiveProgress(
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
        in_flight=in_flight,
    ) as progress:
        bar = progress.add_task(f"{domain.name}", total=len(plan), solved=0, errors=0)
        counts = {"solved": 0, "errors": 0}

        def tick(rec) -> None:
            walls.note(time.perf_counter() - t0)
            counts["solved"] += int(rec.status == "ok" and rec.reward >= 1.0)
            counts["errors"] += int(rec.status == "error")
            progress.update(bar, advance=1, **counts)
            if live:
                progress.console.print(ended_line(rec), highlight=False, markup=False)

        if args.backend == "ray":
            from envs.run.ray_backend import play_on_ray

            n = args.workers or 2
            facts = play_on_ray(cfg, plan, store, tick, address=args.ray_address, workers=n,
                                per_worker=max(1, -(-concurrency // n)), model_concurrency=cfg.llm.get("model_concurrency"),
                                limits=limits, gate=gate)
            console.print(f"ray: {n} workers ready in {facts['startup_s']:.1f} s", highlight=False)
            if facts["workers_lost"]:
                console.print(f"[yellow]ray:[/yellow] {facts['workers_lost']} worker(s) lost; their episodes were played elsewhere")
        elif workers > 1:
            asyncio.run(play_in_workers(run_dir, plan, workers, concurrency, store, tick, console, limits, gate))
        else:
            asyncio.run(play(domain, plan, factories, store, concurrency, tick, limits, gate, in_flight))
    wall = time.perf_counter() - t0
    walls.note(wall, force=True)

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
    summary = summarize(store.iter_latest(lambda t, r: t in chosen and r < cfg.repeats), cfg, wall_s=walls.total(wall), domain=domain,
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

    write_report(run_dir, summary, domain)
    print_summary(summary, console)
    print_power_plan(summary, console)
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



def print_power_plan(summary, console, delta: float = 0.05) -> None:
    """One line: the tasks and repeats a paired comparison with a run like this one would need to
    detect a ``delta`` difference in pass^1 (``graders.power.plan_for_difference``)."""
    from graders.power import plan_for_difference

    rates = {t.id: t.successes / t.trials for t in summary.per_task if t.trials}
    plan = plan_for_difference(rates, {t.id: t.trials for t in summary.per_task if t.trials}, delta)
    if plan["tasks"] is None or plan["run_tasks"] < 2:
        return  # a paired comparison needs two tasks at least
    reps = (f"or {plan['repeats']} repeats per task at these {plan['run_tasks']} tasks" if plan["repeats"]
            else "no number of repeats: every task gave one result on every repeat, so only tasks that change outright show it")
    console.print(
        f"power: a {delta * 100:g}-point pass^1 difference from a run like this (80% power, two-sided 0.05, paired by task) "
        f"needs {plan['tasks']} tasks at {plan['run_repeats']:g} repeats, {reps}; this run detects "
        f"{'more than 1 (nothing)' if plan['mde'] > 1 else format(plan['mde'], '.3f')} "
        f"(the method and its assumptions: graders.power)",
        highlight=False,  # wrapped by rich at spaces, at the terminal's width
    )


class ProcessWalls:
    """The wall time of every process that played this run (``wall.json``), so a resumed run's
    ``wall_s`` sums them: a killed process's time counts up to its last recorded episode."""

    def __init__(self, run_dir: Path):
        self.path = Path(run_dir) / "wall.json"
        try:
            self.prior = [float(x) for x in json.loads(self.path.read_text(encoding="utf-8")).get("processes_s", [])]
        except (OSError, ValueError, AttributeError, TypeError):
            self.prior = []
        self.last = 0.0

    def note(self, seconds: float, force: bool = False) -> None:
        """Record this process's wall time so far (at most once a second unless ``force``)."""
        if not force and seconds - self.last < 1.0:
            return
        self.last = seconds
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps({"processes_s": [*self.prior, seconds]}), encoding="utf-8")
        os.replace(tmp, self.path)

    def total(self, seconds: float) -> float:
        return sum(self.prior) + seconds


if __name__ == "__main__":
    sys.exit(main())
