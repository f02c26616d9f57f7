"""The support hard tier: task families, the committed hard tasks they write, and who solves them.

The careful scripted agent is each family's reference solver (it reads the conversation, the tools
and the policy, never the goal); the eager agent fails them; the scripted customer raises its
further requests one at a time and changes its mind after an action where the task says so.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from envs.domain import get_domain
from envs.errors import SpecError
from envs.tasks import shape, task_yaml


@pytest.fixture(scope="module")
def support():
    return get_domain("support")


@pytest.fixture(scope="module")
def families(support):
    return support.families()


def test_at_least_eight_families_and_sixty_hard_tasks(support, families):
    hard = [t for t in support.tasks.values() if "hard" in t.tags]
    assert len(families) >= 8 and len(hard) >= 60
    assert {t.tags[1] for t in hard} == set(families)  # every family has tasks in the tier
    assert all(t.relies_on for t in hard)


def test_committed_hard_tasks_are_the_families_output_for_seed_0(support, families):
    """``python -m envs.tasks --domain support --all --count 7 --seed 0`` reproduces the files."""
    d = support.tasks_dir()
    for name, fam in families.items():
        for task in fam.generate(support, 7, 0):
            assert (d / f"{task.id}.yaml").read_text(encoding="utf-8") == task_yaml(task), task.id


def test_another_seed_draws_other_instances(support, families):
    fam = families["three_requests"]
    a, b = fam.generate(support, 3, 0), fam.generate(support, 3, 1)
    assert [t.model_dump() for t in a] == [t.model_dump() for t in fam.generate(support, 3, 0)]
    assert {t.initial_state.insert[0].row["customer_id"] for t in a} != {t.initial_state.insert[0].row["customer_id"] for t in b}


def test_a_count_the_data_cannot_supply_is_one_line(support, families):
    with pytest.raises(SpecError, match=r"^family cancel_and_address: the data holds \d+ instances, asked for 500$"):
        families["cancel_and_address"].generate(support, 500, 0)


def test_easy_tier_untouched_by_the_hard_tier(support):
    """The families add rows only in their own tasks' initial states: the seeded template is what the
    35 easy tasks have always seen, and no hard task's order ids collide with the seed's."""
    easy = [t for t in support.tasks.values() if "hard" not in t.tags]
    assert len(easy) == 35 and all(t.id.startswith("sup_") for t in easy)
    for t in support.tasks.values():
        if "hard" in t.tags:
            ids = [r.row["id"] for r in t.initial_state.insert if r.table == "orders"]
            assert all(i.startswith(("O-7", "O-8", "O-9")) for i in ids)  # the seed's run O-00001 to O-02000


def test_shape_of_the_hard_tier(support):
    hard = sorted(t for t, k in support.tasks.items() if "hard" in k.tags)
    sh = shape(support, hard)
    assert sh["mean_changes"] >= 2 and sh["two_or_more"] * 2 >= sh["tasks"] and not sh["none_unobservable"]


def _play(domain, task, agent_name: str, seed: int = 3):
    """(the transcript, the record) of one episode of ``task`` against the scripted customer."""
    from envs.actors.scripted_user import ScriptedUser
    from envs.episode import run_episode

    rec = asyncio.run(run_episode(domain, task, domain.scripted_agents[agent_name](), ScriptedUser(), seed))
    assert rec.status == "ok", rec.error
    return rec.transcript, rec


@pytest.mark.parametrize("family", sorted(get_domain("support").families()))
def test_careful_solves_each_family_and_eager_does_not(support, family):
    task = support.tasks[f"hard_{family}_01"]
    ep, ev = _play(support, task, "careful")
    assert ev.reward == 1.0, (family, ev.grade.diff)
    _, bad = _play(support, task, "eager")
    assert bad.reward == 0.0


def test_customer_raises_each_request_in_turn_and_stays_until_the_last(support):
    task = support.tasks["hard_three_requests_01"]
    ep, ev = _play(support, task, "careful")
    said = [e.content for e in ep if getattr(e, "kind", "") == "user"]
    # each request found by its order (the customer words it in its own mood: an impatient one drops "please")
    at = [next(i for i, s in enumerate(said) if re.search(r"O-\d+", r).group(0) in s) for r in task.scenario.more_requests]
    assert at == sorted(at) and ev.reward == 1.0
    assert ev.termination == "user_stop" and at[-1] < len(said) - 1  # it left only after the last was handled


def test_shaky_memory_corrects_the_order_number_when_told_it_was_not_found(support):
    task = support.tasks["hard_wrong_order_first_01"]
    ep, ev = _play(support, task, "careful")
    said = [e.content for e in ep if getattr(e, "kind", "") == "user"]
    fix = next(h.fact for h in task.scenario.hidden_facts if h.id == "correct_order")
    assert fix in " ".join(said) and ev.reward == 1.0


def test_change_of_mind_after_the_action_changes_nothing(support):
    task = support.tasks["hard_mind_change_after_done_01"]
    ep, ev = _play(support, task, "careful")
    said = [e.content for e in ep if getattr(e, "kind", "") == "user"]
    # (said in the customer's mood: a cold one drops the apology the task wrote, "Sorry, ...")
    core = re.sub(r"^(?:sorry|please)[,.]?\s*", "", task.scenario.mind_change.say, flags=re.I).lower()
    assert any(core in s.lower() for s in said)
    calls = [e.call.name for e in ep if getattr(e, "kind", "") == "tool"]
    assert "send_replacement" not in calls and ev.reward == 1.0
