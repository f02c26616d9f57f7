"""Count the scripted student's named realism faults in a tutoring run (the fifth blind rating's classes).

    python benchmarks/student_classes.py RUN [RUN ...]

Per run (a folder with ``episodes.jsonl``): the student's messages, those that let go of a mistake in
the guide's own words (a misconception's ``realises`` lines), those that let go in a child's words
(``takes_up``, any filling of its slots), those that claim success before the message's first
calculation, and the stock closers the raters named. Regular expressions over the transcripts; a
figure to compare two runs with, not a measure of realism (the blind ratings are that).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domains.tutoring.hint_ideas import ideas, realisations, took_up  # noqa: E402
from domains.tutoring.student import _CLAIM  # noqa: E402

CALC = re.compile(r"\d\s*[-+x/]\s*\d[\d.]*\s*=")
STOCK = re.compile(r"less bad than expected|not that bad actually|wasn't that bad|easier than i thought", re.I)


def count(run: Path) -> dict[str, int]:
    adult = {x.lower() for code in ideas() for x in realisations(code, "How many posts are there?")}
    out = {"messages": 0, "guide_words": 0, "child_let_go": 0, "claim_before_working": 0, "stock_closer": 0}
    with (run / "episodes.jsonl").open(encoding="utf-8") as f:
        for line in f:
            for t in json.loads(line)["transcript"]:
                if (t.get("kind") or t.get("role")) != "user":
                    continue
                m = t.get("content") or ""
                out["messages"] += 1
                out["guide_words"] += any(a in m.lower() for a in adult)
                out["child_let_go"] += any(took_up(c, m) for c in ideas())
                calc = CALC.search(m)
                out["claim_before_working"] += bool(calc and _CLAIM.search(m[: calc.start()]))
                out["stock_closer"] += bool(STOCK.search(m))
    return out


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python benchmarks/student_classes.py RUN [RUN ...]", file=sys.stderr)
        return 2
    for a in argv:
        run = Path(a)
        if not (run / "episodes.jsonl").is_file():
            print(f"{run}: no episodes.jsonl", file=sys.stderr)
            return 2
        print(run.name, " ".join(f"{k} {v}" for k, v in count(run).items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
