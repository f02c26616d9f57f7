"""The tutoring hard tier: its families regenerate the committed tasks, have the tier's shape, and
check_answer's ``working`` tells a right answer reached by a wrong method from one reached properly."""

from __future__ import annotations

import json

import pytest

from envs.domain import get_domain
from envs.errors import SpecError

# the counts the committed files were written with (python -m envs.tasks --domain tutoring --family F --count N)
COUNTS = {"two_misconceptions": 10, "step_two_wrong": 8, "checks_intermediate": 8, "tangent_resume": 8, "right_wrong_reason": 7}


@pytest.fixture(scope="module")
def dom():
    return get_domain("tutoring")


def _as_written(task) -> dict:
    data = task.model_dump(mode="json", exclude_defaults=True)
    data.get("extra", {}).pop("student_mind", None)  # added at load, never written
    return data


def test_committed_hard_tasks_are_what_their_families_generate(dom):
    fams = dom.families()
    assert set(COUNTS) <= set(fams) and len(fams) >= 5
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

    task = next(t for t in dom.tasks.values() if t.extra.get("problem_id") == "TP53")
    st = EpisodeState(dom.base, dom.initial_bytes(task))
    try:
        sid = task.initial_state.insert[0].row["id"]

        def check(**kw):
            return json.loads(dom.agent_tools.call(st.session, "check_answer", {"session_id": sid, **kw}).output)

        wrong = check(answer="70", working="I took 100 - 30")
        right = check(answer="70", working="100 x 30 / 100 = 30, then 100 - 30 = 70")
        plain = check(answer="70")
    finally:
        st.close()
    assert wrong == {"answer": "70", "correct": True, "working_matches_common_error": "percent_as_amount"}
    assert right == plain == {"answer": "70", "correct": True}
