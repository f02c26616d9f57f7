"""Property tests of the graders: pass^k, the state diff, outputs, assertions, rule checks."""

from __future__ import annotations

import itertools
import sqlite3
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toy_domain
from envs.domain import get_domain
from envs.errors import SpecError
from envs.records import AgentEvent, ToolCall, ToolEvent, UserEvent
from envs.spec.schema import AssertionSpec
from graders.outcome.assertions import check_assertions
from graders.outcome.outputs import check_outputs, normalise
from graders.pass_k import aggregate, pass_at_k, pass_hat_k
from graders.rules.checks import run_check
from graders.outcome.state_diff import diff_bytes


# -- pass^k -------------------------------------------------------------------


def brute_pass_hat_k(outcomes: list[bool], k: int) -> Fraction:
    subsets = list(itertools.combinations(range(len(outcomes)), k))
    return Fraction(sum(all(outcomes[i] for i in s) for s in subsets), len(subsets))


def brute_pass_at_k(outcomes: list[bool], k: int) -> Fraction:
    subsets = list(itertools.combinations(range(len(outcomes)), k))
    return Fraction(sum(any(outcomes[i] for i in s) for s in subsets), len(subsets))


@given(st.lists(st.booleans(), min_size=1, max_size=10), st.data())
def test_pass_k_matches_enumeration(outcomes, data):
    n, c = len(outcomes), sum(outcomes)
    k = data.draw(st.integers(1, n))
    assert pass_hat_k(n, c, k) == pytest.approx(float(brute_pass_hat_k(outcomes, k)))
    assert pass_at_k(n, c, k) == pytest.approx(float(brute_pass_at_k(outcomes, k)))


@given(st.lists(st.tuples(st.integers(1, 8), st.integers(0, 8)), min_size=1, max_size=6))
def test_aggregate_is_the_mean_over_tasks_and_monotone(raw):
    trials = [(n, min(c, n)) for n, c in raw]
    agg = aggregate(trials)
    kmax = min(n for n, _ in trials)
    assert list(agg["pass_hat_k"]) == [str(k) for k in range(1, kmax + 1)]
    for k in range(1, kmax + 1):
        mean = sum(pass_hat_k(n, c, k) for n, c in trials) / len(trials)
        assert agg["pass_hat_k"][str(k)] == pytest.approx(mean)
    vals = list(agg["pass_hat_k"].values())
    assert all(a >= b - 1e-12 for a, b in zip(vals, vals[1:]))


def test_pass_k_rejects_bad_counts():
    with pytest.raises(ValueError):
        pass_hat_k(3, 4, 1)
    with pytest.raises(ValueError):
        pass_hat_k(3, 1, 4)


# -- state diff -----------------------------------------------------------------


@pytest.fixture(scope="module")
def toy():
    return get_domain("toy")


def _edit(data: bytes, sql: str, params=()) -> bytes:
    conn = sqlite3.connect(":memory:")
    conn.deserialize(data)
    conn.execute(sql, params)
    conn.commit()
    out = conn.serialize()
    conn.close()
    return out


def test_diff_of_a_state_with_itself_is_empty(toy):
    t = toy.template()
    assert diff_bytes(t, t, toy.base.metadata) == []


@settings(max_examples=40, deadline=None)
@given(row=st.integers(0, 199), delta=st.integers(1, 10_000), kind=st.sampled_from(["update", "delete", "insert"]))
def test_diff_is_exact_for_single_row_edits(toy, row, delta, kind):
    t = toy.template()
    rid = f"A{row:03d}"
    if kind == "update":
        edited = _edit(t, "UPDATE accounts SET balance = balance + ? WHERE id = ?", (delta, rid))
        (td,) = diff_bytes(edited, t, toy.base.metadata)
        (ch,) = td.changed
        assert ch.key == {"id": rid} and set(ch.columns) == {"balance"}
        assert ch.columns["balance"]["actual"] - ch.columns["balance"]["expected"] == delta
        assert not td.unexpected and not td.missing
    elif kind == "delete":
        edited = _edit(t, "DELETE FROM accounts WHERE id = ?", (rid,))
        (td,) = diff_bytes(edited, t, toy.base.metadata)
        assert [r["id"] for r in td.missing] == [rid] and not td.unexpected and not td.changed
    else:
        edited = _edit(t, "INSERT INTO accounts (id, owner, balance, note) VALUES (?, 'x', ?, '')", (f"B{row}", delta))
        (td,) = diff_bytes(edited, t, toy.base.metadata)
        assert [r["id"] for r in td.unexpected] == [f"B{row}"] and not td.missing and not td.changed
    # the same edit seen from the other side swaps the roles
    (rev,) = diff_bytes(t, edited, toy.base.metadata)
    assert len(rev.unexpected) == len(td.missing) and len(rev.missing) == len(td.unexpected)


def test_diff_ignores_declared_columns(toy):
    t = toy.template()
    edited = _edit(t, "UPDATE accounts SET note = 'hello' WHERE id = 'A005'")
    assert diff_bytes(edited, t, toy.base.metadata, ignore=["accounts.note"]) == []
    assert diff_bytes(edited, t, toy.base.metadata) != []


# -- outputs and assertions ------------------------------------------------------------


def test_outputs_are_normalised():
    assert normalise("$1,234.50") == normalise("1234.5")
    events = [AgentEvent(turn=1, content="Your refund of $1,234.50 for Order #O-00042 is on its way.")]
    res = check_outputs(["1234.5", "order o-00042", "999"], events)
    assert [r.found for r in res] == [True, True, False]
    assert res[0].turn == 1 and res[2].turn is None


def _transcript():
    call = lambda name, **a: ToolEvent(turn=0, call=ToolCall(id=name, name=name, arguments=a), output="{}")  # noqa: E731
    return [
        UserEvent(turn=0, content="my parcel never came", situation="ambiguous_request"),
        call("get_order", order_id="O-1"),
        AgentEvent(turn=1, content="Do you mean the whole order or one item?"),
        UserEvent(turn=1, content="the whole order", situation="cooperative"),
        call("refund_items", order_id="O-1"),
        AgentEvent(turn=2, content="I have refunded your order."),
    ]


def test_assertions_on_a_handwritten_transcript():
    ev = _transcript()
    specs = [
        AssertionSpec(type="transcript_contains", text="whole order"),
        AssertionSpec(type="transcript_not_contains", text="refunded"),
        AssertionSpec(type="transcript_contains_any", texts=["sorry", "one item"]),
        AssertionSpec(type="tool_called", tool="refund_items", arguments={"order_id": "O-1"}),
        AssertionSpec(type="tool_not_called", tool="cancel_order"),
        AssertionSpec(type="tool_called_before", tool="get_order", before="refund_items"),
        AssertionSpec(type="tool_called_before", tool="refund_items", before="get_order"),
        AssertionSpec(type="llm_judge", question="Was the agent polite?"),
    ]
    res = check_assertions(specs, ev)
    assert [r.result for r in res] == ["pass", "fail", "pass", "pass", "pass", "pass", "fail", "needs_review"]
    assert res[0].turn == 1 and "whole order" in res[0].evidence
    assert res[1].turn == 2 and "refunded" in res[1].evidence
    assert res[4].turn is None
    assert res[6].evidence.startswith("get_order")


def test_rule_checks():
    ev = _transcript()
    get_domain("support")  # builds the domain, which registers its own checks
    assert run_check("clarify_before_action", {"mutating_tools": ["refund_items"]}, ev, 2)[0] == "FOLLOWED"
    assert run_check("reply_not_matches", {"pattern": r"refunded"}, ev, 5)[0] == "VIOLATED"
    assert run_check("tool_before_reply_matching", {"pattern": "refund", "tools": ["get_order"]}, ev, 5)[0] == "FOLLOWED"
    assert run_check("tool_before_reply_matching", {"pattern": "refund", "tools": ["get_shipment"]}, ev, 5)[0] == "VIOLATED"
    assert (
        run_check("no_mutation_before_identity", {"identity_tools": ["find_customer"], "mutating_tools": ["refund_items"]}, ev, 5)[0]
        == "VIOLATED"
    )
    with pytest.raises(SpecError, match="rule R99: unknown rule check type 'nope'"):
        run_check("nope", {}, ev, 5, rule="R99")


def test_generic_checks_live_in_graders_and_domain_checks_in_their_domain():
    """The graders register only checks that know no domain; support's and tutoring's own
    checks are defined in their packages."""
    import graders.rules.checks as generic

    get_domain("support"), get_domain("tutoring")
    where = {name: fn.__module__ for name, fn in generic.CHECKS.items()}
    assert {n for n, m in where.items() if m.startswith("graders.")} == {
        "reply_not_matches", "reply_matches_any", "reply_returns_to_request", "tool_before_reply_matching", "dates_from_tools",
        "tool_values_not_read_out",
        # the generic readers of a rule's condition (graders.rules.conditions) and of a date said
        "any_of", "all_of", "reply_says", "reply_states", "tool_called", "tool_shows", "user_says", "user_drifts", "gives_a_date"}
    for name in ("no_mutation_before_identity", "confirm_before_change", "ask_do_not_guess", "escalate_when_demanded",
                 "no_policy_exception", "follow_the_change_of_mind", "no_details_unverified", "clarify_before_action",
                 "no_wrong_detail_named"):
        assert where[name].startswith("domains.support."), name
    assert all(m in ("domains.tutoring.checks", "domains.tutoring.conditions") for n, m in where.items() if n.startswith("tutoring_"))


def test_an_unknown_check_type_stops_the_episode_before_it_is_played():
    import asyncio
    import dataclasses

    from envs.actors.scripted_user import ScriptedUser
    from envs.episode import run_episode

    toy = get_domain("toy")
    bad = dataclasses.replace(toy, options={})
    rule = next(iter(toy.rules.values()))
    bad.__dict__["rules"] = {rule.id: rule.model_copy(update={"check": rule.check.model_copy(update={"type": "nope"})})}
    with pytest.raises(SpecError, match=f"rule {rule.id}: unknown rule check type 'nope'"):
        asyncio.run(run_episode(bad, toy.tasks["toy-deposit"], toy_domain.DepositAgent(), ScriptedUser(), seed=1))


def test_the_graders_import_nothing_from_the_runner_the_reports_or_the_gym():
    """Grading sits below them (calibration, a command of its own, is left out)."""
    import ast
    from pathlib import Path

    import graders

    root = Path(graders.__file__).parent
    bad = []
    for f in sorted(root.rglob("*.py")):
        if "calibrate" in f.relative_to(root).parts:
            continue
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            bad += [f"{f.name}: {n}" for n in names if n.split(".")[:2] in (["envs", "run"], ["envs", "report"], ["envs", "gym"])]
    assert not bad and len(list(root.rglob("*.py"))) > 10
