"""Scheduling a run's episodes: slots on one asyncio loop, or worker processes.

``play`` plays a plan of ``(task, repeat, run seed[, attempt])`` tuples on one loop, one reused
episode database per slot; ``play_in_workers`` splits a plan over ``python -m envs.run
--worker-stdin`` processes and appends their records as they arrive (the parent is the only writer
of the store); ``serve_worker`` is such a worker's side. (Ray: ``envs.run.ray_backend``.)
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
from pathlib import Path


async def play(domain, plan, factories, store, concurrency: int, progress, limits=None, gate=None, watch=None) -> None:
    """Play ``plan`` ((task, repeat, run seed[, attempt]) tuples). With ``limits``, episodes get
    their budgets and an errored one is replayed up to ``limits.retry_errors`` times (each attempt
    appended to the store; ``progress`` sees the last); with ``gate``, an episode starts only while
    the run's cost cap is not spent (the ones refused are counted by the gate); ``watch``
    (``envs.run.live.InFlight``) sees each episode while it plays."""
    from envs.episode import episode_seed, run_episode
    from envs.run.limits import RunLimits
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
                    watch=watch,
                )
                store.append(rec)
                if gate is not None:
                    gate.add(rec)
            finally:
                free.put_nowait(state)
            delay = lim.replay_delay(rec, replays)
            if delay is None:
                progress(rec)
                return
            # An infrastructure error: the record stays (superseded by the next attempt); wait
            # with the slot free, then play the same episode (same seed) again.
            await asyncio.sleep(delay)
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


def serve_worker(domain, factories, concurrency: int, limits=None) -> int:
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
    asyncio.run(play(domain, plan, factories, StdoutStore(), concurrency, lambda rec: None, limits, gate))
    return 0


async def play_in_workers(run_dir: Path, plan, workers: int, concurrency: int, store, tick, console, limits=None, gate=None) -> None:
    """Split the plan over worker processes (round robin); append their records as they arrive.

    Each worker replays errors itself (``--retry-errors``) and gets an equal share of what is
    left of ``--max-cost``, so together they never start an episode past the cap."""
    from envs.records import EpisodeRecord

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
                if limits is None or limits.replay_delay(rec, replays) is None:
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

