"""Who caused each failure: planted faults of each kind, the rule order, and the LLM reviewer over HTTP."""

from __future__ import annotations

import asyncio
import json

import pytest

from envs.domain import get_domain
from envs.records import AgentEvent, EpisodeRecord, Grade, OutputCheck, TableDiff, ToolCall, ToolEvent, UserEvent
from envs.spec.schema import Action, RequiredOutput
from fake_llm_server import FakeLLMServer, Reply
from envs.run.review import run_reviewer
from graders.causes import episode_cause, needs_review, review_causes
from graders.simulator import simulator_flags

TASK = "sup_cancel_before_dispatch"
REVIEWER = "openai/fake-judge"  # a model the fake server serves, here playing the reviewer


@pytest.fixture(scope="module")
def support():
    return get_domain("support")


def rec(events=(), **kw) -> EpisodeRecord:
    base = dict(episode_id=f"{TASK}#0", task_id=TASK, domain="support", repeat=0, seed=1, termination="user_stop",
                grade=Grade(reward=0.0, state_match=False, outputs_ok=True))
    return EpisodeRecord(transcript=list(events), **{**base, **kw})


def cause_of(r, task, domain):
    return episode_cause(r, task, domain, simulator_flags(r, task, domain))


def test_success_has_no_cause(support):
    assert cause_of(rec(reward=1.0, grade=Grade(reward=1.0, state_match=True, outputs_ok=True)), support.tasks[TASK], support) is None


def test_infrastructure_first(support):
    r = rec(status="error", error="retries exhausted after 5 attempts", error_role="agent", error_kind="rate_limit",
            events=[ToolEvent(turn=0, call=ToolCall(name="get_order"), output="Error: boom", ok=False, error_kind="crashed")])
    c = cause_of(r, support.tasks[TASK], support)
    assert c.cause == "infrastructure" and "agent:rate_limit" in c.evidence[0]


def test_environment_when_a_tool_crashes_on_accepted_arguments(support):
    r = rec([UserEvent(turn=0, content="Cancel O-91201."),
             ToolEvent(turn=1, call=ToolCall(name="get_order", arguments={"order_id": "O-91201"}),
                       output="Error: database is locked", ok=False, error_kind="crashed")])
    c = cause_of(r, support.tasks[TASK], support)
    assert c.cause == "environment" and "get_order" in c.evidence[0] and "turn 1" in c.evidence[0]


def test_task_whose_required_output_no_tool_shows(support):
    task = support.tasks[TASK].model_copy(update={"outputs": [RequiredOutput(value="ZQ-777123", kind="id")]})
    miss = OutputCheck(output="ZQ-777123", found=False, kind="id")
    r = rec([UserEvent(turn=0, content="Cancel O-91201.")], grade=Grade(reward=0.0, state_match=True, outputs_ok=False, outputs=[miss]))
    c = cause_of(r, task, support)
    assert c.cause == "task" and "ZQ-777123" in c.evidence[0]
    # The same output shown by a tool the agent called is the agent's miss, not the task's.
    shown = r.model_copy(update={"transcript": r.transcript + [ToolEvent(turn=0, call=ToolCall(name="get_order"), output='{"ref": "ZQ-777123"}')]})
    c2 = cause_of(shown, task, support)
    assert c2.cause == "agent" and "required outputs not stated: ZQ-777123" in c2.evidence


def test_task_whose_goal_cannot_be_reached(support):
    base = support.tasks[TASK]
    task = base.model_copy(update={"id": base.id + "_unreachable",
                                   "expected_actions": [Action(name="cancel_order", arguments={"order_id": "O-NOSUCH"})]})
    c = cause_of(rec(task_id=task.id), task, support)
    assert c.cause == "task" and "cancel_order" in c.evidence[0]


def test_user_simulator_when_it_withholds_an_asked_fact(support):
    r = rec([UserEvent(turn=0, content="Cancel O-91201."), AgentEvent(turn=1, content="What is your email address?"),
             UserEvent(turn=1, content="Just do it.", stop=True)])
    c = cause_of(r, support.tasks[TASK], support)
    assert c.cause == "user_simulator" and any("unanswered_question" in e for e in c.evidence)
    assert "premature_stop" in c.simulator_flags


def test_agent_wrong_action_before_the_simulator_fault_stays_the_agents(support):
    task = support.tasks["sup_already_refunded_item"]  # nothing should change
    r = rec(task_id=task.id, episode_id=f"{task.id}#0", events=[
        UserEvent(turn=0, content="Refund the candle."),
        ToolEvent(turn=1, call=ToolCall(name="refund_items", arguments={"order_id": "O-93201", "item_ids": [93211]}), output="{}"),
        AgentEvent(turn=1, content="Refunded! What is your email?"),
        UserEvent(turn=1, content="Whatever.", stop=True),
    ], grade=Grade(reward=0.0, state_match=False, outputs_ok=True, diff=[TableDiff(table="refunds", unexpected=[{"id": 1}])]))
    c = cause_of(r, task, support)
    assert c.cause == "agent" and c.strength == "strong" and "refund_items" in c.evidence[0]
    assert "unanswered_question" in c.simulator_flags  # still marked: the simulator also slipped


def test_diff_alone_is_weak_agent_evidence_and_goes_to_review(support):
    task = support.tasks["sup_already_refunded_item"]
    r = rec(task_id=task.id, episode_id=f"{task.id}#0", events=[UserEvent(turn=0, content="Refund it.")],
            grade=Grade(reward=0.0, state_match=False, outputs_ok=True, diff=[TableDiff(table="refunds", unexpected=[{"id": 1}])]))
    c = cause_of(r, task, support)
    assert (c.cause, c.strength) == ("agent", "weak") and needs_review(c)


@pytest.fixture(scope="module")
def server():
    srv = FakeLLMServer().start()
    yield srv
    srv.stop()


def test_reviewer_through_the_fake_server(server, support):
    server.reset()
    server.behaviours["fake-judge"] = lambda body: Reply.text(json.dumps({"cause": "task", "rationale": "No tool shows it."}))
    task = support.tasks["sup_already_refunded_item"]
    weak = rec(task_id=task.id, episode_id=f"{task.id}#0", events=[UserEvent(turn=0, content="Refund it.")],
               grade=Grade(reward=0.0, state_match=False, outputs_ok=True, diff=[TableDiff(table="refunds", unexpected=[{"id": 1}])]))
    strong = weak.model_copy(update={"episode_id": f"{task.id}#1", "repeat": 1, "status": "error", "error": "x", "error_kind": "timeout"})
    out = run_reviewer([weak, strong], support, REVIEWER, api_base=server.url)
    assert list(out) == [weak.episode_id]  # the infrastructure error is decided by the rules, not reviewed
    c = out[weak.episode_id]
    assert (c.cause, c.source) == ("task", "reviewer") and c.evidence[0] == "reviewer: No tool shows it."
    prompts = [json.dumps(r["messages"]) for r in server.requests if "fake-judge" in json.dumps(r)]
    assert any("Refund it." in p for p in prompts)


def test_reviewer_garbage_keeps_the_rules_cause(server, support):
    server.reset()
    server.behaviours["fake-judge"] = lambda body: Reply.text("I think maybe the moon")
    from envs.actors.roles import RoleConfig
    from envs.run.llm_flags import make_llm_context

    ctx = make_llm_context({"llm": {}}, {"reviewer": RoleConfig(spec=REVIEWER, api_base=server.url)})
    task = support.tasks["sup_already_refunded_item"]
    r = rec(task_id=task.id, episode_id=f"{task.id}#0", grade=Grade(reward=0.0, state_match=False, outputs_ok=True,
                                                                    diff=[TableDiff(table="refunds", unexpected=[{"id": 1}])]))
    c = cause_of(r, task, support)
    out = asyncio.run(review_causes([r], {r.episode_id: c}, support.tasks, ctx.client, ctx.endpoint("reviewer")))
    got = out[r.episode_id]
    assert (got.cause, got.source) == ("agent", "rules") and "no usable cause" in got.evidence[-1]


def test_cli_reviewer_flag_labels_the_summary(server, tmp_path):
    server.reset()
    server.behaviours["fake-judge"] = lambda body: Reply.text(json.dumps({"cause": "agent", "rationale": "r"}))
    from envs.run.cli import main

    out = tmp_path / "run"
    rc = main(["--domain", "support", "--tasks", "sup_already_refunded_item", "--agent", "scripted:eager", "--out", str(out),
               "--quiet", "--reviewer", REVIEWER, "--reviewer-api-base", server.url])
    assert rc == 0
    s = json.loads((out / "summary.json").read_text())
    assert s["simulator"]["reviewer"] == REVIEWER and (out / "reviews.json").exists()
    assert s["simulator"]["causes"] == {"agent": 1}


def test_a_wrong_action_after_the_simulator_fault_is_the_simulators(support):
    # user turn 1 answers reply 1 and withholds the email; the refund belongs to reply 2, after it
    task = support.tasks["sup_already_refunded_item"]
    r = rec(task_id=task.id, episode_id=f"{task.id}#0", events=[
        UserEvent(turn=0, content="Refund the candle."),
        AgentEvent(turn=1, content="What is your email?"),
        UserEvent(turn=1, content="Whatever."),
        ToolEvent(turn=2, call=ToolCall(name="refund_items", arguments={"order_id": "O-93201", "item_ids": [93211]}), output="{}"),
        AgentEvent(turn=2, content="Refunded."),
        UserEvent(turn=2, content="Bye.", stop=True),
    ], grade=Grade(reward=0.0, state_match=False, outputs_ok=True, diff=[TableDiff(table="refunds", unexpected=[{"id": 1}])]))
    c = cause_of(r, task, support)
    assert c.cause == "user_simulator" and "before the agent's first wrong action (turn 2)" in c.evidence


def test_tools_verdicts_and_causes_share_one_turn_numbering(support):
    import asyncio

    from envs.actors.scripted_user import ScriptedUser
    from envs.episode import run_episode

    task = support.tasks["sup_damaged_out_of_stock"]
    rec_ = asyncio.run(run_episode(support, task, support.scripted_agents["eager"](), ScriptedUser(), seed=0))
    events = rec_.transcript
    for i, e in enumerate(events):
        if isinstance(e, ToolEvent) and e.side == "agent":
            reply = next((x for x in events[i:] if isinstance(x, AgentEvent)), None)
            assert reply is None or reply.turn == e.turn, (e, reply)  # a tool call carries its reply's turn
    c = cause_of(rec_, task, support)
    (refund,) = [e for e in events if isinstance(e, ToolEvent) and e.call.name == "refund_items"]
    assert any(ev.startswith(f"turn {refund.turn}: extra or wrong action refund_items") for ev in c.evidence), c.evidence
    assert refund.turn in {v.turn for v in rec_.verdicts}  # the reply it led to was judged on that same turn


def test_a_budget_stop_is_the_budgets_not_the_agents(support):
    r = rec([UserEvent(turn=0, content="Cancel O-91201.")], termination="budget_tokens", budget="token budget spent (41 of limit 40)")
    c = cause_of(r, support.tasks[TASK], support)
    assert c.cause == "budget" and "token budget spent" in c.evidence[0]
