"""Resident memory per episode in flight, for ``envs.run --concurrency 64``: scripted and LLM.

    python benchmarks/run_memory.py [--domain support] [--concurrency 64] [--latency 0.3]

Each case is a fresh ``python -m envs.run`` process; its peak resident set (the kernel's
``ru_maxrss`` for that child, from ``os.wait4``) is compared with the same run at ``--concurrency 1``,
and the difference divided by the most episodes that were in flight at once:

* LLM: ``--agent openai/fake-agent`` against ``tests/fake_llm_server.py`` (in this process, every
  reply after ``--latency`` seconds, so episodes wait on the model as they would on a real one);
  episodes in flight = the server's peak of requests open at once (one per waiting episode).
* scripted: the default scripted agent and user. Scripted actors never wait, so the run's
  episodes hardly overlap; the figure is the peak's growth over ``--concurrency 1`` divided by
  ``--concurrency``, i.e. what 64 scheduled episodes cost, and says so.

A benchmark, not a test: it asserts nothing of the figures. Linux or macOS (``os.wait4``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fake_llm_server import FakeLLMServer  # noqa: E402

BUDGET_MB = 10.0  # issue 27: at most this much resident memory per concurrent episode


def peak_mb(cmd: list[str], out: str) -> float:
    """The child's peak RSS in MB (its stdout discarded; a failure ends the benchmark)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENAI_API_KEY="sk-fake")
    proc = subprocess.Popen(cmd + ["--out", out, "--quiet"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        err = proc.stderr.read().decode(errors="replace").strip().splitlines() if proc.stderr else []
        raise SystemExit(f"{' '.join(cmd[2:])}: exit {proc.returncode}: {(err or ['no output'])[-1]}")
    kb = usage.ru_maxrss if sys.platform != "darwin" else usage.ru_maxrss / 1024
    return kb / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--domain", default="support")
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--latency", type=float, default=0.3)
    args = ap.parse_args()
    c = args.concurrency
    base = [sys.executable, "-m", "envs.run", "--domain", args.domain]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        # scripted: every task, enough repeats that 64 episodes are scheduled at once
        repeats = str(max(2, -(-2 * c // 35)))
        one = peak_mb(base + ["--repeats", repeats, "--concurrency", "1"], f"{tmp}/s1")
        many = peak_mb(base + ["--repeats", repeats, "--concurrency", str(c)], f"{tmp}/s{c}")
        rows.append(("scripted", one, many, c, "episodes scheduled (scripted actors do not wait)"))

        # LLM: the same episodes both times (every task, 2 repeats), so the domain's per-task states
        # (initial and goal databases, held once per task whatever the concurrency) are in both
        # peaks and only what each episode in flight holds is in the difference; the baseline's
        # server answers at once (one episode at a time waits on nothing else).
        fast, server = FakeLLMServer(latency=0.0).start(), FakeLLMServer(latency=args.latency).start()
        try:
            llm = base + ["--agent", "openai/fake-agent", "--repeats", "2", "--model-concurrency", str(4 * c)]
            one = peak_mb(llm + ["--api-base", fast.url, "--concurrency", "1"], f"{tmp}/l1")
            server.peak_in_flight = 0
            many = peak_mb(llm + ["--api-base", server.url, "--concurrency", str(c)], f"{tmp}/l{c}")
            rows.append(("LLM (fake server)", one, many, max(1, server.peak_in_flight), "requests in flight at once"))
        finally:
            server.stop()
            fast.stop()
    print(f"resident memory per episode in flight, {args.domain}, --concurrency {c} (peak RSS of a fresh process)")
    for name, one, many, n, what in rows:
        per = max(0.0, many - one) / n
        print(f"  {name:<18} peak {one:.0f} MB at --concurrency 1, {many:.0f} MB at {c}; {n} {what}: "
              f"{per:.2f} MB each (budget {BUDGET_MB:.0f} MB)")
    print("\nREADME rows:")
    print(f"| path | peak RSS, --concurrency 1 | peak RSS, --concurrency {c} | in flight | per episode |")
    print("|---|---|---|---|---|")
    for name, one, many, n, _ in rows:
        print(f"| {name} | {one:.0f} MB | {many:.0f} MB | {n} | {max(0.0, many - one) / n:.2f} MB |")


if __name__ == "__main__":
    main()
