"""How long a user waits before anything happens: an LLM run's first request, and ``envs.check``.

    python benchmarks/startup.py [--domain support] [--repeats 5]

First request: ``python -m envs.run --domain D --agent openai/fake-agent --api-base URL`` started as
a user would (a fresh process, default flags), against ``tests/fake_llm_server.py`` in this process
on a local port; the time is from starting the command to the server receiving its first chat
request (the run is then stopped). ``envs.check``: the wall time of ``python -m envs.check --domain D``.
Each is run ``--repeats`` times after one warm-up (a warm disk, bytecode and the content-keyed check
and template caches, as on a working day: ``PYTHONDONTWRITEBYTECODE`` is dropped for the children, as
an installed package has its bytecode); medians, with the range, and the CPU seconds the command
used (user + system: steadier than wall time on a shared machine). A benchmark, not a test: it
asserts nothing of the figures.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from fake_llm_server import FakeLLMServer  # noqa: E402


def _env(**extra: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), **extra)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def first_request_s(server: FakeLLMServer, domain: str, out_dir: str) -> tuple[float, float]:
    """Seconds from starting ``envs.run`` to the fake server's first chat request, and the CPU
    seconds the process had used by then (it is stopped at once)."""
    before = len(server.times)
    env = _env(OPENAI_API_KEY="sk-fake")
    cpu0 = _cpu()
    cmd = [sys.executable, "-m", "envs.run", "--domain", domain, "--agent", "openai/fake-agent",
           "--api-base", server.url, "--out", out_dir]
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while len(server.times) == before:
            if proc.poll() is not None:
                err = proc.stderr.read().decode(errors="replace").strip().splitlines() if proc.stderr else []
                raise SystemExit(f"envs.run ended before any request: {(err or ['no output'])[-1]}")
            time.sleep(0.002)
        took = server.times[before] - t0
    finally:
        proc.kill()
        proc.wait()
    return took, _cpu() - cpu0


def check_s(domain: str) -> tuple[float, float]:
    env = _env()
    cpu0 = _cpu()
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "envs.check", "--domain", domain], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    took = time.monotonic() - t0
    if proc.returncode != 0:
        raise SystemExit(f"envs.check failed: {(proc.stdout + proc.stderr).strip().splitlines()[-1:]}")
    return took, _cpu() - cpu0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--domain", default="support")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    server = FakeLLMServer()
    server.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            first = [first_request_s(server, args.domain, f"{tmp}/run{i}") for i in range(args.repeats + 1)][1:]
        checks = [check_s(args.domain) for _ in range(args.repeats + 1)][1:]
    finally:
        server.stop()
    rows = [("LLM run, command to first request", first), (f"`python -m envs.check --domain {args.domain}`", checks)]
    print(f"start-up, {args.domain}: medians of {args.repeats} after a warm-up")
    for label, pairs in rows:
        xs, cpu = [w for w, _ in pairs], [c for _, c in pairs]
        print(f"  {label:<45} {statistics.median(xs):6.2f} s  (range {min(xs):.2f}-{max(xs):.2f} s; "
              f"CPU {statistics.median(cpu):.2f} s)")
    print("\nREADME rows:")
    print("| start-up | median wall | range | CPU |\n|---|---|---|---|")
    for label, pairs in rows:
        xs, cpu = [w for w, _ in pairs], [c for _, c in pairs]
        print(f"| {label} | {statistics.median(xs):.2f} s | {min(xs):.2f}-{max(xs):.2f} s | "
              f"{statistics.median(cpu):.2f} s |")


if __name__ == "__main__":
    main()
