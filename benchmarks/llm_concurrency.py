"""How well episodes overlap on one asyncio loop when every LLM call takes 300 ms.

All three roles point at the fake OpenAI server (``tests/fake_llm_server.py``,
run in its own process so its CPU does not count as the engine's) with a fixed
latency per call. 64 episodes of the toy domain are played at concurrency 1, 8
and 64 through the real path (``envs.llm_actors`` -> ``envs.llm`` -> litellm
-> HTTP). For each: episodes/s, throughput as a fraction of ideal (ideal =
concurrency x the single-episode rate measured at concurrency 1), and the
engine's CPU time as a share of wall time (``time.process_time`` / wall).

    python benchmarks/llm_concurrency.py [--episodes 64] [--latency 0.3]

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
    """The runner's own loop (envs.run._play): a state per slot, each record appended and fsynced."""
    import tempfile

    from envs.run import _play
    from envs.store import RunStore

    task = next(iter(domain.tasks.values()))
    with tempfile.TemporaryDirectory() as d:
        store = RunStore(Path(d))
        await _play(domain, [(task.id, i, 0) for i in range(n)], factories, store, concurrency, lambda rec: None)
        return list(store.load().values())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=64)
    ap.add_argument("--latency", type=float, default=0.3)
    ap.add_argument("--levels", default="1,8,64")
    args = ap.parse_args()

    from envs.domain import get_domain
    from envs.llm import litellm_module
    from envs.llm_cli import make_llm_context
    from envs.roles import RoleConfig, agent_factory, judge_factory, user_factory

    litellm_module()  # import once, outside the timings
    proc, url = start_server(args.latency)
    try:
        domain = get_domain("toy")
        roles = {
            "agent": RoleConfig(spec="openai/fake-agent", api_base=url),
            "user": RoleConfig(spec="openai/fake-user", api_base=url),
            "judge": RoleConfig(spec="openai/fake-judge", api_base=url),
        }
        cfg = {"llm": {"model_concurrency": 1024, "request_timeout": 30, "max_retries": 0}}
        ctx = make_llm_context(cfg, roles)
        factories = (agent_factory(domain, roles["agent"], ctx), user_factory(domain, roles["user"], ctx), judge_factory(domain, roles["judge"], ctx))
        ctx.preflight()
        asyncio.run(play(domain, factories, 2, 2))  # warm-up: clients, template, goal state

        single_rate = None
        print(f"{args.episodes} toy episodes, {args.latency * 1000:.0f} ms per LLM call, server in its own process")
        print(f"{'concurrency':>11} {'wall s':>8} {'ep/s':>7} {'% ideal':>8} {'CPU s':>7} {'CPU % wall':>10} {'calls':>6} {'errors':>6}")
        for c in [int(x) for x in args.levels.split(",")]:
            calls0 = ctx.client.http_calls
            w0, c0 = time.perf_counter(), time.process_time()
            recs = asyncio.run(play(domain, factories, args.episodes, c))
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
            rate = args.episodes / wall
            if single_rate is None:
                single_rate = rate / c
            ideal = min(c, args.episodes) * single_rate
            errors = sum(r.status != "ok" for r in recs)
            print(
                f"{c:>11} {wall:>8.2f} {rate:>7.2f} {100 * rate / ideal:>7.1f}% {cpu:>7.2f} {100 * cpu / wall:>9.1f}% "
                f"{ctx.client.http_calls - calls0:>6} {errors:>6}"
            )
        # The same top level split over worker processes (the runner's --workers), one per core.
        # A worker pays a fixed start (importing litellm, a preflight), measured apart and taken
        # out, so the figure is the steady rate a long run gets.
        import resource
        import tempfile

        from envs.run import _play_in_workers
        from envs.store import RunStore

        c = int(args.levels.split(",")[-1])
        workers = 2
        n = args.episodes * 4
        task = next(iter(domain.tasks.values()))

        def run_workers(plan) -> tuple[float, float]:
            with tempfile.TemporaryDirectory() as d:
                store = RunStore(Path(d))
                store.write_config({**cfg, "domain": "toy", "agent": roles["agent"].spec, "user": roles["user"].spec,
                                    "judge": roles["judge"].spec, "repeats": n, "seed": 0,
                                    "llm": {**cfg["llm"], "api_base": url}})
                ch0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                w0 = time.perf_counter()
                asyncio.run(_play_in_workers(Path(d), plan, workers, c, store, lambda rec: None, None))
                ch1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                return time.perf_counter() - w0, (ch1.ru_utime + ch1.ru_stime) - (ch0.ru_utime + ch0.ru_stime)

        start_wall, start_cpu = run_workers([])
        wall, cpu = run_workers([(task.id, i, 0) for i in range(n)])
        w, cp = wall - start_wall, cpu - start_cpu
        rate = n / w
        ideal = c * single_rate
        print(
            f"{f'{c} x{workers} proc':>11} {w:>8.2f} {rate:>7.2f} {100 * rate / ideal:>7.1f}% {cp:>7.2f} {100 * cp / w:>9.1f}%"
            f" {n * 4:>6}      (steady state, {n} episodes; each worker's start, {start_wall:.1f} s, left out)"
        )

        # Where the CPU goes at the highest level: self time by package, under cProfile.
        import cProfile
        import pstats

        prof = cProfile.Profile()
        c = int(args.levels.split(",")[-1])
        prof.enable()
        asyncio.run(play(domain, factories, args.episodes, c))
        prof.disable()
        stats = pstats.Stats(prof).stats
        shares: dict[str, float] = {}
        for func, (_, _, self_t, _, callers) in stats.items():
            b = _owner(func, stats)
            shares[b] = shares.get(b, 0.0) + self_t
        total = sum(shares.values()) or 1.0
        calls = args.episodes * 4
        print(f"CPU self time at concurrency {c}, by package (under cProfile, so slower than above):")
        for name, t in sorted(shares.items(), key=lambda kv: -kv[1]):
            print(f"  {name:<34}{100 * t / total:>6.1f}%   {1000 * t / calls:>6.2f} ms per LLM call")
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
    for part in ("/envs/", "/graders/", "/domains/", "/tests/toy_domain/"):
        if part in p and "site-packages" not in p:
            return "sitgym engine (envs, graders, domains)"
    for pkg in ("litellm", "openai", "httpx", "httpcore", "aiohttp", "pydantic", "tiktoken", "tenacity", "h11", "anyio"):
        if f"site-packages/{pkg}" in p:
            return "LLM client (litellm, openai, httpx, ...)"
    if "asyncio" in p or "selectors" in p:
        return "asyncio event loop"
    if "sqlalchemy" in p or "sqlite" in p:
        return "SQLAlchemy / SQLite"
    return "other (stdlib, builtins)"


if __name__ == "__main__":
    main()
