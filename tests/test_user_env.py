"""The user-side environment: the policy plays the simulated user; the reward is fidelity to the scenario."""

from __future__ import annotations

import json

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import envs  # noqa: F401

TASK = "sup_cancel_before_dispatch"


def _play(env, lines):
    obs, info = env.reset(seed=0)
    assert obs == "" and info["prompt"][0]["role"] == "system"
    r = term = trunc = None
    for line in lines:
        obs, r, term, trunc, info = env.step(line)
        if term or trunc:
            break
    return r, term, trunc, info


@pytest.mark.parametrize("env_id", ["sitgym/SupportUser-v0", "sitgym/TutoringUser-v0"])
def test_check_env_passes(env_id):
    env = gymnasium.make(env_id)
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_the_user_sees_its_scenario_and_the_agents_replies():
    env = gymnasium.make("sitgym/SupportUser-v0", task_id=TASK)
    obs, info = env.reset(seed=0)
    system = info["prompt"][0]["content"]
    task = env.unwrapped.domain.tasks[TASK]
    assert task.scenario.request in system and all(h.fact in system for h in task.scenario.hidden_facts)
    assert info["situation"] in task.scenario.situations
    obs, r, term, trunc, info = env.step(task.scenario.request)
    assert info["observation_kind"] == "agent" and obs and r == 0.0 and not term
    env.close()


def test_a_faithful_user_scores_one_and_a_leaky_one_less():
    task = gymnasium.make("sitgym/SupportUser-v0", task_id=TASK).unwrapped.domain.tasks[TASK]
    facts = {h.id: h.fact for h in task.scenario.hidden_facts}
    faithful = [task.scenario.request, f"{facts['email']} {facts['zip']}", "Yes, please go ahead.",
                "Thanks, that's everything. ###STOP###"]
    env = gymnasium.make("sitgym/SupportUser-v0", task_id=TASK)
    r, term, trunc, info = _play(env, faithful)
    assert term and not trunc and r == 1.0, info["fidelity"]
    assert info["grade"]["reward"] == 1.0  # and the scripted agent got the job done
    leaky = [f"{task.scenario.request} {facts['email']} {facts['zip']}", "Yes, please go ahead.", "Bye. ###STOP###"]
    r, term, trunc, info = _play(env, leaky)
    flags = [p["flag"] for p in info["fidelity"]]
    assert flags.count("leaked") == 2 and r == pytest.approx(0.5)
    off = ["Hello, lovely weather today.", "Bye. ###STOP###"]
    r, *_, info = _play(env, off)
    assert "off_goal" in [p["flag"] for p in info["fidelity"]] and r < 1.0
    env.close()


def test_user_tools_answer_and_the_user_still_speaks():
    env = gymnasium.make("sitgym/SupportUser-v0", task_id="sup_missing_parcel_replacement")
    obs, info = env.reset(seed=0)
    name = info["user_tools"][0]["function"]["name"] if "function" in info["user_tools"][0] else info["user_tools"][0]["name"]
    obs, r, term, trunc, info = env.step(json.dumps({"tool_calls": [{"name": name, "arguments": {"order_id": "O-00001"}}]}))
    assert info["observation_kind"] == "tool" and json.loads(obs)[0]["name"] == name and not term
    events = env.unwrapped._ep.events
    assert events[-1].kind == "tool" and events[-1].side == "user"
    env.close()
