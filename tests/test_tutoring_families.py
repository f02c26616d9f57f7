"""The tutoring hard tier: its families regenerate the committed tasks, have the tier's shape, and
check_answer's ``working`` tells a right answer reached by a wrong method from one reached properly."""

from __future__ import annotations

import json

import pytest

from envs.domain import get_domain
from envs.errors import SpecError

from envs.domain.definition import PROJECT_ROOT

# the counts the committed files were written with (python -m envs.tasks --domain tutoring --family F --count N),
# read from the files: hard_<family>_<nn>_<problem>.yaml
_FILES = sorted((PROJECT_ROOT / "tasks" / "tutoring").glob("hard_*.yaml"))
COUNTS: dict[str, int] = {}
for _f in _FILES:
    _fam = _f.stem[len("hard_"):].rsplit("_", 2)[0]
    COUNTS[_fam] = COUNTS.get(_fam, 0) + 1


@pytest.fixture(scope="module")
def dom():
    return get_domain("tutoring")


def _as_written(task) -> dict:
    data = task.model_dump(mode="json", exclude_defaults=True)
    data.get("extra", {}).pop("student_mind", None)  # added at load, never written
    return data


def test_committed_hard_tasks_are_what_their_families_generate(dom):
    fams = dom.families()
    assert set(COUNTS) == set(fams) and len(fams) >= 8
    hard = {tid: t for tid, t in dom.tasks.items() if "hard" in t.tags}
    generated = {t.id: t for name, n in COUNTS.items() for t in fams[name].generate(dom, n, seed=0)}
    assert set(hard) == set(generated) and len(hard) >= 40
    for tid, t in generated.items():
        assert _as_written(hard[tid]) == _as_written(t), tid
    assert [t.id for t in fams["tangent_resume"].generate(dom, 8, seed=3)] != [t.id for t in fams["tangent_resume"].generate(dom, 8, seed=0)]


def test_hard_tier_shape_and_the_easy_tier_untouched(dom):
    hard = [t for t in dom.tasks.values() if "hard" in t.tags]
    two = [t for t in hard if sum(a.name == "log_misconception" for a in t.expected_actions) >= 2
           or (t.extra.get("student") or {}).get("step_one")]  # two misconceptions, or a step to judge and one to diagnose
    assert len(two) * 2 >= len(hard), (len(two), len(hard))
    assert all(t.relies_on and t.catches == ["teller"] for t in hard)
    easy = [t for t in dom.tasks.values() if "hard" not in t.tags]
    assert len(easy) == 38 and all(t.id.startswith("tutoring-") for t in easy)


def test_a_count_the_data_cannot_supply_is_one_line(dom):
    with pytest.raises(SpecError, match=r"family right_wrong_reason: the data holds \d+ instances, asked for 99"):
        dom.families()["right_wrong_reason"].generate(dom, 99, seed=0)


def test_check_answer_working_tells_a_wrong_method_from_a_right_one(dom):
    from envs.state.database import EpisodeState

    task = next(t for t in dom.tasks.values() if t.extra.get("problem_id") == "TP69")
    st = EpisodeState(dom.base, dom.initial_bytes(task))
    try:
        sid = task.initial_state.insert[0].row["id"]

        def check(**kw):
            return json.loads(dom.agent_tools.call(st.session, "check_answer", {"session_id": sid, **kw}).output)

        # a plank 1.5 times as long as 3 m: adding 1.5 reaches 7.5 by a wrong operation
        wrong = check(answer="7.5", working="I did 3 + 1.5 + 3")
        right = check(answer="7.5", working="3 x 1.5 = 4.5, then 3 + 4.5 = 7.5")
        plain = check(answer="7.5")
    finally:
        st.close()
    assert wrong == {"answer": "7.5", "correct": True, "working_matches_common_error": "wrong_operation"}
    assert right == plain == {"answer": "7.5", "correct": True}


def _check_on(dom, task_id_part: str):
    from envs.state.database import EpisodeState

    task = next(t for t in dom.tasks.values() if task_id_part in t.id)
    st = EpisodeState(dom.base, dom.initial_bytes(task))
    sid = task.initial_state.insert[0].row["id"]

    def check(**kw):
        return json.loads(dom.agent_tools.call(st.session, "check_answer", {"session_id": sid, **kw}).output)

    return task, st, check


def test_check_answer_names_both_misconceptions_of_a_shared_wrong_answer_until_the_working_tells(dom):
    task, st, check = _check_on(dom, "_tp60")
    try:
        plain = check(answer="14")
        by_quantity = check(answer="14", working="20 - 4 - 2")
        by_stopping = check(answer="14", working="3 x 4 + 2")
    finally:
        st.close()
    assert plain["matches_common_errors"] == ["missed_quantity", "stopped_early"] and "matches_common_error" not in plain
    assert by_quantity["matches_common_error"] == "missed_quantity" and "matches_common_errors" not in by_quantity
    assert by_stopping["matches_common_error"] == "stopped_early"


def test_new_families_shape(dom):
    """Each problem of same_wrong_answer gives one task per misconception; pushes and self-corrects log both steps'."""
    fams = dom.families()
    same = fams["same_wrong_answer"].generate(dom, COUNTS["same_wrong_answer"], seed=0)
    by_problem: dict[str, set] = {}
    for t in same:
        by_problem.setdefault(t.extra["problem_id"], set()).add(t.extra["misconception"])
        assert t.scenario.hidden_facts and not any(c in " ".join(t.scenario.known_facts) for c in "+-x")  # working only when asked
    assert all(len(codes) == 2 for codes in by_problem.values()), by_problem
    for name in ("pushes_for_answer", "self_corrects"):
        for t in fams[name].generate(dom, COUNTS[name], seed=0):
            assert [a.arguments["code"] for a in t.expected_actions if a.name == "log_misconception"] == t.extra["student"]["chain"]


def test_carried_forward_tasks_start_from_a_wrong_conversion_that_gives_the_wrong_answer(dom):
    """The wrong first-step value, put back into the later steps (done right), gives the misconception's answer."""
    from domains.tutoring.problems import evaluate, parse_number

    for t in dom.families()["carried_forward"].generate(dom, COUNTS["carried_forward"], seed=0):
        p = dom.problems[t.extra["problem_id"]]
        err = next(e for e in p.common_errors if e.code == t.extra["misconception"])
        value = {p.steps[0].result: err.first_step}
        got = parse_number(err.first_step)
        for st in p.steps[1:]:
            expr = st.expr
            for right, wrong in value.items():
                expr = expr.replace(right, wrong)
            got = evaluate(expr)
            value[st.result] = str(got)
        assert got == parse_number(err.answer) != p.value, t.id
        assert t.extra["student"]["first_value"] == err.first_step and len(p.steps) >= 3
