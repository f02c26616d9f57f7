"""Per-episode budgets, the run's cost cap and replays of errored episodes, against the fake LLM server."""

from __future__ import annotations

import json

import pytest

from envs.records import EpisodeRecord
from fake_llm_server import FakeLLMServer, Reply, default_agent

# Generous: a request timed out by a stall of a busy machine is retried and changes the attempts asserted.
FAST = ["--request-timeout", "30", "--max-retries", "2", "--request-backoff", "0.01"]
AGENT, USER = "openai/fake-agent", "openai/fake-user"
PRICED = "openai/gpt-4o-mini"  # litellm knows its price: cost budgets have something to count


@pytest.fixture(scope="module")
def server():
    srv = FakeLLMServer(models=("gpt-4o-mini",)).start()
    yield srv
    srv.stop()


@pytest.fixture(autouse=True)
def _clean(server):
    server.reset()
    server.behaviours["gpt-4o-mini"] = default_agent


def run(server, tmp_path, *extra, agent=AGENT, repeats=1, out="run", resume=False):
    from envs.run.cli import main

    if resume:
        argv = ["--resume", str(tmp_path / out), "--quiet", "--api-base", server.url, *extra]
    else:
        argv = ["--domain", "toy", "--repeats", str(repeats), "--agent", agent, "--user", USER, "--quiet",
                "--api-base", server.url, "--out", str(tmp_path / out), *FAST, *extra]
    rc = main(argv)
    p = tmp_path / out / "episodes.jsonl"
    recs = [EpisodeRecord.model_validate_json(l) for l in p.read_text().splitlines() if l.strip()] if p.exists() else []
    s = tmp_path / out / "summary.json"
    return rc, recs, json.loads(s.read_text()) if s.exists() else None


def test_unbudgeted_episode_finishes(server, tmp_path):
    rc, (rec,), s = run(server, tmp_path)
    assert rc == 0 and rec.termination == "user_stop" and rec.reward == 1.0 and rec.budget is None
    assert s["budget_stops"] == {} and s["retried"] == 0


def test_token_budget_ends_the_episode_as_a_failed_trial(server, tmp_path):
    rc, (rec,), s = run(server, tmp_path, "--max-tokens-per-episode", "40")
    assert rc == 0 and rec.status == "ok" and rec.termination == "budget_tokens"
    assert rec.reward == 0.0 and "token budget spent" in rec.budget and "limit 40" in rec.budget
    spent = sum(u.prompt_tokens + u.completion_tokens for u in rec.usage.values())
    assert spent > 40
    # Counted apart: not an error, not the agent's error; a failed trial in pass^k.
    assert s["errors"] == 0 and s["agent_errors"] == 0 and s["budget_stops"] == {"budget_tokens": 1}
    assert s["pass_hat_k"]["1"] == 0.0
    assert "budget_tokens" in s["per_task"][0]["first_failure"]["why"]


def test_cost_budget_per_episode(server, tmp_path):
    rc, (rec,), s = run(server, tmp_path, "--max-cost-per-episode", "0.0000001", agent=PRICED)
    assert rc == 0 and rec.termination == "budget_cost" and rec.reward == 0.0
    assert rec.usage["agent"].cost > 0.0000001
    assert s["budget_stops"] == {"budget_cost": 1}


def test_seconds_budget_cuts_a_slow_call(tmp_path):
    # The agent's call hangs for 20 s; a 1 s budget ends the episode while it is in flight. On a busy
    # machine the cut may come late, but never near the 20 s an uncut call takes.
    slow = FakeLLMServer().start()
    slow.queue("fake-agent", Reply(content="Done.", hang=20.0))
    try:
        rc, (rec,), s = run(slow, tmp_path, "--max-seconds-per-episode", "1", "--request-timeout", "60")
    finally:
        slow.stop()
    assert rc == 0 and rec.termination == "budget_seconds" and rec.reward == 0.0 and rec.status == "ok"
    assert "time budget spent" in rec.budget
    assert rec.timings["wall_s"] < 15  # the hanging call was cut at the budget, not waited for


def test_a_resume_with_a_different_budget_is_refused(server, tmp_path, capsys):
    run(server, tmp_path, "--max-tokens-per-episode", "40")
    rc, _, _ = run(server, tmp_path, "--max-tokens-per-episode", "4000", resume=True)
    assert rc == 2 and "--max-tokens-per-episode: differs from the run being resumed" in capsys.readouterr().out


@pytest.mark.parametrize("flag", ["--max-tokens-per-episode", "--max-cost", "--max-seconds-per-episode"])
def test_non_positive_budget_is_one_line(server, tmp_path, capsys, flag):
    rc, recs, _ = run(server, tmp_path, flag, "0")
    out = capsys.readouterr().out
    assert rc == 2 and "must be positive" in out and "Traceback" not in out and recs == []


def test_run_cost_cap_stops_starting_episodes_and_resume_plays_the_rest(server, tmp_path, capsys):
    rc, recs, s = run(server, tmp_path, "--max-cost", "0.0000001", "--concurrency", "1", agent=PRICED, repeats=4)
    out = capsys.readouterr().out
    assert rc == 0 and len(recs) == 1  # the first one spent the cap; the other three never started
    assert s["not_played"] == 3 and s["episodes"] == 1 and s["max_cost"] == 0.0000001
    assert "3 of 4 episodes not played" in out and "--resume" in out
    rc, recs, s = run(server, tmp_path, "--max-cost", "10", resume=True)
    assert rc == 0 and len(recs) == 4 and sorted(r.repeat for r in recs) == [0, 1, 2, 3]
    assert s["not_played"] == 0 and s["episodes"] == 4 and s["pass_hat_k"]["4"] == 1.0


def test_errored_episode_is_replayed_within_the_run(server, tmp_path):
    fault = Reply.error(500)
    server.queue("fake-agent", fault, fault, fault)  # exhausts --max-retries 2 once
    rc, recs, s = run(server, tmp_path, "--retry-backoff", "0")
    assert rc == 0 and [(r.attempt, r.status) for r in recs] == [(1, "error"), (2, "ok")]
    assert recs[0].error_kind == "server_error"  # the first attempt is kept, superseded
    assert s["episodes"] == 1 and s["errors"] == 0 and s["retried"] == 1 and s["retried_ok"] == 1
    assert s["pass_hat_k"]["1"] == 1.0  # scored on the last attempt


def test_no_replay_with_retry_errors_0_then_resume_is_the_next_attempt(server, tmp_path):
    fault = Reply.error(500)
    server.queue("fake-agent", fault, fault, fault)
    rc, recs, s = run(server, tmp_path, "--retry-errors", "0")
    assert [(r.attempt, r.status) for r in recs] == [(1, "error")] and s["errors"] == 1 and s["retried"] == 0
    rc, recs, s = run(server, tmp_path, resume=True)
    assert [(r.attempt, r.status) for r in recs] == [(1, "error"), (2, "ok")]
    assert s["errors"] == 0 and s["retried"] == 1


def test_replays_stop_after_retry_errors(server, tmp_path):
    fault = Reply.error(500)
    server.queue("fake-agent", *[fault] * 9)  # three attempts, each exhausting its retries
    rc, recs, s = run(server, tmp_path, "--retry-errors", "2", "--retry-backoff", "0.01")
    assert [(r.attempt, r.status) for r in recs] == [(1, "error"), (2, "error"), (3, "error")]
    assert s["errors"] == 1 and s["retried"] == 1 and s["retried_ok"] == 0 and s["episodes"] == 1


def test_cost_limits_warn_about_unpriced_models(server, tmp_path, capsys):
    rc, (rec,), _ = run(server, tmp_path, "--max-cost-per-episode", "1")
    out = capsys.readouterr().out
    assert rc == 0 and "no known price for" in out and "fake-agent" in out and rec.termination == "user_stop"


def test_an_engine_crash_is_not_replayed_but_an_actor_failure_is():
    import asyncio

    from envs.domain import get_domain
    from envs.episode.budgets import Budgets
    from envs.errors import InfraError
    from envs.run.scheduling import play
    from envs.run.limits import RunLimits
    from envs.actors.scripted_user import ScriptedUser

    class Crashing:
        name = "crashing"

        async def act(self, view):
            raise RuntimeError("a bug in the agent adapter")

    class Flaky:
        name = "flaky"
        calls = 0

        async def act(self, view):
            Flaky.calls += 1
            raise InfraError("server gone", role="agent", kind="connection")

    class Store(list):
        append = list.append

    domain = get_domain("toy")
    limits = RunLimits(budgets=Budgets(), retry_errors=2, retry_backoff=0)
    for agent, expected in ((Crashing, [1]), (Flaky, [1, 2, 3])):
        store, final = Store(), []
        asyncio.run(play(domain, [("toy-deposit", 0, 0, 1)], (agent, ScriptedUser, None), store, 1, final.append, limits))
        assert [r.attempt for r in store] == expected and all(r.status == "error" for r in store)
        assert [r.attempt for r in final] == expected[-1:]  # progress sees the last attempt only


def test_run_cost_cap_holds_across_workers(server, tmp_path):
    # Each worker gets an equal share of what is left of the cap: here each plays one episode.
    rc, recs, s = run(server, tmp_path, "--max-cost", "0.0000001", "--workers", "2", "--concurrency", "2",
                      "--max-tokens-per-episode", "100000", agent=PRICED, repeats=6)
    assert rc == 0 and len(recs) == 2 and s["not_played"] == 4
    assert all(r.budget is None for r in recs)  # the stored per-episode budget reached the workers, unspent
    rc, recs, s = run(server, tmp_path, "--max-cost", "10", "--workers", "2", resume=True)
    assert rc == 0 and len(recs) == 6 and s["not_played"] == 0 and len({(r.task_id, r.repeat) for r in recs}) == 6
