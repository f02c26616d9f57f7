"""How well episodes overlap on one asyncio loop when every LLM call takes 300 ms.

All three roles point at the fake OpenAI server (``tests/fake_llm_server.py``,
run in its own process so its CPU does not count as the engine's) with a fixed
latency per call. Episodes of the toy domain (4 LLM calls each) are played
through the real path (``envs.actors.llm_agent`` -> ``envs.llm.client`` -> HTTP), with the
default client (``--client auto``: the lean client for this OpenAI-compatible
server) unless ``--client litellm`` is given.

Printed, per row: episodes/s, throughput as a fraction of ideal (ideal =
concurrency x the single-episode rate measured at concurrency 1), and the
process's CPU time as a share of wall time (``time.process_time`` / wall).

* 64 episodes at concurrency 1, 8 and 64 (the issue's rows). At 64 they all
  start at once and move in lockstep: every reply of a round lands together
  and waits for the CPU work of all the others, the worst case there is.
* 256 episodes at 64 in one process (a run longer than one wave, where
  episodes drift apart), the same through litellm for the ratio, and 256
  over two worker processes (``--workers 2``; each worker's fixed start is
  measured apart and left out).
* Where the CPU goes at 64, by part, under cProfile with a CPU clock; the
  engine's share of wall time is its share of that profile times the
  measured CPU per wall.

    python benchmarks/llm_concurrency.py [--episodes 64] [--latency 0.3] [--client auto|litellm]

Target at concurrency 64: >= 90% of ideal, <= 2% CPU overhead.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("SITGYM_DOMAINS", "toy_domain")
# worker processes (--workers) must find the toy domain too
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "tests"), str(ROOT), os.environ.get("PYTHONPATH")]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def start_server(latency: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "fake_llm_server.py"), str(latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    url = proc.stdout.readline().strip()
    if not url.startswith("http"):
        proc.kill()
        raise SystemExit("the fake server did not start")
    return proc, url


async def play(domain, factories, n: int, concurrency: int) -> list:
    """The runner's own loop (envs.run.scheduling.play): a state per slot, each record appended and fsynced."""
    import tempfile

    from envs.run.scheduling import play as _play  # this module has its own play()
    from envs.run.store import RunStore

    task = next(iter(domain.tasks.values()))
    with tempfile.TemporaryDirectory() as d:
        store = RunStore(Path(d))
        await _play(domain, [(task.id, i, 0) for i in range(n)], factories, store, concurrency, lambda rec: None)
        return list(store.load().values())


HEADER = f"{'run':>22} {'wall s':>8} {'ep/s':>7} {'% ideal':>8} {'CPU s':>7} {'CPU % wall':>10} {'calls':>6} {'errors':>6}"


def row(label: str, n: int, wall: float, cpu: float, ideal_rate: float, calls: int, errors: int | str, note: str = "") -> str:
    rate = n / wall
    return (
        f"{label:>22} {wall:>8.2f} {rate:>7.2f} {100 * rate / ideal_rate:>7.1f}% {cpu:>7.2f} {100 * cpu / wall:>9.1f}% "
        f"{calls:>6} {errors:>6}{note}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=64)
    ap.add_argument("--latency", type=float, default=0.3)
    ap.add_argument("--levels", default="1,8,64")
    ap.add_argument("--client", default="auto", choices=("auto", "litellm"))
    ap.add_argument("--reps", type=int, default=5, help="runs per row at concurrency > 1; the median is printed")
    args = ap.parse_args()

    from envs.domain import get_domain
    from envs.llm.backends.litellm_backend import litellm_module
    from envs.run.llm_flags import make_llm_context
    from envs.actors.roles import RoleConfig, agent_factory, judge_factory, user_factory

    litellm_module()  # import once, outside the timings
    proc, url = start_server(args.latency)
    try:
        domain = get_domain("toy")
        roles = {
            "agent": RoleConfig(spec="openai/fake-agent", api_base=url),
            "user": RoleConfig(spec="openai/fake-user", api_base=url),
            "judge": RoleConfig(spec="openai/fake-judge", api_base=url),
        }

        def setup(client: str):
            cfg = {"llm": {"model_concurrency": 1024, "request_timeout": 30, "max_retries": 0, "client": client}}
            ctx = make_llm_context(cfg, roles)
            factories = (
                agent_factory(domain, roles["agent"], ctx),
                user_factory(domain, roles["user"], ctx),
                judge_factory(domain, roles["judge"], ctx),
            )
            ctx.preflight()
            asyncio.run(play(domain, factories, 2, 2))  # warm-up: sessions, template, goal state
            return cfg, ctx, factories

        def measure(ctx, factories, n: int, c: int, reps: int = 1) -> tuple[float, float, int, int, str]:
            """The median run of ``reps`` (by wall time), and the range of its % of ideal."""
            runs = []
            for _ in range(reps):
                calls0 = ctx.client.http_calls
                w0, c0 = time.perf_counter(), time.process_time()
                recs = asyncio.run(play(domain, factories, n, c))
                wall, cpu = time.perf_counter() - w0, time.process_time() - c0
                runs.append((wall, cpu, ctx.client.http_calls - calls0, sum(r.status != "ok" for r in recs)))
            runs.sort()
            return (*runs[len(runs) // 2], spread([r[0] for r in runs], n, c))

        def spread(walls: list[float], n: int, c: int) -> str:
            if len(walls) < 2 or single_rate is None:
                return ""
            pct = sorted(100 * n / w / (min(c, n) * single_rate) for w in walls)
            return f"   (median of {len(walls)}; {pct[0]:.0f}-{pct[-1]:.0f}%)"

        cfg, ctx, factories = setup(args.client)
        single_rate = None
        top = int(args.levels.split(",")[-1])
        print(f"toy episodes (4 LLM calls each), {args.latency * 1000:.0f} ms per LLM call, server in its own process, client {args.client}")
        print(HEADER)
        for c in [int(x) for x in args.levels.split(",")]:
            wall, cpu, calls, errors, note = measure(ctx, factories, args.episodes, c, 1 if c == 1 else args.reps)
            if single_rate is None:
                single_rate = args.episodes / wall / c
            label = f"{args.episodes} at {c}" + (", lockstep" if c >= args.episodes else "")
            print(row(label, args.episodes, wall, cpu, min(c, args.episodes) * single_rate, calls, errors, note))

        # Longer than one wave: episodes drift apart, as in any real run.
        n = args.episodes * 4
        wall, cpu, calls, errors, note = measure(ctx, factories, n, top, args.reps)
        print(row(f"{n} at {top}", n, wall, cpu, top * single_rate, calls, errors, note))
        if args.client != "litellm":
            _, lctx, lfactories = setup("litellm")
            wall_l, cpu_l, calls_l, errors_l, _ = measure(lctx, lfactories, n, top)
            print(row(f"{n} at {top}, litellm", n, wall_l, cpu_l, top * single_rate, calls_l, errors_l,
                      f"   (CPU per call {1000 * cpu_l / calls_l:.1f} ms vs {1000 * cpu / calls:.1f} ms)"))

        # The same over worker processes (the runner's --workers), one per core. A worker pays
        # a fixed start (imports, a preflight), measured apart and taken out: the steady rate.
        import resource
        import tempfile

        from envs.run.scheduling import play_in_workers
        from envs.run.store import RunStore

        workers = 2
        task = next(iter(domain.tasks.values()))

        def run_workers(plan) -> tuple[float, float]:
            with tempfile.TemporaryDirectory() as d:
                store = RunStore(Path(d))
                store.write_config({**cfg, "domain": "toy", "agent": roles["agent"].spec, "user": roles["user"].spec,
                                    "judge": roles["judge"].spec, "repeats": n, "seed": 0,
                                    "llm": {**cfg["llm"], "api_base": url}})
                ch0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                w0 = time.perf_counter()
                asyncio.run(play_in_workers(Path(d), plan, workers, top, store, lambda rec: None, None))
                ch1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                return time.perf_counter() - w0, (ch1.ru_utime + ch1.ru_stime) - (ch0.ru_utime + ch0.ru_stime)

        start_wall, start_cpu = run_workers([])
        runs = sorted(run_workers([(task.id, i, 0) for i in range(n)]) for _ in range(args.reps))
        wall, cpu = runs[len(runs) // 2]
        print(row(f"{n} at {top}, {workers} processes", n, wall - start_wall, cpu - start_cpu, top * single_rate, n * 4, "-",
                  f"   (median of {len(runs)}; each worker's start, {start_wall:.1f} s, left out)"))

        # Where the CPU goes at the top level: self time by part, under cProfile with a CPU
        # clock (waiting in epoll costs nothing here, unlike with cProfile's default wall clock).
        import cProfile
        import pstats

        wall, cpu, calls, _, _ = measure(ctx, factories, n, top, 3)
        prof = cProfile.Profile(time.process_time)
        prof.enable()
        asyncio.run(play(domain, factories, n, top))
        prof.disable()
        stats = pstats.Stats(prof).stats
        shares: dict[str, float] = {}
        for func, (_, _, self_t, _, callers) in stats.items():
            b = _owner(func, stats)
            shares[b] = shares.get(b, 0.0) + self_t
        total = sum(shares.values()) or 1.0
        print(f"CPU at {top} ({n} episodes, {calls} calls, {1000 * cpu / calls:.2f} ms per call, {100 * cpu / wall:.1f}% of wall), by part:")
        for name, t in sorted(shares.items(), key=lambda kv: -kv[1]):
            share = t / total
            print(f"  {name:<40}{100 * share:>6.1f}%  {1000 * share * cpu / calls:>6.2f} ms per call  {100 * share * cpu / wall:>5.1f}% of wall")
        engine = sum(t for name, t in shares.items() if name.startswith(("sitgym", "SQLAlchemy"))) / total * cpu
        print(
            f"engine (sitgym + SQLAlchemy/SQLite): {100 * engine / wall:.1f}% of the run's wall time; "
            f"{1000 * engine / n:.2f} ms per episode, {100 * engine / n * single_rate:.2f}% of one episode's "
            f"{1 / single_rate:.2f} s"
        )
    finally:
        proc.terminate()
        proc.wait(5)


def _owner(func, stats, depth: int = 0) -> str:
    """The bucket of a function; builtins and stdlib helpers belong to their heaviest caller."""
    b = _bucket(func[0])
    if b not in ("other (stdlib, builtins)", "asyncio event loop") or depth > 6:
        return b
    callers = stats.get(func, (0, 0, 0, 0, {}))[4]
    if not callers:
        return b
    heaviest = max(callers.items(), key=lambda kv: kv[1][2] if isinstance(kv[1], tuple) else 0)[0]
    owner = _owner(heaviest, stats, depth + 1)
    return owner if owner not in ("other (stdlib, builtins)",) else b


def _bucket(path: str) -> str:
    """Which part of the program a source file belongs to."""
    p = path.replace("\\", "/")
    if p.endswith("/envs/llm/backends/openai_http.py"):
        return "HTTP client (aiohttp, or litellm's stack)"
    for part in ("/envs/", "/graders/", "/domains/", "/tests/toy_domain/"):
        if part in p and "site-packages" not in p:
            return "sitgym engine (envs, graders, domains)"
    for pkg in ("litellm", "openai", "httpx", "httpcore", "aiohttp", "tiktoken", "tenacity", "h11", "anyio", "multidict", "yarl"):
        if f"site-packages/{pkg}" in p:
            return "HTTP client (aiohttp, or litellm's stack)"
    if "asyncio" in p or "selectors" in p:
        return "asyncio event loop"
    if "sqlalchemy" in p or "sqlite" in p:
        return "SQLAlchemy / SQLite"
    return "other (stdlib, builtins)"


if __name__ == "__main__":
    main()
