"""Throughput of the three ways to play episodes, side by side, against a 300 ms fake model server.

Toy-domain episodes (4 LLM calls each) through the real path (``python -m envs.run``), every call
answered by ``tests/fake_llm_server.py`` in its own process after a fixed latency. Rows: one process,
``--workers 2`` (processes), and ``--backend ray --workers 2`` (a local Ray instance started by the
run), at 64 and 256 episodes in flight (``--concurrency``), with ``--model-concurrency`` set to the
concurrency so the server's latency is the only wait. Printed per row: wall time of the episode phase
(the run's own ``wall_s``), episodes/s, and the share of ideal (concurrency / (4 x latency)
episodes/s); for Ray also its start-up (workers built and ready), which ``wall_s`` includes.

    python benchmarks/backends.py [--latency 0.3] [--levels 64,256] [--reps 1]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ)
ENV["SITGYM_DOMAINS"] = "toy_domain"
ENV["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "tests"), str(ROOT), os.environ.get("PYTHONPATH")]))
ENV.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def start_server(latency: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fake_llm_server.py"), str(latency)],
                            stdout=subprocess.PIPE, text=True, env=ENV)
    url = proc.stdout.readline().strip()
    if not url.startswith("http"):
        proc.kill()
        raise SystemExit("the fake server did not start")
    return proc, url


def run(url: str, n: int, extra: list[str]) -> tuple[float, float | None, int]:
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "run"
        cmd = [sys.executable, "-m", "envs.run", "--domain", "toy", "--repeats", str(n), "--concurrency", str(n),
               "--model-concurrency", str(n), "--agent", "openai/fake-agent", "--user", "openai/fake-user",
               "--api-base", url, "--out", str(out), "--request-timeout", "30", *extra]
        p = subprocess.run(cmd, capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=900)
        if p.returncode:
            raise SystemExit(f"{' '.join(extra) or 'one process'}: exit {p.returncode}: {p.stderr[-500:]}")
        s = json.loads((out / "summary.json").read_text())
        m = re.search(r"ray: \d+ workers ready in ([\d.]+) s", p.stdout)
        return s["wall_s"], float(m.group(1)) if m else None, s["errors"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--latency", type=float, default=0.3)
    ap.add_argument("--levels", default="64,256")
    ap.add_argument("--reps", type=int, default=1, help="runs per row; the median is printed")
    args = ap.parse_args()
    proc, url = start_server(args.latency)
    try:
        print(f"{'run':>28} {'in flight':>9} {'wall s':>8} {'ep/s':>7} {'% ideal':>8} {'start s':>8} {'errors':>6}")
        for n in map(int, args.levels.split(",")):
            ideal = n / (4 * args.latency)
            for label, extra in (("one process", []), ("--workers 2", ["--workers", "2"]),
                                 ("--backend ray --workers 2", ["--backend", "ray", "--workers", "2"])):
                runs = [run(url, n, extra) for _ in range(args.reps)]
                wall = statistics.median(r[0] for r in runs)
                start = [r[1] for r in runs if r[1] is not None]
                st = f"{statistics.median(start):>8.1f}" if start else f"{'-':>8}"
                print(f"{label:>28} {n:>9} {wall:>8.2f} {n / wall:>7.1f} {100 * n / wall / ideal:>7.1f}% {st} {sum(r[2] for r in runs):>6}")
    finally:
        proc.kill()


if __name__ == "__main__":
    main()
