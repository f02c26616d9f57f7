"""How the summary scales: one task x 2,000 repeats, and 100,000 episodes over 50 tasks.

Writes synthetic records (each with a short transcript) to a run folder, then times
``summarize(RunStore.iter_latest())`` (streamed) in a fresh process and reports that
process's peak resident memory beside the size of the file; then, in another fresh process,
``envs.compare``'s ``compare`` of the run with itself (both sides read). Prints one line per
case and, at the end, the README's rows.

    python benchmarks/summary_scale.py [--episodes 100000] [--repeats 2000]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from envs.records import AgentEvent, EpisodeRecord, ToolCall, ToolEvent, UserEvent, Verdict
from envs.report.summary import summarize
from envs.run.store import RunStore


def write(run_dir: Path, tasks: int, repeats: int, seed: int = 0) -> int:
    rng = random.Random(seed)
    store = RunStore(run_dir)
    lines = []
    for t in range(tasks):
        p = rng.random()
        for r in range(repeats):
            rec = EpisodeRecord(episode_id=f"t{t}#{r}", task_id=f"t{t}", domain="bench", repeat=r, seed=r)
            roll = rng.random()
            if roll < 0.03:
                rec.status, rec.error_role, rec.error_kind, rec.termination = "error", "agent", "timeout", "error"
            else:
                rec.reward = float(rng.random() < p)
                rec.termination = "agent_error_limit" if roll < 0.05 else "user_stop"
            rec.transcript = [
                UserEvent(turn=0, content="I want to change my order, please." * 3),
                ToolEvent(turn=0, call=ToolCall(id="c1", name="get_order", arguments={"order_id": f"O{r}"}), output='{"status": "pending"}' * 4, ok=True),
                AgentEvent(turn=1, content="Your order is pending; shall I change it?" * 3),
                ToolEvent(turn=1, side="user", call=ToolCall(id="u1", name="check_app", arguments={}), output="ok", ok=rng.random() < 0.9),
            ]
            rec.verdicts = [Verdict(turn=1, rule="R1", situation="cooperative", verdict="FOLLOWED", rationale="ok", source="check")]
            lines.append(rec.model_dump_json() + "\n")
    # written in one go (the store's append fsyncs per record, which is the run's cost, not the summary's)
    with open(store.episodes_path, "w", encoding="utf-8") as f:
        f.writelines(lines)
    return len(lines)


def _peak_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def summarise_here(run_dir: str, repeats: int) -> None:
    """In this (fresh) process: time the streamed summary and print it with the peak RSS (and
    write it, for the compare that follows)."""
    from envs.report.summary import write_summary

    t0 = time.perf_counter()
    c0 = time.process_time()
    s = summarize(RunStore(Path(run_dir)).iter_latest(), {"domain": "bench", "repeats": repeats})
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = _peak_mb()
    write_summary(run_dir, s)
    k = str(len(s.pass_hat_k))
    print(
        f"summary in {wall:.1f} s ({cpu:.1f} s CPU), peak RSS {peak:.0f} MB (interpreter and imports included); "
        f"pass^1 {s.pass_hat_k['1']:.3f} CI [{s.pass_hat_k_ci95['1'][0]:.3f}, {s.pass_hat_k_ci95['1'][1]:.3f}], "
        f"pass^{k} {s.pass_hat_k[k]:.3g}, errors {s.errors}, agent_failed {s.agent_failed}, "
        f"mean_reward {s.mean_reward:.3f} over {s.mean_reward_over}",
        flush=True,
    )
    print(f"#row summary {wall:.1f} {cpu:.1f} {peak:.0f}", flush=True)


def compare_here(run_dir: str) -> None:
    """In this (fresh) process: time ``compare`` of the run with itself, with the peak RSS."""
    from envs.report.compare import compare

    t0 = time.perf_counter()
    c0 = time.process_time()
    c = compare(Path(run_dir), Path(run_dir))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = _peak_mb()
    print(f"  compare (the run with itself) in {wall:.2f} s ({cpu:.2f} s CPU), peak RSS {peak:.0f} MB; "
          f"{c['tasks']['compared']} tasks compared", flush=True)
    print(f"#row compare {wall:.2f} {cpu:.2f} {peak:.0f}", flush=True)


def measure(label: str, tasks: int, repeats: int) -> str:
    """One case; returns its README row."""
    import subprocess
    import sys

    with tempfile.TemporaryDirectory() as d:
        n = write(Path(d), tasks, repeats)
        size = (Path(d) / "episodes.jsonl").stat().st_size
        print(f"{label}: {n} episodes ({size / 1e6:.0f} MB on disk): ", end="", flush=True)
        rows = {}
        for argv in (["--summarise", d, "--repeats", str(repeats)], ["--compare", d]):
            out = subprocess.run([sys.executable, __file__, *argv], check=True, capture_output=True, text=True).stdout
            for line in out.splitlines():
                if line.startswith("#row "):
                    what, wall, cpu, peak = line.split()[1:]
                    rows[what] = (wall, cpu, peak)
                else:
                    print(line, flush=True)
    (sw, sc, sp), (cw, cc, cp) = rows["summary"], rows["compare"]
    return f"| {label} ({n:,} episodes, {size / 1e6:.0f} MB) | {sw} s ({sc} s CPU), {sp} MB | {cw} s ({cc} s CPU), {cp} MB |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=2_000)
    ap.add_argument("--summarise", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--compare", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.summarise:
        return summarise_here(a.summarise, a.repeats)
    if a.compare:
        return compare_here(a.compare)
    rows = [
        measure(f"1 task x {a.repeats:,} repeats", 1, a.repeats),
        measure(f"50 tasks x {a.episodes // 50:,} repeats", 50, a.episodes // 50),
    ]
    print("\nREADME rows (peak RSS of a fresh process, interpreter and imports included):")
    print("| run | summary (wall, CPU, peak RSS) | compare with itself (wall, CPU, peak RSS) |")
    print("|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
