"""A failed episode's first failure in words (``graders.outcome.in_words``): the cause first, no domain words."""

from __future__ import annotations

from envs.records import EpisodeRecord, Grade, RowChange, TableDiff, ToolCall, ToolEvent
from graders.outcome.in_words import diff_in_words, join_phrases, why_failed


def _rec(diff, transcript=(), **kw):
    g = Grade(reward=0.0, state_match=False, outputs_ok=True, diff=diff)
    return EpisodeRecord(episode_id="e", task_id="t", domain="d", repeat=0, seed=0, grade=g, transcript=list(transcript), **kw)


def test_a_row_made_where_the_goal_makes_another_is_said_by_what_differs():
    made = {"id": 263, "order_id": "O-1", "amount_cents": 16200, "reason": "damaged", "created_at": "2026-06-15 12:00:00"}
    goal = {**made, "id": 144, "amount_cents": 12250}
    diff = [
        TableDiff(table="items", changed=[
            RowChange(key={"id": 10}, columns={"ref": {"actual": 263, "expected": 144}}),  # the same fact again
            RowChange(key={"id": 11}, columns={"status": {"actual": "done", "expected": "open"}, "ref": {"actual": 263, "expected": None}}),
        ]),
        TableDiff(table="payments", unexpected=[made], missing=[goal]),
    ]
    assert diff_in_words(diff) == [
        "payments: a row made with amount_cents 16200 (goal 12250)",
        "items 11: status 'done' (goal 'open'), ref 263 (goal None)",
    ]


def test_unpaired_rows_are_extra_or_missing_with_what_describes_them():
    diff = [TableDiff(table="claims", missing=[{"id": 1, "order_id": "O-2", "reason": "lost", "note": None, "created_at": "2026-01-01 00:00:00"}]),
            TableDiff(table="notes", unexpected=[{"id": 9, "text": "hello"}])]
    assert diff_in_words(diff) == ["notes: an extra row (text 'hello')", "claims: the goal's row is missing (order_id 'O-2', reason 'lost')"]


def test_rows_that_share_little_are_not_paired():
    diff = [TableDiff(table="t", unexpected=[{"id": 1, "a": 1, "b": 2, "c": 3}], missing=[{"id": 2, "a": 9, "b": 8, "c": 3}])]
    words = diff_in_words(diff)
    assert words[0].startswith("t: an extra row") and words[1].startswith("t: the goal's row is missing")


def test_actions_lead_wrong_arguments_extra_and_missing():
    from envs.domain import get_domain

    domain = get_domain("toy")
    task = next(iter(domain.tasks.values()))
    (want,) = [a for a in task.expected_actions if domain.agent_tools.tools[a.name].mutates]
    args = {**want.arguments, "amount": 999}
    ev = ToolEvent(turn=1, call=ToolCall(name=want.name, arguments=args), output="{}")
    diff = [TableDiff(table="accounts", changed=[RowChange(key={"id": "A001"}, columns={"balance": {"actual": 1, "expected": 2}})])]
    why = why_failed(_rec(diff, [ev]), task, domain)
    assert why.startswith(f"{want.name} with amount 999 (goal {want.arguments['amount']})"), why
    assert "accounts A001: balance 1 (goal 2)" in why
    assert why_failed(_rec(diff, []), task, domain).startswith(f"missing action {want.name}(")


def test_errors_and_budgets_come_first_and_phrases_are_cut_whole():
    assert why_failed(_rec([], status="error", error="boom", error_role="agent", error_kind="timeout")) == "error (agent:timeout): boom"
    assert why_failed(_rec([], termination="budget_tokens", budget="token budget spent")).startswith("budget_tokens: token budget spent")
    assert join_phrases(["a" * 10, "b" * 10, "c" * 10], limit=33) == "a" * 10 + "; " + "b" * 10 + " (+1 more)"
    assert join_phrases(["x" * 50], limit=10) == "x" * 50  # one phrase is never cut
