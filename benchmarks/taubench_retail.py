"""tau-bench retail in sitgym, beside tau-bench v1 and tau2-bench measured on the same machine.

    python benchmarks/taubench_retail.py [--taubench-data PATH] [--n 300]
        [--taubench CHECKOUT] [--tau2 CHECKOUT] [--peer-path DIR]

Medians of: a reset, one read tool call (``get_order_details``: the first read of a record from a
fresh initial state, and a repeated one, served from the record-text cache), one write tool call
(``cancel_pending_order`` on a pending order, state reset before each call; and every state-changing
gold action of every task from its initial state), and grading a gold replay. Grading is the diff of
the final state against the goal state over the rows either side wrote, the goal cached per task as
the engine does.

``--taubench`` / ``--tau2`` name a checkout of tau-bench v1 / tau2-bench; each is measured through
its own API in a process of its own (``benchmarks/peers.py``) and printed in its own column, or
skipped when not given. ``--peer-path`` adds a folder of a peer's dependencies to its import path
(after ours). A benchmark, not a test: it asserts nothing of the figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from envs.errors import SpecError  # noqa: E402
from envs.state.database import EpisodeState  # noqa: E402
from graders.outcome.state_diff import diff_connection  # noqa: E402


def median_ms(fn, n: int, setup=None) -> float:
    times = []
    for _ in range(n):
        if setup is not None:
            setup()
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def run_peer(engine: str, path: str | None, n: int, extra: list[str]) -> dict | None:
    """The peer's medians (``benchmarks/peers.py``), None when not asked for; an error is printed, not fatal."""
    if not path:
        return None
    cmd = [sys.executable, str(ROOT / "benchmarks" / "peers.py"), engine, path, "--n", str(n)]
    for e in extra:
        cmd += ["--extra-path", e]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    out = json.loads(lines[-1]) if lines else {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1]}
    if "error" in out:
        print(f"{engine}: skipped: {out['error']}", file=sys.stderr)
        return None
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--taubench-data", default=None, help="tau-bench retail data folder (default: ../shared/...)")
    ap.add_argument("--n", type=int, default=300, help="repetitions per measurement")
    ap.add_argument("--taubench", default=None, metavar="CHECKOUT", help="a tau-bench v1 checkout to measure beside")
    ap.add_argument("--tau2", default=None, metavar="CHECKOUT", help="a tau2-bench checkout to measure beside")
    ap.add_argument("--peer-path", action="append", default=[], metavar="DIR",
                    help="a folder of the peers' dependencies (repeatable)")
    args = ap.parse_args()
    for flag, p in (("--taubench", args.taubench), ("--tau2", args.tau2)):
        if p and not Path(p).is_dir():
            print(f"{flag} {p}: not a directory", file=sys.stderr)
            raise SystemExit(2)

    from domains.taubench_retail import make_domain
    from domains.taubench_retail.tools.records import CACHE

    d = make_domain({"data": args.taubench_data})
    try:
        t0 = time.perf_counter()
        d.template()
        build_ms = (time.perf_counter() - t0) * 1000
        tasks = list(d.tasks.values())
    except SpecError as e:
        print(e, file=sys.stderr)
        raise SystemExit(2) from None

    # The task with the most state-changing actions: the heaviest gold replay to grade.
    task = max(tasks, key=lambda t: sum(d.agent_tools[a.name].mutates for a in t.expected_actions))
    init = d.initial_bytes(task)
    t0 = time.perf_counter()
    goal, goal_tables, _ = d.goal(task)
    goal_ms = (time.perf_counter() - t0) * 1000

    st = EpisodeState(d.base, init)
    reset = median_ms(lambda: st.load(init), args.n)

    order_id = next(a.arguments["order_id"] for t in tasks for a in t.expected_actions if a.name == "get_order_details")
    read = lambda: d.agent_tools.call(st.session, "get_order_details", {"order_id": order_id})  # noqa: E731
    st.load(init)
    read_cold = median_ms(read, args.n, setup=CACHE.clear)
    read_warm = median_ms(read, args.n)

    template = d.template()
    pending = next(a.arguments["order_id"] for t in tasks for a in t.expected_actions
                   if a.name == "cancel_pending_order" and d.initial_bytes(t) is template)
    cancel = {"order_id": pending, "reason": "no longer needed"}
    assert d.agent_tools.call(st.session, "cancel_pending_order", cancel).ok
    write = median_ms(lambda: d.agent_tools.call(st.session, "cancel_pending_order", cancel), args.n,
                      setup=lambda: st.load(template))
    per_tool: dict[str, list[float]] = defaultdict(list)
    for t in tasks * 5:  # 5 rounds: a median, not first calls
        for a in t.expected_actions:
            if d.agent_tools[a.name].mutates:
                st.load(d.initial_bytes(t))
                t0 = time.perf_counter()
                d.agent_tools.call(st.session, a.name, a.arguments)
                per_tool[a.name].append((time.perf_counter() - t0) * 1000)
    writes_all = statistics.median([x for v in per_tool.values() for x in v])
    worst_tool, worst = max(((k, statistics.median(v)) for k, v in per_tool.items()), key=lambda kv: kv[1])

    def replay() -> None:
        st.load(init)
        for a in task.expected_actions:
            d.agent_tools.call(st.session, a.name, a.arguments)
        st.session.commit()

    def grade() -> None:
        # exactly what grade_episode does: only the rows either side wrote
        diff = diff_connection(st.conn, goal, d.base.metadata, goal_tables | st.touched, task.ignore_columns)
        assert not diff, "the gold replay should match its goal"

    grading = median_ms(grade, max(10, args.n // 10), setup=replay)
    replay_ms = median_ms(replay, max(10, args.n // 10))

    # Typical rather than heaviest: each task's gold replay graded once, median over all 115.
    per_task = []
    for t in tasks:
        g_bytes, g_tables, _ = d.goal(t)
        st.load(d.initial_bytes(t))
        for a in t.expected_actions:
            d.agent_tools.call(st.session, a.name, a.arguments)
        st.session.commit()
        t0 = time.perf_counter()
        diff = diff_connection(st.conn, g_bytes, d.base.metadata, g_tables | st.touched, t.ignore_columns)
        per_task.append((time.perf_counter() - t0) * 1000)
        assert not diff, f"{t.id}: the gold replay should match its goal"
    st.close()

    peers = [p for p in (run_peer("v1", args.taubench, args.n, args.peer_path),
                         run_peer("tau2", args.tau2, args.n, args.peer_path)) if p]

    print(f"tau-bench retail in sitgym  (template build {build_ms:.0f} ms, state {len(init) / 1e6:.2f} MB, "
          f"graded task {task.id}: {len(task.expected_actions)} actions)")
    head = f"{'measure':<50}{'sitgym':>11}" + "".join(f"{p['engine']:>15}" for p in peers)
    print(head)
    rows = [
        ("reset", reset, "reset"),
        ("read: get_order_details, first read", read_cold, "read"),
        ("read: get_order_details, repeated (cached)", read_warm, "read"),
        ("write: cancel_pending_order", write, "write"),
        (f"write: all {sum(map(len, per_tool.values())) // 5} gold writes x5 (median)", writes_all, None),
        (f"  slowest tool: {worst_tool}", worst, None),
        ("grading a gold replay (heaviest task)", grading, "grade"),
        (f"  same, median over all {len(tasks)} tasks", statistics.median(per_task), None),
        ("  replaying its gold actions", replay_ms, None),
        ("  computing its goal (first time, then cached)", goal_ms, None),
    ]
    for name, ours, key in rows:
        line = f"{name:<50}{ours:>8.3f} ms"
        for p in peers:
            line += f"{p[key]:>12.3f} ms" if key else f"{'':>15}"
        print(line)
    for p in peers:
        print(f"{p['engine']}: grading replays its own heaviest task ({p['graded_actions']} gold actions); "
              f"reset {p['reset'] / reset:.0f}x, grading {p['grade'] / grading:.0f}x, "
              f"first read {read_cold / p['read']:.1f}x theirs, write {write / p['write']:.1f}x theirs")
    if not peers:
        print("(peers not measured: give --taubench and/or --tau2 checkouts)")


if __name__ == "__main__":
    main()
