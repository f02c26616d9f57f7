"""tau-bench retail in sitgym, beside tau-bench v1 and tau2-bench measured on the same machine.

    python benchmarks/taubench_retail.py [--taubench-data PATH] [--n 300]
        [--taubench CHECKOUT] [--tau2 CHECKOUT] [--peer-path DIR] [--rounds 15]

Medians of: a reset, one read tool call (``get_order_details``: the first read of a record from a
fresh initial state, and a repeated one, served from the record-text cache), one write tool call
(``cancel_pending_order`` on a pending order, state reset before each call; and every state-changing
gold action of every task from its initial state), and grading a gold replay. Grading is the diff of
the final state against the goal state over the rows either side wrote, the goal cached per task as
the engine does.

``--taubench`` / ``--tau2`` name a checkout of tau-bench v1 / tau2-bench; each is measured through
its own API in a process of its own (``benchmarks/peers.py --serve``) and printed in its own column,
or skipped when not given. Read and write are measured in ``--rounds`` rounds, ours and each peer's
in turn, so a busy machine slows both sides of a ratio alike: the ratios printed are the medians
of the per-round ratios. The last lines are the README's rows. ``--peer-path`` adds a folder of a peer's dependencies to its import path
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


class Peer:
    """A peer measured in a process of its own (``benchmarks/peers.py --serve``): its reset and
    grading once, then one round of read and write each time ``round`` is called, so its rounds
    interleave with ours and a busy machine slows both alike."""

    def __init__(self, engine: str, path: str, n: int, extra: list[str]) -> None:
        cmd = [sys.executable, str(ROOT / "benchmarks" / "peers.py"), engine, path, "--n", str(n), "--serve"]
        for e in extra:
            cmd += ["--extra-path", e]
        self.engine = engine
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.static = self._line()
        self.rounds: list[dict] = []

    def _line(self) -> dict:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("{"):
                out = json.loads(line)
                if "error" in out:
                    raise RuntimeError(out["error"])
                return out
        err = self.proc.stderr.read() if self.proc.stderr else ""
        raise RuntimeError((err.strip().splitlines() or ["no output"])[-1])

    def round(self, n: int) -> dict:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{n}\n")
        self.proc.stdin.flush()
        out = self._line()
        self.rounds.append(out)
        return out

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


def start_peer(engine: str, path: str | None, n: int, extra: list[str]) -> Peer | None:
    """The peer's process, None when not asked for; an error is printed, not fatal."""
    if not path:
        return None
    try:
        return Peer(engine, path, n, extra)
    except RuntimeError as e:
        print(f"{engine}: skipped: {e}", file=sys.stderr)
        return None


def _ms(x: float) -> str:
    """A README figure: three significant digits, at most three decimals."""
    return f"{x:.3f} ms" if x < 1 else f"{x:.3g} ms" if x < 100 else f"{x:.0f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--taubench-data", default=None, help="tau-bench retail data folder (default: ../shared/...)")
    ap.add_argument("--n", type=int, default=300, help="repetitions per measurement")
    ap.add_argument("--taubench", default=None, metavar="CHECKOUT", help="a tau-bench v1 checkout to measure beside")
    ap.add_argument("--tau2", default=None, metavar="CHECKOUT", help="a tau2-bench checkout to measure beside")
    ap.add_argument("--rounds", type=int, default=15,
                    help="rounds of read and write, ours and each peer's interleaved (medians over rounds)")
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

    template = d.template()
    pending = next(a.arguments["order_id"] for t in tasks for a in t.expected_actions
                   if a.name == "cancel_pending_order" and d.initial_bytes(t) is template)
    cancel = {"order_id": pending, "reason": "no longer needed"}
    st.load(template)
    assert d.agent_tools.call(st.session, "cancel_pending_order", cancel).ok

    def our_round() -> dict:
        st.load(init)
        out = {"read": median_ms(read, args.n, setup=CACHE.clear), "read_warm": median_ms(read, args.n)}
        out["write"] = median_ms(lambda: d.agent_tools.call(st.session, "cancel_pending_order", cancel), args.n,
                                 setup=lambda: st.load(template))
        return out

    peers = [p for p in (start_peer("v1", args.taubench, args.n, args.peer_path),
                         start_peer("tau2", args.tau2, args.n, args.peer_path)) if p]
    ours_rounds = []
    for _ in range(args.rounds):  # ours, then each peer's, again and again: load hits all alike
        ours_rounds.append(our_round())
        for p in peers:
            p.round(args.n)
    for p in peers:
        p.close()
    mid = lambda rounds, k: statistics.median(r[k] for r in rounds)  # noqa: E731
    read_cold, read_warm, write = mid(ours_rounds, "read"), mid(ours_rounds, "read_warm"), mid(ours_rounds, "write")
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

    figures = []
    for p in peers:
        f = dict(p.static, read=mid(p.rounds, "read"), write=mid(p.rounds, "write"))
        # the ratio within each round, then its median: both sides of a ratio saw the same load
        f["read_ratio"] = statistics.median(o["read"] / r["read"] for o, r in zip(ours_rounds, p.rounds))
        f["write_ratio"] = statistics.median(o["write"] / r["write"] for o, r in zip(ours_rounds, p.rounds))
        figures.append(f)
    peers = figures

    print(f"tau-bench retail in sitgym  ({args.rounds} rounds x {args.n}; template build {build_ms:.0f} ms, state {len(init) / 1e6:.2f} MB, "
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
              f"first read {p['read_ratio']:.2f}x theirs, write {p['write_ratio']:.2f}x theirs "
              f"(medians of the per-round ratios over {args.rounds} interleaved rounds of {args.n})")
    if not peers:
        print("(peers not measured: give --taubench and/or --tau2 checkouts)")
    print("\nREADME rows:")
    print("| measure | sitgym | " + " | ".join(p["engine"] for p in peers) + " |")
    print("|---|---|" + "---|" * len(peers))
    for label, ours, key in [("reset", reset, "reset"), ("`get_order_details`, first read", read_cold, "read"),
                             ("`get_order_details`, repeated", read_warm, "read"),
                             ("`cancel_pending_order`", write, "write"),
                             ("grading a gold replay (heaviest task)", grading, "grade")]:
        print(f"| {label} | {_ms(ours)} | " + " | ".join(_ms(p[key]) for p in peers) + " |")
    for p in peers:
        print(f"| ratio to {p['engine']} (first read / write, per-round medians) | "
              f"{p['read_ratio']:.2f}x / {p['write_ratio']:.2f}x | |")


if __name__ == "__main__":
    main()
