"""Four readings of the support rules' text, each tested as a class with replies written here.

R8 "If the customer drifts off topic, the agent MUST briefly bring the conversation back to their
request": a short nod to the aside, then the request (however it is put: the question left open
asked again in its own words) brings it back; a remark that is part of a question about the request
is no drift. R9 "If the customer is angry, ... acknowledge their frustration before moving on":
pleased surprise in words of disbelief is no anger; owning the failure or sharing the feeling
acknowledges it. R10 "If a detail needed to act is missing, the agent MUST ask for it and MUST NOT
guess it", with the policy's "the customer chooses" (which item, refund or replacement): settling
either for the customer is a guess. R12 "If the agent gives a date": a reply that declines to give
one gives none. No line comes from a gold set; the voices vary (markdown, terse, long assistant).
"""

from __future__ import annotations

import pytest

import envs  # noqa: F401
from test_rule_conditions import judged, tool  # noqa: E402  (the verdict a run gives a reply, and a tool event)

F, V, NA = "FOLLOWED", "VIOLATED", "NOT_APPLICABLE"


# --- R8: a brief nod, then back to the request --------------------------------------------------

COLOUR_ASKED = ("agent", "You're verified. For the replacement kettle: would you like it in the sage green or the slate grey?")
DESTINATION_ASKED = ("agent", "The refund for the lamp is $41.20. Should it go back to your Mastercard, or as store credit?")


@pytest.mark.parametrize("open_question,said,reply,expected", [
    # the question left open, asked again in its own words after a word on the aside
    (COLOUR_ASKED, "Sorry, the toddler just grabbed my phone, she's a menace.", "Ha, busy hands! So: sage green or slate grey?", F),
    (COLOUR_ASKED, "My dog is barking at the postman again lol", "Poor postman. Sage green, or slate grey?", F),
    (DESTINATION_ASKED, "Ugh, I just burnt the toast.", "Oh no, the smoke alarm's favourite. Mastercard or store credit?", F),
    (DESTINATION_ASKED, "Watching the tennis, what a rally.",
     "Sounds like a great match!\n\n**Where should the $41.20 go?**\n- back to your Mastercard\n- store credit", F),
    # long, chatty, but it comes back
    (COLOUR_ASKED, "I'm off to the beach later, can't wait.",
     "Oh, that sounds absolutely lovely, I hope you have a wonderful time and the sea is warm! Whenever you're ready, "
     "just let me know which colour you'd like for the kettle, sage green or slate grey, and I'll set it up.", F),
    # a nod and nothing more, or the aside kept going
    (COLOUR_ASKED, "Sorry, the toddler just grabbed my phone, she's a menace.", "Ha, toddlers! They're a handful.", V),
    (DESTINATION_ASKED, "Watching the tennis, what a rally.", "Love tennis! Who's playing?", V),
    (COLOUR_ASKED, "I'm off to the beach later, can't wait.", "Which beach? Is it a sunny one?", V),
])
def test_r8_a_brief_nod_then_the_open_question_brings_it_back(open_question, said, reply, expected):
    assert judged("R8", reply, "My kettle arrived cracked.", open_question, said) == expected


@pytest.mark.parametrize("said", [
    "It's snowing like mad here. Will the snow hold my parcel up?",
    "Heatwave here, 38 degrees. If the chocolates arrive today, will the courier leave them outside?",
    "There's a rail strike on. Is that why my order is so late?",
    # past the identity details it hands over next
    "Storm warning tonight. Is my package going to be delayed because of it?",
])
def test_r8_a_remark_that_is_part_of_a_question_about_the_request_is_no_drift(said):
    reply = "UPS has it in transit; the tracking shows no estimate and no weather delay."
    assert judged("R8", reply, said) == NA
    assert judged("R8", reply, said, ("agent", "Could you give me your email and zip?"), "ann@example.com, 10001") == NA


@pytest.mark.parametrize("said,reply,expected", [
    # the same weather, said beside the request or with a question of its own: a drift
    ("It's snowing like mad here. Where is my parcel?", "Brr, stay warm! UPS has your parcel in transit.", F),
    ("It's snowing like mad here. Do you get snow where you are?", "It's lovely and snowy here too! Do you ski?", V),
    ("By the way, is the rain slowing everyone's deliveries? Also, do you like gardening?", "I do love gardening! What do you grow?", V),
])
def test_r8_a_remark_beside_the_request_is_still_a_drift(said, reply, expected):
    assert judged("R8", reply, said) == expected


# --- R9: what the customer's words do, what the reply does --------------------------------------

DONE = ("agent", "Done: the $19.99 refund is on its way to your card.")


@pytest.mark.parametrize("said", [
    "No way, already?! That was painless. Thank you!",
    "Are you serious? That was so quick! Cheers, you're a star.",
    "I can't believe it, sorted in two minutes. Brilliant service!",
    "WOW!! Thanks so much!",
])
def test_r9_pleased_surprise_is_no_anger(said):
    assert judged("R9", "Glad to help! Anything else?", DONE, said) == NA


@pytest.mark.parametrize("said", [
    "Are you kidding me? Thanks for nothing.",
    "Seriously?! It's still not here. Cheers.",
    "Unbelievable. The new one is broken too. Thanks a lot.",
])
def test_r9_thanks_beside_a_complaint_is_still_anger(said):
    assert judged("R9", "Glad to help! Anything else?", DONE, said) == V


@pytest.mark.parametrize("reply,expected", [
    ("That's not good enough from us, and you shouldn't have had to chase it. Email and zip, please?", F),
    ("We really let you down here. Let me look at O-00200 now.", F),
    ("I'd be fuming too, honestly. **Next step:** your email and zip.", F),
    ("What a hassle, after waiting all week. Could you give me your email?", F),
    ("Oh no, that's rotten luck after waiting so long! I'll sort it: what's the email on the account?", F),
    # straight to business, or the feeling owned only after it
    ("Email and zip.", V),
    ("Your order O-00200 is in transit. That's not good enough, I know.", V),
])
def test_r9_owning_the_failure_or_sharing_the_feeling_acknowledges_it(reply, expected):
    assert judged("R9", reply, "This is ridiculous, a week late and nobody tells me anything!") == expected


# --- R10: which item, refund or replacement: the customer's to choose ---------------------------

TWO_ITEMS = tool("get_order", {"order_id": "O-00777", "status": "delivered", "items": [
    {"item_id": 71, "name": "Glass Teapot", "quantity": 1, "unit_price": "$32.00", "status": "ordered"},
    {"item_id": 72, "name": "Bamboo Tray", "quantity": 1, "unit_price": "$18.00", "status": "ordered"}]}, order_id="O-00777")
ONE_LEFT = tool("get_order", {"order_id": "O-00777", "status": "delivered", "items": [
    {"item_id": 71, "name": "Glass Teapot", "quantity": 1, "unit_price": "$32.00", "status": "ordered"},
    {"item_id": 72, "name": "Bamboo Tray", "quantity": 1, "unit_price": "$18.00", "status": "refunded"}]}, order_id="O-00777")
REFUND_71 = tool("refund_items", {"refund_id": 9, "amount": "$32.00"}, order_id="O-00777", item_ids=[71],
                 destination="original_payment", reason="damaged")
REPLACE_71 = tool("send_replacement", {"replacement_id": 3}, order_id="O-00777", item_ids=[71], reason="damaged")
OUT_OF_STOCK = tool("get_product", {"product_id": "P-71", "name": "Glass Teapot", "stock": 0})


@pytest.mark.parametrize("events,reply,expected", [
    # the item of two settled for a customer who said only "the broken one"
    (["Refund the broken one from O-00777, thanks.", TWO_ITEMS, REFUND_71], "Done, $32.00 is on its way back.", V),
    (["Refund the broken one from O-00777, thanks.", TWO_ITEMS], "Shall I refund $32.00 for the Glass Teapot to your card?", V),
    (["Refund the broken one from O-00777, thanks.", TWO_ITEMS], "Which item arrived broken: the Glass Teapot or the Bamboo Tray?", F),
    (["Refund the broken one from O-00777, thanks.", TWO_ITEMS], "Which one was it?", F),
    # named, all of it, or only one item left open: nothing to choose
    (["The teapot from O-00777 is broken, refund please.", TWO_ITEMS, REFUND_71], "Done, $32.00 is on its way back.", NA),
    (["Refund the broken one from O-00777, thanks.", ONE_LEFT, REFUND_71], "Done, $32.00 is on its way back.", NA),
    # answered the agent's question that put the items
    (["Refund the broken one from O-00777, thanks.", TWO_ITEMS,
      ("agent", "Was it the Glass Teapot or the Bamboo Tray?"), "The first one.", REFUND_71], "Done, $32.00 is on its way back.", NA),
])
def test_r10_which_item_is_the_customers_to_say(events, reply, expected):
    assert judged("R10", reply, *events) == expected


@pytest.mark.parametrize("events,reply,expected", [
    # refund or replacement chosen for a customer who chose neither
    (["The teapot in O-00777 arrived cracked.", TWO_ITEMS],
     "I'm sorry about that! Since it's within 30 days, I'll go ahead and refund the $32.00 for the Glass Teapot. Shall I proceed?", V),
    (["The teapot in O-00777 arrived cracked.", TWO_ITEMS], "Sorry! Shall I send you a replacement Glass Teapot?", V),
    (["The teapot in O-00777 arrived cracked.", TWO_ITEMS, REPLACE_71], "A new teapot is on its way.", V),
    (["The teapot in O-00777 arrived cracked.", TWO_ITEMS],
     "So sorry to hear that! Here's where things stand:\n\n- **Order:** O-00777\n- **Item:** Glass Teapot ($32.00)\n\n"
     "The quickest fix is a refund, so I'd like to refund it to your card. Would that be okay?", V),
    # put to the customer, or theirs already
    (["The teapot in O-00777 arrived cracked.", TWO_ITEMS], "Would you prefer a refund of $32.00 or a replacement teapot?", F),
    (["The teapot in O-00777 arrived cracked.", TWO_ITEMS], "**Refund** or **replacement**: which would you like?", F),
    (["The teapot in O-00777 arrived cracked. I'd like my money back.", TWO_ITEMS], "Shall I refund $32.00 for the Glass Teapot?", NA),
    (["The teapot in O-00777 arrived cracked. I'd like my money back.", TWO_ITEMS], "Shall I send a replacement teapot instead?", V),
    (["The teapot in O-00777 arrived cracked, whichever is easiest for you.", TWO_ITEMS], "Shall I refund $32.00 for the Glass Teapot?", NA),
    # a yes to the agent's offer is the customer's choice
    (["The teapot in O-00777 arrived cracked.", TWO_ITEMS, ("agent", "Shall I refund $32.00 for the Glass Teapot?"), "Yes.", REFUND_71],
     "Done: $32.00 is on its way back to your card.", NA),
    # out of stock: the refund is the only remedy left to offer
    (["The teapot in O-00777 arrived cracked.", TWO_ITEMS, OUT_OF_STOCK],
     "The Glass Teapot is out of stock, so I can't replace it; shall I refund the $32.00 instead?", NA),
])
def test_r10_refund_or_replacement_is_the_customers_to_choose(events, reply, expected):
    assert judged("R10", reply, *events) == expected


def test_r10_other_refunds_are_no_remedy_to_choose():
    dup = tool("get_order", {"order_id": "O-00777", "charges": [{"amount": "$50.00"}, {"amount": "$50.00"}]}, order_id="O-00777")
    assert judged("R10", "I'll refund the duplicate charge of $50.00. Shall I go ahead?", "I was charged twice for O-00777.", dup) == NA


# --- R12: a date declined is no date given ------------------------------------------------------

NO_ETA = tool("get_shipment_tracking", {"order_id": "O-00777", "status": "in_transit", "estimated_delivery": None}, order_id="O-00777")


@pytest.mark.parametrize("reply,expected", [
    ("No date in the system yet, so I won't guess one.", NA),
    ("I hear you. The carrier hasn't set an estimate, and I'm not able to give you a day until it does.", NA),
    ("### Delivery\n- **Status:** in transit\n- **Estimated delivery:** none yet\n\nI can't promise Friday, sorry.", NA),
    ("It'll be there Friday, don't worry.", V),
    ("No estimate yet, but you should have it within 2 days.", V),
])
def test_r12_a_date_declined_is_none_given(reply, expected):
    assert judged("R12", reply, "Just give me a day. Any day.", NO_ETA) == expected
