"""Print the figures the README quotes, regenerated from offline runs (no key, no network).

    python benchmarks/readme_figures.py [--repeats 8]

Plays every scripted agent of the support and tutoring domains on every task (``--repeats``
times, default 8), measures the deterministic checks on the gold sets, and prints one line per
figure: domain sizes, how many tasks each agent solves every time and how many catch it, the
rule counts the README cites, and the checks' agreement with the gold labels. It asserts
nothing: it prints what the code does today, so the README can be checked against it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def _quiet(fn, *args):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return fn(*args)


def play(domain: str, agent: str, repeats: int, tmp: Path):
    from envs.report.summary import read_summary
    from envs.run.cli import main

    out = tmp / f"{domain}-{agent.replace(':', '-')}"
    rc = _quiet(main, ["--domain", domain, "--agent", agent, "--repeats", str(repeats), "--out", str(out), "--quiet"])
    if rc != 0:
        raise SystemExit(f"{domain} {agent}: the run failed (exit {rc})")
    return read_summary(out)


def rule_line(s, rid: str) -> str:
    e = s.rules.get(rid)
    if e is None:
        return "never applied"
    return f"followed {e.followed} of {e.judged} judged turns ({e.not_applicable} n/a)"


def checks_on_gold(domain: str, tmp: Path) -> str:
    from graders.calibrate.cli import main as calibrate

    out = tmp / f"cal-{domain}.json"
    rc = _quiet(calibrate, ["--domain", domain, "--judge", "checks", "--out", str(out)])
    if rc != 0 or not out.exists():
        return f"calibrate failed (exit {rc})"
    cal = json.loads(out.read_text())
    o = cal.get("overall", {})
    items, correct, undecided = o.get("items", 0), o.get("correct", 0), o.get("needs_review", 0)
    if not items:
        return "no gold items"
    decided = items - undecided
    return (f"agree on {correct} of {items} gold items ({correct / items:.2f}); "
            f"{correct} of the {decided} they decide, {undecided} left to a judge (needs_review)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=8)
    args = ap.parse_args(argv)
    from envs.domain import get_domain

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for name in ("support", "tutoring"):
            dom = get_domain(name)
            mutating = {n for n, t in dom.agent_tools.tools.items() if getattr(t, "mutates", False)}
            unchanged = sum(1 for t in dom.tasks.values() if not any(a.name in mutating for a in t.expected_actions))
            print(f"{name}: {len(dom.tasks)} tasks ({unchanged} 'nothing should change'), "
                  f"{len(dom.agent_tools.tools)} agent tools, {len(dom.user_tools.tools)} user tools, "
                  f"{len(dom.situations)} situations, {len(dom.rules)} rules")
            for agent in dom.scripted_agents:
                s = play(name, f"scripted:{agent}", args.repeats, tmp)
                every = sum(1 for p in s.per_task if p.successes == p.trials)
                print(f"  scripted:{agent} x {args.repeats}: solves {every} of {s.tasks} tasks every time "
                      f"(caught by {s.tasks - every}); pass^1 {s.pass_hat_k['1']:.3f}"
                      + (f", pass^{args.repeats} {s.pass_hat_k[str(args.repeats)]:.3f}" if args.repeats > 1 else "")
                      + f"; {s.errors} errors")
                if name == "support":
                    for rid in ("R5", "R10", "R11", "R13", "R14"):
                        print(f"    {rid}: {rule_line(s, rid)}")
            print(f"  deterministic checks on the gold set: {checks_on_gold(name, tmp)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
