"""RL: grouped rollouts, reward parts, the agent's view only, and export a trainer loads."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

import envs  # noqa: F401
from envs.actors.scripted_user import ScriptedUser
from envs.domain import get_domain
from envs.records import AgentEvent, EpisodeRecord, Grade, AssertionResult, ToolCall, ToolEvent, Usage, UserEvent, Verdict
from envs.rl.rewards import RewardWeights, reward_parts
from envs.rl.rollout import advantages, rollout_groups

SUPPORT = get_domain("support")


def _groups(agent: str, tasks: list[str], n: int, user_seed: str = "same", weights=None):
    return asyncio.run(
        rollout_groups(SUPPORT, tasks, SUPPORT.scripted_agents[agent], ScriptedUser, group_size=n,
                       seed=3, user_seed=user_seed, weights=weights)
    )


def test_a_group_starts_from_one_state_and_the_same_user_seed():
    (g,) = _groups("careful", ["sup_cancel_before_dispatch"], 4)
    assert [t.rollout for t in g.trajectories] == [0, 1, 2, 3]
    assert len({t.seed for t in g.trajectories}) == 1  # the same user seed ...
    assert len({t.agent_seed for t in g.trajectories}) == 4  # ... and a seed of its own for the agent's model
    # scripted actors and one user seed: the same conversation, the same reward, zero advantage
    assert len({json.dumps(t.messages) for t in g.trajectories}) == 1
    assert g.mean == 1.0 and g.std == 0.0 and all(t.advantage == 0.0 for t in g.trajectories)


def test_distinct_user_seeds_draw_distinct_situations():
    (g,) = _groups("careful", ["sup_cancel_before_dispatch"], 6, user_seed="distinct")
    assert len({t.seed for t in g.trajectories}) == 6


def test_advantages_are_reward_minus_mean_and_scale_by_std():
    adv, mean, std = advantages([1.0, 0.0, 0.0, 1.0])
    assert mean == 0.5 and std == 0.5 and adv == [0.5, -0.5, -0.5, 0.5]
    adv, _, _ = advantages([1.0, 0.0, 0.0, 1.0], scale_by_std=True)
    assert adv == pytest.approx([1.0, -1.0, -1.0, 1.0], abs=1e-5)
    assert advantages([0.3])[0] == [0.0]


def test_trajectories_hold_only_the_agents_view():
    user_tools = set(SUPPORT.user_tools.tools)
    groups = _groups("careful", sorted(SUPPORT.tasks), 1, user_seed="distinct")
    for g in groups:
        task = SUPPORT.tasks[g.task_id]
        for t in g.trajectories:
            text = json.dumps(t.messages)
            assert "situation" not in text
            for m in t.messages:
                for c in m.get("tool_calls") or []:
                    assert c["function"]["name"] in SUPPORT.agent_tools.tools
                    assert c["function"]["name"] not in user_tools
            # a hidden fact reaches the agent only in the user's own words
            said = " ".join(m["content"] for m in t.messages if m["role"] == "user")
            for hf in task.scenario.hidden_facts:
                if hf.fact not in said:
                    assert hf.fact not in text, (g.task_id, hf.id)
            assert {x["function"]["name"] for x in t.tools} == set(SUPPORT.agent_tools.tools)


def _record() -> EpisodeRecord:
    call = ToolCall(id="c1", name="get_order", arguments={"order_id": "O-1"})
    bad = ToolCall(id="c2", name="cancel_order", arguments={"order_id": "O-1"})
    return EpisodeRecord(
        episode_id="t#0", task_id="t", domain="support", repeat=0, seed=1, reward=1.0,
        transcript=[
            UserEvent(turn=0, content="hi"),
            ToolEvent(turn=1, call=call, output="{}"),  # a tool call carries the turn of the reply it leads to
            AgentEvent(turn=1, content="one"),
            UserEvent(turn=1, content="ok"),
            ToolEvent(turn=2, call=bad, output="{}"),
            AgentEvent(turn=2, content="two"),
        ],
        grade=Grade(reward=1.0, state_match=True, outputs_ok=True, assertions=[
            AssertionResult(type="tool_called_before", result="pass", turn=1),
            AssertionResult(type="tool_not_called", result="fail", turn=2),
        ]),
        verdicts=[
            Verdict(turn=1, situation="x", rule="R1", verdict="FOLLOWED"),
            Verdict(turn=2, situation="x", rule="R2", verdict="VIOLATED"),
            Verdict(turn=2, situation="x", rule="R3", verdict="VIOLATED"),
        ],
        usage={"agent": Usage(calls=2, prompt_tokens=1500, completion_tokens=500)},
    )


def test_reward_parts_are_weighted_recorded_apart_and_dense():
    rec = _record()
    assert reward_parts(rec).total == 1.0  # default weights: the outcome alone
    w = RewardWeights(outcome=1, violations=-0.1, milestones=0.2, minefields=-0.5, tokens=-0.01, turns=-0.05)
    p = reward_parts(rec, w)
    assert p.units == {"outcome": 1.0, "violations": 2.0, "milestones": 1.0, "minefields": 1.0, "tokens": 2.0, "turns": 2.0}
    assert p.parts["violations"] == pytest.approx(-0.2) and p.parts["minefields"] == -0.5
    assert p.total == pytest.approx(1 - 0.2 + 0.2 - 0.5 - 0.02 - 0.1)
    # dense: the milestone on turn 1 (the tool call before the first message), the violations and
    # the minefield on turn 2, the outcome, tokens and turns at the end
    assert p.per_turn[1] == pytest.approx(0.2)
    assert p.per_turn[2] == pytest.approx(-0.2 - 0.5 + 1 - 0.02 - 0.1)
    assert sum(p.per_turn.values()) == pytest.approx(p.total)
    err = rec.model_copy(update={"status": "error"})
    assert reward_parts(err).parts["outcome"] == 0.0  # an errored episode never earns its outcome


def test_weights_parse_with_one_line_errors():
    from envs.errors import SpecError

    assert RewardWeights.parse("outcome=1, violations=-0.1").violations == -0.1
    for bad in ("nope=1", "violations", "violations=x"):
        with pytest.raises(SpecError, match="--weights"):
            RewardWeights.parse(bad)


def test_turn_rewards_sit_on_the_message_that_ends_the_turn():
    (g,) = _groups("eager", ["sup_ambig_one_item"], 1, weights=RewardWeights(violations=-1))
    t = g.trajectories[0]
    assert t.turn_rewards and sum(r.reward for r in t.turn_rewards) == pytest.approx(t.reward.total)
    for r in t.turn_rewards:
        assert t.messages[r.message_index]["role"] == "assistant"


def test_rollout_and_export_commands_write_jsonl_that_datasets_loads(tmp_path):
    out = tmp_path / "ro.jsonl"
    cmd = [sys.executable, "-m", "envs.rollout", "--domain", "support", "--tasks", "sup_ambig*", "--group-size", "2",
           "--agent", "scripted:eager", "--weights", "outcome=1,violations=-0.1", "--out", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == 6 and all({"messages", "tools", "reward", "reward_parts", "advantage", "episode_id"} <= set(x) for x in lines)
    run = tmp_path / "run"
    subprocess.run([sys.executable, "-m", "envs.run", "--domain", "toy", "--repeats", "2", "--out", str(run), "--quiet"],
                   check=True, capture_output=True, timeout=120)
    ex = tmp_path / "ex.jsonl"
    r = subprocess.run([sys.executable, "-m", "envs.export", str(run), "--format", "openai-chat", "--out", str(ex)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    rows = [json.loads(x) for x in ex.read_text().splitlines()]
    assert rows and all(m["role"] in ("system", "user", "assistant", "tool") for x in rows for m in x["messages"])
    for x in rows:  # OpenAI format: tool results answer a call by id, arguments are JSON text
        ids = {c["id"] for m in x["messages"] for c in m.get("tool_calls") or []}
        for m in x["messages"]:
            if m["role"] == "tool":
                assert m["tool_call_id"] in ids
            for c in m.get("tool_calls") or []:
                assert isinstance(json.loads(c["function"]["arguments"]), dict)
    # GRPO: one prompt-only row per agent turn, each prompt a prefix of the episode's conversation that
    # ends where the agent is to speak, the turn rewards of an episode summing to its reward.
    gr = tmp_path / "grpo.jsonl"
    from envs.export import main as export_main

    assert export_main([str(run), "--format", "grpo", "--weights", "outcome=1,turns=-0.01", "--out", str(gr)]) == 0
    grows = [json.loads(x) for x in gr.read_text().splitlines()]
    by_episode = {x["episode_id"]: x for x in rows}
    assert {g["episode_id"] for g in grows} == set(by_episode) and all("completion" not in g for g in grows)
    for eid, sft in by_episode.items():
        mine = [g for g in grows if g["episode_id"] == eid]
        msgs = sft["messages"]
        said = [m for m in msgs if m["role"] == "assistant"]
        n_turns = sum(1 for m in said if not m.get("tool_calls")) + bool(said and said[-1].get("tool_calls"))
        assert [g["turn"] for g in mine] == list(range(1, n_turns + 1))
        for g in mine:
            assert g["prompt"] == msgs[: len(g["prompt"])] and g["prompt"][-1]["role"] in ("user", "tool")
            assert msgs[len(g["prompt"])]["role"] == "assistant" and g["tools"] == sft["tools"]
        assert sum(g["turn_reward"] for g in mine) == pytest.approx(mine[0]["reward"])
        assert mine[0]["reward_to_go"] == pytest.approx(mine[0]["reward"]) and mine[0]["reward_parts"]["turns"] < 0
    bad = subprocess.run([sys.executable, "-m", "envs.export", str(tmp_path / "nope"), "--out", str(ex)],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "not a run folder" in bad.stderr and "Traceback" not in bad.stderr

    datasets = pytest.importorskip("datasets", reason="the rl extra (Hugging Face datasets) is not installed")
    for f in (out, ex):
        ds = datasets.load_dataset("json", data_files=str(f), split="train")
        assert len(ds) == len(f.read_text().splitlines()) and "messages" in ds.column_names
        assert ds[0]["messages"][0]["role"] == "system"
    ds = datasets.load_dataset("json", data_files=str(gr), split="train")
    assert len(ds) == len(grows) and {"prompt", "reward", "reward_parts", "turn_reward"} <= set(ds.column_names)
    assert "completion" not in ds.column_names and ds[0]["prompt"][0]["role"] == "system"


def test_export_matches_trls_conversational_format(tmp_path):
    trl = pytest.importorskip("trl.data_utils", reason="TRL is not installed: not in the test extras, as `pip install trl` pulls "
                              "accelerate and torch; `pip install --no-deps trl==1.16.0` is enough for trl.data_utils")
    (g,) = _groups("careful", ["sup_cancel_before_dispatch"], 1)
    from envs.rl.export import line

    assert trl.is_conversational(line(g.trajectories[0]))
    from envs.rl.export import grpo_rows

    rows = grpo_rows(g.trajectories[0])  # GRPOTrainer's prompt-only conversational type
    assert rows and all(trl.is_conversational(r) and "completion" not in r for r in rows)
