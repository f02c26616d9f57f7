"""Engine speed: reset, one agent tool call (read; every gold write), grading, full scripted episodes.

    python benchmarks/engine.py [--domain support] [--n 300]

Prints medians and the state size. For tau-bench v1 and tau2-bench measured beside sitgym on
the same machine, see ``benchmarks/taubench_retail.py --taubench CHECKOUT --tau2 CHECKOUT``
(their retail domain; they have no other domain in common). A benchmark, not a test: it asserts
nothing of the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import envs  # noqa: E402,F401
from envs.domain import get_domain  # noqa: E402
from envs.episode import Episode, episode_seed, run_episode  # noqa: E402
from envs.records import AgentAction  # noqa: E402
from envs.state.database import EpisodeState  # noqa: E402
from envs.actors.scripted_user import ScriptedUser  # noqa: E402

CPU: dict[str, float] = {}  # per measure, the median CPU ms beside the median wall ms (steadier on a shared machine)


def median_ms(fn, n: int, label: str | None = None) -> float:
    times, cpu = [], []
    for _ in range(n):
        c0 = time.process_time()
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    if label:
        CPU[label] = statistics.median(cpu)
    return statistics.median(times)


def _ms(x: float) -> str:
    return f"{x:.3f} ms" if x < 1 else f"{x:.3g} ms"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--domain", default="support")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--tool", default=None, help="tool for the repeated-call benchmark (default: first task's first action)")
    args = ap.parse_args()

    d = get_domain(args.domain)
    t0 = time.perf_counter()
    template = d.template()
    build_s = time.perf_counter() - t0
    tasks = list(d.tasks.values())
    task = next((t for t in tasks if t.expected_actions), tasks[0])
    init = d.initial_bytes(task)
    d.goal(task)
    st = EpisodeState(d.base, init)

    reset = median_ms(lambda: st.load(init), args.n, "reset")

    action = task.expected_actions[0]
    if args.tool:
        action = next((a for t in tasks for a in t.expected_actions if a.name == args.tool), None)
        if action is None:
            raise SystemExit(f"--tool: no task's expected actions call {args.tool!r}")
        init = d.initial_bytes(next(t for t in tasks if action in t.expected_actions))
    def one_call():
        st.load(init)
        d.agent_tools.call(st.session, action.name, action.arguments)
    load_only = median_ms(lambda: st.load(init), args.n)
    call = max(0.0, median_ms(one_call, args.n) - load_only)

    # Every read-only gold action, each the first read after a reset (what an episode pays), by tool.
    reads: dict[str, list[float]] = {}
    reads_cpu: dict[str, list[float]] = {}
    for t in tasks:
        for a in t.expected_actions:
            if not d.agent_tools[a.name].mutates and len(reads.get(a.name, ())) < args.n:
                st.load(d.initial_bytes(t))
                c0 = time.process_time()
                t0 = time.perf_counter()
                d.agent_tools.call(st.session, a.name, a.arguments)
                reads.setdefault(a.name, []).append((time.perf_counter() - t0) * 1000)
                reads_cpu.setdefault(a.name, []).append((time.process_time() - c0) * 1000)

    # Every state-changing gold action of every task, from its task's initial state (5 rounds).
    writes: dict[str, list[float]] = {}
    writes_cpu: list[float] = []
    for t in tasks * 5:
        for a in t.expected_actions:
            if d.agent_tools[a.name].mutates:
                st.load(d.initial_bytes(t))
                c0 = time.process_time()
                t0 = time.perf_counter()
                d.agent_tools.call(st.session, a.name, a.arguments)
                writes.setdefault(a.name, []).append((time.perf_counter() - t0) * 1000)
                writes_cpu.append((time.process_time() - c0) * 1000)

    # Grading a finished episode: the expected actions replayed, then graded against the goal.
    ep = Episode(d, task, ScriptedUser(), seed=1)
    asyncio.run(ep.start())
    for a in task.expected_actions:
        asyncio.run(ep.step(AgentAction.call(a.name, **a.arguments)))
    grade_ms = median_ms(ep.grade, args.n, "grade")
    assert ep.grade().state_match
    ep.close()

    # Full scripted episodes with the domain's default scripted agent.
    agent_f = d.scripted_agents[d.default_agent]
    n_eps = 0
    c0 = time.process_time()
    t0 = time.perf_counter()
    shared = EpisodeState(d.base, init)

    async def play():
        nonlocal n_eps
        for r in range(3):
            for t in tasks:
                await run_episode(d, t, agent_f(), ScriptedUser(), seed=episode_seed(0, t.id, r), repeat=r, state=shared)
                n_eps += 1

    asyncio.run(play())
    eps = n_eps / (time.perf_counter() - t0)
    eps_cpu = n_eps / (time.process_time() - c0)

    print(f"domain {d.name}: state {len(template) / 1e6:.2f} MB, template ready in {build_s * 1000:.0f} ms (built, or read from the content-keyed cache)")
    print(f"{'measure':<44}{'sitgym':>12}")
    print(f"{'env reset (median)':<44}{reset:>10.3f}ms")
    print(f"{f'one agent tool call ({action.name})':<44}{call:>10.3f}ms")
    for name, v in sorted(reads.items()):
        print(f"{f'  first read: {name} ({len(v)} gold calls)':<44}{statistics.median(v):>10.3f}ms")
    if writes:
        all_w = statistics.median([x for v in writes.values() for x in v])
        worst, worst_ms = max(((k, statistics.median(v)) for k, v in writes.items()), key=lambda kv: kv[1])
        print(f"{f'write tool call, {sum(map(len, writes.values())) // 5} gold writes x5':<44}{all_w:>10.3f}ms")
        print(f"{f'  slowest tool: {worst}':<44}{worst_ms:>10.3f}ms")
    print(f"{'grading one episode (median)':<44}{grade_ms:>10.3f}ms")
    print(f"{'full scripted episodes':<44}{eps:>10.1f}/s   ({n_eps} episodes, {d.default_agent} agent)")

    print("\nREADME rows (median wall time, median CPU time):")
    print(f"| measure ({d.name}) | wall | CPU |\n|---|---|---|")
    print(f"| env reset ({len(template) / 1e6:.2f} MB state) | {_ms(reset)} | {_ms(CPU['reset'])} |")
    for name in ("get_order", "get_customer", "find_customer_by_email"):
        if name in reads:
            print(f"| `{name}`, first read after a reset ({len(reads[name])} gold calls) | "
                  f"{_ms(statistics.median(reads[name]))} | {_ms(statistics.median(reads_cpu[name]))} |")
    if writes:
        print(f"| a write tool ({sum(map(len, writes.values())) // 5} gold writes x 5) | {_ms(all_w)} | "
              f"{_ms(statistics.median(writes_cpu))} |")
        print(f"| slowest write tool, `{worst}` | {_ms(worst_ms)} | |")
    print(f"| grading one episode | {_ms(grade_ms)} | {_ms(CPU['grade'])} |")
    print(f"| full scripted episodes ({d.default_agent} agent) | {eps:.0f}/s | {eps_cpu:.0f}/s of CPU |")


if __name__ == "__main__":
    main()
