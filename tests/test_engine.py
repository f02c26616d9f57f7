"""Engine tests on the toy domain: tools, state store, episode loop, gym env, grading."""

from __future__ import annotations

import asyncio
import json

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import envs  # noqa: F401  (registers the gym ids)
import toy_domain
from envs.domain import get_domain
from envs.episode import Episode, run_episode
from envs.records import AgentAction, ToolCall
from envs.gym.registration import register_envs
from envs.state.database import EpisodeState, build_template
from envs.actors.scripted_user import ScriptedUser


@pytest.fixture(scope="module")
def toy():
    return get_domain("toy")


def test_tool_schema_comes_from_signature(toy):
    schema = toy.agent_tools["deposit"].schema()
    fn = schema["function"]
    assert fn["name"] == "deposit"
    assert fn["description"] == "Deposit money into an account."
    props = fn["parameters"]["properties"]
    assert props["amount"]["description"] == "Amount in cents, positive."
    assert props["amount"]["exclusiveMinimum"] == 0
    assert sorted(fn["parameters"]["required"]) == ["account_id", "amount"]


@pytest.mark.parametrize(
    "args, fragment",
    [
        ({}, "account_id: Field required"),
        ({"account_id": "A001", "amount": "lots"}, "amount: Input should be a valid integer"),
        ({"account_id": "A001", "amount": -5}, "amount: Input should be greater than 0"),
        ({"account_id": "A001", "amount": 5, "extra": 1}, "extra: Extra inputs are not permitted"),
        ('{"account_id": "A001", ', "not valid JSON"),
        ({"account_id": "A001'; DROP TABLE accounts;--", "amount": 5}, "no account"),
    ],
)
def test_bad_arguments_give_an_error_and_change_nothing(toy, args, fragment):
    st = EpisodeState(toy.base, toy.template())
    before = st.snapshot()
    out = toy.agent_tools.call(st.session, "deposit", args)
    assert not out.ok and out.output.startswith("Error:") and fragment in out.output
    assert st.snapshot() == before
    st.close()


def test_unknown_tool_and_sides_are_separate(toy):
    st = EpisodeState(toy.base, toy.template())
    out = toy.agent_tools.call(st.session, "check_balance_app", {"account_id": "A001"})
    assert not out.ok and out.error_kind == "unknown_tool"
    out = toy.user_tools.call(st.session, "deposit", {"account_id": "A001", "amount": 5})
    assert not out.ok and out.error_kind == "unknown_tool"
    assert toy.user_tools.call(st.session, "check_balance_app", {"account_id": "A001"}).ok
    st.close()


def test_template_is_deterministic_and_reset_is_a_copy(toy):
    a = build_template(toy.base, toy.seed_fn, 7)
    b = build_template(toy.base, toy.seed_fn, 7)
    assert a == b
    assert build_template(toy.base, toy.seed_fn, 8) != a
    st = EpisodeState(toy.base, a)
    toy.agent_tools.call(st.session, "deposit", {"account_id": "A001", "amount": 5})
    assert st.snapshot() != a
    st.load(a)
    assert st.snapshot() == a and st.dirty_tables == set()
    st.close()


def test_episode_solves_and_grades(toy):
    task = toy.tasks["toy-deposit"]
    rec = asyncio.run(run_episode(toy, task, toy_domain.DepositAgent(), ScriptedUser(), seed=3))
    assert rec.status == "ok" and rec.reward == 1.0 and rec.termination == "user_stop"
    assert [e.kind for e in rec.transcript] == ["user", "tool", "agent", "user"]
    assert rec.verdicts and all(v.verdict == "FOLLOWED" for v in rec.verdicts)


def test_failed_episode_has_a_readable_diff(toy):
    task = toy.tasks["toy-deposit"]
    rec = asyncio.run(run_episode(toy, task, toy_domain.IdleAgent(), ScriptedUser(), seed=3))
    assert rec.reward == 0.0 and rec.termination == "max_turns"
    (td,) = rec.grade.diff
    assert td.table == "accounts"
    (ch,) = td.changed
    assert ch.key == {"id": "A001"} and set(ch.columns) == {"balance"}
    assert ch.columns["balance"]["expected"] - ch.columns["balance"]["actual"] == 500


def test_ignored_columns_do_not_count(toy):
    task = toy.tasks["toy-deposit"]
    ep = Episode(toy, task, ScriptedUser(), seed=1)
    asyncio.run(ep.start())
    asyncio.run(ep.step(AgentAction.call("deposit", account_id="A001", amount=500, note="free text")))
    assert ep.grade().state_match
    ep.close()


def test_transfer_terminates(toy):
    ep = Episode(toy, toy.tasks["toy-deposit"], ScriptedUser(), seed=1)
    asyncio.run(ep.start())
    res = asyncio.run(ep.step(AgentAction.call("transfer_to_human", summary="x")))
    assert res.terminated and ep.termination == "transfer"
    ep.close()


def test_agent_errors_are_counted(toy):
    ep = Episode(toy, toy.tasks["toy-deposit"], ScriptedUser(), seed=1)
    asyncio.run(ep.start())
    asyncio.run(ep.step(AgentAction(tool_calls=[ToolCall(name="nope", arguments={})])))
    asyncio.run(ep.step(AgentAction(parse_error="could not parse")))
    asyncio.run(ep.step(AgentAction(content="   ")))
    assert ep.agent_errors == 3
    ep.close()


def test_an_agent_failing_in_a_row_is_stopped(toy):
    from envs.episode import MAX_CONSECUTIVE_AGENT_ERRORS

    ep = Episode(toy, toy.tasks["toy-deposit"], ScriptedUser(), seed=1)
    asyncio.run(ep.start())
    asyncio.run(ep.step(AgentAction(parse_error="garbage")))
    asyncio.run(ep.step(AgentAction.call("get_account", account_id="A001")))  # a good step resets the count
    for _ in range(MAX_CONSECUTIVE_AGENT_ERRORS - 1):
        asyncio.run(ep.step(AgentAction(parse_error="garbage")))
    assert not ep.done
    res = asyncio.run(ep.step(AgentAction(parse_error="garbage")))
    assert ep.done and res.truncated and ep.termination == "agent_error_limit"
    ep.close()


def test_gym_env_passes_check_env():
    register_envs()
    env = gymnasium.make("sitgym/Toy-v0")
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_gym_episode_with_json_actions():
    register_envs()
    env = gymnasium.make("sitgym/Toy-v0", task_id="toy-deposit")
    obs, info = env.reset(seed=5)
    assert "deposit 500" in obs and info["tools"] and info["observation_kind"] == "user"
    action = json.dumps({"tool_calls": [{"name": "deposit", "arguments": {"account_id": "A001", "amount": 500}}]})
    obs, reward, term, trunc, info = env.step(action)
    assert info["observation_kind"] == "tool" and json.loads(obs)[0]["name"] == "deposit"
    obs, reward, term, trunc, info = env.step(AgentAction.say("Done: deposit made."))
    assert term and not trunc and reward == 1.0 and info["grade"]["state_match"]
    # A reset restores the initial state: the same deposit again is again the goal.
    env.reset(seed=6)
    env.step(action)
    _, reward, term, _, _ = env.step("Done: deposit made.")
    assert term and reward == 1.0
    env.close()


def test_gym_truncates_on_turn_budget():
    register_envs()
    env = gymnasium.make("sitgym/Toy-v0", task_id="toy-deposit")
    env.reset(seed=1)
    trunc = False
    for _ in range(10):
        _, reward, term, trunc, info = env.step("How can I help?")
        if term or trunc:
            break
    assert trunc and not term and reward == 0.0 and info["termination"] == "max_turns"
    env.close()
