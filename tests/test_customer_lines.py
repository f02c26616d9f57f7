"""The scripted customer's lines: disclosure by persona, lines that fit the moment, a goodbye, and
realisations that differ between tasks (envs/actors/scripted_user.py, enactment.py, replies.py)."""

from __future__ import annotations

import asyncio
import random
import re

import pytest

from envs.actors.enactment import Point, enact, fits, realise
from envs.actors.protocols import STOP_TOKEN, UserTurn
from envs.actors.scripted_user import ScriptedUser
from envs.domain import get_domain
from envs.spec.schema import LineFit, Persona, ScriptedLines

TASK = "sup_cancel_before_dispatch"  # hidden facts: email, zip


@pytest.fixture(scope="module")
def support():
    return get_domain("support")


def say(u, d, task, persona, msg, events=(), goal_met=False, situation=None):
    turn = UserTurn(task=task, persona=persona, situation=situation, situation_id=situation.id if situation else None,
                    agent_message=msg, events=list(events), turn=1, rng=random.Random(0), call_tool=lambda n, a: "",
                    words=d.words, topics=d.topics, replies=d.replies, goal_met=goal_met, goal_changes=True)
    return asyncio.run(u.reply(turn))


def P(**dims):
    return Persona(id="x", dimensions={"temperament": "calm", "age_group": "middle", **dims})


def test_asked_for_the_email_it_tells_the_email_only(support):
    t = support.tasks[TASK]
    u = ScriptedUser()
    say(u, support, t, P(verbosity="normal"), None)
    r = say(u, support, t, P(verbosity="normal"), "What's the email address on your account?").content
    email = next(h.fact.split()[-1].rstrip(".") for h in t.scenario.hidden_facts if h.id == "email")
    zip_ = next(h.fact.split()[-1].rstrip(".") for h in t.scenario.hidden_facts if h.id == "zip")
    assert email in r and zip_ not in r


@pytest.mark.parametrize("verbosity,offers", [("chatty", True), ("normal", False), ("terse", False)])
def test_a_general_request_gets_what_the_persona_volunteers(support, verbosity, offers):
    t = support.tasks[TASK]
    u = ScriptedUser()
    say(u, support, t, P(verbosity=verbosity), None)
    r = say(u, support, t, P(verbosity=verbosity), "Before we start, could you verify your identity for me?").content
    email = next(h.fact.split()[-1].rstrip(".") for h in t.scenario.hidden_facts if h.id == "email")
    assert (email in r) is offers
    if not offers:
        assert r.endswith("?")  # it asks what is needed instead of "I don't know"


def test_thanks_for_help_only_after_the_agent_did_something():
    fit = LineFit(warm=True, after_help=True)
    assert not fits("Thanks for your help.", fit, Point(opening=False, answering=True, cold=False, helped=False))
    assert fits("Thanks for your help.", fit, Point(opening=False, answering=True, cold=False, helped=True))
    back = LineFit(after_change=True)
    assert not fits("Sorry, I keep going back and forth.", back, Point(opening=False, answering=False, cold=False, changed=False))


def test_shipped_thanks_lines_wait_for_help(support):
    """Thanks follow help: every line that thanks or praises waits for the agent to have just done
    something, and none is said in the opening ("Thanks for picking this up." before a word of help)."""
    coop = support.situations["cooperative"].scripted
    thanking = re.compile(r"\b(thanks|thank you|cheers|appreciat\w*|kind of you|good of you|helpful of you)\b", re.I)
    thanks = [x for x in [*coop.prefix, *coop.suffix] if thanking.search(x)]
    assert thanks and all(coop.fits[x].after_help for x in thanks)
    for at in (Point(opening=True, answering=False, cold=False, helped=False),
               Point(opening=False, answering=True, cold=False, helped=False), Point(opening=False, answering=False, cold=False, helped=False)):
        for k in range(40):
            en = enact(coop, Point(**{**at.__dict__, "key": k}), random.Random(k))
            assert not thanking.search(en.prefix + " " + en.suffix), en


def test_result_then_anything_else_gets_thanks_then_a_goodbye(support):
    t = support.tasks[TASK]
    u = ScriptedUser()
    p = P(verbosity="normal")
    say(u, support, t, p, None)
    done = say(u, support, t, p, "Order O-91201 is now cancelled.", goal_met=True)
    assert not done.stop and done.content
    bye = say(u, support, t, p, "Is there anything else I can help you with?", goal_met=True)
    assert bye.stop and bye.content.replace(STOP_TOKEN, "").strip()


def test_told_the_result_with_anything_else_it_answers_and_leaves_at_once(support):
    t = support.tasks[TASK]
    u = ScriptedUser()
    say(u, support, t, P(verbosity="normal"), None)
    r = say(u, support, t, P(verbosity="normal"), "Done, it is cancelled. Is there anything else I can help with?", goal_met=True)
    assert r.stop and r.content.replace(STOP_TOKEN, "").strip()


def test_a_refusal_with_remedies_is_not_pushed_back_on(support):
    t = support.tasks[TASK]
    u = ScriptedUser()
    say(u, support, t, P(verbosity="normal"), None)
    r = say(u, support, t, P(verbosity="normal"),
            "I can't refund that one, but would you prefer store credit or a replacement?").content
    assert "nothing you can do" not in r.lower() and "other way" not in r.lower()


def test_realisations_differ_between_tasks_and_stay_within_one():
    line = "{Thanks|Thank you|Cheers} for {picking this up|taking this|looking at this}."
    said = {realise(line, k) for k in range(50)}
    assert len(said) >= 6 and all("{" not in x for x in said)
    assert realise(line, 7) == realise(line, 7)


def test_each_task_keeps_a_small_repertoire_per_list():
    lines = ScriptedLines(prefix=[f"Line number {i} here." for i in range(20)])
    got = {enact(lines, Point(opening=False, answering=False, cold=False, key=123), random.Random(s)).prefix for s in range(60)}
    assert len(got) <= 3
    other = {enact(lines, Point(opening=False, answering=False, cold=False, key=456), random.Random(s)).prefix for s in range(60)}
    assert got != other


def test_a_run_of_distinct_tasks_does_not_share_fact_sentences(support):
    # "My zip code is 40503." in every task was the widest sentence of the main run
    outs = set()
    for tid, t in sorted(support.tasks.items()):
        if not any(h.id == "zip" for h in t.scenario.hidden_facts):
            continue
        u = ScriptedUser()
        say(u, support, t, P(verbosity="normal"), None)
        outs.add(" ".join(w for w in say(u, support, t, P(verbosity="normal"), "And your zip code?").content.split() if not w[0].isdigit()))
    assert len(outs) >= 4


def test_task_goals_settle_every_choice_that_is_the_users(support):
    from envs.spec.lint import open_choices

    found = [line for tid, t in sorted(support.tasks.items()) if tid.startswith("sup_") for line in open_choices(support, t, tid)]
    assert found == []
    # the lint finds an unsettled destination (the goal before it said where the money goes)
    t = support.tasks["sup_lost_parcel_refund"]
    bare = t.model_copy(update={"scenario": t.scenario.model_copy(update={"goal": "Get the money back for a lost parcel."})})
    assert any("destination 'original_payment'" in x for x in open_choices(support, bare, "t"))
    # and envs.check's lint runs it, on every task (the hard tier's included)
    from envs.spec.lint import lint_task

    assert any("destination 'original_payment'" in x for x in lint_task(support, bare, "t"))
    assert [x for tid, t in sorted(support.tasks.items()) for x in open_choices(support, t, tid)] == []


MULTI = "hard_store_credit_early_03"  # three requests; the second a damaged-item refund


@pytest.mark.parametrize("question", [
    "What else can I help you with?",
    "Anything more I can do for you today?",
    "Is there an order with an item you'd like refunded?",
    # blind players asking for the next of the requests the customer opened with
    "What's the next thing?", "Is there a third thing?", "What's the next thing you need?",
    "What's the second thing you wanted sorted?", "You mentioned a few things - what's next?",
])
def test_a_customer_with_a_request_to_come_raises_it_when_asked_in_other_words(support, question):
    """A blind agent's "What else can I help you with?" got "I'm not sure, sorry." and a question about
    the refund still to come got "I don't know": a person with more to ask says it."""
    t = support.tasks[MULTI]
    u = ScriptedUser()
    p = P(verbosity="normal")
    say(u, support, t, p, None)
    r = say(u, support, t, p, f"Your order's shipping address is updated. {question}").content
    assert "lamp" in r.lower() and t.scenario.more_requests[0] in r, r  # the refund still to come


def test_a_no_to_a_proposal_gives_a_reason_and_no_thanks():
    """A declined remedy is answered with the customer's own reason, never wrapped in thanks."""
    import re
    from pathlib import Path

    from envs.actors.replies import load_replies

    replies = load_replies(Path(__file__).resolve().parents[1] / "domains" / "support")
    for entry in replies.spec.replies["decline"]:
        for written in entry.say:
            for line in {realise(written, k) for k in range(300)}:  # every realisation of the line
                # a no at once, or after a short hesitation ("Hmm, no.", "Hang on. No, don't."): the sixth
                # round's raters named a bare deferral as a turnaround with no motive
                assert re.match(r"^(?:(?:Oh|Hmm|Hm|Actually|Wait|Hang on)\b[.,]?(?:\.\.)? ){0,2}(?:(?:actually|on second thought|hmm|wait) )?[Nn]o", line, re.I) \
                    and not re.search(r"thank|appreciate|cheers", line, re.I), line
                assert re.search(r"\b(think|rather|decide|sure|worth|want|hold off|sleep on|keep|hassle|fuss|bother)\b", line), line


def test_an_answer_carries_one_mood_line_after_it():
    """Answering a question, the customer adds at most one line of its mood, after the answer."""
    lines = ScriptedLines(prefix=["I am furious."], suffix=["Sort it out!"])
    en = enact(lines, Point(opening=False, answering=True, cold=True), random.Random(0))
    assert (en.prefix, en.suffix, en.played) == ("", "Sort it out!", True)
    en = enact(lines, Point(opening=False, answering=False, cold=True), random.Random(0))
    assert (en.prefix, en.suffix) == ("I am furious.", "Sort it out!")


def _episode(support, task, persona, seed, msgs):
    """The customer's messages in one episode of ``task`` with seed ``seed``, answering ``msgs``."""
    u = ScriptedUser()
    out = []
    for msg in [None, *msgs]:
        turn = UserTurn(task=task, persona=persona, situation=None, situation_id=None, agent_message=msg, events=[],
                        turn=1, rng=random.Random(seed), call_tool=lambda n, a: "", words=support.words,
                        topics=support.topics, replies=support.replies, goal_changes=True, seed=seed)
        out.append(asyncio.run(u.reply(turn)).content)
    return out


def test_realisations_are_drawn_per_episode_and_replayed_by_its_seed(support):
    """A task's repeats speak differently (the seed is in the draw); one seed says the same words again."""
    t = support.tasks[TASK]
    p = P(verbosity="chatty")
    msgs = ["To verify your identity, could you give me the email on your account and your zip code?",
            "Shall I cancel the order for you?"]
    runs = {s: _episode(support, t, p, s, msgs) for s in range(12)}
    assert all(_episode(support, t, p, s, msgs) == runs[s] for s in (0, 5))
    for i in range(len(msgs) + 1):  # the opening, the identity answer, the yes
        assert len({r[i] for r in runs.values()}) >= 6, [r[i] for r in runs.values()]


def test_the_alternations_of_one_line_are_drawn_independently():
    """crc32 is linear: keyed by strings that differ in one digit, one line's alternations came out
    tied together, and a line of 4 x 4 x 4 realisations said a handful of them."""
    line = "{A|B|C|D} {e|f|g|h} {i|j|k|l}."
    assert len({realise(line, k) for k in range(400)}) >= 60


def test_confirm_your_identity_asks_for_details_and_says_no_yes(support):
    """"Could you please confirm your identity?" proposes nothing: a yes to it ("Okay, yes, go ahead")
    is no answer, and a yes is what the agent then acts on."""
    t = support.tasks[TASK]
    for verbosity in ("chatty", "normal", "terse"):
        for seed in range(6):
            said = _episode(support, t, P(verbosity=verbosity), seed, ["Hi! To get started, could you please confirm your identity?"])[1]
            assert not re.search(r"\b(go ahead|please do|do it)\b", said, re.I), (verbosity, said)


def test_an_offer_of_more_follows_an_answer_never_a_bare_yes(support):
    """"Is that what you need from me?" or "Let me know if you need more" after "Yes, go ahead." is a
    template speaking: the lines that fit an answer wrap only what answers a question (facts, checks)."""
    coop = support.situations["cooperative"]
    offers = [x for x in coop.scripted.suffix if coop.scripted.fits.get(x) and coop.scripted.fits[x].answering]
    # and the calm customer offers no more help at all: "Hope that helps." is the agent's line
    assert not any(re.search(r"\b(hope that helps|if you need|anything else you)\b", x, re.I) for x in coop.scripted.suffix)
    t = support.tasks[TASK]
    for seed in range(30):
        u = ScriptedUser()
        p = P(verbosity="normal")
        turn = lambda msg: UserTurn(task=t, persona=p, situation=coop, situation_id=coop.id, agent_message=msg, events=[],
                                    turn=1, rng=random.Random(seed), call_tool=lambda n, a: "", words=support.words,
                                    topics=support.topics, replies=support.replies, goal_changes=True, seed=seed)
        asyncio.run(u.reply(turn(None)))
        yes = asyncio.run(u.reply(turn("Shall I cancel order O-91201 for you?"))).content
        starts = [re.escape(x.split("{")[0]) for x in offers if x.split("{")[0]]
        assert not any(re.search(s, yes) for s in starts if len(s) > 3), yes
        assert not re.search(r"\b(anything else you|if you need|what you (need|wanted|were))\b", yes, re.I), yes


def test_no_angry_line_right_after_the_agent_did_what_was_agreed(support):
    """"I'm livid!" after the refund was issued: a cold mood's lines do not fit the turn right after the
    agent carried out what the customer said yes to (the turn is labelled as not played)."""
    from envs.records import AgentEvent, ToolCall, ToolEvent, UserEvent

    furious = support.situations["furious"]
    t = support.tasks["hard_three_requests_01"]
    p = P(verbosity="normal")
    for seed in range(20):
        u = ScriptedUser()
        events: list = []

        def turn(msg):
            return UserTurn(task=t, persona=p, situation=furious, situation_id=furious.id, agent_message=msg,
                            events=list(events), turn=1, rng=random.Random(seed), call_tool=lambda n, a: "",
                            words=support.words, topics=support.topics, replies=support.replies, goal_changes=True, seed=seed)

        for msg in (None, "Shall I cancel order O-72011?"):
            r = asyncio.run(u.reply(turn(msg)))
            events += [AgentEvent(turn=1, content=msg)] if msg else []
            events.append(UserEvent(turn=1, content=r.content))
        events.append(ToolEvent(turn=2, side="agent", call=ToolCall(id="c", name="cancel_order", arguments={"order_id": "O-72011"}), output="{}"))
        events.append(AgentEvent(turn=2, content="Order O-72011 is now cancelled. Is there anything else I can help you with?"))
        after = asyncio.run(u.reply(turn("Order O-72011 is now cancelled. Is there anything else I can help you with?")))
        lines = [realise(x, k) for x in [*furious.scripted.prefix, *furious.scripted.suffix] for k in range(40)]
        assert not any(x and x in after.content for x in lines), after.content
        assert after.relabel  # the furious situation was not played on that turn


@pytest.mark.parametrize("msg", ["Can you please verify the account holder details?", "I'll need your security details first.",
                                 "Could you verify that you own the account?"])
def test_a_general_request_in_other_words_is_not_met_with_i_dont_know(support, msg):
    """Asked for "the account holder details" with none named, a customer offers them or asks which
    (the persona decides), never "I have no idea"."""
    t = support.tasks[TASK]
    email = next(h.fact.split()[-1].rstrip(".") for h in t.scenario.hidden_facts if h.id == "email")
    for verbosity, offers in (("chatty", True), ("normal", False)):
        said = _episode(support, t, P(verbosity=verbosity), 1, [msg])[1]
        assert (email in said) is offers, (verbosity, said)
        if not offers:
            assert said.endswith("?"), said


def test_no_thanks_in_answer_to_a_refusal():
    """"Then I want a manager to look at it. Cheers." answers a refusal with thanks: warm lines do not
    fit a turn that answers one."""
    fit = LineFit(warm=True)
    assert fits("Cheers.", fit, Point(opening=False, answering=False, cold=False))
    assert not fits("Cheers.", fit, Point(opening=False, answering=False, cold=False, refused=True))


def test_a_choice_told_in_answer_to_a_proposal_counts_as_agreeing(support):
    """"Yes please, to my Amex." answers "Shall I refund ...?" with the customer's choice: once the agent
    acts on it, the next turn carries no angry line either (it did with only a bare yes counted)."""
    from envs.records import AgentEvent, ToolCall, ToolEvent, UserEvent

    t = next(t for t in support.tasks.values() if any(h.topic == "store_credit" for h in t.scenario.hidden_facts)
             and t.scenario.more_requests)
    furious = support.situations["furious"]
    proposal = "Shall I refund it to your original payment method, or would you prefer store credit?"
    for seed in range(12):
        u = ScriptedUser()
        events: list = []

        def turn(msg):
            return UserTurn(task=t, persona=P(verbosity="normal"), situation=furious, situation_id=furious.id, agent_message=msg,
                            events=list(events), turn=1, rng=random.Random(seed), call_tool=lambda n, a: "",
                            words=support.words, topics=support.topics, replies=support.replies, goal_changes=True, seed=seed)

        for msg in (None, proposal):
            r = asyncio.run(u.reply(turn(msg)))
            events += ([AgentEvent(turn=1, content=msg)] if msg else []) + [UserEvent(turn=1, content=r.content)]
        assert u.agreed, r.content
        events.append(ToolEvent(turn=2, side="agent", call=ToolCall(id="c", name="refund_items", arguments={}), output="{}"))
        after = asyncio.run(u.reply(turn("Done, I've issued the refund. Is there anything else I can help you with?")))
        assert after.relabel, after.content


@pytest.mark.parametrize("question", [
    "How many of the 3 pens were broken?",
    "How many of the pens arrived broken?",
])
def test_a_customer_asked_how_many_units_broke_says_it(support, question):
    """A blind agent asked how many of a line of three were broken (the policy asks it when unsaid) and
    got "No idea, sorry.", then the customer left: a person knows how many of its own pens arrived broken."""
    t = support.tasks["hard_refund_quote_06"]
    u = ScriptedUser()
    p = P(verbosity="normal")
    say(u, support, t, p, None)
    r = say(u, support, t, p, question).content
    assert "all three" in r.lower(), r


# --- one person: mood where something happened, one register, small talk where it fits ---------------


def _turns(support, task, persona, situation, msgs, seed=0, events_for=None):
    """The customer's messages answering ``msgs`` in one episode, every turn played in ``situation``."""
    u = ScriptedUser()
    out = []
    for msg in [None, *msgs]:
        turn = UserTurn(task=task, persona=persona, situation=situation, situation_id=situation.id if situation else None,
                        agent_message=msg, events=list(events_for(msg) if events_for else []), turn=1,
                        rng=random.Random(seed), call_tool=lambda n, a: "", words=support.words, topics=support.topics,
                        replies=support.replies, goal_changes=True, seed=seed)
        out.append(asyncio.run(u.reply(turn)))
    return out


def _line_res(lines):
    """Each line as a regular expression matching any of its realisations."""
    def rx(line):
        out, i = "", 0
        for m in re.finditer(r"\{([^{}]*)\}", line):
            out += re.escape(line[i:m.start()]) + "(?:" + "|".join(re.escape(x) for x in m.group(1).split("|")) + ")"
            i = m.end()
        return re.compile(out + re.escape(line[i:]))
    return [rx(x) for x in [*lines.prefix, *lines.suffix] if x]


@pytest.mark.parametrize("mood", ["furious", "impatient"])
def test_a_plain_answer_carries_no_mood_line_and_a_refusal_gets_one(support, mood):
    """"Disgraceful!" right after an email address: a cold mood's lines are said where they react to
    something (the complaint, a refusal), one a message; a plain answer or a yes carries the mood in
    its own words, and the turn still counts as played (the situation has a voice)."""
    t = support.tasks[TASK]
    sit = support.situations[mood]
    res = _line_res(sit.scripted)
    count = lambda text: sum(bool(r.search(text)) for r in res)  # noqa: E731
    for seed in range(25):
        opening, answer, yes = _turns(support, t, P(verbosity="normal"), sit, [
            "To verify your identity, could you give me the email on your account and your zip code?",
            "Shall I cancel order O-91201 for you?"], seed)
        assert count(opening.content) <= 1, opening.content
        assert count(answer.content) == 0 and not answer.relabel, answer.content
        assert count(yes.content) == 0 and not yes.relabel, yes.content
    reacted = [_turns(support, t, P(verbosity="normal"), sit, ["I'm afraid I can't cancel that order."], seed)[1].content
               for seed in range(25)]
    assert all(count(x) <= 1 for x in reacted) and sum(count(x) for x in reacted) >= 10, reacted


def test_facts_are_told_in_the_order_they_were_asked(support):
    """Asked "your zip code and the email?", a person gives the zip first, not the form's order."""
    t = support.tasks[TASK]
    email = next(h.fact.split()[-1].rstrip(".") for h in t.scenario.hidden_facts if h.id == "email")
    zip_ = next(h.fact.split()[-1].rstrip(".") for h in t.scenario.hidden_facts if h.id == "zip")
    for seed in range(10):
        for msg, first in (("What's your zip code, and the email on the account?", zip_),
                           ("Could I have the email on the account and your zip code?", email)):
            said = _episode(support, t, P(verbosity="normal"), seed, [msg])[1]
            assert said.index(first) == min(said.index(email), said.index(zip_)), (msg, said)


def test_small_talk_is_the_personas_own_and_comes_once_at_the_opening_or_a_pause(support):
    """"Do you like gardening?" after an email address fits nothing: small talk is said at the opening
    or when the customer comes back from a check, in the persona's own life, once a conversation."""
    t = support.tasks[TASK]
    off = support.situations["off_topic"]
    res = _line_res(off.scripted)
    played = 0
    for seed in range(40):
        msgs = _turns(support, t, P(verbosity="normal", age_group="senior"), off, [
            "To verify your identity, could you give me the email on your account and your zip code?",
            "Shall I cancel order O-91201 for you?"], seed)
        talk = [sum(bool(r.search(m.content)) for r in res) for m in msgs]
        assert sum(talk) <= 1 and talk[1:] == [0, 0], [m.content for m in msgs]
        assert all(m.relabel for m in msgs[1:])  # nothing to drift at: not played there
        played += talk[0]
        assert not re.search(r"lectures|between classes|on the bus|pizza", msgs[0].content)  # a student's, not a senior's
    assert played >= 5


def test_thinking_it_over_only_where_there_is_something_to_decide(support):
    """"Hmm, let me think. Email's x." is a person unsure of its own email: the lines of weighing up
    fit a proposal or a choice, not an answer to a question about a fact."""
    t = support.tasks[TASK]
    sit = support.situations["changes_mind"]
    think = [r for x, r in zip([x for x in [*sit.scripted.prefix, *sit.scripted.suffix] if x], _line_res(sit.scripted))
             if sit.scripted.fits.get(x) and sit.scripted.fits[x].deciding]
    assert think
    for seed in range(25):
        answer = _turns(support, t, P(verbosity="normal"), sit,
                        ["To verify your identity, could you give me the email on your account and your zip code?"], seed)[1]
        assert not any(r.search(answer.content) for r in think), answer.content


def test_a_hurried_persona_is_not_also_effusive(support):
    """"Look, many thanks for picking this up." then "Can you just crack on then.": no warm line from a
    hurried or hostile persona, whatever the turn's situation."""
    assert support.replies.is_cold({"temperament": "impatient"}) and support.replies.is_cold({"temperament": "hostile"})


def test_checks_are_told_as_a_person_tells_them_in_the_order_asked(support):
    """"I've checked at the door: No parcel at the front door or in the mailbox." reads out a form: the
    report says what was done and found in its own words, doorstep then neighbours as asked, and the
    careful agent still reads a found parcel as found and an empty doorstep as not."""
    from domains.support.agents.reading import found_parcel

    t = support.tasks["sup_neighbour_has_it"]
    calls = {"check_doorstep": "No parcel at the front door or in the mailbox.",
             "ask_neighbour": "My neighbour (Rosa at no. 14) had the parcel and handed it over. Everything inside looks fine."}
    for seed in range(20):
        u = ScriptedUser()
        made = []

        def turn(msg):
            def call(name, args):
                made.append(name)
                return calls[name]
            return UserTurn(task=t, persona=P(verbosity="normal"), situation=None, situation_id=None, agent_message=msg,
                            events=[], turn=1, rng=random.Random(seed), call_tool=call, words=support.words,
                            topics=support.topics, replies=support.replies, goal_changes=False, seed=seed)

        asyncio.run(u.reply(turn(None)))
        said = asyncio.run(u.reply(turn("The tracking notes it was left with a neighbour. Could you check your doorstep "
                                        "and mailbox, and ask your neighbours whether they took it in?"))).content
        assert made == ["check_doorstep", "ask_neighbour"], made
        assert not re.search(r":\s+[A-Z]", said) and "No parcel at the front door or in the mailbox" not in said, said
        assert "Rosa" in said and "14" in said and found_parcel(said), said
        assert said.index("Rosa") > max(said.lower().find(w) for w in ("door", "doorstep", "outside")), said
        assert not found_parcel(support.replies.report("check_doorstep", calls["check_doorstep"], {}, seed))
        assert not found_parcel(support.replies.report("ask_neighbour", "None of the neighbours has seen it.", {}, seed))


# --- fairness: a request still to raise, a count of units, what was asked and no more --------------------

THREE = "hard_three_requests_01"  # opens with the first of three requests; two more to raise


@pytest.mark.parametrize("question", [
    # a question for a further request, in words a person at a help desk might use
    "What else?", "Is there something more?", "Anything further?", "Right, what's left on your list?",
    "Was there a second matter?", "Is that it, or is there more?", "Go on, what's the other one?",
    "ok whats next", "Shall we move on to your other query?", "Do you have another issue for me?",
])
def test_any_question_for_more_raises_the_next_open_request(support, question):
    """Asked for its next request in any words, a customer with one still open raises it (never
    "I don't know, I'm afraid."); each question raises the next, in order."""
    t = support.tasks[THREE]
    u = ScriptedUser()
    p = P(verbosity="normal")
    say(u, support, t, p, None)
    first = say(u, support, t, p, f"That order is cancelled now. {question}").content
    assert t.scenario.more_requests[0] in first, first
    second = say(u, support, t, p, f"Refund issued. {question}").content
    assert t.scenario.more_requests[1] in second, second


@pytest.mark.parametrize("question", ["What else was in the box?", "Was anything else damaged?",
                                      "Did something else go wrong with the delivery?"])
def test_a_question_about_the_order_with_else_in_it_raises_nothing(support, question):
    """"What else was in the box?" asks about the order, not for a further request."""
    t = support.tasks[THREE]
    u = ScriptedUser()
    say(u, support, t, P(verbosity="normal"), None)
    r = say(u, support, t, P(verbosity="normal"), question).content
    assert not any(x in r for x in t.scenario.more_requests), r


def test_with_no_request_left_a_question_for_more_gets_nothing_else(support):
    """Once every request is raised and the goal is met, "what else?" gets a goodbye."""
    t = support.tasks[THREE]
    u = ScriptedUser()
    p = P(verbosity="normal")
    say(u, support, t, p, None)
    say(u, support, t, p, "Cancelled. What else?")
    say(u, support, t, p, "Refunded. Anything more?")
    r = say(u, support, t, p, "The address is changed. Is there something more?", goal_met=True)
    assert r.stop and not any(x in r.content for x in t.scenario.more_requests), r.content


@pytest.mark.parametrize("task,count", [("hard_refund_quote_02", "three"), ("hard_partial_units_01", "two")])
@pytest.mark.parametrize("question", [
    "Were all of them damaged, or just some?", "Is it every unit or only a couple?", "Were they all broken?",
    "Did every one of them break, or only part of the set?", "Was it just some of them?", "How many units are affected?",
    "Roughly what quantity arrived damaged?", "Were both items damaged or just one?", "How many of those came broken?",
])
def test_a_units_question_in_other_words_gets_the_count(support, task, count, question):
    """A line of several units: asked how many of them are damaged, in any words, the customer says
    its count (the scenario's), not "No idea, sorry."."""
    t = support.tasks[task]
    u = ScriptedUser()
    say(u, support, t, P(verbosity="normal"), None)
    r = say(u, support, t, P(verbosity="normal"), question).content
    assert count in r.lower(), r


@pytest.mark.parametrize("message", ["Did the whole order not arrive, or just one item?", "Is it all of your orders or just one?",
                                     "Was everything missing or only part of it?"])
def test_the_whole_order_or_part_of_it_is_not_a_count_of_units(support, message):
    assert "units" not in support.topics.read(message).topics, message


IDS = {"email", "zip", "name"}


def _identity_told(t, text):
    from envs.actors.replies import fact_value
    vals = {h.topic: fact_value(h.fact) for h in t.scenario.hidden_facts if h.topic in IDS}
    return {k for k, v in vals.items() if v and v.lower() in text.lower()}


@pytest.mark.parametrize("message,topic", [
    ("Could you verify who you are? Your postcode will do.", "zip"),
    ("To confirm it's you, the email you signed up with is enough.", "email"),
    ("Just the zip would do for the security check.", "zip"),
    ("For verification, your full name will do.", "name"),
])
@pytest.mark.parametrize("verbosity", ["terse", "normal", "chatty"])
def test_a_detail_named_as_enough_is_given_alone(support, message, topic, verbosity):
    """"Your postcode will do." asks for the postcode: the customer gives that one (not every identity
    fact it holds, and not its next request)."""
    t = support.tasks["hard_partial_units_01"]
    u = ScriptedUser()
    say(u, support, t, P(verbosity=verbosity), None)
    r = say(u, support, t, P(verbosity=verbosity), message).content
    assert _identity_told(t, r) == {topic}, r
    assert not any(x in r for x in t.scenario.more_requests), r


@pytest.mark.parametrize("verbosity", ["terse", "normal", "chatty"])
def test_asked_for_one_detail_it_never_gives_every_one(support, verbosity):
    """Asked for one identity detail, a customer gives it; a forthcoming one adds at most one more, in
    some episodes only; no customer gives all three."""
    t = support.tasks["hard_partial_units_01"]
    added = 0
    for seed in range(24):
        for ask, topic in (("Which e-mail is the account under?", "email"), ("What's your postcode, please?", "zip"),
                           ("And whose name is the account in?", "name")):
            u = ScriptedUser()
            p = P(verbosity=verbosity)
            turn0 = say_seeded(u, support, t, p, None, seed)
            told = _identity_told(t, say_seeded(u, support, t, p, ask, seed).content)
            assert topic in told and len(told) <= 2, (seed, ask, told)
            added += len(told) == 2
    if verbosity == "chatty":
        assert 0 < added < 24 * 3  # sometimes one more, not always
    else:
        assert added == 0


def say_seeded(u, d, task, persona, msg, seed):
    turn = UserTurn(task=task, persona=persona, situation=None, situation_id=None, agent_message=msg, events=[], turn=1,
                    rng=random.Random(seed), call_tool=lambda n, a: "", words=d.words, topics=d.topics, replies=d.replies,
                    goal_changes=True, seed=seed)
    return asyncio.run(u.reply(turn))


@pytest.mark.parametrize("question", ["Which order is this about?", "Can you give me the order number?",
                                      "What's the order ID, please?"])
def test_asked_for_the_order_it_named_it_says_it(support, question):
    """A customer whose request named its order is asked which order: it says it (not "No idea")."""
    t = support.tasks["hard_partial_units_01"]
    u = ScriptedUser()
    say(u, support, t, P(verbosity="normal"), None)
    r = say(u, support, t, P(verbosity="normal"), question).content
    assert "O-89011" in r, r


def test_a_request_is_put_in_each_episodes_words_keeping_what_it_asks(support):
    """A family's request line said the same way in every repeat of a task, and in three tasks of the
    family, is a template: each episode puts it its own way, with the order id and what is asked kept."""
    import re as _re

    tasks = [t for t in support.tasks.values() if any("too late to cancel" in m for m in t.scenario.more_requests or [])]
    assert len(tasks) >= 3
    for t in tasks[:4]:
        i = next(k for k, m in enumerate(t.scenario.more_requests) if "too late to cancel" in m)
        oid = _re.search(r"O-\d{5}", t.scenario.more_requests[i]).group(0)
        said = set()
        for seed in range(12):
            u = ScriptedUser()
            u.raised = i + 1
            u._task, u._seed = t.id, seed
            text = u._request(t.scenario, i + 1, support.replies, {"temperament": "calm", "verbosity": "normal"})
            assert oid in text and "cancel" in text.lower(), text
            said.add(text)
        assert len(said) >= 4, said


@pytest.mark.parametrize("dims", [{"temperament": "hostile"}, {"temperament": "impatient"}, {"verbosity": "terse"}, {"age_group": "senior"},
                                  {"verbosity": "chatty"}, {}])
def test_request_wordings_keep_every_id_amount_and_store_credit(support, dims):
    """Every rewording, for every persona, keeps the ids, amounts and "store credit" of what it rewords."""
    import re as _re

    facts = _re.compile(r"O-\d{5}|\$[\d,]+\.\d\d|store credit|\b\d{5}\b", _re.I)
    for t in support.tasks.values():
        sc = t.scenario
        for text in [sc.request, *(sc.more_requests or []), *(h.fact for h in sc.hidden_facts)]:
            for seed in range(3):
                out = support.replies.rephrase(text, {"temperament": "calm", **dims}, seed)
                assert sorted(x.lower() for x in facts.findall(out)) == sorted(x.lower() for x in facts.findall(text)), (text, out)
                # a yes stays a yes (a remedy chosen in answer to a proposal is the customer's consent)
                yes = _re.compile(r"^(?:yes|yeah|yep|okay, yes)\b", _re.I)
                assert bool(yes.match(out)) == bool(yes.match(text)), (text, out)


# --- one person throughout (the fourth blind round's classes) ------------------------------------------

COURTESY = re.compile(r"\b(?:please|thanks|thank you|if that's possible|sorry|I'm afraid|I'd like)\b", re.I)


def _episode_in(support, task, persona, situations, msgs, seed, events_for=None, call_tool=None, goal_changes=True):
    """The customer's replies in one episode, turn i played in ``situations[i]`` (a situation id or None)."""
    u = ScriptedUser()
    out = []
    for msg, sid in zip([None, *msgs], situations):
        sit = support.situations[sid] if sid else None
        turn = UserTurn(task=task, persona=persona, situation=sit, situation_id=sid, agent_message=msg,
                        events=list(events_for(msg) if events_for else []), turn=1, rng=random.Random(seed),
                        call_tool=call_tool or (lambda n, a: ""), words=support.words, topics=support.topics,
                        replies=support.replies, goal_changes=goal_changes, seed=seed)
        out.append(asyncio.run(u.reply(turn)))
    return out


@pytest.mark.parametrize("mood", ["furious", "impatient"])
def test_a_mood_shown_carries_on_in_the_later_answers(support, mood):
    """"Never again!" then "Yes, please go ahead, that sounds right." is an outburst and then a form: once
    a calm customer's turn was played angry or hurried, its later answers, whatever their turn's
    situation, are in that mood's own words (its yes, its facts), with no courtesy of a calm one."""
    t = support.tasks[TASK]
    voice = support.situations[mood].scripted.voice
    # (a yes to a cancellation may name it: "Yeah, cancel it.", the mood's own words for that proposal)
    yes_pool = [_line_res(ScriptedLines(prefix=[*support.replies.variants("accept", {**P(verbosity="chatty").dimensions, **voice}),
                                                *support.replies.variants("accept", {**P(verbosity="chatty").dimensions, **voice, "act": "cancel"})]))]
    for seed in range(30):
        opening, answer, yes = _episode_in(support, t, P(verbosity="chatty"), [mood, "cooperative", "cooperative"], [
            "To verify your identity, could you give me the email on your account and your zip code?",
            "Shall I cancel order O-91201 for you?"], seed)
        for m in (answer, yes):
            # a hurried "Do it quickly, please." is pushy, not a calm customer's courtesy
            courtesy = COURTESY.search(m.content.replace("please", "") if mood == "impatient" else m.content)
            assert not courtesy, (opening.content, m.content)
        assert any(r.fullmatch(yes.content) for r in yes_pool[0]), (opening.content, yes.content)


@pytest.mark.parametrize("temperament", ["hostile", "impatient"])
def test_an_angry_or_hurried_customer_puts_its_requests_without_a_calm_ones_courtesy(support, temperament):
    """"I'd like to cancel order O-85032, if that's possible." from a customer who just threatened a
    review: every request and fact the tasks write out, in an angry or hurried customer's words, drops
    the courtesies the task's words put there for a calm one (and keeps what is asked: tested above)."""
    courtesy = re.compile(r"if (?:that's|it's) possible|\bI'd like\b" + (r"|, please(?=[.!?,]|$)|^Sorry\b|^Yes please\b" if temperament == "hostile" else ""), re.I)
    seen = 0
    for t in support.tasks.values():
        sc = t.scenario
        for text in [sc.request, *(sc.more_requests or []), *(h.fact for h in sc.hidden_facts)]:
            seen += bool(courtesy.search(text))
            for seed in range(3):
                out = support.replies.rephrase(text, {"temperament": temperament, "verbosity": "normal"}, seed)
                assert not courtesy.search(out), (text, out)
    assert seen >= 20  # the tasks do write such courtesies


@pytest.mark.parametrize("dims,semicolons", [
    ({"temperament": "hostile", "age_group": "young"}, False), ({"temperament": "impatient", "age_group": "middle"}, False),
    ({"temperament": "calm", "age_group": "young"}, False), ({"temperament": "calm", "age_group": "senior"}, True)])
def test_one_typing_style_a_persona_keeps_in_every_message(support, dims, semicolons):
    """"...was not in the box of order O-90201; the rest came." from someone who just threatened a review:
    only a calm, formal customer types a semicolon; a casual or angry one runs its clauses on, in every
    message, whoever wrote the words (the task's request, its facts, a pool's line)."""
    persona = Persona(id="x", dimensions={"verbosity": "normal", **dims})
    with_semicolon = [t for t in support.tasks.values() if ";" in t.scenario.request]
    assert len(with_semicolon) >= 10
    typed = 0
    for t in with_semicolon:
        for seed in range(3):
            opening = _episode_in(support, t, persona, [None], [], seed)[0].content
            assert semicolons or ";" not in opening, opening
            typed += ";" in opening
    assert (typed > 0) is semicolons


def test_pushing_back_on_a_no_waits_for_one(support):
    """"You'd do it for anyone else." before anything was refused is anger from nowhere: the lines that
    push back on a no are said only once the agent has refused something; the demand's own claims
    ("I know my rights.") may open it."""
    sit = support.situations["outside_policy_refund"].scripted
    pushing = [x for x in sit.suffix if x and sit.fits.get(x) and sit.fits[x].after_refusal]
    assert any("anyone else" in x for x in pushing) and len(pushing) >= 8
    res = _line_res(ScriptedLines(prefix=pushing))
    t = support.tasks[TASK]
    before, after = 0, 0
    for seed in range(40):
        msgs = _episode_in(support, t, P(verbosity="normal"), ["outside_policy_refund"] * 4, [
            "Let me look into that for you, one moment.",
            "To verify your identity, could you give me the email on your account and your zip code?",
            "I'm afraid I can't do that, it's outside our policy."], seed)
        before += sum(bool(r.search(m.content)) for m in msgs[:3] for r in res)
        after += sum(bool(r.search(msgs[3].content)) for r in res)
        assert not msgs[0].relabel, msgs[0].content  # the opening still plays the demand
    assert before == 0 and after >= 8, (before, after)


def test_no_offer_of_more_or_question_whether_it_helped_after_an_answer(support):
    """"Does that help?", "Is that what you were after from me?" after an email address are the agent's
    words: a customer unsure of itself says its doubt, it does not ask whether the agent got enough."""
    offer = re.compile(r"\b(?:does that help|is (?:that|this) (?:what you|enough|okay|the right)|anything else you|more to go on|"
                       r"from my end|on my side)\b", re.I)
    t = support.tasks[TASK]
    for seed in range(40):
        for dims in (P(verbosity="normal"), P(verbosity="chatty", age_group="senior"), P(temperament="hostile", verbosity="normal")):
            msgs = _episode_in(support, t, dims, [None, "confused", "confused"], [
                "To verify your identity, could you give me the email on your account and your zip code?",
                "Which would you prefer, a refund or a replacement?"], seed)
            assert not any(offer.search(m.content) for m in msgs), [m.content for m in msgs]


@pytest.mark.parametrize("age_group", ["senior", "young", "middle"])
def test_a_goodbye_after_nothing_was_done_praises_no_help(support, age_group):
    """"You've been ever so helpful today" after the customer said no and nothing changed: with nothing
    done for it in the episode, the goodbye thanks for no help and says nothing was sorted."""
    praise = re.compile(r"\b(?:helpful|kind|patient|for sorting|sorted|for the help|for your help|so much|kindly|ever so|a lot)\b", re.I)
    t = support.tasks[TASK]
    for seed in range(30):
        bye = _episode_in(support, t, P(verbosity="normal", age_group=age_group), [None, None], [
            "Understood, I've left everything as it is. Is there anything else I can help you with?"], seed, goal_changes=False)[1]
        assert bye.stop and not praise.search(bye.content), bye.content


def test_a_find_after_an_empty_doorstep_is_told_as_what_happened_next(support):
    """"No parcel ... Rosa at number 14 had taken it in." contradicts itself: a neighbour's find after an
    empty doorstep, told in one message, goes on from it (but, so, then), and what happened while it went
    to look comes before what it found, not as an aside after it."""
    from domains.support.agents.reading import found_parcel

    t = support.tasks["sup_neighbour_has_it"]
    calls = {"check_doorstep": "No parcel at the front door or in the mailbox.",
             "ask_neighbour": "My neighbour (Rosa at no. 14) had the parcel and handed it over. Everything inside looks fine."}
    talk = _line_res(support.situations["off_topic"].scripted)
    asides = 0
    for seed in range(40):
        said = _episode_in(support, t, P(verbosity="normal"), [None, "off_topic"], [
            "The tracking notes it was left with a neighbour. Could you check your doorstep and mailbox, and ask "
            "your neighbours whether they took it in?"], seed, call_tool=lambda n, a: calls[n])[1].content
        sents = re.split(r"(?<=[.!?])\s+", said)
        at = next(i for i, s in enumerate(sents) if "Rosa" in s)
        # it goes on from the doorstep (but, so, then), in the find's sentence or the going round before it
        assert any(re.match(r"(?:But|So|Then)\b", s) for s in sents[max(0, at - 1):at + 1]), said
        assert found_parcel(said), said
        hit = [r.search(said) for r in talk]
        hit = [m for m in hit if m]
        if hit:
            asides += 1
            report = min(i for i in (said.lower().find(w) for w in ("door", "outside", "mailbox", "parcel")) if i >= 0)
            assert min(m.start() for m in hit) < report, said
    assert asides >= 5
