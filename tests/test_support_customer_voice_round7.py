"""The sixth blind support round's named faults, as classes (benchmarks/realism_ratings/round6-support).

Written from the class descriptions: a search told in the order it was done, the find as news (no
verdict on the whole search before it, no "all along"); a persona shown, not announced (no typo
apology, no life colour or dog no message calls for, no "dear", no "by the way" on an asked detail,
no generic "Could we do this quickly?"); a no to a proposal it asked for carries a reason or a
hesitation; "About time." only after a hold-up, not after the agent's own questions; a curt yes or
goodbye is about the matter, not one stock line across conversations.
"""

from __future__ import annotations

import collections
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
    out = played_runs.copy(played_runs.CAREFUL2, tmp_path_factory.mktemp("voice7") / "run")
    return [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines() if x.strip()]


@pytest.fixture(scope="module")
def counts(run):
    return customer_classes.count_round6(run)


def _users(run, task: str | None = None):
    for rec in run:
        if task and rec["task_id"] != task:
            continue
        for e in (e for e in rec["transcript"] if e["kind"] == "user"):
            yield rec, e["content"].replace("###STOP###", "").strip()


def test_a_search_is_told_in_order_and_the_find_as_news(run, counts):
    c, seen = counts
    assert c["verdict_before_find"] == 0, seen["verdict_before_find"][:4]
    found = [t for _, t in _users(run, "sup_neighbour_has_it") if re.search(r"number \d+", t)]
    assert found
    for t in found:
        sents = re.split(r"(?<=[.!?])\s+", t)
        # no verdict on the whole search first ("Nope, no parcel, I'm afraid."), no "all along"
        assert not re.match(r"(?:Okay, sure\. )?(?:No|Nope|Still no)\b", t), t
        assert "all along" not in t and "I'm afraid" not in t, t
        # the find in a sentence of its own, after the doorstep
        find = next(i for i, s in enumerate(sents) if re.search(r"\bhad (?:it|taken it in)\b", s))
        door = next(i for i, s in enumerate(sents) if re.search(r"door|doorstep|mailbox", s))
        assert door < find and not re.search(r"\b(?:nothing|no)\b", sents[find]), t


def test_a_trait_is_shown_not_announced(counts):
    c, seen = counts
    assert c["announced_marker"] == 0, seen["announced_marker"][:5]


def test_a_no_to_what_it_asked_for_carries_a_reason(run, counts):
    c, seen = counts
    assert c["unmotivated_turnaround"] == 0, seen["unmotivated_turnaround"][:4]
    declines = []
    for rec in (r for r in run if r["task_id"] == "sup_customer_declines"):
        prev = ""
        for e in rec["transcript"]:
            if e["kind"] == "agent":
                prev = e["content"]
            elif e["kind"] == "user" and customer_classes.PROPOSE.search(prev):
                declines.append(e["content"])
    assert declines
    for t in declines:
        assert customer_classes.MOTIVE.search(t), t
        # still a no the agent can read (no yes in it)
        assert not re.match(r"^(?:yes|yeah|yep|sure)\b", t, re.I), t


def test_no_about_time_after_a_fix_without_a_hold_up(run):
    # the ambiguous-order task: a clarifying question, the identity, a choice, a proposal, then the
    # fix: each question answered at once, nothing refused or put off
    late = re.compile(r"(?:^|[.!?] )(?:About time|Finally|Took long enough)[.!]")
    bad = [t for _, t in _users(run, "sup_ambig_one_item") if late.search(t)]
    assert not bad, bad[:4]


def test_a_curt_line_is_not_one_stock_sentence_across_conversations(run):
    tasks = {rec["task_id"] for rec in run}
    last: dict[str, set] = collections.defaultdict(set)
    for rec in run:
        users = [e for e in rec["transcript"] if e["kind"] == "user"]
        t = users[-1]["content"].replace("###STOP###", "").strip()
        if len(t.split()) <= 6:
            last[t].add(rec["task_id"])
    widest = max(last.items(), key=lambda kv: len(kv[1]))
    # before the round: "Fine. That's all." closed 40 of 203 tasks at 2 repeats
    assert len(widest[1]) <= 0.1 * len(tasks), (widest[0], len(widest[1]))


def test_a_curt_yes_names_what_it_agrees_to():
    """Played at a proposal: an angry customer's yes to a refund names the refund, to a replacement
    the replacement, and is still a plain yes."""
    from envs.actors.replies import load_replies

    replies = load_replies(ROOT / "domains" / "support")
    for act, word in (("refund", "refund"), ("replacement", "send"), ("cancel", "cancel")):
        for mood in ("hostile", "impatient"):
            lines = replies.variants("accept", {"temperament": mood, "act": act})
            assert lines and all(word in x.lower() for x in lines), (mood, act, lines)
            assert all(re.search(r"\b(?:yes|yeah|yep)\b", x, re.I) for x in lines), (mood, act, lines)


# -- from the fifth blind play of the hard tier (its players' words) -------------------------------------

def test_a_line_about_looking_a_detail_up_is_never_said_where_the_customer_decides():
    # "Had to hunt around for that." fits an email or a number the agent asked for, not a yes to a refund
    from envs.actors.enactment import Point, fits
    from envs.spec.schema import LineFit

    fit = LineFit(at="later", answering=True, telling=True)
    assert fits("Had to hunt around for that.", fit, Point(opening=False, answering=True, cold=False))
    assert not fits("Had to hunt around for that.", fit, Point(opening=False, answering=True, cold=False, deciding=True))
    assert not fits("Had to hunt around for that.", fit, Point(opening=False, answering=False, cold=False))


@pytest.mark.parametrize("temperament,verbosity", [("calm", "terse"), ("hostile", "normal"), ("calm", "chatty"), ("calm", "normal")])
def test_a_further_request_led_in_with_and_then_is_reworded_whole(temperament, verbosity):
    # "And then, I have a new address" led in again as "Next: then, ..." put two leads on one request
    from envs.domain import get_domain

    support = get_domain("support")
    text = "And then, I have a new address, so order O-95042 should go to my new address instead."
    for seed in range(40):
        out = support.replies.rephrase(text, {"temperament": temperament, "verbosity": verbosity}, seed)
        assert not re.match(r"^[^,:]*[,:] then,", out), out
        assert "O-95042" in out
