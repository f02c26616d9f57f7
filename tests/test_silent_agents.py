"""Nothing passes that did nothing: an agent that only says "..." and one that only loops on a read
tool score 0 on every shipped task of every domain, through the runner, the gym env and the export;
an episode that did not end as a conversation ends is a failed trial whatever its state."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from envs.actors.null_agents import ReadLoopAgent, SilentAgent, _matching
from envs.actors.scripted_user import ScriptedUser
from envs.domain import get_domain
from envs.episode import run_episode
from envs.gym.env import SitgymEnv
from envs.run.cli import main
from graders.evaluate import FINISHED, unfinished

SHIPPED = ["support", "tutoring"]  # taubench-retail needs tau-bench's data (not shipped)


@pytest.mark.parametrize("domain", SHIPPED)
@pytest.mark.parametrize("agent", ["silent", "read-loop"])
def test_a_do_nothing_agent_scores_zero_through_the_runner_and_the_export(tmp_path, domain, agent):
    out = tmp_path / "run"
    assert main(["--domain", domain, "--agent", f"scripted:{agent}", "--out", str(out), "--quiet"]) == 0
    s = json.loads((out / "summary.json").read_text())
    assert s["pass_hat_k"]["1"] == 0.0 and s["pass_hat_k_clean"]["1"] == 0.0 and s["mean_reward"] == 0.0
    assert all(v == 0.0 for v in s["pass_hat_k_agent_only"].values())
    assert s["tasks"] == len(get_domain(domain).tasks) and s["errors"] == 0
    ex = tmp_path / "export.jsonl"
    r = subprocess.run([sys.executable, "-m", "envs.export", str(out), "--out", str(ex)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = [json.loads(l) for l in ex.read_text().splitlines()]
    assert len(rows) == s["tasks"] and all(row["reward"] == 0.0 for row in rows)
    if agent == "read-loop":  # never replies: every episode ends at the step limit, and says so
        assert {row["termination"] for row in rows} == {"max_steps"}
        assert all("max_steps" in row["unfinished"] for row in rows)


@pytest.mark.parametrize("domain", SHIPPED)
def test_a_do_nothing_agent_scores_zero_through_the_gym_env(domain):
    env = SitgymEnv(domain)
    try:
        for task_id in env.task_ids:
            for action in ("...", None):
                obs, info = env.reset(seed=0, options={"task_id": task_id})
                tools = {t["function"]["name"]: t for t in info["tools"]}
                loop = ReadLoopAgent(next(iter(tools)))
                for _ in range(500):
                    if action is None:  # a read tool, again and again, as JSON
                        from envs.actors.protocols import AgentView

                        a = asyncio.run(loop.act(AgentView(policy="", tools=info["tools"], events=[], episode=None)))
                        step = json.dumps({"tool_calls": [c.model_dump() for c in a.tool_calls]})
                    else:
                        step = action
                    obs, reward, term, trunc, step_info = env.step(step)
                    if term or trunc:
                        break
                assert term or trunc, task_id
                assert reward == 0.0, (task_id, action, step_info.get("termination"))
                if action is None:
                    assert step_info["termination"] == "max_steps" and step_info["grade"]["unfinished"]
    finally:
        env.close()


def test_an_unfinished_episode_fails_whatever_its_state():
    """The goal of a no-change task holds in the state of a looping agent: still a failed trial."""
    support = get_domain("support")
    task = support.tasks["sup_cancel_after_dispatch"]
    rec = asyncio.run(run_episode(support, task, ReadLoopAgent("get_order"), ScriptedUser(), seed=1))
    assert rec.termination == "max_steps" and rec.grade.state_match and rec.reward == 0.0
    assert "max_steps" in rec.grade.unfinished
    assert unfinished("user_stop") is None and unfinished("transfer") is None
    for t in ("max_steps", "max_turns", "agent_error_limit", "budget_tokens", "budget_cost", "budget_seconds", "error"):
        assert t not in FINISHED and unfinished(t)


def test_a_silent_agent_fails_a_required_assertion_and_the_line_says_so():
    support = get_domain("support")
    task = support.tasks["sup_cancel_after_dispatch"]
    rec = asyncio.run(run_episode(support, task, SilentAgent(), ScriptedUser(), seed=1))
    assert rec.termination == "user_stop" and rec.grade.state_match and rec.reward == 0.0
    assert not rec.grade.required_assertions_ok
    from envs.report.summary import _why_failed

    assert _why_failed(rec).startswith("required assertion failed: the order read")


@pytest.mark.parametrize("pattern", [r"^C-\d{5}$", r"^[^@\s]{1,64}@[^@\s]{1,60}\.[A-Za-z]{2,}$", r"^TS-[A-Z0-9-]{1,9}$",
                                     r"^[A-Z]{2,4}-?\d{1,5}$", r"^(ab|cd)x?$"])
def test_the_read_loop_agent_writes_arguments_its_tools_accept(pattern):
    import re

    assert re.fullmatch(pattern, _matching(pattern))
