"""Hostile agent output: any depth, size or characters is recorded and read back, never an engine error;
a reply the server left empty is an infrastructure error for every role; an agent that only fails scores 0."""

from __future__ import annotations

import asyncio
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envs.bounded import MAX_ARG_CHARS, MAX_ARG_DEPTH
from envs.domain import get_domain
from envs.episode import run_episode
from envs.records import AgentAction, EpisodeRecord, ToolCall, ToolEvent
from envs.run.store import RunStore


def nest(depth: int, leaf=1) -> dict:
    v = {"x": leaf}
    for _ in range(depth - 1):
        v = {"a": v}
    return v


def nest_text(depth: int) -> str:
    return '{"a":' * (depth - 1) + '{"x":1}' + "}" * (depth - 1)


texts = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=40)  # lone surrogates included
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=30,
)
hostile_args = st.one_of(
    json_values,
    st.dictionaries(texts, json_values, max_size=5),
    st.integers(1, 3000).map(nest),
    st.integers(1, 3000).map(nest_text),
    texts,
    st.integers(1, 3).map(lambda k: {"big": "z" * (MAX_ARG_CHARS * k)}),
)


class Sender:
    """An agent that calls ``deposit`` with the given arguments, then says it is done."""

    name = "hostile"

    def __init__(self, arguments):
        self.arguments, self.sent = arguments, False

    async def act(self, view):
        if self.sent:
            return AgentAction.say("Done: deposit made.")
        self.sent = True
        return AgentAction(tool_calls=[ToolCall(name="deposit", arguments=self.arguments)])


def _play(domain, arguments, seed=0) -> EpisodeRecord:
    task = domain.tasks["toy-deposit"]
    user = domain.scripted_users.get("default")
    from envs.actors.scripted_user import ScriptedUser

    return asyncio.run(run_episode(domain, task, Sender(arguments), (user or ScriptedUser)(), seed=seed))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(args=hostile_args)
def test_any_arguments_are_recorded_and_read_back(tmp_path_factory, args):
    domain = get_domain("toy")
    rec = _play(domain, args)
    assert rec.status == "ok", rec.error  # never an engine error
    store = RunStore(tmp_path_factory.mktemp("s"))
    store.append(rec)
    back = store.load()
    assert list(back) == [("toy-deposit", 0)] and not store.skipped_lines
    call = next(e for e in back[("toy-deposit", 0)].transcript if isinstance(e, ToolEvent)).call
    kept = call.arguments
    assert isinstance(kept, (dict, str))
    if isinstance(kept, str):
        assert len(kept) <= MAX_ARG_CHARS + 100
    s = RunStore(store.dir).load()[("toy-deposit", 0)]
    assert s.model_dump() == back[("toy-deposit", 0)].model_dump()  # stable on a second read


@pytest.mark.parametrize("depth", [150, 197, 230, 252, 253, 300, 5_000, 100_000])
def test_deep_arguments_as_data_or_text_are_kept_and_counted_as_the_agents_error(tmp_path, depth):
    domain = get_domain("toy")
    store = RunStore(tmp_path)
    for i, args in enumerate([nest(depth), nest_text(depth)]):
        rec = _play(domain, args, seed=i)
        rec.repeat = i
        assert rec.status == "ok" and rec.agent_errors == 1  # bad arguments: the agent's, not the engine's
        store.append(rec)
    back = store.load()
    assert sorted(back) == [("toy-deposit", 0), ("toy-deposit", 1)]
    for rec in back.values():
        call = next(e for e in rec.transcript if isinstance(e, ToolEvent)).call
        if depth <= MAX_ARG_DEPTH:
            continue
        assert isinstance(call.arguments, str)
        if isinstance(call.arguments, str) and len(call.arguments) <= MAX_ARG_CHARS:
            assert call.arguments.count("{") == depth  # the whole text, as sent


def test_surrogates_and_huge_messages_are_recorded(tmp_path):
    domain = get_domain("toy")
    rec = _play(domain, {"account_id": "A001\ud800", "amount": 5, "note": "\udfff" * 10})
    store = RunStore(tmp_path)
    store.append(rec)
    (back,) = store.load().values()
    call = next(e for e in back.transcript if isinstance(e, ToolEvent)).call
    assert "\ufffd" in json.dumps(call.arguments, ensure_ascii=False)


def test_decode_never_raises_but_tool_error():
    from envs.domain.tools import ToolError

    tool = get_domain("toy").agent_tools["deposit"]
    for bad in (nest_text(100_000), "[" * 50_000, "{", "[1]", '"x"'):
        with pytest.raises(ToolError):
            tool.decode(bad)
    assert tool(None, nest_text(100_000)).error_kind == "bad_arguments"


@settings(max_examples=40, deadline=None)
@given(args=hostile_args)
def test_gym_step_takes_any_arguments(args):
    from envs.gym.env import SitgymEnv

    env = SitgymEnv("toy", task_id="toy-deposit")
    env.reset(seed=1)
    for action in (AgentAction(tool_calls=[ToolCall(name="deposit", arguments=args)]),
                   {"tool_calls": [{"name": "deposit", "arguments": args}]} if isinstance(args, (dict, str)) else "x"):
        obs, reward, term, trunc, info = env.step(action)
        assert isinstance(obs, str)
    env.close()


def test_gym_step_takes_deep_json_text():
    from envs.gym.env import SitgymEnv

    env = SitgymEnv("toy", task_id="toy-deposit")
    env.reset(seed=1)
    obs, *_ = env.step('{"tool_calls": [' + nest_text(100_000) + "]}")
    assert obs.startswith("Error")
    env.close()


class Empty:
    name = "empty"

    async def act(self, view):
        return AgentAction()


def test_an_episode_ended_by_the_agents_errors_scores_zero_whatever_the_state():
    d = get_domain("support")
    task = d.tasks["sup_customer_declines"]  # nothing should change: an idle agent leaves the goal state
    from envs.actors.scripted_user import ScriptedUser

    user = d.scripted_users.get("default", ScriptedUser)
    rec = asyncio.run(run_episode(d, task, Empty(), user(), seed=1))
    assert rec.termination == "agent_error_limit" and rec.status == "ok"
    assert rec.grade.state_match and rec.reward == 0.0 and rec.grade.reward == 0.0


@pytest.mark.parametrize(
    "content, fragment",
    [
        (b"a: 1\na: 2\n", "line 2: duplicate key 'a' (first given on line 1)"),
        (b"d: 2026-13-45\n", "line 1: d: '2026-13-45' is not a date (month must be in 1..12)"),
        (b"outputs:\n- {value: 2026-02-30, kind: date}\n", "line 2: value: '2026-02-30' is not a date (day is out of range"),
        (b"a: \xff\xfe\n", "byte 3: not UTF-8"),
        (b"[" * 20_000 + b"]" * 20_000, "nested too deeply"),
        (b"# " + b"x" * 4_100_000 + b"\n", "more than the 4,000,000 a spec file may hold"),
    ],
)
def test_bad_spec_files_are_one_line(tmp_path, content, fragment):
    from envs.errors import SpecError
    from envs.spec.loading import read_yaml

    p = tmp_path / "task.yaml"
    p.write_bytes(content)
    with pytest.raises(SpecError) as e:
        read_yaml(p)
    assert str(e.value).startswith(f"{p}: ") and fragment in str(e.value) and "\n" not in str(e.value)


# -- the strict tool contract (ASCII where the data is, integers that are integers, caps) -----------

@pytest.mark.parametrize("zip_code", ["８５７０１", "٨٥٧٠١", "८५७०१"])  # full-width, Arabic-Indic, Devanagari
def test_digits_in_the_data_are_ascii(zip_code):
    support = get_domain("support")
    out = support.agent_tools.tools["change_shipping_address"].validate
    with pytest.raises(Exception, match="ASCII"):
        out({"order_id": "O-12345", "line1": "1 Main St", "city": "Tucson", "state": "AZ", "zip": zip_code})
    with pytest.raises(Exception, match="ASCII"):
        support.agent_tools.tools["get_order"].validate({"order_id": "O-" + zip_code})


@pytest.mark.parametrize("item", ["90210", 90210.0, True, "1"])
def test_ids_and_counts_are_integers(item):
    from envs.domain.tools import ToolError

    t = get_domain("support").agent_tools.tools["refund_items"]
    args = {"order_id": "O-12345", "item_ids": [item], "destination": "original_payment", "reason": "damaged"}
    with pytest.raises(ToolError, match="valid integer"):
        t.validate(args)
    args["item_ids"] = [90210]
    t.validate(args)


def _one_step(action):
    from envs.actors.scripted_user import ScriptedUser
    from envs.episode import Episode

    support = get_domain("support")
    ep = Episode(support, support.tasks["sup_cancel_after_dispatch"], ScriptedUser(), seed=1)
    try:
        asyncio.run(ep.start())
        res = asyncio.run(ep.step(action))
        return ep, res
    finally:
        ep.close()


def test_too_many_tool_calls_in_one_action_are_the_agents_error_and_none_runs():
    from envs.episode.step import MAX_TOOL_CALLS_PER_ACTION

    n = 100_000
    ep, res = _one_step(AgentAction(tool_calls=[ToolCall(name="get_order", arguments={"order_id": "O-91301"})] * n))
    assert res.kind == "error" and ep.agent_errors == 1 and f"{n:,} tool calls" in res.observation
    assert str(MAX_TOOL_CALLS_PER_ACTION) in res.observation
    assert not any(isinstance(e, ToolEvent) for e in ep.events)


def test_a_huge_tool_name_is_the_agents_error_and_not_echoed():
    name = "x" * 5_000_000
    ep, res = _one_step(AgentAction(tool_calls=[ToolCall(name=name, arguments={})]))
    assert res.kind == "error" and ep.agent_errors == 1 and "5,000,000 characters" in res.observation
    assert len(res.observation) < 300 and all(len(getattr(e, "message", "") or "") < 300 for e in ep.events)
    assert not any(isinstance(e, ToolEvent) for e in ep.events)
