"""How big ``report.html`` gets and how fast it opens, for runs of a given number of episodes.

``python benchmarks/report_size.py [--episodes 280 5000] [--runs DIR]`` plays the support
domain with the eager scripted agent (it fails most tasks, so transcripts, diffs and violated
verdicts are all there) to at least each episode count, writes the report, then opens it in
headless Chromium (/usr/bin/chromium through playwright) and prints: file size, the time to
write it, first contentful paint, the time until the grid is drawn (DOMContentLoaded, the
script runs inline), and the time to open the first failed episode (which decodes the packed
episodes) and the replies of the first rule cell. Medians of --repeats page loads. Prints
figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def make_run(runs: Path, episodes: int) -> Path:
    repeats = math.ceil(episodes / 35)
    d = runs / f"support-eager-{repeats}"
    if not (d / "summary.json").exists():
        subprocess.run(
            [sys.executable, "-m", "envs.run", "--domain", "support", "--agent", "scripted:eager", "--repeats", str(repeats), "--out", str(d), "--quiet"],
            cwd=ROOT,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return d


def measure(browser, page_path: Path, repeats: int) -> dict[str, float]:
    out: dict[str, list[float]] = {"fcp_ms": [], "grid_ms": [], "open_episode_ms": [], "open_replies_ms": []}
    for _ in range(repeats):
        pg = browser.new_page(viewport={"width": 1280, "height": 900})
        pg.goto(page_path.as_uri())
        pg.wait_for_load_state("load")
        pg.wait_for_function("performance.getEntriesByType('paint').some(e => e.name === 'first-contentful-paint')")
        fcp = pg.evaluate("(performance.getEntriesByType('paint').find(e => e.name === 'first-contentful-paint') || {startTime: NaN}).startTime")
        dcl = pg.evaluate("performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd")
        t0 = time.perf_counter()
        pg.locator(".cell.fail").first.click()
        pg.locator("#sg-episode h2").wait_for()
        t1 = time.perf_counter()
        pg.locator("td.rc").first.click()
        pg.locator("#sg-replies h2").wait_for()
        t2 = time.perf_counter()
        out["fcp_ms"].append(fcp)
        out["grid_ms"].append(dcl)
        out["open_episode_ms"].append((t1 - t0) * 1000)
        out["open_replies_ms"].append((t2 - t1) * 1000)
        pg.close()
    return {k: statistics.median(v) for k, v in out.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, nargs="+", default=[280, 5000])
    ap.add_argument("--runs", default="runs/bench-report", help="where the runs are played (kept, reused)")
    ap.add_argument("--repeats", type=int, default=3, help="page loads per size (median)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    from envs.report.html import write_report
    from envs.report.summary import read_summary

    runs = Path(args.runs)
    rows = []
    for n in args.episodes:
        d = make_run(runs, n)
        t = time.perf_counter()
        page = write_report(d, read_summary(d))
        write_s = time.perf_counter() - t
        rows.append((d, page, write_s))
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        print("episodes | report.html | write | first paint | grid drawn | open an episode | a rule's replies")
        for d, page, write_s in rows:
            m = measure(b, page, args.repeats)
            n = sum(1 for _ in open(d / "episodes.jsonl", encoding="utf-8"))
            print(
                f"{n} | {page.stat().st_size / 1e6:.2f} MB | {write_s:.2f} s | {m['fcp_ms']:.0f} ms | {m['grid_ms']:.0f} ms | "
                f"{m['open_episode_ms']:.0f} ms | {m['open_replies_ms']:.0f} ms"
            )
        b.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
