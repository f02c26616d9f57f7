"""The simulator's fidelity flags on planted faults, and the summary's simulator block recounted."""

from __future__ import annotations

import json

import pytest

from envs.domain import get_domain
from envs.records import AgentEvent, EpisodeRecord, ToolCall, ToolEvent, UserEvent
from graders.simulator import FLAG_NAMES, asks_about, measurable, reveals, simulator_flags

TASK = "sup_cancel_before_dispatch"  # hidden facts: email, zip


@pytest.fixture(scope="module")
def support():
    return get_domain("support")


def rec(events, **kw) -> EpisodeRecord:
    base = dict(episode_id=f"{TASK}#0", task_id=TASK, domain="support", repeat=0, seed=1, termination="user_stop")
    return EpisodeRecord(transcript=events, **{**base, **kw})


def U(turn, text, situation="cooperative", stop=False):
    return UserEvent(turn=turn, content=text, situation=situation, stop=stop)


def A(turn, text):
    return AgentEvent(turn=turn, content=text)


def fired(flags):
    return {k for k, v in flags.items() if v}


def test_a_clean_transcript_fires_nothing(support):
    t = support.tasks[TASK]
    r = rec([
        U(0, "Please cancel my order O-91201, I ordered it by mistake."),
        A(1, "I can help. What is the email address on your account?"),
        U(1, "My email is ethan.brooks@example.com."),
        A(2, "Thanks. And the zip code?"),
        U(2, "My zip code is 85701."),
        A(3, "Your order O-91201 is now cancelled."),
        U(3, "Thanks, that's everything.", stop=True),
    ])
    assert fired(simulator_flags(r, t, support)) == set()


def test_repeated_line_is_flagged_but_a_short_yes_is_not(support):
    t = support.tasks[TASK]
    r = rec([U(0, "Please cancel my order now."), A(1, "Sure?"), U(1, "Yes."), A(2, "Ok?"), U(2, "Yes."),
             A(3, "Hm."), U(3, "please cancel my  order now.")])
    hits = simulator_flags(r, t, support)["repeated_verbatim"]
    assert [(h.turn, "turn 0" in h.evidence) for h in hits] == [(3, True)]


def test_spoken_tool_error_from_the_users_own_tool_and_from_error_words(support):
    t = support.tasks[TASK]
    err = "Error: invalid arguments for check_doorstep: order_id: Field required"
    r = rec([
        U(0, "Where is my parcel?"),
        A(1, "Could you check your doorstep?"),
        ToolEvent(turn=1, side="user", call=ToolCall(name="check_doorstep"), output=err, ok=False, error_kind="bad_arguments"),
        U(1, "I checked: Error: invalid arguments for check_doorstep: order_id: Field required"),
        A(2, "Hm."),
        U(2, "My app says Error: session expired."),
    ])
    hits = simulator_flags(r, t, support)["tool_error_spoken"]
    assert [h.turn for h in hits] == [1, 2]
    assert "repeats its tool's error" in hits[0].evidence and "check_doorstep" in hits[0].evidence


def test_unanswered_question_and_premature_stop(support):
    t = support.tasks[TASK]
    r = rec([
        U(0, "Please cancel my order O-91201."),
        A(1, "Could you confirm the email on your account?"),
        U(1, "Just cancel it."),
        A(2, "I need the email address to verify you, please."),
        U(2, "Forget it.", stop=True),
    ])
    f = simulator_flags(r, t, support)
    assert [h.turn for h in f["unanswered_question"]] == [1, 2]
    assert [h.turn for h in f["premature_stop"]] == [2]
    assert "email" in f["unanswered_question"][0].evidence
    # A fact given earlier is not unanswered when asked again; a mere mention is not a question.
    r2 = rec([U(0, "Cancel O-91201. My email is ethan.brooks@example.com."), A(1, "What is your email?"), U(1, "I said it."),
              A(2, "We never email receipts."), U(2, "Ok.")])
    assert not simulator_flags(r2, t, support)["unanswered_question"]


def test_asks_and_reveals():
    class F:
        asked_by = ["zip"]
    assert asks_about("What's the zip code on file?", F) and asks_about("Please send me your ZIP.", F)
    assert not asks_about("Your zip code matched.", F)
    assert reveals("it's 85701 I think", "My zip code is 85701.")
    assert not reveals("it's 85702", "My zip code is 85701.")


def test_turn_budget_and_lingered(support):
    t = support.tasks[TASK]
    ev = [U(0, "Cancel it."), A(1, "Done, cancelled."), U(1, "Great."), A(2, "Anything else?"), U(2, "Tell me a joke."),
          A(3, "No."), U(3, "Another one then."), A(4, "No."), U(4, "Ok bye.", stop=True)]
    f = simulator_flags(rec(ev, goal_met_turn=0), t, support)
    assert [h.turn for h in f["lingered"]] == [4] and "4 turns later" in f["lingered"][0].evidence
    assert not simulator_flags(rec(ev, goal_met_turn=2), t, support)["lingered"]
    r = rec(ev)
    assert not simulator_flags(r, t, support)["lingered"] and not measurable("lingered", r, t)
    budget = simulator_flags(rec(ev[:-1], termination="max_turns"), t, support)["turn_budget"]
    assert len(budget) == 1 and "max_turns 14" in budget[0].evidence


def test_situation_mismatch_generic_tone(support):
    t = support.tasks[TASK]
    r = rec([U(0, "Hi. Cancel my order."), A(1, "Ok?"), U(1, "Hello there. Yes."), A(2, "Ok."),
             U(2, "This is unacceptable! Thanks so much.", situation="furious")])
    hits = simulator_flags(r, t, support)["situation_mismatch"]
    assert [h.turn for h in hits] == [1, 2] and not any(h.causal for h in hits)
    assert "greeting" in hits[0].evidence and "furious" in hits[1].evidence


def test_tutoring_hook_makes_mistake_with_the_right_answer():
    d = get_domain("tutoring")
    task = next(iter(d.tasks.values()))
    mind = task.extra["student_mind"]
    ans, wrong = mind["answer"], mind.get("wrong_answer")
    r = EpisodeRecord(episode_id=f"{task.id}#0", task_id=task.id, domain="tutoring", repeat=0, seed=0, transcript=[
        UserEvent(turn=0, content=f"Hi, I need help with this problem: \"{mind['statement']}\"", situation="gets_confused"),
        AgentEvent(turn=1, content="What did you get?"),
        UserEvent(turn=1, content=f"I got {ans}.", situation="makes_mistake"),
        AgentEvent(turn=2, content="Walk me through it."),
        UserEvent(turn=2, content="I don't know, maybe the bus?", situation="solves_problem"),
        AgentEvent(turn=3, content=f"So the answer is {ans}."),
        UserEvent(turn=3, content=f"Oh, so it's {ans}.", situation="makes_mistake"),
    ])
    hits = simulator_flags(r, task, d)["situation_mismatch"]
    assert [h.turn for h in hits] == [1, 2] and all(h.causal for h in hits)
    if wrong is not None:  # a student still holding its misconception may state its answer when "solving"
        r.transcript[4] = UserEvent(turn=2, content=f"My answer is {wrong}.", situation="solves_problem")
        assert [h.turn for h in simulator_flags(r, task, d)["situation_mismatch"]] == [1]


def test_run_summary_block_recounted_by_brute_force(tmp_path, support, played_runs):
    out = played_runs.copy(played_runs.EAGER2, tmp_path / "run")
    s = json.loads((out / "summary.json").read_text())
    recs = [EpisodeRecord.model_validate_json(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    sim = s["simulator"]
    assert set(sim["flags"]) == set(FLAG_NAMES)
    for name in FLAG_NAMES:
        hits = {r.episode_id: simulator_flags(r, support.tasks[r.task_id], support)[name] for r in recs}
        eps = sorted(k for k, v in hits.items() if v)
        f = sim["flags"][name]
        assert f["count"] == sum(len(v) for v in hits.values()) and sorted(f["episodes"]) == eps
        measured = sum(measurable(name, r, support.tasks[r.task_id]) for r in recs)
        assert f["measured"] == measured and f["share"] == (len(eps) / measured if measured else None)
    failed = [r for r in recs if not (r.status == "ok" and r.reward >= 1)]
    assert sum(sim["causes"].values()) == len(failed) == len(sim["episodes"])
    assert {e["episode_id"] for e in sim["episodes"]} == {r.episode_id for r in failed}
    assert sorted(sim["flagged_failures"]) == sorted(e["episode_id"] for e in sim["episodes"] if e["simulator_flags"])
    for p in s["per_task"]:
        assert sum(p.get("causes", {}).values()) == p["trials"] - p["successes"]
    # agent-only pass^1: successes over the trials not failed for a reason outside the agent
    kept = {e["episode_id"] for e in sim["episodes"] if e["cause"] not in ("agent", "unknown")}
    by_task: dict[str, list[int]] = {}
    for r in recs:
        if r.episode_id not in kept:
            n_c = by_task.setdefault(r.task_id, [0, 0])
            n_c[0] += 1
            n_c[1] += int(r.status == "ok" and r.reward >= 1)
    assert s["pass_hat_k_agent_only"]["1"] == pytest.approx(sum(c / n for n, c in by_task.values()) / len(by_task))
    html = (out / "report.html").read_text()
    assert "Simulated user fidelity" in html and "agent-caused" in html


def test_careful_run_has_no_flags_on_most_episodes(tmp_path, support, played_runs):
    out = played_runs.copy(played_runs.CAREFUL2, tmp_path / "careful")
    s = json.loads((out / "summary.json").read_text())
    flagged = set().union(*(set(f["episodes"]) for f in s["simulator"]["flags"].values()))
    assert len(flagged) < s["episodes"] / 2
