"""The scripted users read a long agent message in bounded time: a wall of text up to the
200,000-character cap of a message is skimmed (its beginning and its end), every sentence is read
in pieces of bounded length, and episodes in flight with such messages record no timeout.
(The figures: ``python benchmarks/long_messages.py``.)"""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from envs.actors.scripted_user import ScriptedUser
from envs.actors.topics import MAX_READ_CHARS, MAX_SENTENCE_CHARS, _sentences, skim
from envs.domain import get_domain
from envs.episode import Episode
from envs.records import AgentAction
from fake_llm_server import FakeLLMServer

WORDS = ("I can help if you like please could you tell me the email and zip code of your order refund replacement "
         "shall I cancel it which would you prefer or the address confirm is that right anything else since").split()


def wall(n: int, punct: bool, seed: int = 0) -> str:
    rng = random.Random(seed)
    out, size = [], 0
    while size < n:
        w = rng.choice(WORDS) + (rng.choice(".?!") if punct and rng.random() < 0.05 else "")
        out.append(w)
        size += len(w) + 1
    return " ".join(out)[:n]


def test_skim_keeps_short_messages_and_the_ends_of_long_ones():
    assert skim("Could I have your email?") == "Could I have your email?"
    text = wall(200_000, True) + " Could you give me your zip code?"
    s = skim(text)
    assert len(s) <= MAX_READ_CHARS + 1 and s.endswith("Could you give me your zip code?")
    assert s.startswith(text[:100])


def test_a_sentence_without_an_end_is_read_in_bounded_pieces():
    pieces = _sentences("word " * 5_000)
    assert len(pieces) > 10 and all(len(p) <= MAX_SENTENCE_CHARS for p, _ in pieces)
    assert all(len(p) <= MAX_SENTENCE_CHARS for p, _ in _sentences("x" * 5_000))


def test_a_question_at_the_end_of_a_wall_of_text_is_still_heard():
    support = get_domain("support")
    r = support.topics.read(wall(200_000, False) + ". Could you give me the email address on your account?")
    assert "email" in r.topics and r.question


@pytest.mark.parametrize("domain", ["support", "tutoring"])
@pytest.mark.parametrize("kind", ["words", "sentences", "digits", "spaces", "dots"])
def test_the_scripted_users_answer_a_message_at_the_cap(domain, kind):
    text = {"words": wall(200_000, False), "sentences": wall(200_000, True), "digits": "7" * 200_000,
            "spaces": "x " * 100_000, "dots": ". " * 100_000}[kind]
    d = get_domain(domain)
    task = d.tasks[sorted(d.tasks)[0]]
    ep = Episode(d, task, d.scripted_users.get("default", ScriptedUser)(), seed=1)
    try:
        asyncio.run(ep.start())
        res = asyncio.run(ep.step(AgentAction.say(text)))
        assert res.kind in ("user", "end") and ep.events[-1].kind in ("user", "agent")
    finally:
        ep.close()


@pytest.fixture(scope="module")
def server():
    srv = FakeLLMServer().start()
    yield srv
    srv.stop()


def test_four_episodes_in_flight_with_long_messages_record_no_timeout(server, tmp_path):
    """The agent's first reply is a 200,000-character wall; then it only says '...'. With four
    episodes in flight and a 10 s request timeout (generous: the fake server shares this process), reading the walls must not stall the loop the
    other episodes' requests wait on."""
    from envs.run.cli import main

    def agent(body):
        from fake_llm_server import Reply

        said = sum(1 for m in body["messages"] if m.get("role") == "assistant")
        return Reply.text(wall(200_000, True, seed=said) if said < 2 else "...")

    server.behaviours["fake-agent"] = agent
    out = tmp_path / "run"
    rc = main(["--domain", "support", "--tasks", "sup_cancel_after_dispatch", "--repeats", "4", "--concurrency", "4",
               "--agent", "openai/fake-agent", "--api-base", server.url, "--request-timeout", "60", "--max-retries", "0",  # generous: 200,000-character replies on a busy machine
              
               "--retry-errors", "0", "--out", str(out), "--quiet"])
    assert rc == 0
    recs = [json.loads(l) for l in (out / "episodes.jsonl").read_text().splitlines()]
    assert len(recs) == 4 and all(r["status"] == "ok" for r in recs), [r.get("error") for r in recs]
