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

The fifth round's classes (`benchmarks/realism_ratings/round5-support`), counted with fixed
patterns of the classes (not the domain's lines, which the round changed):

* ``detachable_mood_tag``: a sentence carrying anger or hurry that names nothing of the matter
  (no order, item, amount, card, parcel, refund ... nor a word of the task's request) and could be
  cut from any message: "I'm warning all my friends about this!", "Chop chop.", "Never again!";
* ``anger_before_anything_wrong``: exasperation at the agent ("Seriously?", "for once", "I'm not
  asking for a lot", "I know my rights", "don't waste my time") before the agent refused or put
  off anything;
* ``impatience_after_quick_fix``: "About time.", "Finally.", "Took long enough." where the agent
  did what was asked within three of its messages, refusing and delaying nothing;
* ``filler_opener``: a message opening on a word that answers nothing ("Right.", "Seriously?",
  "Of course.", "Right, okay.", "Oh no,"); ``same_opener_twice``: episodes opening two messages
  alike ("Oh no, not yet" then "Oh no, that's everything");
* ``labelled_identity_tail``: a detail with its label after it, the slot frame raters named
  ("x@example.com, that's the email.", "85701 for the zip.");
* ``padded_yes``: a yes padded with a tail that adds nothing ("Yes, go ahead now, that works for me.");
* ``stated_trait``: the persona's trait said outright ("I'm usually quite organised about this
  stuff", "I'm not very techy", "I'm not good with apps");
* ``pasted_small_talk``: chit-chat about nothing of the matter (the weather, the football, a podcast);
* ``contradicting_report``: an empty doorstep and a find in one message with no going-round between
  them ("No parcel. ... But thankfully Rosa at number 14 had taken it in.");
* ``spec_after_anger``: a cold customer's later answer in a form's full wording ("Just one item:
  the Classic Dutch Oven was not in the box of order O-90201, the rest came.").

The sixth round's classes (`benchmarks/realism_ratings/round6-support`), fixed patterns of the classes:

* ``verdict_before_find``: one message that reports a whole search with a verdict first and a find
  after it ("Nope, no parcel, I'm afraid. ... So I knocked at number 14, and Rosa had it all along"),
  or a find "all along" after an empty doorstep;
* ``announced_marker``: a persona marker said rather than shown: a typo apology, life colour no
  message calls for ("work got busy", "one of those weeks", "life got in the way"), the dog at the
  door, "dear" said to the agent, "Bye now", "by the way" on an asked detail, a generic "Could we do
  this quickly?";
* ``unmotivated_turnaround``: a no to a proposal that gives only a deferral ("I want to think about
  it first", "I'd rather sleep on it") with no reason and no hesitation;
* ``late_without_hold_up``: "About time.", "Finally.", "Took long enough." where the agent refused,
  delayed and asked again nothing before it (however many questions it asked first);
* ``stock_curt_line``: an angry or hurried customer's short yes or goodbye (six words or fewer) said
  word for word in 20 or more of the run's tasks ("Fine. That's all.", "Yeah, do it.").

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


# the fifth round's classes
MOOD = re.compile(r"\b(ridiculous|useless|pathetic|disgraceful|unbelievable|shambles|joke|joking|kidding|fuming|livid|furious|"
                  r"review|hurry|quick|quickly|fast|rush|chop chop|get on with it|crack on|all day|faster|sharpish|"
                  r"waste my time|never again|friends|everyone I know|my whole family|the neighbours|my colleagues|people online|"
                  r"mark my words|for once|shocking|worst|fed up|had enough|had it|what a mess|nonsense|unacceptable|"
                  r"immediately|this minute|right now|meeting|train to catch|bus to catch|somewhere to be|in a rush|short on time|"
                  r"haven't got long|make it fast|come on|seriously|sort it out|fix it|get it right|do it properly|sort it properly|"
                  r"can't believe|having a laugh|you people|you lot)\b", re.I)
MATTER = re.compile(r"O-\d+|\$\d|@|\d|\b(order|parcel|package|delivery|delivered|refund|money|card|charge|charged|address|box|"
                    r"item|replacement|cancel|account|email|zip|statement|arrive|arrived|broken|smashed|damaged|cracked|missing|"
                    r"person|human|manager|policy|rule|rules|window|days|weeks)\b", re.I)
EXASPERATION = re.compile(r"^(?:seriously|unbelievable|great\. just great)\b|\bseriously\?|\bfor once\b|\bnot asking for (?:a lot|much|the moon)\b|"
                          r"\bwon't take no\b|\bknow my rights\b|\bdon't waste my time\b|\bcome on\b|\btypical\b|"
                          r"\bas usual\b|\bdo you (?:people|lot|guys) even\b|\byou people\b", re.I)
LATE = re.compile(r"(?:^|[.!?] )(?:about time|finally|took (?:long enough|ages|forever)|at last)[.!]", re.I)
YES = re.compile(r"^(?:yes|yeah|yep|fine|okay|right|go|do it|just|go ahead|no)\b", re.I)
DELAY = re.compile(r"\b(one moment|a moment|bear with me|please wait|hold on|give me a|let me (?:check|look)|I'll (?:check|look))\b", re.I)
FILLER_OPENING = re.compile(r"^(?:Right[.,]|Seriously\?|Unbelievable\.|Great\. Just great\.|Of course[.,]|Oh no,|Right, okay\.)")
FILLER_LATER = re.compile(r"^(?:Of course\.|Right, okay\.|Oh no,|Right\.(?= \S))")
LABEL_TAIL = re.compile(r"@\S+?(?:,| is) (?:that's )?the email\b|\b\d{5}(?:,)? for the zip\b|\b\d{5}, (?:that's )?the zip\b", re.I)
PADDED_YES = re.compile(r"\b(?:go ahead|do it|do that|please do|go for it)\b[^.!?]*, that(?: works for me|'s fine|'s what I want| sounds right)", re.I)
TRAIT = re.compile(r"\bI'm (?:usually|normally|generally|always) (?:pretty |quite |very )?(?:organised|careful|on top of)|"
                   r"\bI (?:normally|usually|honestly) (?:wouldn't|don't|never) bother\b|"
                   r"\bI'm not (?:very |terribly |all that )?(?:techy|good with computers|online-savvy|confident online|handy with)|"
                   r"\bI'm not (?:great|good|very good|the best) with\b|\bI (?:get|always get|tend to get|do get) (?:muddled|confused|in a muddle|mixed up|in a pickle)\b", re.I)
SMALL_TALK = re.compile(r"\b(the weather|the football|cooking show|podcast|pizza|roadworks|their garden)\b", re.I)
EMPTY = re.compile(r"\b(no parcel|no sign of it|nothing there|and there's nothing|it's not there|nothing at the|nothing on the doorstep|are both empty)\b", re.I)
FOUND = re.compile(r"\b(had it|had taken it in|taken it in|was with)\b", re.I)
WENT = re.compile(r"\b(went|tried|knocked|asked|popped|go round|went round|checked with)\b", re.I)
SPEC = re.compile(r"^(?:Just one item|The whole order|The refund for order): ", re.I)
STOP = set("the a an and or but my it its it's this that for from with was were is are to of in on at i i'm i'd i've want "
           "like would please have has had not no yes just me you your".split())


def _tally():
    """A counter of classes, the messages of each, and ``hit(name, example)`` to count one."""
    c: collections.Counter = collections.Counter()
    seen: dict[str, list] = collections.defaultdict(list)

    def hit(name: str, example) -> None:
        c[name] += 1
        seen[name].append(example)

    return c, seen, hit

def _task_words() -> dict[str, set[str]]:
    """Per task, the words of its request and facts (what a sentence naming the matter shares)."""
    import yaml

    out = {}
    for f in (ROOT / "tasks" / "support").glob("*.yaml"):
        t = yaml.safe_load(f.read_text())
        sc = t.get("scenario", {})
        text = " ".join([sc.get("request", ""), *sc.get("more_requests", []), *sc.get("known_facts", []),
                         *(h.get("fact", "") for h in sc.get("hidden_facts", []))])
        out[t["id"]] = {w for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in STOP}
    return out


def _sentences(text: str) -> list[str]:
    return [x.strip() for x in re.split(r"(?<=[.!?])\s+", text) if x.strip()]


def count_round5(records: list[dict], domain) -> tuple[collections.Counter, dict[str, list]]:
    """The fifth round's classes over ``records`` (see the module docstring)."""
    writes = {n for n, t in domain.agent_tools.tools.items() if t.mutates}
    words = _task_words()
    c, seen, hit = _tally()

    for rec in records:
        own = words.get(rec["task_id"], set())
        helped_at, wrong, agents, prev, openers, cold = None, False, 0, "", collections.Counter(), False
        users = [e for e in rec["transcript"] if e["kind"] == "user"]
        for e in rec["transcript"]:
            if e["kind"] == "tool" and e.get("side") == "agent" and e["call"]["name"] in writes and e.get("ok", True):
                helped_at = agents if helped_at is None else helped_at
            if e["kind"] == "agent":
                agents += 1
                prev = e["content"]
                wrong |= bool(REFUSE.search(prev) or DELAY.search(prev))
            if e["kind"] != "user":
                continue
            text, opening = e["content"].replace("###STOP###", "").strip(), e is users[0]
            for s in _sentences(text):
                # (a yes or a no in a hurried or angry voice is the answer in its own words, not a tag)
                if MOOD.search(s) and not YES.match(s) and not COURTESY.search(s) and not MATTER.search(s) and not (set(re.findall(r"[a-z]{4,}", s.lower())) & own):
                    hit("detachable_mood_tag", s)
            if EXASPERATION.search(text) and not wrong:
                hit("anger_before_anything_wrong", (prev[-80:], text))
            if LATE.search(text) and helped_at is not None and helped_at <= 3 and not wrong:
                hit("impatience_after_quick_fix", (agents, text))
            if (FILLER_OPENING if opening else FILLER_LATER).match(text):
                hit("filler_opener", text)
            head = " ".join(text.split()[:2]).lower().rstrip(".,!?")
            if len(head.split()) == 2 and not re.search(r"\d|@", head):
                openers[head] += 1
            if LABEL_TAIL.search(text):
                hit("labelled_identity_tail", text)
            if PADDED_YES.search(text):
                hit("padded_yes", text)
            if TRAIT.search(text):
                hit("stated_trait", text)
            if SMALL_TALK.search(text):
                hit("pasted_small_talk", text)
            m = EMPTY.search(text)
            if m:
                f = FOUND.search(text, m.end())
                if f and not WENT.search(text, m.end(), f.start()):
                    hit("contradicting_report", text)
            cold |= e.get("situation") in ("furious", "impatient")
            if cold and not opening and SPEC.match(text):
                hit("spec_after_anger", text)
        if any(n >= 2 for n in openers.values()):
            hit("same_opener_twice", [k for k, n in openers.items() if n >= 2])
    return c, seen


ROUND5 = ["detachable_mood_tag", "anger_before_anything_wrong", "impatience_after_quick_fix", "filler_opener",
          "same_opener_twice", "labelled_identity_tail", "padded_yes", "stated_trait", "pasted_small_talk",
          "contradicting_report", "spec_after_anger"]


# the sixth round's classes
VERDICT = re.compile(r"^(?:(?:okay, sure|sure|okay)\. )?(?:no|nope|still no)\b[^.!?]*\bparcel\b|\bno parcel\b[^.!?]*\bI'm afraid\b", re.I)
ALL_ALONG = re.compile(r"\b(?:had it|taken it in|was with [^.!?]*?) all along\b", re.I)
MARKER = re.compile(r"\b(?:any|the) (?:typos|odd spelling|mistakes)\b|\bwork got busy\b|\bone of those (?:weeks|days|mornings|months)\b|"
                    r"\blife got in the way\b|\bwork has been mad\b|\bthings got busy\b|\bI've had a long (?:day|week|morning|shift)\b|"
                    r"\bthe dog (?:followed|got out|wanted)\b|(?<!Oh )\bdear\b(?!,? I)|\bBye now\b|, by the way\.|"
                    r"\b(?:can|could) we (?:be quick|keep this quick|make this quick|do this quickly|get through this quickly)\b", re.I)
DEFERRAL = re.compile(r"\b(?:think (?:about it|it over|it through)|sleep on it|decide (?:later|for myself|myself|in my own time)|"
                      r"not (?:sure|convinced) (?:yet|that's what I want|I want that)|have a think|talk it over|decide first)\b", re.I)
MOTIVE = re.compile(r"\b(?:keep it|worth|hassle|fuss|bother|because|since|rather have|after all|hmm|hm|actually|wait|hang on|"
                    r"on second thought|thinking about it|now (?:that|I think|it comes)|on reflection)\b", re.I)
SAID_AGAIN = re.compile(r"^(?:As I said|Like I said|Like I mentioned|As I mentioned|Again|I already told you|I said it already|Said it|As said)\b", re.I)
NO_START = re.compile(r"^(?:\S+ ){0,3}?(?:no|nope)\b", re.I)


def _cold_tasks() -> set[str]:
    """The tasks whose persona is angry or hurried (its temperament)."""
    import yaml

    people = yaml.safe_load((ROOT / "personas" / "support" / "personas.yaml").read_text())["personas"]
    cold = {p["id"] for p in people if p["dimensions"].get("temperament") in ("hostile", "impatient")}
    out = set()
    for f in (ROOT / "tasks" / "support").glob("*.yaml"):
        t = yaml.safe_load(f.read_text())
        if t.get("persona") in cold:
            out.add(t["id"])
    return out


def count_round6(records: list[dict]) -> tuple[collections.Counter, dict[str, list]]:
    """The sixth round's classes over ``records`` (see the module docstring)."""
    cold_tasks = _cold_tasks()
    c, seen, hit = _tally()
    short: dict[str, set] = collections.defaultdict(set)
    curt: list[str] = []

    for rec in records:
        held, prev, cold = False, "", False
        users = [e for e in rec["transcript"] if e["kind"] == "user"]
        for e in rec["transcript"]:
            if e["kind"] == "agent":
                prev = e["content"]
                held |= bool(REFUSE.search(prev) or DELAY.search(prev))
            if e["kind"] != "user":
                continue
            text = e["content"].replace("###STOP###", "").strip()
            cold |= e.get("situation") in ("furious", "impatient")
            sents = _sentences(text)
            if sents and EMPTY.search(text) and (VERDICT.search(sents[0]) and FOUND.search(" ".join(sents[1:])) or ALL_ALONG.search(text)):
                hit("verdict_before_find", text)
            if MARKER.search(text):
                hit("announced_marker", text)
            if PROPOSE.search(prev) and NO_START.match(text) and DEFERRAL.search(text) and not MOTIVE.search(text):
                hit("unmotivated_turnaround", text)
            if LATE.search(text) and not held:
                hit("late_without_hold_up", text)
            if SAID_AGAIN.match(text):
                held = True
            if e is not users[0] and (cold or rec["task_id"] in cold_tasks) and len(text.split()) <= 6 and (e is users[-1] or PROPOSE.search(prev)):
                short[text].add(rec["task_id"])
                curt.append(text)
    for text in curt:
        if len(short[text]) >= 20:
            hit("stock_curt_line", text)
    return c, seen


ROUND6 = ["verdict_before_find", "announced_marker", "unmotivated_turnaround", "late_without_hold_up", "stock_curt_line"]


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
    c, seen, hit = _tally()

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
    c5, seen5 = count_round5(records, get_domain("support"))
    print("fifth round's classes:")
    for name in ROUND5:
        print(f"  {name:28s} {c5[name]}")
    seen.update(seen5)
    c6, seen6 = count_round6(records)
    print("sixth round's classes:")
    for name in ROUND6:
        print(f"  {name:28s} {c6[name]}")
    seen.update(seen6)
    rng = random.Random(1)
    for name in filter(None, args.examples.split(",")):
        print(f"== {name}")
        for x in rng.sample(seen[name], min(6, len(seen[name]))):
            print("  ", x)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
