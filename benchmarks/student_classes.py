"""Count the scripted student's named realism faults in a tutoring run (the blind ratings' classes).

    python benchmarks/student_classes.py RUN [RUN ...]

Per run (a folder with ``episodes.jsonl``): the student's messages, those that let go of a mistake in
the guide's own words (a misconception's ``realises`` lines), those that let go in a child's words
(``takes_up``, any filling of its slots), those that claim success before the message's first
calculation, and the stock closers the raters named (the fifth round's classes); and the seventh
round's: a stock lead-in before an answer ("Step by step, my number is 8", "When I did it, I got ..."),
a habitual tail after a number or a habit inside the restated problem ("bike costs $150, honestly."),
a tangent that asks "what was I doing?" in its own message, a tangent that shares no word with its
problem, a slip "fixed" from the same sum (a calculation said again with a new result and the old
one not named), a misconception defended with a reason (``defends``), an adult's way of leaving or a
push on a made-up adult's leave, and how widely the most common short reaction (under five words, no
number) is spread over the run's tasks; and the eighth round's: a stock stuck frame ("I began and ended up
with 195, then I got stuck", "I see what you mean, but where does it go?", "Oops. Last sum?"), a planted
aside (a taste or habit from nowhere: "I quite like the ones with shopping in them", "I always do these on
paper"), an aside in the first message or with a habit glued on ("so basically ... tbh"), an answer under
a test paper's label ("Answer: 61", "final: 72"), a whole working of three or more lines in the second
message (a tidy solution right after one hint), a push said twice in one message, a push after the first
of an episode that is the first one reworded (not louder, a bargain nor a sulk), a reference back to a
thing nobody named ("the clock thing!" with no clock in the tutor's message nor the problem), and an
adult's phrasing ("get it sorted soon", "I'd like to be told"). Regular expressions over the transcripts; a figure to compare
two runs with, not a measure of realism (the blind ratings are that).
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domains.tutoring.hint_ideas import ideas, realisations, took_up  # noqa: E402
from domains.tutoring.student import _CLAIM  # noqa: E402
from graders.repetition import sentence_key, sentences  # noqa: E402

CALC = re.compile(r"\d\s*[-+x/]\s*\d[\d.]*\s*=")
STOCK = re.compile(r"less bad than expected|not that bad actually|wasn't that bad|easier than i thought", re.I)
# a clause of how it came to the answer before the answer: "Doing the sums, I got 8", "Step by step, my number is"
LEAD_IN = re.compile(r"(?:^|[.!?]\s+)(?:\w+,?\s+){0,2}?(?:when i did it|step by step|after all the steps|once i'd done[^,]{0,12}|"
                     r"(?:\w+\s+){0,1}(?!working)\w+ing\b[^,.!?]{0,20}),\s+[^.!?]{0,40}\d|\bmy number (?:is|was)\b|\d[^.!?]{0,12}"
                     r"\b(?:for the last bit|for the whole thing)\b", re.I)
TAILS = re.compile(r"\d[^.!?]*?(?:,\s*(?:honestly|lol|haha)|\s(?:tbh|haha))[.!?]*$", re.I)
OPENERS = re.compile(r"^(?:okay so|um,|ok,|right, so|hmm,|well,|alright,|okay, um,|erm,|so, um,|honestly,|like,|so basically|"
                     r"i mean,|so yeah,|yeah,|so like,|ok ok,)\s", re.I)
RETURN = re.compile(r"\b(?:what was i doing|where were we|what were we (?:doing|on)|where was i)\b", re.I)
ADULT_LEAVE = re.compile(r"\b(?:ending the session|closing (?:this|the session)|take it from here|i'?m ending it|"
                         r"(?:mum|dad|mom|teacher|tutor)\b.{0,25}\b(?:said|says)|hand this in|due (?:soon|in))\b", re.I)
_CALC_FULL = re.compile(r"(\d+(?:[./]\d+)*(?:[-+x/]\d+(?:[./]\d+)*)+)\s*(?:=|\bis\b)\s*(\d+(?:[./]\d+)*)")
_WORD = re.compile(r"[a-z]{4,}")
STUCK_FRAME = re.compile(r"\bi (?:began|started|tried|had a go|made a start) and (?:got|ended up|got as far)|\bthen i got stuck\b|"
                         r"\bbut then i was stuck\b|\bthat'?s where i stopped\b|\band then nothing\b|\bwhere does it go\b|"
                         r"\b(?:see|get|understand|follow) (?:what you mean|that bit|that part|the idea|that step)(?: now)?, but\b|"
                         r"\blast (?:sum|bit)\?", re.I)
PLANTED_ASIDE = re.compile(r"\bthe ones with \w+ in them\b|\b(?:always|usually|try to) (?:do these on paper|check my sums|read the "
                           r"question twice|write the numbers down first)|\bI (?:wrote it all out|drew a picture|made a little table|"
                           r"underlined the numbers|circled the numbers|drew some boxes)\b|\bthis one (?:looked|seemed) \w+ at first\b|"
                           r"\bI read the problem (?:a few times|twice|three times|over and over|really slowly|out loud)\b|"
                           r"\b(?:problems|ones) (?:like this |with lots of words )?always take me\b", re.I)
HABIT_ON_ASIDE = re.compile(r"^(?:so basically|honestly,|like,|so like,|i mean,|so yeah,)|(?:\btbh|,\s*lol|,?\s*haha|,\s*honestly)[.!?]*$", re.I)
ANSWER_LABEL = re.compile(r"\b(?:final answer|answer|ans|final)\s*:", re.I)
PUSHY = re.compile(r"\b(?:just tell me|give me the answer|tell me the answer|tell me what (?:it|the answer) is|say (?:the answer|what it is)|"
                   r"want the answer|be told the answer|just give me|just say)\b", re.I)
# (a push that changes: a bargain, a sulk, louder, a reason or a promise it had not given)
CHANGED_PUSH = re.compile(r"\b(?:if you|and i(?:'ll)?|what if|how about|fine|whatever|unfair|not fair|mean|no help|no fun|ple{2,}a?se|"
                          r"not even helping|isn'?t helping|doesn'?t help|why won'?t you|why cant you|seriously|if i'?m close|"
                          r"i'?ll (?:get|understand) it after|tried loads|forever|can'?t (?:do|get) this one|this once|no more hints|"
                          r"don'?t want a hint|work backwards|copy the working|see how it works|rude|hmph|thanks for nothing|great help|"
                          r"i'?ll do it|doing it then|won'?t tell|never tell|do the rest|do two more|my own|myself)\b", re.I)
THING_BACK = re.compile(r"\bthe (\w+) thing\b", re.I)
ADULT_WORDS = re.compile(r"\b(?:sorted|out of the way|be told|i'?d like to be|all i want is|in a hurry)\b", re.I)


def _defence_patterns() -> list[re.Pattern]:
    """Every ``defends`` line of every misconception as a pattern, its slots matching any short text."""
    from domains.tutoring.hint_ideas import _SLOT
    from domains.tutoring.student_lines import expand

    out = []
    for m in ideas().values():
        for ln in expand(*m.defends):
            body = re.escape(ln.rstrip(".?!").lower())
            out.append(re.compile(_SLOT.sub(lambda g: ".{1,24}", body.replace(r"\{", "{").replace(r"\}", "}")), re.I))
    return out


_DEFENCES = _defence_patterns()


def count(run: Path) -> dict[str, int | str]:
    adult = {x.lower() for code in ideas() for x in realisations(code, "How many posts are there?")}
    out: dict[str, int | str] = {k: 0 for k in (
        "messages", "guide_words", "child_let_go", "claim_before_working", "stock_closer", "stock_lead_in",
        "tail_after_number_or_in_problem", "tangent_asks_what_it_was_doing", "tangents", "tangent_off_problem",
        "slip_fixed_from_same_sum", "defended_misconception", "adult_leave_or_made_up_leave",
        "stock_stuck_frame", "planted_aside", "aside_in_first_message_or_with_habit", "answer_label",
        "whole_working_in_second_message", "push_twice_in_message", "push_reworded", "thing_nobody_named",
        "adult_phrasing")}
    short_tasks: dict[str, set[str]] = defaultdict(set)
    tasks: set[str] = set()
    with (run / "episodes.jsonl").open(encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            tasks.add(rec["task_id"])
            statement = ""
            for t in rec["transcript"]:
                if t.get("kind") == "tool" and '"statement"' in str(t.get("output")):
                    try:
                        statement = json.loads(t["output"]).get("statement", "") or statement
                    except (ValueError, AttributeError):
                        pass
            said: dict[str, str] = {}  # a calculation's left side -> the result it was last given
            first = True
            n_user, pushes, tutor = 0, 0, ""
            asides = set()
            for t in rec["transcript"]:
                kind = t.get("kind") or t.get("role")
                if kind in ("assistant", "agent") and t.get("content"):
                    tutor = t["content"]
                if kind != "user":
                    continue
                n_user += 1
                m = t.get("content") or ""
                out["messages"] += 1
                low = m.lower()
                out["guide_words"] += any(a in low for a in adult)
                out["child_let_go"] += any(took_up(c, m) for c in ideas())
                calc = CALC.search(m)
                out["claim_before_working"] += bool(calc and _CLAIM.search(m[: calc.start()]))
                out["stock_closer"] += bool(STOCK.search(m))
                out["stock_lead_in"] += bool(LEAD_IN.search(m))
                sents = sentences(m)
                nums = set(re.findall(r"\d+", statement))
                in_problem = [s for s in sents if first and len(set(re.findall(r"\d+", s)) & nums) >= 2]
                # (a line of working that starts "Um, 60+40=100" is not the restated problem)
                out["tail_after_number_or_in_problem"] += bool(any(TAILS.search(s) for s in sents)
                                                               or any(OPENERS.match(s) and not re.search(r"\d\s*[-+x/]\s*\d", s)
                                                                      for s in in_problem))
                out["stock_stuck_frame"] += bool(STUCK_FRAME.search(m))
                out["planted_aside"] += bool(PLANTED_ASIDE.search(m))
                out["answer_label"] += bool(ANSWER_LABEL.search(m))
                out["whole_working_in_second_message"] += n_user == 2 and len(CALC.findall(m)) >= 3
                push_sents = [s for s in sents if PUSHY.search(s)]
                out["push_twice_in_message"] += len(push_sents) >= 2
                if push_sents:
                    pushes += 1
                    out["push_reworded"] += pushes >= 2 and not CHANGED_PUSH.search(m)
                out["thing_nobody_named"] += any(w.lower() not in f"{tutor} {statement}".lower() for w in THING_BACK.findall(m))
                out["adult_phrasing"] += bool(ADULT_WORDS.search(m))
                if t.get("situation") == "goes_off_tangent":
                    out["aside_in_first_message_or_with_habit"] += first or any(HABIT_ON_ASIDE.search(s.strip()) for s in sents)
                if t.get("situation") == "goes_off_tangent":
                    out["tangents"] += 1
                    out["tangent_asks_what_it_was_doing"] += bool(RETURN.search(m))
                    words = set(_WORD.findall(statement.lower()))
                    stems = {w.rstrip("s") for w in words}
                    out["tangent_off_problem"] += not ({w.rstrip("s") for w in _WORD.findall(low)} & stems)
                seen_now = {}
                for lhs, res in _CALC_FULL.findall(m):
                    old = said.get(lhs)
                    if old is not None and old != res and old not in re.findall(r"\d[\d./]*", m):
                        out["slip_fixed_from_same_sum"] += 1
                        break
                    seen_now[lhs] = res
                said.update(seen_now)
                out["defended_misconception"] += any(p.search(m) for p in _DEFENCES)
                out["adult_leave_or_made_up_leave"] += bool(ADULT_LEAVE.search(m))
                for s in sents:
                    k = sentence_key(s)
                    if 1 < len(k.split()) < 5 and not re.search(r"\d", k) and t.get("situation") is not None:
                        short_tasks[k].add(rec["task_id"])
                first = False
    top = max(short_tasks.items(), key=lambda kv: len(kv[1]), default=("", set()))
    out["widest_short_reaction"] = f"{len(top[1])}/{len(tasks)} tasks ({top[0]!r})"
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
