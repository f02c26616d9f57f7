"""The README's whole Speed section from one run: every speed benchmark in turn, their README rows.

    python benchmarks/speed_table.py [--taubench CHECKOUT] [--tau2 CHECKOUT] [--peer-path DIR]
        [--quick]

Runs, each in a fresh process one after the other: ``engine.py`` (support's reset, tool calls,
grading, episodes per second), ``taubench_retail.py`` (tau-bench's retail data beside the peers
given; a peer not given is skipped and the table says so), ``startup.py`` (an LLM run's first
request and ``envs.check``, medians of 5 warm), ``summary_scale.py`` (the summary and
``envs.compare`` of 100,000 episodes) and ``run_memory.py`` (resident memory per episode at
``--concurrency 64``). Prints the machine (cores, load average before and after: a load above the
core count means the machine was shared and wall times are inflated; the CPU columns are the
steadier ones) and then each benchmark's README rows under its heading. ``--quick`` runs
smaller versions (for checking the command, not for the README). A benchmark, not a test: it
asserts nothing of the figures.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "benchmarks"


def rows_of(out: str) -> list[str]:
    """The lines after a benchmark's ``README rows`` heading."""
    lines = out.splitlines()
    at = next((i for i, line in enumerate(lines) if "README rows" in line), None)
    return [] if at is None else [line for line in lines[at + 1:] if line.strip()]


def run(title: str, argv: list[str]) -> tuple[str, list[str], float, float]:
    """One benchmark in its own process: (title, its README rows, wall s, CPU s of the process tree)."""
    print(f"running {title} ...", file=sys.stderr, flush=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT), LITELLM_LOCAL_MODEL_COST_MAP="True")
    r0 = os.times()
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, *argv], cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.monotonic() - t0
    r1 = os.times()
    cpu = (r1.children_user - r0.children_user) + (r1.children_system - r0.children_system)
    if proc.returncode != 0:
        err = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return title, [f"(not measured: exit {proc.returncode}: {err})"], wall, cpu
    rows = rows_of(proc.stdout)
    skipped = [line for line in proc.stderr.splitlines() if "skipped" in line]
    return title, rows + [f"({s})" for s in skipped], wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--taubench", default=None, metavar="CHECKOUT", help="a tau-bench v1 checkout")
    ap.add_argument("--tau2", default=None, metavar="CHECKOUT", help="a tau2-bench checkout")
    ap.add_argument("--taubench-data", default=None, metavar="PATH",
                    help="tau-bench's retail data (default: the --taubench checkout's, else SITGYM_TAUBENCH_DATA)")
    ap.add_argument("--only", default=None, metavar="NAME", help="only the benchmark whose script name holds NAME")
    ap.add_argument("--peer-path", action="append", default=[], metavar="DIR", help="a folder of a peer's dependencies")
    ap.add_argument("--quick", action="store_true", help="smaller runs, to check the command")
    a = ap.parse_args()
    peers = []
    if a.taubench:
        peers += ["--taubench", a.taubench]
    if a.tau2:
        peers += ["--tau2", a.tau2]
    for p in a.peer_path:
        peers += ["--peer-path", p]
    if a.taubench_data or a.taubench:
        peers += ["--taubench-data", a.taubench_data or a.taubench]
    q = a.quick
    cases = [
        ("support engine (`benchmarks/engine.py`)", [str(HERE / "engine.py"), "--n", "50" if q else "300"]),
        ("tau-bench retail beside its peers (`benchmarks/taubench_retail.py`)",
         [str(HERE / "taubench_retail.py"), "--rounds", "3" if q else "21", "--n", "50" if q else "300", *peers]),
        ("start-up (`benchmarks/startup.py`)", [str(HERE / "startup.py"), "--repeats", "2" if q else "5"]),
        ("summaries at scale (`benchmarks/summary_scale.py`)",
         [str(HERE / "summary_scale.py"), *(["--episodes", "5000", "--repeats", "200"] if q else [])]),
        ("memory per episode in flight (`benchmarks/run_memory.py`)",
         [str(HERE / "run_memory.py"), "--concurrency", "8" if q else "64"]),
    ]
    if a.only:
        cases = [c for c in cases if a.only in c[1][0]]
    cores = os.cpu_count() or 1
    load0 = os.getloadavg()
    t0 = time.monotonic()
    results = [run(title, argv) for title, argv in cases]
    load1 = os.getloadavg()
    shared = max(load0[0], load1[0], load1[1]) > cores
    print(f"Speed, measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} in {time.monotonic() - t0:.0f} s on "
          f"{cores} cores; load average {load0[0]:.1f} before, {load1[0]:.1f} after (1 min), {load1[1]:.1f} (5 min): "
          + ("the machine was shared with other work, so wall times are inflated; read the CPU figures."
             if shared else "the machine was quiet."))
    if q:
        print("(--quick: smaller runs than the README's)")
    for title, rows, wall, cpu in results:
        print(f"\n### {title}  [{wall:.0f} s wall, {cpu:.0f} s CPU]\n")
        print("\n".join(rows))


if __name__ == "__main__":
    main()
