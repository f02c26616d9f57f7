"""The tutoring domain: problems, GSM8K loader, tools, rule checks, scripted actors, gym env."""

from __future__ import annotations

import asyncio
import json
from fractions import Fraction
from pathlib import Path

import gymnasium
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import envs  # noqa: F401
from domains.tutoring import models as m
from domains.tutoring.domain import make_tutoring_domain
from domains.tutoring.problems import evaluate, load_gsm8k, load_handwritten, misconceptions, numbers_in, parse_number
from envs.domain import get_domain
from envs.episode import episode_seed, run_episode
from envs.records import AgentEvent, ToolCall, ToolEvent, UserEvent
from envs.gym.registration import register_envs
from envs.errors import SpecError
from envs.state.database import EpisodeState, build_template
from graders.rules.checks import run_check

REPO = Path(__file__).resolve().parents[1]
GSM8K = REPO.parent / "shared" / "data" / "gsm8k" / "test.jsonl"
MRBENCH = REPO.parent / "shared" / "data" / "mrbench" / "MRBench_V2.json"
GOLD = REPO / "domains" / "tutoring" / "gold.yaml"


@pytest.fixture(scope="module")
def dom():
    d = get_domain("tutoring")
    d.template()
    return d


@pytest.fixture(scope="module")
def shared_state(dom):
    st_ = EpisodeState(dom.base, dom.template())
    yield st_
    st_.close()


def play(dom, task, agent: str, seed: int, state=None):
    return asyncio.run(
        run_episode(
            dom,
            task,
            dom.scripted_agents[agent](),
            dom.scripted_users["default"](),
            seed=episode_seed(seed, task.id, 0),
            state=state,
        )
    )


# --- problems ----------------------------------------------------------------------------------


def test_every_answer_recomputes_from_its_steps():
    problems = load_handwritten()
    assert len(problems) >= 40
    assert len({p.id for p in problems}) == len(problems)
    topics = {p.topic for p in problems}
    assert {"arithmetic", "fractions", "percentages", "rates", "money", "time"} <= topics
    guide = misconceptions()
    for p in problems:
        assert len(p.steps) >= 2, f"{p.id} is not multi-step"
        for s in p.steps:
            assert evaluate(s.expr) == parse_number(s.result), f"{p.id}: {s.expr} != {s.result}"
        assert parse_number(p.steps[-1].result) == p.value, f"{p.id}: answer is not the last step's result"
        stated = set(numbers_in(p.statement))
        assert p.value not in stated, f"{p.id}: the answer appears in the statement"
        assert p.common_errors, f"{p.id} has no common error"
        for e in p.common_errors:
            assert e.code in guide, f"{p.id}: unknown misconception {e.code}"
            wrong = evaluate(e.expr)
            assert wrong == parse_number(e.answer), f"{p.id}: {e.expr} != {e.answer}"
            if e.coincides:  # right for a wrong reason: only the working tells it apart
                # and wrong as a method: a working that is one of the right method's own steps (its other
                # steps done in the head, as "100-18" is for 18% of 100) is a shortcut, not a wrong reason
                assert wrong == p.value and e.expr.replace(" ", "") not in {s.expr.replace(" ", "") for s in p.steps}, (
                    f"{p.id}: {e.code}'s working {e.expr} is a step of the right method, not a wrong reason")
                continue
            assert wrong != p.value and wrong not in stated, f"{p.id}: {e.code} is not a distinguishable wrong answer"
        for k, code in enumerate(p.chain):  # a misconception per step: each one's answer tells it apart
            assert code in {e.code for e in p.common_errors}, p.id
            later = [parse_number(e.answer) for e in p.common_errors if e.code in p.chain[k + 1:]]
            assert all(parse_number(e.answer) not in later + [parse_number(s.result) for s in p.steps] for e in p.common_errors if e.code == code), p.id


def test_guide_hints_address_their_misconception_without_numbers_from_solutions():
    for code, mc in misconceptions().items():
        assert any(k.lower() in mc.hint.lower() for k in mc.keywords), f"{code}: hint lacks its keywords"


def test_number_parsing():
    assert numbers_in("It costs $1,200.50 and 3/4 of it, at 3:45") == [
        Fraction("1200.50"),
        Fraction(3, 4),
        Fraction(3),
        Fraction(45),
    ]
    assert parse_number("$2.30") == Fraction(23, 10) and parse_number("5/12") == Fraction(5, 12)
    with pytest.raises(ValueError):
        evaluate("__import__('os')")


# --- the GSM8K loader -------------------------------------------------------------------------------


def _write(tmp_path, lines: list[str]) -> Path:
    p = tmp_path / "mini.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


GOOD = [
    json.dumps({"question": "Ann has 3 bags of 4 apples. She eats 2. How many are left?", "answer": "3*4=<<3*4=12>>12\n12-2=<<12-2=10>>10\n#### 10"}),
    json.dumps({"question": "A pen costs $1.50. How much do 3 pens cost?", "answer": "No annotations here.\n#### 4.50"}),
    json.dumps({"question": "Big number?", "answer": "It is big.\n#### 1,234"}),
]


def test_gsm8k_loader_parses_steps_and_answers(tmp_path):
    probs = load_gsm8k(_write(tmp_path, GOOD))
    assert [p.answer for p in probs] == ["10", "4.5", "1234"]
    a = probs[0]
    assert [s.expr for s in a.steps] == ["3*4", "12-2"] and a.common_errors[0].answer == "12"
    assert a.source.endswith(":1") and a.id == "GSM-0001"


@pytest.mark.parametrize(
    "bad, reason",
    [
        ("{not json", "not valid JSON"),
        (json.dumps({"answer": "#### 3"}), "missing or empty 'question'"),
        (json.dumps({"question": "q?", "answer": "no marker"}), "does not end with '#### <number>'"),
        (json.dumps({"question": "q?", "answer": "#### seven"}), "is not a number"),
        (json.dumps(["a list"]), "expected a JSON object"),
    ],
)
def test_gsm8k_loader_names_file_and_line_of_a_bad_line(tmp_path, bad, reason):
    path = _write(tmp_path, GOOD[:2] + [bad] + GOOD[2:])
    with pytest.raises(SpecError) as e:
        load_gsm8k(path)
    assert str(e.value).startswith(f"{path}: line 3: ") and reason in str(e.value)


def test_real_gsm8k_test_set_parses():
    if not GSM8K.is_file():
        pytest.skip(f"GSM8K not found at {GSM8K} (place test.jsonl there to run this check)")
    probs = load_gsm8k(GSM8K)
    assert len(probs) == 1319
    assert all(isinstance(p.value, Fraction) for p in probs)
    assert sum(len(p.steps) >= 2 for p in probs) > 1000  # calculator annotations became checkable steps


def test_problems_option_builds_tasks_from_a_gsm8k_file(tmp_path):
    d = make_tutoring_domain().with_options(problems=str(_write(tmp_path, GOOD)))
    assert set(d.problems) == {"GSM-0001", "GSM-0002", "GSM-0003"}
    assert len(d.tasks) == 3
    st_ = EpisodeState(d.base, d.template())
    assert st_.session.query(m.Problem).count() == 3
    st_.close()
    rec = play(d, d.tasks["tutoring-gsm-0001"], "socratic", 0)
    assert rec.status == "ok" and rec.reward == 1.0, rec.grade.diff if rec.grade else rec.error


# --- state and tools ---------------------------------------------------------------------------------


def test_template_is_deterministic(dom):
    from domains.tutoring.domain import seed_handwritten

    a = build_template(dom.base, seed_handwritten, 3)
    assert a == build_template(dom.base, seed_handwritten, 3)
    assert a != build_template(dom.base, seed_handwritten, 4)
    st_ = EpisodeState(dom.base, dom.template())
    assert st_.session.query(m.Student).count() >= 150
    assert st_.session.query(m.TutoringSession).count() >= 400
    assert st_.session.query(m.TutoringSession).filter_by(status="open").count() == 0
    st_.close()


def _task_state(dom, task_id="tutoring-01-tp03-percent-as-amount"):
    task = dom.tasks[task_id]
    return task, EpisodeState(dom.base, dom.initial_bytes(task))


def test_tools_enforce_the_platform_rules(dom):
    task, st_ = _task_state(dom)
    a, u, s = dom.agent_tools, dom.user_tools, st_.session
    sid = "TS-T001"
    out = a.call(s, "mark_solved", {"session_id": sid})
    assert not out.ok and "has not submitted" in out.output
    assert u.call(s, "submit_answer", {"answer": "55"}).ok
    assert not a.call(s, "mark_solved", {"session_id": sid}).ok
    res = json.loads(a.call(s, "check_answer", {"session_id": sid, "answer": "55"}).output)
    assert res == {"answer": "55", "correct": False, "matches_common_error": "percent_as_amount"}
    assert "60" not in json.dumps(res)
    assert not a.call(s, "give_hint", {"session_id": sid, "level": 2, "text": "x"}).ok  # escalate one level at a time
    assert not a.call(s, "give_hint", {"session_id": sid, "level": 1, "text": "Is it 60?"}).ok  # never the answer
    for lvl in (1, 2, 3, 3):
        assert a.call(s, "give_hint", {"session_id": sid, "level": lvl, "text": "Think about percent of the price."}).ok
    row = s.get(m.TutoringSession, sid)
    assert row.hints_given == 4 and row.hints_over_budget and row.max_hint_level == 3
    assert a.call(s, "log_misconception", {"session_id": sid, "code": "percent_as_amount", "evidence": "55"}).ok
    assert not a.call(s, "log_misconception", {"session_id": sid, "code": "percent_as_amount", "evidence": "again"}).ok
    assert not a.call(s, "log_misconception", {"session_id": sid, "code": "made_up", "evidence": "x"}).ok
    assert u.call(s, "submit_answer", {"answer": "$60"}).ok
    assert a.call(s, "mark_solved", {"session_id": sid}).ok
    assert json.loads(a.call(s, "record_progress", {"session_id": sid, "skill": "percentages"}).output)["outcome"] == "solved"
    assert not a.call(s, "record_progress", {"session_id": sid, "skill": "time"}).ok
    assert "already closed" in u.call(s, "end_session", {}).output
    assert s.get(m.TutoringSession, sid).status == "solved"
    st_.close()


def test_reveal_and_end_session(dom):
    _, st_ = _task_state(dom)
    a, u, s = dom.agent_tools, dom.user_tools, st_.session
    out = json.loads(a.call(s, "reveal_solution", {"session_id": "TS-T001"}).output)
    assert out["status"] == "answer_revealed" and out["final_answer"] == "60"
    assert not u.call(s, "submit_answer", {"answer": "60"}).ok
    st_.close()
    _, st_ = _task_state(dom)
    assert dom.user_tools.call(st_.session, "end_session", {"reason": "tired"}).ok
    assert st_.session.get(m.TutoringSession, "TS-T001").status == "abandoned"
    assert not dom.agent_tools.call(st_.session, "mark_solved", {"session_id": "TS-T001"}).ok
    st_.close()


ACTIONS = st.one_of(
    st.tuples(st.just("user"), st.just("submit_answer"), st.fixed_dictionaries({"answer": st.sampled_from(["60", "55", "20", "abc", "60.0", "$60"])})),
    st.tuples(st.just("user"), st.just("end_session"), st.just({})),
    st.tuples(st.just("user"), st.just("show_work"), st.just({"content": "80 - 25"})),
    st.tuples(st.just("agent"), st.just("mark_solved"), st.just({"session_id": "TS-T001"})),
    st.tuples(st.just("agent"), st.just("reveal_solution"), st.just({"session_id": "TS-T001"})),
    st.tuples(
        st.just("agent"),
        st.just("give_hint"),
        st.fixed_dictionaries({"session_id": st.just("TS-T001"), "level": st.integers(0, 4), "text": st.sampled_from(["Think.", "Is it 60?", "25% of 80?"])}),
    ),
    st.tuples(
        st.just("agent"),
        st.just("check_answer"),
        st.fixed_dictionaries({"session_id": st.just("TS-T001"), "answer": st.sampled_from(["60", "55", "x"])}),
    ),
    st.tuples(
        st.just("agent"),
        st.just("log_misconception"),
        st.fixed_dictionaries({"session_id": st.just("TS-T001"), "code": st.sampled_from(["percent_as_amount", "stopped_early", "bogus"]), "evidence": st.just("e")}),
    ),
    st.tuples(st.just("agent"), st.just("record_progress"), st.just({"session_id": "TS-T001", "skill": "percentages"})),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seq=st.lists(ACTIONS, max_size=14))
def test_invariants_under_random_tool_sequences(dom, seq):
    task, st_ = _task_state(dom)
    s = st_.session
    try:
        for side, name, args in seq:
            tools = dom.agent_tools if side == "agent" else dom.user_tools
            out = tools.call(s, name, args)
            if name == "check_answer" and out.ok:
                assert "60" not in out.output or json.loads(out.output)["answer"] in ("60",)
            row = s.get(m.TutoringSession, "TS-T001")
            attempts = s.query(m.Attempt).filter_by(session_id="TS-T001").order_by(m.Attempt.n).all()
            assert row.status in m.SESSION_STATUSES
            # never solved by the student without a correct attempt of theirs
            assert (row.status == "solved") == row.solved_by_student
            if row.status == "solved":
                assert any(x.correct for x in attempts)
            hints = s.query(m.HintGiven).filter_by(session_id="TS-T001").all()
            assert row.hints_given == len(hints) and row.hints_over_budget == (len(hints) > row.hint_budget)
            assert all(Fraction(60) not in numbers_in(h.text) for h in hints)
            assert [x.n for x in attempts] == list(range(1, len(attempts) + 1))
    finally:
        st_.close()


# --- tasks and scripted actors -----------------------------------------------------------------------


def test_tasks_are_valid_and_goals_replay_cleanly(dom):
    assert len(dom.tasks) >= 30
    outcomes = set()
    for t in dom.tasks.values():
        _, _, problems = dom.goal(t)
        assert not problems, f"{t.id}: {problems}"
        st_ = EpisodeState(dom.base, dom.goal(t)[0])
        outcomes.add(st_.session.get(m.TutoringSession, t.initial_state.insert[0].row["id"]).status)
        st_.close()
    assert outcomes == {"solved", "abandoned", "open"}


def test_socratic_passes_every_task(dom, shared_state):
    failed = []
    for t in sorted(dom.tasks.values(), key=lambda t: t.id):
        for seed in (0, 1):
            rec = play(dom, t, "socratic", seed, state=shared_state)
            if rec.status != "ok" or rec.reward != 1.0:
                failed.append((t.id, seed, rec.error or [d.model_dump() for d in rec.grade.diff]))
    assert not failed, failed


def test_teller_fails_the_tasks_built_to_catch_it(dom, shared_state):
    caught = [t for t in dom.tasks.values() if "teller" in t.catches]
    assert len(caught) >= 25
    passed = [t.id for t in caught for seed in (0, 1) if play(dom, t, "teller", seed, state=shared_state).reward == 1.0]
    assert not passed, passed


def _compliance(dom, agent, state):
    fol = vio = 0
    for t in sorted(dom.tasks.values(), key=lambda t: t.id):
        rec = play(dom, t, agent, 0, state=state)
        fol += sum(v.verdict == "FOLLOWED" for v in rec.verdicts)
        vio += sum(v.verdict == "VIOLATED" for v in rec.verdicts)
    return fol / max(1, fol + vio)


def test_rule_profile_separates_the_tutors(dom, shared_state):
    soc, tel = _compliance(dom, "socratic", shared_state), _compliance(dom, "teller", shared_state)
    print(f"rule compliance: socratic {soc:.2f}, teller {tel:.2f}")
    assert soc >= 0.97 and tel <= 0.6


def test_scripted_student_plays_its_misconception_until_addressed(dom):
    task = dom.tasks["tutoring-01-tp03-percent-as-amount"]
    rec = play(dom, task, "teller", 3)
    subs = [e.call.arguments["answer"] for e in rec.transcript if isinstance(e, ToolEvent) and e.side == "user" and e.call.name == "submit_answer"]
    # the vague tutor never addresses the misconception: every answer the student works out is 55
    assert subs and all(a in ("55", "60") for a in subs)
    if "60" in subs:  # only when the teller gave the answer away
        assert any(isinstance(e, ToolEvent) and e.call.name == "reveal_solution" for e in rec.transcript)


# --- rule checks -------------------------------------------------------------------------------------


def _events(student: str, reply: str, answer: str | None = "60", statement: str = "A jacket costs $80. It is 25% off.", tools=()):
    ev = [UserEvent(turn=0, content=student, situation="makes_mistake")]
    if answer is not None:
        out = json.dumps({"statement": statement, "final_answer": answer, "steps": [{"result": "20"}, {"result": answer}]})
        ev.append(ToolEvent(turn=0, call=ToolCall(id="c1", name="get_problem", arguments={"problem_id": "TP03"}), output=out))
    ev.extend(tools)
    ev.append(AgentEvent(turn=1, content=reply))
    return ev, len(ev) - 1


@pytest.mark.parametrize(
    "check, student, reply, verdict",
    [
        ("tutoring_no_answer_leak", "I got 55.", "Not quite. The answer is 60.", "VIOLATED"),
        ("tutoring_no_answer_leak", "I got 60.", "Yes, 60 is right.", "FOLLOWED"),
        ("tutoring_no_answer_leak", "I'm stuck.", "What is 25% of 80?", "FOLLOWED"),
        ("tutoring_one_step", "help", "First 80 x 25 / 100 = 20, then 80 - 20 = 60.", "VIOLATED"),
        ("tutoring_one_step", "help", "Let's just find the discount first. How?", "FOLLOWED"),
        ("tutoring_locate_mistake", "I got 55.", "Check the step where you used the 25 - what is it a part of?", "FOLLOWED"),
        ("tutoring_locate_mistake", "I got 55.", "You should subtract 20 instead.", "VIOLATED"),
        ("tutoring_specific_praise", "I got 60.", "Great job!", "VIOLATED"),
        ("tutoring_specific_praise", "I got 60.", "Great - you took the discount off the price first.", "FOLLOWED"),
        ("tutoring_accurate", "hmm", "Remember 80 x 25 / 100 = 25.", "VIOLATED"),
        ("tutoring_solved_needs_correct", "I got 55.", "Well done, you did it!", "VIOLATED"),
        ("tutoring_clarify", "maybe 60 or something?", "When you say 60, is that your final answer?", "FOLLOWED"),
        ("tutoring_clarify", "maybe 55 or something?", "That's wrong.", "VIOLATED"),
    ],
)
def test_rule_checks_on_small_transcripts(check, student, reply, verdict):
    import domains.tutoring.checks  # noqa: F401

    events, idx = _events(student, reply)
    assert run_check(check, {}, events, idx)[0] == verdict


def test_answer_check_needs_the_problem_or_says_so():
    import domains.tutoring.checks  # noqa: F401

    events, idx = _events("I'm stuck.", "It's 60.", answer=None)
    assert run_check("tutoring_no_answer_leak", {}, events, idx)[0] == "NEEDS_REVIEW"


def test_gold_set_format_and_check_agreement(dom):
    items = yaml.safe_load(GOLD.read_text(encoding="utf-8"))["gold"]
    assert len(items) >= 48 and len({i["id"] for i in items}) == len(items)
    assert sum(i["label"] == "FOLLOWED" for i in items) == sum(i["label"] == "VIOLATED" for i in items)
    assert {i["rule"] for i in items} == set(dom.rules)
    agree = decided = 0
    for i in items:
        assert set(i) == {"id", "rule", "situation", "dialogue", "reply", "label", "source"}
        assert i["situation"] in dom.situations and i["rule"] in dom.situations[i["situation"]].rules
        assert i["source"] in ("rule example", "written") and i["label"] in ("FOLLOWED", "VIOLATED")
        events = [
            UserEvent(turn=n, content=d["content"], situation=i["situation"]) if d["role"] == "student" else AgentEvent(turn=n, content=d["content"])
            for n, d in enumerate(i["dialogue"])
        ]
        events.append(AgentEvent(turn=len(events), content=i["reply"]))
        rule = dom.rules[i["rule"]]
        v, _ = run_check(rule.check.type, rule.check.params, events, len(events) - 1)
        if v in ("FOLLOWED", "VIOLATED"):
            decided += 1
            agree += v == i["label"]
    print(f"deterministic checks vs gold labels: {agree}/{decided} agree ({decided} of {len(items)} decided without the problem)")
    assert decided >= 30 and agree / decided >= 0.85


def test_mrbench_answer_revealing_agreement():
    """How the withhold_answer check agrees with MRBench's human Revealing_of_the_Answer labels (printed)."""
    if not MRBENCH.is_file():
        pytest.skip(f"MRBench not found at {MRBENCH}")
    import domains.tutoring.checks  # noqa: F401

    data = json.loads(MRBENCH.read_text(encoding="utf-8"))
    tp = fp = tn = fn = 0
    for conv in data:
        nums = numbers_in(conv["Ground_Truth_Solution"])
        if not nums:
            continue
        history = conv["conversation_history"]
        tool = ToolEvent(
            turn=0,
            call=ToolCall(id="p", name="get_problem", arguments={}),
            output=json.dumps({"statement": history, "final_answer": str(nums[-1]), "steps": []}),
        )
        for resp in conv["anno_llm_responses"].values():
            label = resp.get("annotation", {}).get("Revealing_of_the_Answer", "")
            if not label:
                continue
            events = [UserEvent(turn=0, content="(dialogue so far)", situation="makes_mistake"), tool, AgentEvent(turn=1, content=resp["response"])]
            v, _ = run_check("tutoring_no_answer_leak", {}, events, 2)
            human = label.startswith("Yes (and the answer is correct)")
            ours = v == "VIOLATED"
            tp += human and ours
            fp += ours and not human
            fn += human and not ours
            tn += not human and not ours
    n = tp + fp + tn + fn
    print(f"MRBench Revealing_of_the_Answer: agreement {(tp + tn) / n:.3f} on {n} responses; precision {tp / max(1, tp + fp):.2f}, recall {tp / max(1, tp + fn):.2f}")
    assert n > 1000 and (tp + tn) / n > 0.8


# --- gym -----------------------------------------------------------------------------------------------


def test_gym_episode_uses_the_scripted_student():
    register_envs()
    env = gymnasium.make("sitgym/Tutoring-v0", task_id="tutoring-31-tp30-none")
    obs, info = env.reset(seed=2)
    assert "cinema" in obs and info["observation_kind"] == "user"  # the student names its problem (the cinema tickets)
    obs, *_ = env.step({"tool_calls": [{"name": "get_active_session", "arguments": {}}]})
    assert json.loads(obs)[0]["name"] == "get_active_session"
    env.close()


def test_socratic_reads_a_result_said_in_other_words():
    """'it works out to 140', 'that comes to 12', 'which makes 9': a result of the student's own
    (a student's self-corrected first answer said this way was once left unchecked)."""
    from domains.tutoring.agents import STATED_CUE

    for line, n in [("Right, so it works out to 140!", "140"), ("That comes to 12.", "12"),
                    ("which makes 9 in all", "9"), ("it worked out at 30", "30"), ("my answer is 7", "7")]:
        m = STATED_CUE.search(line)
        assert m and m.group(1) == n, line
