"""The fifth blind support round's named faults, as classes (benchmarks/realism_ratings/round5-support).

Written from the class descriptions: a mood said about what happened, not a detachable tag; no anger
before anything went wrong; "About time." only after a slow fix; no opener that answers nothing; no
label after an identity value; no padded yes; no trait said outright; no pasted small talk; a
neighbour's find after an empty doorstep told as going round. Each runs the offline customer on the
shipped tasks (careful agent) and reads its messages, or plays the customer at a chosen point.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import customer_classes  # noqa: E402


@pytest.fixture(scope="module")
def run(tmp_path_factory, played_runs) -> list[dict]:
    # the session's careful support run at 2 repeats (tests/conftest.py), played once for every module
    out = played_runs.copy(played_runs.CAREFUL2, tmp_path_factory.mktemp("voice6") / "run")
    return [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines() if x.strip()]


@pytest.fixture(scope="module")
def counts(run):
    from envs.domain import get_domain

    c, seen = customer_classes.count_round5(run, get_domain("support"))
    return c, seen


def _users(run):
    for rec in run:
        users = [e for e in rec["transcript"] if e["kind"] == "user"]
        for i, e in enumerate(users):
            yield rec, i, e["content"].replace("###STOP###", "").strip()


def test_no_stock_tag_in_any_message(run):
    # the stock tags the raters quoted, and any of their kind: a threat or jab that fits any message
    tags = re.compile(r"warning (?:all my friends|everyone I know)|mark my words|for once\b|chop chop|never again|"
                      r"^Seriously\?|I don't have all day|don't waste my time|worst service ever|absolutely useless", re.I | re.M)
    bad = [t for _, _, t in _users(run) if tags.search(t)]
    assert not bad, bad[:5]


def test_detachable_mood_tags_are_rare(counts, run):
    c, seen = counts
    messages = sum(1 for _ in _users(run))
    # before the round: 831 of 10,064 messages at 8 repeats (8%); a few generic hurries remain
    assert c["detachable_mood_tag"] <= 0.02 * messages, seen["detachable_mood_tag"][:6]


def test_no_exasperation_before_anything_went_wrong(counts):
    c, seen = counts
    assert c["anger_before_anything_wrong"] == 0, seen["anger_before_anything_wrong"][:4]


def test_opening_answers_nothing_with_no_opener(run):
    openers = re.compile(r"^(?:Right[.,]|Seriously\?|Unbelievable\.|Great\. Just great\.|Of course[.,]|Look,|Listen,|Oh no,)")
    bad = [t for rec, i, t in _users(run) if i == 0 and openers.match(t)
           ]
    assert not bad, bad[:5]


def test_no_filler_that_answers_nothing_later(run):
    bad = [t for _, i, t in _users(run) if i > 0 and re.match(r"^(?:Of course\.|Right, okay\.)", t)]
    assert not bad, bad[:5]


def test_no_label_after_an_identity_value(counts):
    c, seen = counts
    assert c["labelled_identity_tail"] == 0, seen["labelled_identity_tail"][:4]


def test_no_padded_yes(counts):
    c, seen = counts
    assert c["padded_yes"] == 0, seen["padded_yes"][:4]


def test_no_trait_said_outright_nor_small_talk_pasted_in(counts):
    c, seen = counts
    assert c["stated_trait"] == 0, seen["stated_trait"][:4]
    assert c["pasted_small_talk"] == 0, seen["pasted_small_talk"][:4]


def test_a_find_after_an_empty_doorstep_goes_round_first(counts):
    c, seen = counts
    assert c["contradicting_report"] == 0, seen["contradicting_report"][:4]


def test_about_time_only_after_a_slow_fix(run):
    # the agent did what was asked within its first three messages, refusing and delaying nothing
    late = re.compile(r"(?:^|[.!?] )(?:About time|Finally|Took long enough)[.!]")
    bad = []
    for rec in run:
        agents, helped_at, wrong = 0, None, False
        for e in rec["transcript"]:
            if e["kind"] == "agent":
                agents += 1
                wrong |= bool(customer_classes.REFUSE.search(e["content"]) or customer_classes.DELAY.search(e["content"])
                              or re.search(r"\bno (?:duplicate|second charge)\b", e["content"]))
            if e["kind"] == "tool" and e.get("side") == "agent" and helped_at is None and e["call"]["name"] not in (
                    "find_customer_by_email", "get_customer", "get_order", "get_shipment_tracking", "get_product",
                    "find_customer_by_name", "list_orders", "get_bank_statement", "get_refund", "list_refunds"):
                helped_at = agents
            if e["kind"] == "user" and late.search(e["content"]) and helped_at is not None and agents <= 3 and not wrong:
                bad.append(e["content"])
    assert not bad, bad[:4]


def test_an_angry_opening_line_is_about_the_matter(run):
    """The line after an angry complaint names nothing another matter would not fit: a damage line
    only for a damaged item, a 'where is it' only for a parcel, 'my money' only for money."""
    damage = re.compile(r"\b(?:pack|wrap) (?:it|these|things)\b|\bcheck (?:these|things) before\b|\bHow (?:does|do you even|on earth does) that\b")
    parcel = re.compile(r"\bwhere(?: on earth)? is it, then\?|I paid for it and I (?:haven't got|don't have) it")
    money = re.compile(r"\bwhere(?:'s| is) my money\b|\bout of pocket\b")
    for rec, i, t in _users(run):
        if i:
            continue
        if damage.search(t):
            assert re.search(r"smashed|broken|damaged|cracked|in pieces|missing|not in the box", t, re.I), t
        if parcel.search(t):
            assert not re.search(r"\brefund\b", t, re.I) and re.search(r"arrive|came|turned up|lost", t, re.I), t
        if money.search(t):
            assert re.search(r"refund|charged|charge", t, re.I), t


def test_fits_reacts_to_and_about():
    from envs.actors.enactment import Point, fits
    from envs.spec.schema import LineFit

    on_no = LineFit(reacts_to=["refusal"])
    assert fits("So that's a no.", on_no, Point(opening=False, answering=False, cold=True, reasons=frozenset({"refusal"})))
    assert not fits("So that's a no.", on_no, Point(opening=False, answering=True, cold=True, reasons=frozenset()))
    damage = LineFit(at="opening", about=r"\bsmashed\b")
    assert fits("How does that happen?", damage, Point(opening=True, answering=False, cold=True, about="My kettle arrived smashed."))
    assert not fits("How does that happen?", damage, Point(opening=True, answering=False, cold=True, about="Cancel order O-1."))
