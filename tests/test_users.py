"""The scripted user: hidden facts only when asked, user tools, confirmations, pending guard, stopping."""

from __future__ import annotations

import asyncio
import random

from envs.actors.protocols import UserTurn
from envs.spec.schema import Persona, Scenario, Situation, ScriptedLines, Task
from envs.actors.scripted_user import ScriptedUser
from envs.domain import get_domain
from envs.spec.words import DomainWords


def _task(**sc) -> Task:
    base = dict(goal="g", request="My thing is broken.", known_facts=["It is order A001."])
    base.update(sc)
    return Task(id="t", domain="toy", scenario=Scenario(**base))


def _turn(task, msg, calls=None, situation=None, persona=None, words=None):
    def call_tool(name, args):
        (calls if calls is not None else []).append((name, args))
        return "RESULT"

    return UserTurn(
        task=task, persona=persona, situation=situation, situation_id=situation.id if situation else None,
        agent_message=msg, events=[], turn=1, rng=random.Random(0), call_tool=call_tool,
        **({"words": words} if words is not None else {}),
    )


def say(user, task, msg, **kw):
    return asyncio.run(user.reply(_turn(task, msg, **kw)))


def test_hidden_fact_only_when_asked():
    task = _task(hidden_facts=[{"id": "email", "fact": "It's ana@example.com.", "asked_by": ["email"]}])
    u = ScriptedUser()
    opening = say(u, task, None)
    assert "ana@example.com" not in opening.content and "A001" in opening.content
    assert "ana@example.com" not in say(u, task, "Let me look into it.").content
    assert "ana@example.com" in say(u, task, "What is the email on your account?").content


def test_withholding_situation_keeps_known_facts_back_for_one_turn():
    sit = Situation(id="withholding", description="d", how_to_play="h", scripted=ScriptedLines(withhold=True))
    task = _task()
    u = ScriptedUser()
    assert "A001" not in say(u, task, None, situation=sit).content
    assert "A001" in say(u, task, "Which order is it?").content


def test_user_tool_on_request_and_confirmation_leaves_a_pending_change():
    task = _task(user_tools=[{"tool": "check_doorstep", "when_asked": ["doorstep"], "say": "I looked: {result}"}],
                 done_when=["has been refunded"])
    u = ScriptedUser()
    say(u, task, None)
    calls = []
    r = say(u, task, "Could you check your doorstep?", calls=calls)
    assert calls == [("check_doorstep", {})] and "I looked: RESULT" in r.content
    r = say(u, task, "I can refund the item. Shall I go ahead?")
    assert "Yes" in r.content and not r.stop and u.pending
    # Not done yet: the user waits a turn longer while the agreed change is pending, never
    # saying the same thing twice.
    seen = set()
    for _ in range(2):
        r = say(u, task, "One moment while I process this.")
        assert not r.stop and r.content not in seen
        seen.add(r.content)
    r = say(u, task, "Your order has been refunded.")
    assert r.stop and not u.pending


def test_mind_change_and_refusals():
    task = _task(mind_change={"when_asked": ["cancel"], "say": "Actually, don't cancel it, change the address instead."})
    u = ScriptedUser()
    say(u, task, None)
    assert "change the address" in say(u, task, "Shall I cancel the order?").content
    r1 = say(u, task, "I'm afraid I can't do that.")
    assert not r1.stop
    r2 = say(u, task, "Sorry, I cannot do that either.")
    assert r2.stop


def test_persona_register_shapes_the_opening():
    """The lines come from the domain's words, picked by the persona's dimension values."""
    support = get_domain("support").words
    hostile = Persona(id="x", dimensions={"temperament": "hostile", "verbosity": "chatty"})
    calm = Persona(id="y", dimensions={"temperament": "calm", "age_group": "senior"})
    terse = Persona(id="z", dimensions={"temperament": "impatient", "verbosity": "terse"})
    task = _task(request="Please fix my thing.")
    a = say(ScriptedUser(), task, None, persona=hostile, words=support).content
    b = say(ScriptedUser(), task, None, persona=calm, words=support).content
    c = say(ScriptedUser(), task, None, persona=terse, words=support).content
    def opts(lines, dims):
        return next(ln.say for ln in lines if all(dims.get(k) == v for k, v in ln.when.items()))

    # one of the persona's own greetings, and (chatty) one of its asides, with the request between
    assert any(a.startswith(g) for g in opts(support.scripted.greeting, hostile.dimensions)) and "Please fix my thing." in a
    assert len(a) > len("Seriously? Please fix my thing. It is order A001.")
    assert any(b.startswith(g) for g in opts(support.scripted.greeting, calm.dimensions))
    greet = [g for g in opts(support.scripted.greeting, terse.dimensions) if c.startswith(g)]
    # (a hurried or angry persona's greeting is none: it starts on the matter)
    assert greet and c.lower().endswith("fix my thing. it is order a001.") and "please" not in c.lower()  # terse drops "please"
    # Without a domain's words the user is neutral: no greeting, no aside, nothing dropped.
    assert say(ScriptedUser(), task, None, persona=hostile).content == "Please fix my thing. It is order A001."


def test_scripted_lines_follow_the_domain_words():
    """Another domain's words give another register, and the closing is the domain's."""
    tutoring = get_domain("tutoring").words
    hostile = Persona(id="x", dimensions={"temperament": "hostile", "verbosity": "chatty"})
    task = _task(done_when=["well done"])
    u = ScriptedUser()
    opening = say(u, task, None, persona=hostile, words=tutoring).content
    assert opening.startswith("Ugh.") and "customer" not in opening and tutoring.scripted.opening_aside[0].say in opening
    r = say(u, task, "Well done, that is right.", persona=hostile, words=tutoring)
    assert r.stop and "Finally. Bye." in r.content
    custom = DomainWords(scripted={"closing_default": "Cheers.", "what_now": "And then?"})
    u = ScriptedUser()
    say(u, task, None, words=custom)
    assert say(u, task, "Let me see.", words=custom).content == "And then?"
    assert "Cheers." in say(u, task, "Well done.", words=custom).content
