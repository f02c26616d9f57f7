"""Required outputs as values: every way of writing a date or an amount matches its value,
a different value never does; ids, quantities and text; kinds declared or inferred; the
failure line names what the agent said instead."""

from __future__ import annotations

import datetime as dt

import pytest
from envs.errors import SpecError
from envs.records import AgentEvent, EpisodeRecord, Grade, OutputCheck
from envs.report.summary import _why_failed
from envs.spec.loading import load_one
from envs.spec.schema import RequiredOutput, Task
from graders.outcome.outputs import check_outputs, describe, infer_kind, int_to_words, words_to_int
from hypothesis import assume, given, settings
from hypothesis import strategies as st

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]


def _ord(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def date_forms(d: dt.date, with_year: bool = True) -> list[str]:
    """The ways people write a date; the yearless ones only when ``with_year`` is False."""
    m, mon = MONTHS[d.month - 1], MONTHS[d.month - 1][:3]
    full = [d.isoformat(), f"{m} {d.day}, {d.year}", f"{m} {d.day} {d.year}", f"{d.day} {m} {d.year}",
            f"{mon} {d.day}, {d.year}", f"{_ord(d.day)} of {m}, {d.year}", f"{d.month}/{d.day}/{d.year}",
            f"{d.month:02d}/{d.day:02d}/{d.year}", f"{m} {_ord(d.day)}, {d.year}"]
    yearless = [f"{mon} {d.day}", f"{m} {_ord(d.day)}", f"the {_ord(d.day)} of {m}", f"{d.day} {m}",
                f"{mon}. {d.day}", f"{d.month}/{d.day}"]
    return full if with_year else yearless


def money_forms(cents: int) -> list[str]:
    d, c = divmod(cents, 100)
    forms = [f"${d:,}.{c:02d}", f"${d}.{c:02d}", f"{d}.{c:02d}", f"{d}.{c:02d} USD", f"USD {d}.{c:02d}",
             f"{d} dollars {c}" if c else f"{d} dollars", f"{d} dollars and {c} cents" if c else f"${d}"]
    if c % 10 == 0:
        forms.append(f"${d}.{c // 10}")
    return forms


SENTENCES = ["It should post to your account by {}.", "The system shows {} for it", "{}", "({}) is what I see."]
dates = st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2099, 12, 31))
amounts = st.integers(min_value=1, max_value=10_000_000)


def said(text: str) -> list[AgentEvent]:
    return [AgentEvent(turn=1, content="Thanks for waiting."), AgentEvent(turn=2, content=text)]


def found(output, text: str) -> bool:
    return check_outputs([RequiredOutput.model_validate(output)], said(text))[0].found


@settings(max_examples=150, deadline=None)
@given(d=dates, frame=st.sampled_from(SENTENCES), data=st.data())
def test_every_way_of_writing_a_date_matches_it(d, frame, data):
    form = data.draw(st.sampled_from(date_forms(d) + date_forms(d, with_year=False)))
    res = check_outputs([RequiredOutput(value=d.isoformat())], said(frame.format(form)))[0]
    assert res.found and res.turn == 2 and res.kind == "date", form


@settings(max_examples=150, deadline=None)
@given(d=dates, other=dates, frame=st.sampled_from(SENTENCES), data=st.data())
def test_a_different_date_never_matches(d, other, frame, data):
    assume(other != d)
    forms = date_forms(other)
    if (other.month, other.day) != (d.month, d.day):
        forms += date_forms(other, with_year=False)  # a yearless date can only differ by its day
    form = data.draw(st.sampled_from(forms))
    res = check_outputs([RequiredOutput(value=d.isoformat())], said(frame.format(form)))[0]
    assert not res.found, form
    if form in date_forms(other) or (other.month, other.day) != (2, 29):  # no Feb 29 in d's year
        assert res.closest is not None and res.closest.strip(" .,()") in form


@settings(max_examples=150, deadline=None)
@given(cents=amounts, frame=st.sampled_from(SENTENCES), data=st.data())
def test_every_way_of_writing_an_amount_matches_it(cents, frame, data):
    form = data.draw(st.sampled_from(money_forms(cents)))
    d, c = divmod(cents, 100)
    res = check_outputs([RequiredOutput(value=f"${d}.{c:02d}")], said(frame.format(form)))[0]
    assert res.found and res.kind == "money", form


@settings(max_examples=150, deadline=None)
@given(cents=amounts, other=amounts, frame=st.sampled_from(SENTENCES), data=st.data())
def test_a_different_amount_never_matches(cents, other, frame, data):
    assume(other != cents)
    form = data.draw(st.sampled_from(money_forms(other)))
    d, c = divmod(cents, 100)
    res = check_outputs([RequiredOutput(value=f"${d:,}.{c:02d}")], said(frame.format(form)))[0]
    assert not res.found, form


def test_amounts_and_dates_in_one_message_do_not_blur():
    text = "Order O-90301: $49.50 should post by June 18, 2026; 3 items."
    assert found("$49.50", text) and found("2026-06-18", text) and found("3", text)
    assert not found("$18.00", text)  # the 18 belongs to the date
    assert not found("$3.00", text)  # an integer without a currency sign is not money
    assert not found("18", text)  # ... and a date holds no quantity
    assert not found("2026-06-17", "Your refund of $49.50 for item 61702 posts soon.")


def test_ids_case_and_space_insensitive_never_inside_a_longer_code():
    assert infer_kind("O-92601") == infer_kind("1Z9030144556677") == infer_kind("#103") == "id"
    for text in ["order O-92601", "order o-92601", "order O 92601", "order o92601.", "(#O-92601)"]:
        assert found("O-92601", text), text
    for text in ["order O-926011", "order SO-92601", "order O-92610", "no order"]:
        assert not found("O-92601", text), text
    res = check_outputs(["O-92601"], said("Your order O-92610 is on its way."))[0]
    assert res.closest == "O-92610" and describe(res) == "said 'O-92610'; expected O-92601"


def test_quantities_as_digits_or_words():
    assert [words_to_int(w) for w in ["three", "twenty-one", "twenty one", "one hundred and five", "a hundred"]] == [
        3, 21, 21, 105, 100]
    assert words_to_int("one two") is None and words_to_int("hundred") is None
    assert all(words_to_int(int_to_words(n)) == n for n in range(1000))
    assert infer_kind("3") == infer_kind("three") == "quantity"
    assert found("3", "You have three items left.") and found("three", "You have 3 items left.")
    assert found("21", "twenty-one boxes") and found("105", "one hundred and five boxes")
    assert not found("3", "You have 13 items and 30 boxes.") and not found("2", "twenty-one boxes")
    assert found("5", "five and then some")


def test_text_stays_a_normalised_phrase():
    assert infer_kind("should post to your account") == "text"
    assert found("should post to your account", "It SHOULD post to your account, by Friday.")
    assert found("order o-00042", "Your refund for Order #O-00042 is on its way.")
    assert not found("should post to your card", "It should post to your account.")
    res = check_outputs(["through the app"], said("You can return it through the shop. Anything else?"))[0]
    assert not res.found and res.closest == "You can return it through the shop."


def test_kinds_are_declared_or_inferred_and_checked_at_load(tmp_path):
    assert infer_kind("2026-06-18") == "date" and infer_kind("$49.50") == infer_kind("49.50 USD") == "money"
    assert infer_kind("49.50") == "money" and infer_kind("June 18") == "text"
    # YAML reads an unquoted date as a date, a decimal as a float
    assert RequiredOutput.model_validate(dt.date(2026, 6, 18)).value == "2026-06-18"
    declared = RequiredOutput.model_validate({"value": "June 18, 2026", "kind": "text"})
    assert not found(declared, "by 2026-06-18") and found(declared, "by June 18, 2026")
    p = tmp_path / "t.yaml"
    p.write_text("id: t\ndomain: x\nscenario: {goal: g, request: r}\noutputs: [{value: '2026-13-45', kind: date}]\n")
    with pytest.raises(SpecError, match=r"t\.yaml: outputs\.0"):
        load_one(Task, p)
    p.write_text("id: t\ndomain: x\nscenario: {goal: g, request: r}\noutputs: [{value: lots, kind: money}]\n")
    with pytest.raises(SpecError, match="outputs.0"):
        load_one(Task, p)


def test_the_first_failure_says_what_was_said_instead():
    def rec(checks):
        g = Grade(reward=0.0, state_match=True, outputs_ok=False, outputs=checks)
        return EpisodeRecord(episode_id="e", task_id="t", domain="d", repeat=0, seed=0, grade=g)

    wrong = check_outputs(["2026-06-18", "$49.50"], said("It should post by June 19, 2026 ($49.50)."))
    assert _why_failed(rec(wrong)) == "required outputs not stated: said 'June 19, 2026'; expected 2026-06-18"
    silent = check_outputs(["2026-06-18"], said("It is on its way."))
    assert _why_failed(rec(silent)) == "required outputs not stated: said nothing about a date; expected 2026-06-18"
    # records written before outputs had kinds still read and explain themselves
    old = OutputCheck(output="$49.50", found=False)
    assert describe(old) == "said nothing about it; expected $49.50"


def test_substring_mode_is_taubench_rule():
    events = said("The total is 1,093.34 dollars.")
    assert check_outputs(["1093.34"], events, mode="substring")[0].found
    assert not check_outputs(["1093.3400"], events, mode="substring")[0].found
