"""The careful agent's reading of what customers say, on lines written the way people write to support.

None of these lines comes from the scripted customer or the task families: they are inflections,
synonyms and sentence shapes people use ("can you call it off", "I want my money back", "can I talk
to somebody", "postcode", "I've moved to ..."), so the reading is a class, not our own wording.
"""

from __future__ import annotations

import pytest

from domains.support.agents.reading import NO_RE, YES_RE, Facts, detect_intent


@pytest.mark.parametrize("line, intent", [
    ("Hi, I need order O-12345 cancelled before it ships.", "cancel"),
    ("Is it too late to get my order canceled?", "cancel"),
    ("I'm cancelling the order I placed yesterday, it was a mistake.", "cancel"),
    ("Can you call it off? I found it cheaper elsewhere.", "cancel"),
    ("Please scrap order O-55555, I don't need it.", "cancel"),
    ("I'd like a cancellation on my last order.", "cancel"),
    ("Can I speak to someone who can actually help?", "human"),
    ("Let me talk to your manager.", "human"),
    ("I want a real human, not a bot.", "human"),
    ("Please escalate this.", "human"),
    ("Is there a supervisor I can talk with?", "human"),
    ("I've moved to 22 Pine Street, Austin, TX 78701, the order should go there.", "change_address"),
    ("Could you update my delivery address for O-12345?", "change_address"),
    ("We just moved house last weekend and the order still has the old address.", "change_address"),
    ("Please send it to 9 Mill Road, Salem, OR 97301 instead.", "change_address"),
    ("O-12345 needs to be delivered to my office now: 400 Main St, Reno, NV 89501.", "change_address"),
    ("The lamp came broken, the glass is in pieces.", "damaged"),
    ("The kettle doesn't work, it won't turn on at all.", "damaged"),
    ("Box was crushed and the mug inside is cracked.", "damaged"),
    ("The blender is faulty.", "damaged"),
    ("The charger wasn't included in the box.", "missing_item"),
    ("Two of the candles were missing from my parcel.", "missing_item"),
    ("I still haven't received my order O-12345.", "not_arrived"),
    ("It's been two weeks and my parcel never turned up.", "not_arrived"),
    ("I want to send it back, it's not what I expected.", "unwanted"),
    ("How do I return the jacket? I don't need it anymore.", "unwanted"),
    ("I was charged twice for the same order.", "duplicate_charge"),
])
def test_requests_in_peoples_words(line, intent):
    assert detect_intent(line) == intent


@pytest.mark.parametrize("line", [
    "Please don't cancel anything, I just have a question.",
    "No, never call off that order.",
])
def test_a_negated_cancellation_is_no_cancellation(line):
    assert detect_intent(line) != "cancel"


@pytest.mark.parametrize("line, pref", [
    ("I just want my money back.", "refund"),
    ("Could I get it refunded, please?", "refund"),
    ("I'd like to be reimbursed for it.", "refund"),
    ("Can you just send me a new one?", "replacement"),
    ("I'd rather you replaced it.", "replacement"),
    ("Could you ship me another one?", "replacement"),
    ("Replacements for both, please.", "replacement"),
])
def test_the_remedy_chosen_in_peoples_words(line, pref):
    f = Facts()
    f.read(line)
    assert f.preference == pref


@pytest.mark.parametrize("line", [
    "Put it on my account as credit, please.",
    "Can I have it as shop credit instead?",
    "Credit to my account is fine, I'll order again.",
    "Store credit please.",
])
def test_store_credit_in_peoples_words(line):
    f = Facts()
    f.read(line)
    assert f.store_credit


@pytest.mark.parametrize("line, zip_", [
    ("My postcode is 30301.", "30301"),
    ("zipcode 30301", "30301"),
    ("ZIP: 30301", "30301"),
    ("the postal code is 30301", "30301"),
    ("my zip's 30301", "30301"),
    ("30301 is the zip code.", "30301"),
    ("It's 30301, the postcode.", "30301"),
])
def test_zip_in_peoples_words(line, zip_):
    f = Facts()
    f.read(line)
    assert f.zip == zip_


@pytest.mark.parametrize("line, name", [
    ("Hi, this is Maria Lopez.", ("Maria", "Lopez")),
    ("I'm Tom Baker, I ordered a lamp.", ("Tom", "Baker")),
    ("Name's Priya Shah.", ("Priya", "Shah")),
    ("My full name is Jo Park.", ("Jo", "Park")),
])
def test_names_in_peoples_words(line, name):
    f = Facts()
    f.read(line)
    assert (f.first, f.last) == name


def test_not_every_capitalised_pair_is_a_name():
    f = Facts()
    f.read("I'm Really Upset about this.")
    assert f.first is None


@pytest.mark.parametrize("line, addr", [
    ("I've moved to 22 Pine Street, Austin, TX 78701.", ("22 Pine Street", "Austin", "TX", "78701")),
    ("I'm now at 5 Oak Ave, St. Louis, MO 63101, can O-12345 go there?", ("5 Oak Ave", "St. Louis", "MO", "63101")),
    ("new place: 1200 W Elm Court Apt 4, Boise, ID 83702", ("1200 W Elm Court Apt 4", "Boise", "ID", "83702")),
    ("Order O-40001 should go to 18 Birch Lane, Eugene, OR 97401.", ("18 Birch Lane", "Eugene", "OR", "97401")),
])
def test_an_address_however_it_is_introduced(line, addr):
    f = Facts()
    f.read(line)
    assert f.address == addr


@pytest.mark.parametrize("line", ["Sure, go for it.", "Okay.", "Sounds good.", "Yup, please do that.", "That's fine.",
                                  "Absolutely.", "Right, refund them, please, back to my card.",
                                  "I'll take the refund to my card.", "Let's do that."])
def test_yes_in_peoples_words(line):
    assert YES_RE.search(line) and not NO_RE.search(line)


@pytest.mark.parametrize("line", ["Nah, leave it.", "Hold off for now.", "I'd rather not.", "Not yet.",
                                  "Please don't do that."])
def test_no_in_peoples_words(line):
    assert NO_RE.search(line)


def test_tools_list_shows_the_allowed_values_of_an_enumerated_argument():
    """``/tools`` in ``--agent human``: a person must see that "lost in transit" is ``lost_package``."""
    from envs.actors.human_agent import describe_tools
    from envs.domain import get_domain

    tool = get_domain("support").agent_tools["send_replacement"]
    (line,) = describe_tools([tool.schema()])
    assert "reason: damaged|missing_item|not_delivered|lost_package|wrong_item" in line
    assert "lost_package (lost in transit)" in tool.schema()["function"]["parameters"]["properties"]["reason"]["description"]
    # an optional argument shows its type, not "any" (two blind players could not tell what quantity takes)
    (line,) = describe_tools([get_domain("support").agent_tools["refund_items"].schema()])
    assert "quantity?: integer" in line and ": any" not in line


def test_no_in_an_idiom_of_consent_is_not_a_refusal():
    """People say yes with a "no" in it ("no need to ask twice", "no problem"): careful must not
    read those as a refusal, while a plain no still is one."""
    from domains.support.agents.reading import NO_RE, YES_RE

    for yes in ["Yep, go ahead, no need to ask twice.", "No problem, go ahead.", "Yes, no worries.",
                "Sure, no rush on my side, do it.", "Yes, it's a no-brainer, do it."]:
        assert YES_RE.search(yes) and not NO_RE.search(yes), yes
    for no in ["No, don't.", "No. Leave it as it is.", "Nope, not now.", "no thanks"]:
        assert NO_RE.search(no), no
