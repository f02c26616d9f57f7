"""The scripted support customer plays its task whoever the agent is.

Hand-written agent messages ask for each hidden fact in three ways (none copies the
scripted agents' wording); the offline main run (careful, eager, 8 repeats) never repeats
a user message, never speaks a tool error and ends by the user or a handoff; the
paraphrasing agent scores what the careful agent scores; tasks with a bad topic or user
tool call fail at load with file and field.
"""

from __future__ import annotations

import asyncio
import collections
from pathlib import Path

import pytest

from envs.actors.protocols import UserTurn
from envs.actors.scripted_user import ScriptedUser
from envs.domain import get_domain
from envs.episode.loop import run_episode
from envs.episode.step import episode_seed
from envs.errors import SpecError
from envs.spec.schema import Scenario, Task
from paraphrasing import ParaphrasingAgent

import random

# topic -> three ways a person might ask (and one message that mentions it without asking)
ASKS = {
    "email": ["Which e-mail did you sign up with?", "Can I have the address you log in with?",
              "Please send me your e-mail so I can pull up the account."],
    "zip": ["What's your postcode?", "And the postal code?", "Could you also give me your zip?"],
    "name": ["Who is the account holder?", "What name is the account under?", "Could you tell me your first and last name?"],
    "order_number": ["Which order is this about?", "Do you have the order ID?", "Could you re-check the number of the order?"],
    "new_address": ["Where should we send it now?", "What's the new address?", "Where would you like it delivered instead?"],
    "missing_scope": ["Did nothing arrive at all, or only part of it?", "What exactly is missing?", "Is it still missing?"],
    "units": ["How many of them arrived broken?", "Was it all of the glasses or only some of them?",
              "Could you tell me the number of pieces that were damaged?"],
    "remedy": ["Would you rather have your money back or a new one?", "How would you like this resolved?",
               "Do you prefer store credit?"],
    # a refund offered (a fact the customer says once the agent speaks of one: "then I'll take the refund")
    "refund": ["Would a refund work for you instead?", "I can refund those units instead - is that okay?",
               "Shall I give you your money back for them?"],
    # the refund's destination (a task's own asked_by words catch "original payment", "which card")
    "store_credit": ["Would you like it back on your card, or as store credit?", "Do you want it as a voucher instead?",
                     "Where would you like the refund to go: your card or store credit?"],
}
NOT_ASKING = {
    "email": "Thanks, I've noted the e-mail on file.",
    "zip": "The postcode matches our records.",
    "missing_scope": "I'm sorry some of it went missing.",
}
TOOL_ASKS = {
    "doorstep": ["Could you look around your porch?", "Please check your letterbox and by the front door.",
                 "Can you have a look outside your house?"],
    "neighbour": ["Might someone next door have taken it in?", "Could you ask your neighbors?",
                  "Please check with the people nearby."],
}


@pytest.fixture(scope="module")
def support():
    return get_domain("support")


def _turn(domain, task, msg, calls=None):
    def call_checked(name, args):
        (calls if calls is not None else []).append((name, args))
        return True, f"RESULT for {args.get('order_id')}"

    return UserTurn(task=task, persona=None, situation=None, situation_id=None, agent_message=msg, events=[], turn=1,
                    rng=random.Random(0), call_tool=lambda n, a: "", words=domain.words, topics=domain.topics,
                    replies=domain.replies, call_tool_checked=call_checked)


def _say(user, domain, task, msg, calls=None):
    return asyncio.run(user.reply(_turn(domain, task, msg, calls)))


def test_every_fact_topic_of_the_support_tasks_is_asked_three_ways(support):
    # (a fact with no topic is raised by its own asked_by words only)
    used = {h.topic for t in support.tasks.values() for h in t.scenario.hidden_facts if h.topic}
    assert used <= set(ASKS), f"write askings for {used - set(ASKS)}"
    for topic in used:
        task = Task(id="t", domain="support", scenario=Scenario(
            goal="g", request="Something is wrong with O-12345.",
            hidden_facts=[{"id": "f", "fact": "THE-FACT.", "topic": topic}]))
        for ask in ASKS[topic]:
            u = ScriptedUser()
            _say(u, support, task, None)
            assert "THE-FACT." in _say(u, support, task, ask).content, (topic, ask)
        if topic in NOT_ASKING:
            u = ScriptedUser()
            _say(u, support, task, None)
            assert "THE-FACT." not in _say(u, support, task, NOT_ASKING[topic]).content, topic


def test_user_tools_take_the_order_from_the_episode_and_answer_any_wording(support):
    for topic, asks in TOOL_ASKS.items():
        tool = "check_doorstep" if topic == "doorstep" else "ask_neighbour"
        task = Task(id="t", domain="support", scenario=Scenario(
            goal="g", request="My parcel never came.", hidden_facts=[{"id": "o", "fact": "It's O-55555.", "topic": "order_number"}],
            user_tools=[{"tool": tool, "topic": topic, "say": "I looked: {result}"}]))
        support.validate_task(task, "inline")
        for ask in asks:
            calls = []
            u = ScriptedUser()
            _say(u, support, task, None)
            r = _say(u, support, task, ask, calls)
            assert calls == [(tool, {"order_id": "O-55555"})] and "RESULT for O-55555" in r.content, ask


def test_a_failed_user_tool_call_is_never_spoken(support):
    task = Task(id="t", domain="support", scenario=Scenario(
        goal="g", request="Order O-55555 never came.", user_tools=[{"tool": "check_doorstep", "topic": "doorstep"}]))
    support.validate_task(task, "inline")
    u = ScriptedUser()
    _say(u, support, task, None)
    turn = _turn(support, task, "Could you check your porch?")
    turn.call_tool_checked = lambda n, a: (False, "Error: invalid arguments for check_doorstep: order_id: Field required")
    r = asyncio.run(u.reply(turn))
    low = r.content.lower()
    assert "Error" not in r.content and "Field required" not in r.content
    assert any(w in low for w in ("can't", "not able", "not in front", "not right now", "not digging"))  # a cannot_check line


def test_no_fact_gets_i_dont_know_and_the_user_leaves_when_the_goal_is_met(support):
    task = Task(id="t", domain="support", scenario=Scenario(goal="g", request="Cancel O-12345."))
    u = ScriptedUser()
    _say(u, support, task, None)
    r = _say(u, support, task, "What colour was the parcel?")
    assert not r.stop and "Cancel" not in r.content and ("sure" in r.content or "know" in r.content)
    turn = _turn(support, task, "It is cancelled now.")
    turn.goal_met = turn.goal_changes = True
    # told the result without "anything else?": thanks first (no goodbye yet), then leaves
    thanks = asyncio.run(u.reply(turn))
    assert not thanks.stop and thanks.content
    turn = _turn(support, task, "You're welcome.")
    turn.goal_met = turn.goal_changes = True
    assert asyncio.run(u.reply(turn)).stop


def test_bad_topic_or_user_tool_call_fails_at_load_naming_file_and_field(support, tmp_path: Path):
    bad = Task(id="t", domain="support", scenario=Scenario(
        goal="g", request="r", hidden_facts=[{"id": "f", "fact": "x", "topic": "shoe_size"}]))
    with pytest.raises(SpecError, match=r"f\.yaml: scenario\.hidden_facts\.0\.topic: unknown topic 'shoe_size'"):
        support.validate_task(bad, "f.yaml")
    no_order = Task(id="t", domain="support", scenario=Scenario(
        goal="g", request="My parcel never came.", user_tools=[{"tool": "check_doorstep", "topic": "doorstep"}]))
    with pytest.raises(SpecError, match=r"f\.yaml: scenario\.user_tools\.0\.arguments\.order_id: .*no value"):
        support.validate_task(no_order, "f.yaml")
    bad_days = Task(id="t", domain="support", scenario=Scenario(
        goal="g", request="r", user_tools=[{"tool": "check_bank_statement", "arguments": {"email": "a@example.com", "days": 999}}]))
    with pytest.raises(SpecError, match=r"f\.yaml: scenario\.user_tools\.0\.arguments: invalid arguments .*days"):
        support.validate_task(bad_days, "f.yaml")


# -- what a blind human playing the agent ran into (each a class, in words of our own) ------


def _task(**sc):
    return Task(id="t", domain="support", scenario=Scenario(goal="g", request="Something is wrong with O-12345.", **sc))


def test_a_candidate_put_to_the_user_is_answered_with_the_fact_not_a_yes(support):
    task = _task(hidden_facts=[{"id": "o", "fact": "Oh, my mistake: it's O-55555.", "topic": "order_number"}])
    u = ScriptedUser()
    _say(u, support, task, None)
    r = _say(u, support, task, "I can't find O-12345 on your account. The only order with a lamp in it is O-55555. "
                               "Is that the one you're talking about?")
    assert "O-55555." in r.content and "go ahead" not in r.content.lower() and not r.stop


def test_being_asked_to_confirm_facts_gives_the_facts_and_no_go_ahead(support):
    task = _task(hidden_facts=[{"id": "e", "fact": "My email is a@b.c.", "topic": "email"},
                               {"id": "z", "fact": "My zip code is 12345.", "topic": "zip"}], accepts=True)
    u = ScriptedUser()
    _say(u, support, task, None)
    r = _say(u, support, task, "Before anything else, please confirm your identity with the email on the account and your zip.")
    assert "a@b.c" in r.content and "12345" in r.content and "go ahead" not in r.content.lower()


def test_a_read_back_is_a_yes_not_a_restatement_and_a_new_question_is_not_answered_with_old_facts(support):
    task = _task(hidden_facts=[{"id": "z", "fact": "My zip code is 12345.", "topic": "zip"},
                               {"id": "a", "fact": "The new address is 9 Oak Street, Salem, OR 97301.", "topic": "new_address"}],
                 accepts=True)
    u = ScriptedUser()
    _say(u, support, task, None)
    _say(u, support, task, "What is your zip code?")
    r = _say(u, support, task, "Thanks. Where should it go now? Please include the street, city, state and zip.")
    assert "9 Oak Street" in r.content and "12345" not in r.content
    r = _say(u, support, task, "Is it okay if I change the delivery address to 9 Oak Street, Salem, OR 97301?")
    assert "9 Oak Street" not in r.content and r.content.strip()


def test_check_with_them_refers_to_the_neighbour_just_named(support):
    task = _task(user_tools=[{"tool": "ask_neighbour", "topic": "neighbour", "say": "Asked: {result}"},
                             {"tool": "check_doorstep", "topic": "doorstep", "say": "Looked: {result}"}],
                 hidden_facts=[{"id": "o", "fact": "It's O-55555.", "topic": "order_number"}])
    support.validate_task(task, "inline")
    u, calls = ScriptedUser(), []
    _say(u, support, task, None)
    _say(u, support, task, "The driver left it with a neighbour at number 14. Could you check with them, and also "
                           "look at your doorstep?", calls)
    assert {n for n, _ in calls} == {"ask_neighbour", "check_doorstep"}


def test_a_proposal_in_a_written_out_reply_gets_a_yes_and_a_check_in_an_okay(support):
    """LLM replies often arrive with their line breaks written out ("\\n") and the question in
    bold after a read-back; "does that help?" is a check-in, not a question about a fact."""
    task = _task(hidden_facts=[{"id": "a", "fact": "The new address is 9 Oak Street, Salem, OR 97301.", "topic": "new_address"}],
                 accepts=True)
    u = ScriptedUser()
    _say(u, support, task, None)
    _say(u, support, task, "Where should it go now?")
    r = _say(u, support, task, "Here is what I will do: update the shipping address to:\\n**9 Oak Street, Salem, OR 97301**"
                               "\\n**Shall I go ahead with this change?**")
    assert "go ahead" in r.content.lower() and "9 Oak" not in r.content, r.content
    u = ScriptedUser()
    _say(u, support, _task(), None)
    r = _say(u, support, _task(), "The second charge was only a hold and has dropped off. Does that help clear things up?")
    assert "not sure" not in r.content.lower() and "know" not in r.content.lower(), r.content


def test_every_customer_can_take_either_identity_route(support):
    """The policy lets an agent verify by email + zip or by name + zip: every customer can
    give its name (a person always knows it), in any wording of the question."""
    for tid, task in support.tasks.items():
        u = ScriptedUser()
        _say(u, support, task, None)
        r = _say(u, support, task, "Could you tell me your first and last name, please?")
        # the name itself, in whatever words the customer puts it ("It's Ana Ruiz.", "Ana Ruiz, that's me.")
        name = next(h.fact for h in task.scenario.hidden_facts if h.topic == "name").removeprefix("My name is ").rstrip(".")
        assert name in r.content, (tid, r.content)


def test_leaving_after_a_refusal_is_not_a_thank_you_for_something_done(support):
    from envs.spec.personas import all_personas

    hostile = next(p for p in all_personas("support") if (p.dimensions or {}).get("temperament") == "hostile")
    task = _task(done_when=["can't be changed"])
    u = ScriptedUser()
    turn = _turn(support, task, None)
    turn.persona = hostile
    asyncio.run(u.reply(turn))
    turn = _turn(support, task, "I'm sorry, the address can't be changed once the parcel has left. Anything else?")
    turn.persona = hostile
    r = asyncio.run(u.reply(turn))
    assert r.stop and "About time" not in r.content


# -- whole runs -------------------------------------------------------------------------------

REPEATS = 8


def _run(domain, make_agent):
    async def go():
        out = []
        for task in domain.tasks.values():
            for rep in range(REPEATS):
                out.append(await run_episode(domain, task, make_agent(), ScriptedUser(),
                                             seed=episode_seed(0, task.id, rep), repeat=rep))
        return out
    return asyncio.run(go())


def support_lines() -> list:
    return [s.scripted for s in get_domain("support").situations.values() if s.scripted]


def _situation_lines(scripted: list) -> set[str]:
    return {x for sl in scripted for x in [*sl.prefix, *sl.suffix] if len(x) > 12}


def _pass1(records):
    per = collections.defaultdict(list)
    for r in records:
        per[r.task_id].append(r.reward)
    return sum(sum(v) / len(v) for v in per.values()) / len(per)


@pytest.fixture(scope="module")
def runs(support, played_runs):
    agents = support.scripted_agents
    return {
        # the main command's own run (python -m envs.run --domain support --repeats 8), played once a session
        "careful": played_runs.records(played_runs.MAIN),
        "eager": _run(support, agents["eager"]),
        "paraphrased": _run(support, lambda: ParaphrasingAgent(agents["careful"](), "support")),
    }


@pytest.mark.parametrize("agent", ["careful", "eager", "paraphrased"])
def test_main_run_users_do_not_repeat_leak_errors_or_run_out_the_clock(runs, agent):
    recs = runs[agent]
    assert all(r.status == "ok" for r in recs)
    for r in recs:
        said = collections.Counter(e.content for e in r.transcript if e.kind == "user")
        assert max(said.values()) == 1, (r.episode_id, said.most_common(1))
        # nor a situation's line twice ("I am furious right now" three times is a template)
        lines = collections.Counter(x for e in r.transcript if e.kind == "user" for x in _situation_lines(support_lines()) if x in e.content)
        assert not lines or max(lines.values()) == 1, (r.episode_id, lines.most_common(1))
        for text in said:
            assert not any(x in text for x in ("Error:", "invalid arguments", "Field required")), (r.episode_id, text)
    ended = sum(r.termination in ("user_stop", "transfer") for r in recs)
    assert ended >= 0.95 * len(recs), collections.Counter(r.termination for r in recs)


def test_careful_solves_every_task_and_eager_fails_the_ones_built_to_catch_it(runs, support):
    assert _pass1(runs["careful"]) == 1.0
    eager = collections.defaultdict(list)
    for r in runs["eager"]:
        eager[r.task_id].append(r.reward)
    for tid, task in support.tasks.items():
        if "eager" in task.catches:
            assert sum(eager[tid]) < REPEATS, tid


def test_paraphrasing_agent_scores_like_the_careful_agent(runs):
    assert abs(_pass1(runs["paraphrased"]) - _pass1(runs["careful"])) <= 0.03
    goal_met = [r.goal_met_turn for r in runs["paraphrased"] if r.reward == 1.0 and r.goal_met_turn is not None]
    assert goal_met, "the goal-met hook never fired"
