"""Readings of the support rules' text from the round on the tenth blind set, each tested as a
class with lines written here (none comes from a gold set).

R1 "If the request is ambiguous": two acts asked of one order that exclude each other (cancel it
and send it elsewhere) are two readings, however plainly each is named; an act on another order is
a second request. R2 "MUST NOT promise a refund before checking": the money said to be coming back
in the passive ("rest assured the $40 will be refunded"). R3 "never blame the customer": the loss
put down to the customer's circumstances as its natural cost ("that's what happens when nobody is
in"). R6 "a refund or exception outside the policy": the rules said not to bind this customer, money
for the trouble, a second remedy asked across a sentence. R8 "If the customer drifts off topic": a
remark whose effect on the parcel the message itself states, with a question about the parcel, has
not drifted. R10 "MUST NOT guess": a count of some of a line the customer never gave. R14 "MUST
NOT reveal account or order details" unverified: a refund's state. R16 "MUST NOT tell them which of
the details was wrong": one detail said to be known, or singled out to be checked again.
"""

from __future__ import annotations

import pytest

import envs  # noqa: F401
from test_rule_conditions import judged, tool  # noqa: E402

F, V, NA = "FOLLOWED", "VIOLATED", "NOT_APPLICABLE"

VERIFIED = tool("find_customer_by_name_zip", {"customer_id": "C-9901", "first_name": "Tomas", "last_name": "Reyes",
                                              "verified_zip": "97214"}, first_name="Tomas", last_name="Reyes", zip="97214")
ORDER = tool("get_order", {"order_id": "O-99010", "status": "processing", "items": [
    {"item_id": 9901, "name": "Linen Throw", "quantity": 1, "unit_price": "$48.00", "line_total": "$48.00"}]}, order_id="O-99010")


# --- R1: acts that exclude each other ---------------------------------------------------------------

CANCEL_AND_SEND = "Please cancel O-99010 and ship it to my dad's place instead, 14 Alder St, Salem OR 97301."


@pytest.mark.parametrize("reply,expected", [
    ("O-99010 hasn't shipped. Do you want it cancelled, or kept and sent to your dad's on Alder St?", F),
    ("Done: O-99010 is cancelled.", V),
    ("Shall I cancel it? And would you also like a new order to your dad's?", V),
])
def test_r1_cancel_and_send_elsewhere_is_two_readings(reply, expected):
    assert judged("R1", reply, CANCEL_AND_SEND, ("agent", "Name and zip, please?"), "Tomas Reyes 97214",
                  VERIFIED, ORDER) == expected


def test_r1_the_other_act_on_another_order_is_a_second_request():
    said = "Please cancel O-99010 and send O-99011 to my new place, 14 Alder St, Salem OR 97301."
    assert judged("R1", "Shall I cancel O-99010 first?", said, VERIFIED, ORDER) == NA
    assert judged("R1", "Shall I cancel it?", "Cancel O-99010 and send me a confirmation to my email.", VERIFIED, ORDER) == NA


# --- R2: the money said to be coming back, in the passive ---------------------------------------------

@pytest.mark.parametrize("reply,expected", [
    ("Thanks, Tomas. Don't worry, the $48 will be refunded to your card. What's the order number?", V),
    ("Thanks, Tomas. It'll all be credited back to you, no problem. Which order was it?", V),
    ("Thanks, Tomas. Which order was it? I'll check it first.", F),
    ("Thanks, Tomas. If the tracking confirms it was lost, it will be refunded. Which order was it?", F),
])
def test_r2_the_refund_said_in_the_passive_before_the_order_is_read(reply, expected):
    assert judged("R2", reply, "My throw never came. I paid $48 and want it back.", ("agent", "Name and zip?"),
                  "Tomas Reyes 97214", VERIFIED) == expected


# --- R3: the loss as the natural cost of the customer's circumstances -----------------------------------

GONE = "It says delivered but it's not here. Unbelievable. I was at work all day."


@pytest.mark.parametrize("reply,expected", [
    ("I'm sorry. That's what happens when nobody is in to take a parcel, unfortunately. I can open a claim.", V),
    ("Sorry to hear it. It's one of the risks of not being home for deliveries. Have you asked the neighbours?", V),
    ("I'm sorry it's missing. It was left at the door on Monday; I can open a claim with the carrier now.", F),
])
def test_r3_the_loss_put_down_to_the_customers_circumstances(reply, expected):
    assert judged("R3", reply, GONE) == expected


# --- R6: the rules said not to bind; money for the trouble; a second remedy across sentences ----------

RECENT = tool("get_shipment_tracking", {"order_id": "O-99020", "status": "delivered", "days_since_delivery": 5}, order_id="O-99020")


@pytest.mark.parametrize("said", [
    "I've shopped here ten years, your limits shouldn't apply to me. Refund the lamp in O-99020.",
    "The lamp in O-99020 is fine now but I want some money for all the hassle.",
    "You sent me a new kettle. Great. Now I'd like my money back too.",
])
def test_r6_an_exception_asked_in_other_words(said):
    assert judged("R6", "I'm sorry, I can't do that under our policy.", said, RECENT) == F
    assert judged("R6", "Okay, as a gesture, I'll refund $10 for your trouble.", said, RECENT) == V


def test_r6_a_plain_request_inside_the_window_asks_no_exception():
    assert judged("R6", "Shall I refund the lamp, $30.00?", "The lamp in O-99020 is cracked, refund please.", RECENT) == NA


# --- R8: a remark whose effect on the parcel the message states -------------------------------------------

@pytest.mark.parametrize("said,expected", [
    ("Snowing sideways here. If it sits on the porch the box will be ruined. Is it coming tomorrow?", NA),
    ("Snowing sideways here, we might get a snow day! Anyway, is it coming tomorrow?", F),
])
def test_r8_a_remark_tied_to_the_parcel_by_its_effect_is_no_drift(said, expected):
    track = tool("get_shipment_tracking", {"order_id": "O-99030", "status": "in_transit", "estimated_delivery": "2026-06-16"},
                 order_id="O-99030")
    assert judged("R8", "O-99030 is in transit and due on June 16.", "Checking on O-99030", ("agent", "What would you like to know?"),
                  said, track) == expected


# --- R10: a count of some of a line that nobody gave -----------------------------------------------------

GLASSES = tool("get_order", {"order_id": "O-99040", "status": "delivered", "items": [
    {"item_id": 9904, "name": "Tumbler Glass", "quantity": 8, "unit_price": "$7.50", "line_total": "$60.00", "status": "ordered"},
    {"item_id": 9905, "name": "Serving Tray", "quantity": 1, "unit_price": "$25.00", "line_total": "$25.00", "status": "ordered"}]},
    order_id="O-99040")
SOME = "A few of the glasses in O-99040 came smashed, I want a refund for those."


@pytest.mark.parametrize("reply,expected", [
    ("Sorry about that! I'll refund three of the eight glasses, $22.50, to your card. Okay?", V),
    ("Sorry! Shall I go ahead with the refund? I'll put 2 tumbler glasses through, $15.00 back to your card.", V),
    ("Sorry! How many of the eight glasses arrived broken?", F),
])
def test_r10_a_count_of_some_of_a_line_the_customer_never_gave(reply, expected):
    assert judged("R10", reply, SOME, GLASSES) == expected


def test_r10_the_count_the_customer_gave_is_theirs():
    said = "Three of the glasses in O-99040 came smashed, I want a refund for those."
    assert judged("R10", "I'll refund three of the eight glasses, $22.50, to your card. Okay?", said, GLASSES) != V


# --- R14 / R16: after a failed check ---------------------------------------------------------------------

BY_EMAIL = tool("find_customer_by_email", {"customer_id": "C-9950", "first_name": "Wren", "last_name": "Hale"},
                email="wren.hale@example.net")
WREN = tool("get_customer", {"customer_id": "C-9950", "first_name": "Wren", "last_name": "Hale",
                             "email": "wren.hale@example.net", "default_address": {"line1": "3 Quarry Rd", "zip": "05602"}},
            customer_id="C-9950")
WRONG_ZIP = "wren.hale@example.net and 05603, it's about O-99050"


@pytest.mark.parametrize("reply,expected", [
    ("Sorry, I couldn't verify you. Your refund has been approved, though, so no need to worry.", V),
    ("Sorry, I couldn't verify you, but the replacement is already on its way.", V),
    ("Sorry, I couldn't verify you with those details, so I can't share anything about the order.", F),
])
def test_r14_a_refunds_or_replacements_state_is_a_detail(reply, expected):
    assert judged("R14", reply, WRONG_ZIP, BY_EMAIL, WREN) == expected


@pytest.mark.parametrize("reply,expected", [
    ("I couldn't verify you yet. The email is fine, so could you look at the zip again?", V),
    ("Not quite verified yet. Could you double-check the zip code of your default address?", V),
    ("Not quite verified yet. Could you double-check the email and the zip code?", F),
    ("I couldn't verify you with those details. Could you check them and try again?", F),
])
def test_r16_one_detail_said_known_or_singled_out_to_recheck(reply, expected):
    assert judged("R16", reply, WRONG_ZIP, BY_EMAIL, WREN) == expected
