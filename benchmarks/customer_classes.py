"""The classes of line blind raters named in the support customer, counted over a run's transcripts.

    python benchmarks/customer_classes.py RUN_DIR [--examples CLASS,CLASS]

Each class is counted with regular expressions built from the support domain's own situation
lines (every ``{a|b}`` realisation of a line is recognised), so run it from the source that
played the run. The classes (the third round's complaints, `benchmarks/realism_ratings/round3-support`):

* ``mood_line_on_plain_answer``: a line of the furious or impatient situation in a message that
  answers a plain ask (the agent's message asked for a detail or proposed a change, and refused
  nothing): "Disgraceful!" right after an email address;
* ``opening_two_mood_lines``: an opening with two of those lines;
* ``thanks_before_help``: thanks in a message (not the goodbye) before the agent has changed
  anything for the customer (a state-changing tool call);
* ``courtesy_and_hurry``: thanks or kind words and a hurried or angry word in one message (rough:
  word lists, not lines);
* ``small_talk_outside_a_pause``: an off-topic line after the opening, where the customer did not
  just come back from checking something; ``episodes_two_asides``: episodes with two or more;
* ``form_report``: a check told as a form ("I've checked at the door: No parcel at ...");
* ``labelled_fact``: a detail given as a form field ("Email: x.", "Zip: 40503.", "40503, zip.").

Prints one count per class (and the messages it was counted over). Asserts nothing.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

COURTESY = re.compile(r"\b(thanks|thank you|appreciate|kind of you|good of you|helpful of you|thoughtful of you|cheers|"
                      r"lovely|dear|much appreciated|ever so)\b", re.I)
THANKS = re.compile(r"\b(thanks|thank you|appreciate|kind of you|good of you|thoughtful of you|helpful of you|cheers)\b", re.I)
HURRY = re.compile(r"\b(ridiculous|useless|pathetic|disgraceful|unbelievable|shambles|joke|kidding|fuming|livid|furious|"
                   r"review|hurry|quickly|fast|rush|chop chop|get on with it|crack on|no time|all day|faster|sharpish|"
                   r"waste my time)\b", re.I)
FACT_ASK = re.compile(r"\b(email|e-mail|zip|postcode|postal code|address|name)\b[^.]*\?", re.I)
PROPOSE = re.compile(r"\b(shall i|should i|would you like me to|do you want me to)\b", re.I)
REFUSE = re.compile(r"\b(can't|cannot|unable|not able|isn't eligible|outside|couldn't|afraid|already been)\b", re.I)
FORM_REPORT = re.compile(r"(?:checked|looked|had a look|asked around|asked the neighbours|knocked next door|"
                         r"checked with the neighbours|went round the neighbours)[^.:!?]*: [A-Z]")
LABEL = re.compile(r"(?:^|[.!?] )(?:Email|Zip|Zip code): |\b\d{5}, zip\.", re.I)


def line_patterns(lines: list[str]) -> list[re.Pattern]:
    """Each scripted line as a pattern matching any of its realisations."""
    out = []
    for line in (x for x in lines if x.strip()):
        rx, i = "", 0
        for m in re.finditer(r"\{([^{}]*)\}", line):
            rx += re.escape(line[i:m.start()]) + "(?:" + "|".join(re.escape(x) for x in m.group(1).split("|")) + ")"
            i = m.end()
        out.append(re.compile(rx + re.escape(line[i:]), re.I))
    return out


def situation_lines(domain, *ids: str) -> list[re.Pattern]:
    return [p for sid in ids for p in line_patterns([*domain.situations[sid].scripted.prefix, *domain.situations[sid].scripted.suffix])]


def count(records: list[dict], domain) -> tuple[collections.Counter, dict[str, list]]:
    """The classes' counts over ``records`` (episode dicts of an episodes.jsonl), with their messages."""
    writes = {n for n, t in domain.agent_tools.tools.items() if t.mutates}
    mood = situation_lines(domain, "furious", "impatient")
    talk = situation_lines(domain, "off_topic")
    c: collections.Counter = collections.Counter()
    seen: dict[str, list] = collections.defaultdict(list)

    def hit(name: str, example) -> None:
        c[name] += 1
        seen[name].append(example)

    for rec in records:
        c["episodes"] += 1
        helped, checked, asides, prev = False, False, 0, ""
        users = [e for e in rec["transcript"] if e["kind"] == "user"]
        for e in rec["transcript"]:
            if e["kind"] == "tool" and e.get("side") == "agent" and e["call"]["name"] in writes and e.get("ok", True):
                helped = True
            if e["kind"] == "tool" and e.get("side") == "user":
                checked = True
            if e["kind"] == "agent":
                prev, checked = e["content"], False
            if e["kind"] != "user":
                continue
            text, opening, last = e["content"], e is users[0], e is users[-1]
            c["messages"] += 1
            moods = sum(bool(p.search(text)) for p in mood)
            talks = sum(bool(p.search(text)) for p in talk)
            asides += talks
            if opening:
                if moods >= 2:
                    hit("opening_two_mood_lines", text)
            else:
                if (FACT_ASK.search(prev) or PROPOSE.search(prev)) and not REFUSE.search(prev):
                    c["answers_to_plain_asks"] += 1
                    if moods:
                        hit("mood_line_on_plain_answer", (prev[-90:], text))
                if not helped and not last and THANKS.search(text):
                    hit("thanks_before_help", text)
                if talks and not checked:
                    hit("small_talk_outside_a_pause", (prev[-90:], text))
            if COURTESY.search(text) and (moods or HURRY.search(text)) and not re.search(r"thanks for nothing", text, re.I):
                hit("courtesy_and_hurry", text)
            if FORM_REPORT.search(text):
                hit("form_report", text)
            if LABEL.search(text):
                hit("labelled_fact", text)
        if asides >= 2:
            c["episodes_two_asides"] += 1
    return c, seen


CLASSES = ["mood_line_on_plain_answer", "opening_two_mood_lines", "thanks_before_help", "courtesy_and_hurry",
           "small_talk_outside_a_pause", "episodes_two_asides", "form_report", "labelled_fact"]


def main(argv: list[str] | None = None) -> int:
    from envs.domain import get_domain

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=Path, help="a run folder (its episodes.jsonl) of the support domain")
    ap.add_argument("--examples", default="", help="comma-separated classes to show up to 6 messages of")
    args = ap.parse_args(argv)
    records = [json.loads(x) for x in (args.run / "episodes.jsonl").read_text().splitlines() if x.strip()]
    c, seen = count(records, get_domain("support"))
    print(f"{c['episodes']} episodes, {c['messages']} customer messages, {c['answers_to_plain_asks']} answers to a plain ask")
    for name in CLASSES:
        print(f"  {name:28s} {c[name]}")
    rng = random.Random(1)
    for name in filter(None, args.examples.split(",")):
        print(f"== {name}")
        for x in rng.sample(seen[name], min(6, len(seen[name]))):
            print("  ", x)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
