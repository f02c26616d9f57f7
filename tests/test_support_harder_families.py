"""The two harder support families: look-alike lines (one product in sizes and colours, the line
meant said in the customer's words) and policy interaction (two policy rules on one request). The
committed tasks are the families' seed-0 output and generation is reproducible; each gold path
replays; the careful agent (reading the conversation and the tools, never the goal) solves every
task and the eager one none; the policy states each rule the families use; and an agent that picks
a wrong look-alike (right product and size, wrong colour) fails the outcome."""

from __future__ import annotations

import asyncio
import re

import pytest

from envs.domain import get_domain
from envs.episode import episode_seed, run_episode
from envs.spec.task_check import replay, replay_problems

NEW = ["look_alike_lines", "policy_interaction"]


@pytest.fixture(scope="module")
def support():
    return get_domain("support")


def _tasks(support, family):
    return [t for tid, t in sorted(support.tasks.items()) if tid.startswith(f"hard_{family}_")]


def _play(support, task, agent, repeat: int = 0):
    from envs.actors.scripted_user import ScriptedUser

    rec = asyncio.run(run_episode(support, task, agent, ScriptedUser(), episode_seed(7, task.id, repeat), repeat))
    assert rec.status == "ok", rec.error
    return rec


@pytest.mark.parametrize("family", NEW)
def test_committed_tasks_are_the_reproducible_seed_0_output(support, family):
    fam = support.families()[family]
    a, b = fam.generate(support, 7, 0), fam.generate(support, 7, 0)
    assert [t.model_dump() for t in a] == [t.model_dump() for t in b]
    committed = _tasks(support, family)
    assert len(committed) == 7
    assert [t.model_dump() for t in a] == [t.model_dump() for t in committed]
    assert all("hard" in t.tags and t.relies_on for t in committed)


@pytest.mark.parametrize("family", NEW)
def test_gold_path_replays_and_careful_solves_every_task_eager_none(support, family):
    for task in _tasks(support, family):
        gold = replay(support, task)
        try:
            assert replay_problems(gold, task.id) == []
        finally:
            gold.close()
        changes = [a for a in task.expected_actions if not a.name.startswith(("get_", "find_", "list_"))]
        assert len(changes) >= 2, task.id  # a remedy and a second request, at least
        rec = _play(support, task, support.scripted_agents["careful"]())
        assert rec.reward == 1.0, (task.id, rec.grade.diff)
        assert _play(support, task, support.scripted_agents["eager"]()).reward == 0.0, task.id


def test_policy_states_each_rule_the_families_use(support):
    policy = re.sub(r"\s+", " ", support.policy)
    assert "### When two rules meet" in support.policy  # its own section, saying what it makes explicit
    assert "This section makes explicit what the rules above imply" in policy
    # look-alike lines: the line whose product, size and colour fit; the other one beside one done before
    assert "Lines that look alike (one product in several sizes, colours or pack counts" in policy
    assert "is not the one a new complaint is about when the customer says so" in policy
    assert "ask which one before proposing anything" in policy
    # a replacement for a customer who has moved
    assert "A replacement ships to the order's shipping address" in policy or "ships from stock to the order's shipping address" in policy
    assert "a replacement cannot be sent to a new address" in policy
    assert "After dispatch, say it can no longer be changed" in policy
    # replacements for more units than in stock
    assert "A replacement is sent for every unit asked for or not at all" in policy
    # store credit with a cancellation, the shipping fee with the last item
    assert "A cancellation refunds the original payment even when the customer asks for store credit" in policy
    assert "the order's shipping fee is refunded with them" in policy
    assert "a request for store credit made anywhere in the conversation holds for every item refund" in policy


def test_policy_interaction_covers_each_pair_of_rules(support):
    tasks = _tasks(support, "policy_interaction")
    names = [[a.name for a in t.expected_actions] for t in tasks]
    assert any("open_carrier_claim" in n and "change_shipping_address" in n for n in names)  # lost, moved
    assert any("send_replacement" in n and "change_shipping_address" in n for n in names)  # kept to the old address
    assert sum("refund_items" in n and "change_shipping_address" in n for n in names) >= 2  # refund instead
    short = [t for t in tasks if any(a.arguments.get("quantity") for a in t.expected_actions)]
    assert short and all("send_replacement" not in [a.name for a in t.expected_actions] for t in short)
    credit = [t for t in tasks if any(a.arguments.get("destination") == "store_credit" for a in t.expected_actions)]
    assert credit and all("cancel_order" in [a.name for a in t.expected_actions] for t in credit)


def test_look_alike_targets_need_what_the_customer_said(support):
    """Every look-alike line a task remedies shares its product with lines of both its size and its
    colour in the same order, so neither the size nor the colour alone names it."""
    from domains.support.agents.reading import variant_of

    for task in _tasks(support, "look_alike_lines"):
        items = {r.row["id"]: r.row for r in task.initial_state.insert if r.table == "order_items"}
        for a in task.expected_actions:
            if a.name not in ("refund_items", "send_replacement"):
                continue
            (iid,) = a.arguments["item_ids"]
            base, size, colour = variant_of(items[iid]["name"])
            others = [variant_of(it["name"]) for i, it in items.items()
                      if i != iid and it["order_id"] == a.arguments["order_id"] and variant_of(it["name"])]
            assert any(o[0] == base and o[2] == colour for o in others), task.id  # the colour alone is not enough
            assert any(o[0] == base and o[1] == size for o in others), task.id  # nor the size alone


def test_a_wrong_look_alike_pick_fails_the_outcome(support):
    """The careful agent made to take the look-alike of the same product and size in another colour
    (the same price, so the amount gives nothing away) scores 0 on every task it is played on."""
    from domains.support.agents.careful import CarefulAgent
    from domains.support.agents.reading import variant_of

    class WrongColour(CarefulAgent):
        def _which_items(self, order=None):
            picked = super()._which_items(order)
            items = (order or self.order)["items"]
            if len(picked) != 1 or not variant_of(picked[0]["name"]):
                return picked
            base, size, colour = variant_of(picked[0]["name"])
            swap = [it for it in items if it["status"] == "ordered" and (v := variant_of(it["name"]))
                    and v[0] == base and v[1] == size and v[2] != colour]
            return swap[:1] or picked

    played = 0
    for task in _tasks(support, "look_alike_lines"):
        rec = _play(support, task, WrongColour())
        assert rec.reward == 0.0, task.id
        played += 1
    assert played == 7


def test_a_replacement_proposed_without_saying_where_it_ships_fails_when_the_customer_would_refuse(support):
    """The moved customer's choice (a refund, or the replacement to the old address) is said once the
    agent says a replacement cannot go to the new address; the careful agent made to skip that and
    propose the replacement at once gets a yes and ships it, which fails every instance whose goal
    is the refund, while the careful agent itself solves them all (above)."""
    from domains.support.agents.careful import CarefulAgent

    class Unsaid(CarefulAgent):
        def _ships_elsewhere(self):
            return None

    refunds = [t for t in _tasks(support, "policy_interaction")
               if any(a.name == "change_shipping_address" for a in t.expected_actions)
               and any(a.name == "refund_items" for a in t.expected_actions)]
    assert len(refunds) >= 2
    for task in refunds:
        assert _play(support, task, Unsaid()).reward == 0.0, task.id
