"""tau-bench retail in sitgym: reset, one tool call, grading a gold replay.

    python benchmarks/taubench_retail.py [--taubench-data PATH] [--n 300]

Prints medians beside tau-bench v1's own figures measured on the same class of
machine (2 cores), with how many times faster sitgym is. Grading is the
diff of the final state against the goal state over the rows either side
wrote, the goal being cached per task as the engine does; the cost of
computing a goal the first time is printed too. A benchmark, not a test: it
asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from envs.errors import SpecError  # noqa: E402
from envs.state.database import EpisodeState  # noqa: E402
from graders.outcome.state_diff import diff_connection  # noqa: E402

# tau-bench v1 on this machine class: reset = data_load_func() (re-reading the JSON),
# grading a gold replay = calculate_reward() (reload, replay the gold actions, hash both states).
TAU_RESET_MS = 12.8
TAU_GRADE_MS = 183.0


def median_ms(fn, n: int, setup=None) -> float:
    times = []
    for _ in range(n):
        if setup is not None:
            setup()
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--taubench-data", default=None, help="tau-bench retail data folder (default: ../shared/...)")
    ap.add_argument("--n", type=int, default=300, help="repetitions per measurement")
    args = ap.parse_args()

    from domains.taubench_retail import make_domain

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
    st.load(init)
    call = median_ms(lambda: d.agent_tools.call(st.session, "get_order_details", {"order_id": order_id}), args.n)

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

    print(f"tau-bench retail in sitgym  (template build {build_ms:.0f} ms, state {len(init) / 1e6:.2f} MB, "
          f"graded task {task.id}: {len(task.expected_actions)} actions)")
    print(f"{'measure':<48}{'sitgym':>12}{'tau-bench v1':>14}{'faster':>9}")
    rows = [
        ("reset (EpisodeState.load of initial bytes)", reset, TAU_RESET_MS),
        ("one tool call (get_order_details)", call, None),
        ("grading a gold replay (diff vs cached goal)", grading, TAU_GRADE_MS),
        (f"  same, median over all {len(tasks)} tasks", statistics.median(per_task), TAU_GRADE_MS),
        ("  replaying its gold actions", replay_ms, None),
        ("  computing its goal (first time, then cached)", goal_ms, None),
    ]
    for name, ours, tau in rows:
        theirs = f"{tau:.1f} ms" if tau else "-"
        ratio = f"{tau / ours:.0f}x" if tau else "-"
        print(f"{name:<48}{ours:>9.3f} ms{theirs:>14}{ratio:>9}")
    st.close()


if __name__ == "__main__":
    main()
