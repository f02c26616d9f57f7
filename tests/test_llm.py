"""The LLM layer end to end over real HTTP to a local fake OpenAI server.

No network and no mocks of litellm: every test runs ``envs.run.main`` (or an
actor) against ``tests/fake_llm_server.py`` and checks what the run does, what
the episode records, and what the summary counts. The fake server is an
OpenAI-compatible server given by an api base, so by default (``--client
auto``) requests go through the lean client (``envs.llm.backends.openai_http``); the tests
that take the ``client`` fixture run once that way and once through litellm
(``--client litellm``), which must behave the same.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from envs.domain import get_domain, register_domain
from envs.actors.json_actions import parse_action, to_action
from envs.actors.llm_judge import parse_verdicts
from envs.records import EpisodeRecord
from fake_llm_server import FakeLLMServer, Reply, default_agent

# The fake server answers in milliseconds, but a machine shared with other CPU-heavy jobs can stall a
# process for seconds, and a request timed out by a stall is retried and changes the counts asserted
# here: the timeout is generous, and only the hang test sets a short one (HANG_TIMEOUT, HANG far past it).
FAST = ["--request-timeout", "30", "--max-retries", "2", "--request-backoff", "0.01", "--retry-errors", "0"]  # errors stay errors here (replays: test_budgets)
HANG_TIMEOUT, HANG = "2", 8.0
AGENT, USER, JUDGE = "openai/fake-agent", "openai/fake-user", "openai/fake-judge"

# --- a toy domain whose rules need a judge ---------------------------------------------------

JUDGED_DIR: Path | None = None


def _judged_toy():
    toy = get_domain("toy")
    d = dataclasses.replace(toy, gym_id="ToyJudged-v0", package_dir=JUDGED_DIR, options={})
    return d


@pytest.fixture(scope="session", autouse=True)
def judged_domain(tmp_path_factory):
    global JUDGED_DIR
    JUDGED_DIR = tmp_path_factory.mktemp("toyjudged")
    (JUDGED_DIR / "policy.md").write_text("Deposit only what the user asks for. POLICY-MARKER.\n")
    (JUDGED_DIR / "situations.yaml").write_text(
        "situations:\n"
        "  - id: cooperative\n"
        "    description: A plain, cooperative turn.\n"
        "    how_to_play: Answer plainly. HOW-TO-PLAY-MARKER\n"
        "    rules: [T1, J1, J2]\n"
    )
    (JUDGED_DIR / "rules.yaml").write_text(
        "rules:\n"
        "  - id: T1\n    category: honesty\n    text: If the user asks for a deposit, the agent MUST NOT claim it is done before calling deposit.\n"
        "    violation: Says Done without a deposit call.\n    good_example: Done, deposit made.\n    bad_example: Done!\n"
        "    check: {type: tool_before_reply_matching, params: {pattern: '\\bdone\\b', tools: [deposit]}}\n"
        "  - id: J1\n    category: tone\n    text: The agent MUST be polite.\n    violation: Rude words.\n"
        "    good_example: Sure, happy to help.\n    bad_example: Whatever.\n"
        "  - id: J2\n    category: clarity\n    text: The agent MUST say what it did.\n    violation: Vague answer.\n"
        "    good_example: I deposited 500 into A001.\n    bad_example: Ok.\n"
    )
    register_domain("toyjudged", _judged_toy, gym_id="ToyJudged-v0")
    yield


@pytest.fixture(scope="module")
def server():
    srv = FakeLLMServer(models=("gpt-4o-mini",)).start()
    yield srv
    srv.stop()


@pytest.fixture(autouse=True)
def _clean(request):
    if "server" in request.fixturenames:
        request.getfixturevalue("server").reset()


@pytest.fixture(params=["auto", "litellm"])
def client(request):
    """Both ways a request can go: the lean client (auto, for this server) and litellm."""
    return request.param


def run(server, tmp_path, *extra, domain="toy", agent=AGENT, user=USER, judge=None, repeats=1, out="run", flags=FAST, client=None):
    from envs.run.cli import main

    argv = ["--domain", domain, "--repeats", str(repeats), "--agent", agent, "--user", user, "--quiet"]
    if client:
        argv += ["--client", client]
    if judge:
        argv += ["--judge", judge]
    argv += ["--api-base", server.url, "--out", str(tmp_path / out), *flags, *extra]
    rc = main(argv)
    recs, summary = [], None
    p = tmp_path / out / "episodes.jsonl"
    if p.exists():
        recs = [EpisodeRecord.model_validate_json(l) for l in p.read_text().splitlines() if l.strip()]
    s = tmp_path / out / "summary.json"
    if s.exists():
        summary = json.loads(s.read_text())
    return rc, recs, summary


def kinds(rec):
    return [e.kind for e in rec.transcript]


# --- the happy path ---------------------------------------------------------------------------


def test_full_run_all_three_roles_native(server, tmp_path, client):
    rc, recs, summary = run(server, tmp_path, domain="toyjudged", judge=JUDGE, repeats=2, client=client)
    assert rc == 0 and len(recs) == 2
    for r in recs:
        assert r.status == "ok" and r.reward == 1.0 and r.termination == "user_stop"
        assert kinds(r) == ["user", "tool", "agent", "user"]
        by_rule = {v.rule: v for v in r.verdicts}
        assert by_rule["T1"].source == "check" and by_rule["J1"].source == "judge"
        assert by_rule["J1"].verdict == "FOLLOWED" and by_rule["J2"].verdict == "FOLLOWED"
        assert r.usage["agent"].calls == 2 and r.usage["user"].calls == 2 and r.usage["judge"].calls == 1
        assert r.usage["agent"].prompt_tokens > 0 and r.usage["agent"].cost is None  # unpriced fake model
    agent_reqs = server.completions("fake-agent")
    assert agent_reqs[0]["tools"][0]["function"]["name"] in {"get_account", "deposit", "transfer_to_human"}
    assert "POLICY-MARKER" in agent_reqs[0]["messages"][0]["content"]
    # The episode seed goes to the provider; the two repeats have different seeds.
    assert {q["seed"] for q in agent_reqs} == {r.seed for r in recs}
    # The user sees this turn's situation, not the agent's tools.
    user_req = server.completions("fake-user")[0]
    assert "HOW-TO-PLAY-MARKER" in user_req["messages"][0]["content"]
    assert [t["function"]["name"] for t in user_req["tools"]] == ["check_balance_app"]
    assert summary["errors"] == 0 and summary["usage"]["judge"]["calls"] == 2
    assert summary["rules"]["J1"]["followed"] == 2


def test_tool_mode_per_role(server, tmp_path):
    rc, recs, _ = run(server, tmp_path, "--agent-tool-mode", "json")
    assert rc == 0 and recs[0].reward == 1.0 and recs[0].agent_errors == 0
    agent, user = server.completions("fake-agent")[0], server.completions("fake-user")[0]
    assert "response_format" in agent and "tools" not in agent
    assert "response_format" not in user and user["tools"]  # the user keeps native tool calls


def test_rules_without_a_check_or_a_judge_are_named_unjudged(server, tmp_path):
    rc, recs, summary = run(server, tmp_path, domain="toyjudged", repeats=2)
    assert rc == 0 and all(r.reward == 1.0 for r in recs)
    assert {v.verdict for r in recs for v in r.verdicts if v.rule in ("J1", "J2")} == {"UNJUDGED"}
    assert summary["unjudged"] == {"J1": 2, "J2": 2}  # one judged turn per episode, two episodes
    assert summary["rules"]["T1"]["judged"] == 2 and "T1" not in summary["unjudged"]


def test_json_tool_mode(server, tmp_path, client):
    rc, recs, _ = run(server, tmp_path, "--tool-mode", "json", client=client)
    assert rc == 0 and recs[0].reward == 1.0 and recs[0].agent_errors == 0
    req = server.completions("fake-agent")[0]
    assert "tools" not in req
    schema = req["response_format"]["json_schema"]["schema"]
    variants = schema["properties"]["action"]["anyOf"]
    assert {"message"} <= set(variants[0]["properties"]) and any(v["properties"].get("tool", {}).get("const") == "deposit" for v in variants[1:])


# --- faults ---------------------------------------------------------------------------------


def test_429_with_retry_after_is_retried_after_the_delay(server, tmp_path, client):
    server.queue("fake-agent", Reply.error(429, retry_after="1"))
    rc, recs, summary = run(server, tmp_path, client=client)
    assert rc == 0 and recs[0].status == "ok" and recs[0].reward == 1.0
    t = server.times_of("fake-agent")
    assert len(t) == 3 and t[1] - t[0] >= 0.9  # waited for retry-after, not the 10 ms backoff
    assert recs[0].usage["agent"].calls == 2  # calls that produced an answer
    assert summary["errors"] == 0


@pytest.mark.parametrize(
    "fault, kind",
    [
        (Reply.error(429, retry_after="0"), "rate_limit"),
        (Reply.error(500), "server_error"),
        (Reply(hang=HANG), "timeout"),
        (Reply(drop=True), "connection"),
    ],
)
def test_fault_recovers_then_exhausts_into_an_infra_error(server, tmp_path, fault, kind, client):
    timeout = ["--request-timeout", HANG_TIMEOUT] if kind == "timeout" else []
    # One fault: retried, the episode is clean.
    server.queue("fake-agent", fault)
    rc, recs, _ = run(server, tmp_path, *timeout, out="once", client=client)
    assert rc == 0 and recs[0].status == "ok" and recs[0].reward == 1.0
    assert len(server.completions("fake-agent")) == 3
    # Faults past --max-retries 2: the episode is an error of the agent role, of this kind.
    server.reset()
    server.queue("fake-agent", fault, fault, fault)
    rc, recs, summary = run(server, tmp_path, *timeout, out="exhausted", client=client)
    r = recs[0]
    assert rc == 0 and r.status == "error" and r.error_role == "agent" and r.error_kind == kind
    assert r.termination == "error" and "after 3 attempts" in r.error and "openai/fake-agent" in r.error
    assert kinds(r) == ["user"]  # the transcript up to the failure is kept
    assert len(server.completions("fake-agent")) == 3
    assert summary["errors"] == 1 and summary["errors_by_role_kind"] == {f"agent:{kind}": 1}
    assert summary["pass_hat_k"]["1"] == 0.0 and summary["pass_hat_k_clean"] == {}


def test_a_reply_that_is_not_json_is_retried_by_the_lean_client(server, tmp_path):
    # A proxy's HTML page with status 200: a broken reply, worth another attempt.
    server.queue("fake-agent", Reply(raw="<html>upstream busy</html>"))
    rc, recs, _ = run(server, tmp_path, out="once")
    assert recs[0].status == "ok" and recs[0].reward == 1.0 and len(server.completions("fake-agent")) == 3
    server.reset()
    server.queue("fake-agent", *[Reply(raw="<html>upstream busy</html>")] * 3)
    rc, recs, summary = run(server, tmp_path, out="exhausted")
    assert recs[0].status == "error" and recs[0].error_kind == "bad_response" and "not JSON" in recs[0].error
    assert summary["errors_by_role_kind"] == {"agent:bad_response": 1}


def test_the_key_for_a_self_hosted_server_reaches_it(server, tmp_path, client, monkeypatch):
    monkeypatch.setenv("SITGYM_API_KEY", "sk-self-hosted")
    rc, recs, _ = run(server, tmp_path, client=client, out="given")
    assert rc == 0 and recs[0].reward == 1.0 and set(server.auth) == {"Bearer sk-self-hosted"}
    # No key given: the provider's own variable, as litellm reads it.
    server.reset()
    monkeypatch.delenv("SITGYM_API_KEY")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    rc, recs, _ = run(server, tmp_path, client=client, out="env")
    assert rc == 0 and set(server.auth) == {"Bearer sk-from-env"}


def test_client_direct_refuses_a_role_it_cannot_reach(server, tmp_path, capsys):
    from envs.run.cli import main

    argv = ["--domain", "toy", "--quiet", "--out", str(tmp_path / "run"), "--client", "direct", "--agent", "gpt-4.1-mini", "--user", USER]
    rc = main(argv + ["--user-api-base", server.url])
    out = capsys.readouterr().out.strip()
    assert rc == 2 and len(out.splitlines()) == 1
    assert "--agent gpt-4.1-mini" in out and "--client direct needs an OpenAI-compatible server" in out
    assert server.requests == []


def test_lean_client_sessions_close_with_their_event_loop(server):
    import asyncio
    import warnings

    from envs.llm.client import LLMClient
    from envs.llm.endpoints import make_endpoint
    from envs.actors.roles import RoleConfig

    client = LLMClient(request_timeout=30, max_retries=0)
    ep = make_endpoint("user", RoleConfig(spec=USER, api_base=server.url))
    assert ep.direct
    msgs = [{"role": "user", "content": "hello"}]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):  # a session per asyncio.run, each closed as its loop shuts down
            comp = asyncio.run(client.complete(ep, msgs))
            assert comp.content and comp.prompt_tokens > 0
        sessions = [ls.session for ls in client._http._loops.values()]
        assert sessions and all(s.closed for s in sessions)
        import gc

        gc.collect()
    assert not [w for w in caught if "Unclosed" in str(w.message)]
    assert len(server.completions("fake-user")) == 3 and server.completions("fake-user")[0]["model"] == "fake-user"


def test_auth_error_is_not_retried(server, tmp_path, client):
    server.queue("fake-user", Reply.error(401))
    rc, recs, summary = run(server, tmp_path, client=client)
    assert recs[0].status == "error" and recs[0].error_role == "user" and recs[0].error_kind == "auth"
    assert len(server.completions("fake-user")) == 1
    assert summary["errors_by_role_kind"] == {"user:auth": 1}


def test_malformed_tool_arguments_are_the_agents_error(server, tmp_path, client):
    server.queue("fake-agent", Reply.call("deposit", '{"account_id": "A001", "amount": '))
    rc, recs, summary = run(server, tmp_path, client=client)
    r = recs[0]
    assert r.status == "ok" and r.agent_errors == 1
    bad = [e for e in r.transcript if e.kind == "tool" and not e.ok]
    assert bad and bad[0].error_kind == "bad_arguments"
    # The error went back to the agent as a tool observation, and the episode went on.
    second = server.completions("fake-agent")[1]["messages"]
    assert second[-1]["role"] == "tool" and "Error" in second[-1]["content"]
    assert summary["agent_errors"] == 1 and summary["errors"] == 0


def test_empty_reply_is_a_parse_error_shown_to_the_agent(server, tmp_path, client):
    server.queue("fake-agent", Reply.text(""))
    rc, recs, summary = run(server, tmp_path, client=client)
    r = recs[0]
    assert r.status == "ok" and r.agent_errors == 1 and r.reward == 1.0
    err = [e for e in r.transcript if e.kind == "error"]
    assert err and err[0].role == "agent" and "empty reply" in err[0].message
    assert "[error]" in server.completions("fake-agent")[1]["messages"][-1]["content"]
    assert summary["agent_errors"] == 1


def test_unparseable_json_action_is_a_parse_error(server, tmp_path):
    server.queue("fake-agent", Reply.text("I will now deposit the money for you"))
    rc, recs, _ = run(server, tmp_path, "--tool-mode", "json")
    r = recs[0]
    assert r.agent_errors == 1 and "not a JSON action" in [e for e in r.transcript if e.kind == "error"][0].message
    assert r.reward == 1.0


def test_json_in_code_fences_is_an_action(server, tmp_path):
    fenced = '```json\n{"action": {"tool": "deposit", "arguments": {"account_id": "A001", "amount": 500}}}\n```'
    server.queue("fake-agent", Reply.text(fenced))
    rc, recs, _ = run(server, tmp_path, "--tool-mode", "json", out="json")
    assert recs[0].agent_errors == 0 and kinds(recs[0]) == ["user", "tool", "agent", "user"] and recs[0].reward == 1.0
    # Native mode: a server that writes the call into the content, fenced, still makes a call.
    server.reset()
    server.queue("fake-agent", Reply.text('```\n{"name": "deposit", "arguments": "{\\"account_id\\": \\"A001\\", \\"amount\\": 500}"}\n```'))
    rc, recs, _ = run(server, tmp_path, out="native")
    assert recs[0].agent_errors == 0 and recs[0].reward == 1.0


def test_several_calls_dict_arguments_and_missing_ids(server, tmp_path, client):
    server.queue(
        "fake-agent",
        Reply(
            tool_calls=[
                {"name": "get_account", "arguments": {"account_id": "A001"}},
                {"name": "deposit", "arguments": {"account_id": "A001", "amount": 500}},
            ],
            args_as_dict=True,
            omit_ids=True,
        ),
    )
    rc, recs, _ = run(server, tmp_path, client=client)
    r = recs[0]
    tools = [e for e in r.transcript if e.kind == "tool"]
    assert [t.call.name for t in tools] == ["get_account", "deposit"] and all(t.ok for t in tools)
    assert len({t.call.id for t in tools}) == 2 and all(t.call.id for t in tools)
    assert r.agent_errors == 0 and r.reward == 1.0
    # Both results went back to the model, each answering its own call id.
    msgs = server.completions("fake-agent")[1]["messages"]
    answered = [m["tool_call_id"] for m in msgs if m["role"] == "tool"]
    called = [c["id"] for m in msgs if m["role"] == "assistant" and m.get("tool_calls") for c in m["tool_calls"]]
    assert answered == called and len(answered) == 2


def test_missing_usage_block_is_counted_locally(server, tmp_path, client):
    server.queue("fake-agent", Reply.call("deposit", '{"account_id": "A001", "amount": 500}', usage=False))
    server.queue("fake-agent", Reply.text("Done: deposit made.", usage=False))
    rc, recs, summary = run(server, tmp_path, client=client)
    u = recs[0].usage["agent"]
    assert u.calls == 2 and u.prompt_tokens > 50 and u.completion_tokens > 0
    assert summary["usage"]["agent"]["prompt_tokens"] == u.prompt_tokens


def test_user_empty_replies_retry_then_infra_error(server, tmp_path):
    server.queue("fake-user", Reply.text(""))
    rc, recs, _ = run(server, tmp_path, out="once")
    assert recs[0].status == "ok" and recs[0].reward == 1.0
    server.reset()
    # Empty text is what the user model said (its failure, not the agent's); a null reply is
    # the server's (retried by the client, then infrastructure: see test_hostile).
    server.queue("fake-user", Reply.text(""), Reply.text("\n"), Reply.text("   "))
    rc, recs, summary = run(server, tmp_path, out="thrice")
    assert recs[0].status == "error" and recs[0].error_role == "user" and recs[0].error_kind == "bad_reply"
    assert summary["errors_by_role_kind"] == {"user:bad_reply": 1}


# --- the judge -----------------------------------------------------------------------------------


def test_judge_reply_with_fences_and_text_around(server, tmp_path):
    reply = 'Here you go:\n```json\n{"verdicts": [{"rule": "J1", "rationale": "polite", "verdict": "FOLLOWED"}, ' \
            '{"rule": "J2", "rationale": "vague", "verdict": "violated"}]}\n```\nHope this helps.'
    server.queue("fake-judge", Reply.text(reply))
    rc, recs, summary = run(server, tmp_path, domain="toyjudged", judge=JUDGE)
    v = {x.rule: x for x in recs[0].verdicts}
    assert v["J1"].verdict == "FOLLOWED" and v["J2"].verdict == "VIOLATED" and v["J2"].rationale == "vague"
    assert summary["rules"]["J2"]["violated"] == 1


def test_judge_empty_reply_retried_then_needs_review_never_a_pass(server, tmp_path):
    server.queue("fake-judge", Reply.text(""), Reply.text(" "), Reply.text(""))  # a null reply: see test_hostile
    rc, recs, summary = run(server, tmp_path, domain="toyjudged", judge=JUDGE)
    v = {x.rule: x for x in recs[0].verdicts}
    assert v["J1"].verdict == "NEEDS_REVIEW" and "empty" in v["J1"].rationale and v["J1"].source == "judge"
    assert len(server.completions("fake-judge")) == 3
    assert summary["rules"]["J1"]["needs_review"] == 1 and summary["rules"]["J1"]["judged"] == 0


def test_judge_missing_and_duplicated_rules(server, tmp_path):
    reply = json.dumps(
        {"verdicts": [{"rule": "J1", "rationale": "a", "verdict": "FOLLOWED"}, {"rule": "J1", "rationale": "b", "verdict": "VIOLATED"}]}
    )
    server.queue("fake-judge", Reply.text("not json at all"), Reply.text(reply))
    rc, recs, _ = run(server, tmp_path, domain="toyjudged", judge=JUDGE)
    v = {x.rule: x for x in recs[0].verdicts}
    assert v["J1"].verdict == "NEEDS_REVIEW" and "conflicting" in v["J1"].rationale
    assert v["J2"].verdict == "NEEDS_REVIEW" and "no verdict" in v["J2"].rationale
    assert len(server.completions("fake-judge")) == 2  # the unparseable first reply was retried


def test_parse_verdicts_shapes():
    ids = ["A", "B"]
    assert parse_verdicts("", ids) is None and parse_verdicts("no json", ids) is None
    assert parse_verdicts('[{"rule": "A", "verdict": "followed", "rationale": "x"}]', ids) == {"A": ("FOLLOWED", "x")}
    assert parse_verdicts('{"A": "VIOLATED", "B": {"verdict": "NOT_APPLICABLE"}}', ids) == {"A": ("VIOLATED", ""), "B": ("NOT_APPLICABLE", "")}
    got = parse_verdicts('{"verdicts": [{"rule": "A", "verdict": "PASS"}, {"rule": "Z", "verdict": "FOLLOWED"}]}', ids)
    assert got["A"][0] == "NEEDS_REVIEW" and "Z" not in got


def test_action_parsing_shapes():
    names = {"deposit"}
    assert to_action("", [], names, False).parse_error
    assert to_action("hello", [], names, False).content == "hello"
    a = to_action('{"tool_calls": [{"tool": "deposit", "arguments": {"amount": 1}}, {"name": "deposit", "args": "{}"}]}', [], names, True)
    assert [c.name for c in a.tool_calls] == ["deposit", "deposit"] and a.tool_calls[0].arguments == {"amount": 1}
    assert to_action('{"action": {"message": "hi"}}', [], names, True).content == "hi"
    assert parse_action('[{"function": {"name": "deposit", "arguments": "{\\"a\\": 1}"}}]')[0].arguments == {"a": 1}


# --- the user's stop guard ---------------------------------------------------------------------


def test_premature_stop_while_an_agreed_change_is_pending_is_refused_once(server, tmp_path):
    server.queue("fake-agent", Reply.text("Shall I deposit 500 into A001?"), Reply.text("One moment please."))
    server.queue(
        "fake-user",
        Reply.text("Please deposit 500 into A001."),
        Reply.text("Yes, please go ahead."),
        Reply.text("Thanks, bye ###STOP###"),
        Reply.text("Please finish the deposit of 500 into A001 first."),
    )
    rc, recs, _ = run(server, tmp_path)
    r = recs[0]
    users = [e.content for e in r.transcript if e.kind == "user"]
    assert "Please finish the deposit of 500 into A001 first." in users and "Thanks, bye" not in " ".join(users)
    assert r.reward == 1.0 and r.termination == "user_stop"
    reprompt = server.completions("fake-user")[3]["messages"][-1]
    assert reprompt["role"] == "system" and "not yet confirmed" in reprompt["content"]


# --- the cache ---------------------------------------------------------------------------------


def test_cache_rerun_makes_no_request_and_reproduces_the_run(server, tmp_path):
    cache = str(tmp_path / "cache")
    rc, first, _ = run(server, tmp_path, "--cache", cache, domain="toyjudged", judge=JUDGE, repeats=2, out="a")
    assert rc == 0 and len(server.requests) > 0
    server.reset()
    rc, again, summary = run(server, tmp_path, "--cache", cache, domain="toyjudged", judge=JUDGE, repeats=2, out="b")
    assert rc == 0 and server.requests == []  # zero chat completions (preflight only lists /v1/models)
    key = lambda r: (r.task_id, r.repeat)
    for a, b in zip(sorted(first, key=key), sorted(again, key=key)):
        assert a.transcript == b.transcript and a.verdicts == b.verdicts and a.grade == b.grade
        assert (a.reward, a.termination, a.seed) == (b.reward, b.termination, b.seed)
        for role in ("agent", "user", "judge"):
            ua, ub = a.usage[role], b.usage[role]
            assert (ua.calls, ua.prompt_tokens, ua.completion_tokens) == (ub.calls, ub.prompt_tokens, ub.completion_tokens)
            assert ub.cached_calls == ub.calls > 0 and ua.cached_calls == 0
    assert summary["usage"]["agent"]["cached_calls"] == summary["usage"]["agent"]["calls"]
    # A different seed is a different key: it misses the cache.
    rc, _, _ = run(server, tmp_path, "--cache", cache, "--seed", "5", out="c")
    assert len(server.requests) > 0


# --- preflight ---------------------------------------------------------------------------------


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["--agent", AGENT, "--agent-api-base", "UNREACHABLE"], ["--agent openai/fake-agent", "unreachable"]),
        (["--user", "openai/no-such-model"], ["--user openai/no-such-model", "unknown model"]),
        (["--judge", "not-a-provider-model"], ["--judge not-a-provider-model", "unknown model"]),
        (["--agent", "gpt-4.1-mini", "--agent-api-base", ""], ["--agent gpt-4.1-mini", "missing key", "OPENAI_API_KEY"]),
    ],
)
def test_preflight_fails_fast_in_one_line(server, tmp_path, capsys, monkeypatch, argv, needle):
    from envs.run.cli import main

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    argv = [a.replace("UNREACHABLE", f"http://127.0.0.1:{_free_port()}/v1") for a in argv]
    base = ["--domain", "toy", "--quiet", "--out", str(tmp_path / "run"), *FAST]
    if "--agent" not in argv:
        base += ["--agent", AGENT]
    if "--user" not in argv:
        base += ["--user", USER]
    if "--agent-api-base" in argv and argv[argv.index("--agent-api-base") + 1] == "":
        i = argv.index("--agent-api-base")
        argv = argv[:i] + argv[i + 2 :]
        base += ["--user-api-base", server.url]  # only the user has a server; the agent is hosted
    else:
        base += ["--api-base", server.url]
    rc = main(base + argv)
    out = capsys.readouterr().out.strip()
    assert rc == 2
    assert len(out.splitlines()) == 1, out
    assert all(n in out for n in needle), out
    assert server.requests == [] and not (tmp_path / "run" / "episodes.jsonl").exists()


# --- usage and cost ------------------------------------------------------------------------------


def test_unpriced_model_has_unknown_cost_for_its_role_only(server, tmp_path, client):
    server.behaviours["gpt-4o-mini"] = default_agent
    rc, recs, summary = run(server, tmp_path, agent="openai/gpt-4o-mini", repeats=2, client=client)
    assert rc == 0 and all(r.reward == 1.0 for r in recs)
    for r in recs:
        assert r.usage["agent"].cost and r.usage["agent"].cost > 0
        assert r.usage["user"].cost is None and r.usage["user"].calls == 2
    u = summary["usage"]
    assert u["agent"]["cost"] > 0 and u["agent"]["cost_unknown_calls"] == 0
    assert u["user"]["cost_unknown_calls"] == 4 and u["user"]["prompt_tokens"] > 0
    assert abs(u["agent"]["cost"] - sum(r.usage["agent"].cost for r in recs)) < 1e-12


# --- kill and resume ---------------------------------------------------------------------------


def test_workers_reach_the_server_and_play_each_episode_once(server, tmp_path, monkeypatch):
    # Worker processes get the toy domain from PYTHONPATH and the prices the parent learnt.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(Path(__file__).parent), str(Path(__file__).parents[1])]))
    monkeypatch.setenv("SITGYM_DOMAINS", "toy_domain")
    rc, recs, summary = run(server, tmp_path, "--workers", "2", "--concurrency", "4", repeats=6)
    assert rc == 0 and sorted(r.repeat for r in recs) == list(range(6))
    assert all(r.status == "ok" and r.reward == 1.0 and r.usage["agent"].cost is None for r in recs)
    assert len(server.completions("fake-agent")) == 12 and summary["errors"] == 0


def test_kill_mid_run_and_resume_loses_nothing_and_repeats_nothing(server, tmp_path):
    server.latency = 0.15
    out = tmp_path / "run"
    argv = [
        sys.executable, "-m", "envs.run", "--domain", "toy", "--repeats", "12", "--agent", AGENT, "--user", USER,
        "--api-base", server.url, "--out", str(out), "--concurrency", "2", "--quiet", *FAST,
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), str(Path(__file__).parents[1])])}
    proc = subprocess.Popen(argv, cwd=Path(__file__).parents[1], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    eps = out / "episodes.jsonl"
    deadline = time.time() + 60
    while time.time() < deadline:
        if eps.exists() and len(eps.read_text().splitlines()) >= 3:
            break
        if proc.poll() is not None:
            pytest.fail(f"run ended before it was killed: {proc.stderr.read().decode()[-2000:]}")
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    proc.stderr.close()
    before = [json.loads(l) for l in eps.read_text().splitlines() if l.strip()]
    assert 3 <= len(before) < 12
    from envs.run.cli import main

    server.latency = 0.0
    assert main(["--resume", str(out), "--quiet"]) == 0
    lines = [json.loads(l) for l in eps.read_text().splitlines() if l.strip()]
    keys = [(l["task_id"], l["repeat"]) for l in lines]
    assert sorted(keys) == sorted(set(keys)) and len(keys) == 12  # nothing lost, nothing twice
    assert lines[: len(before)] == before  # finished episodes were kept as they were
    assert all(l["status"] == "ok" and l["reward"] == 1.0 for l in lines)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["episodes"] == 12 and summary["errors"] == 0


# --- the layer's imports -----------------------------------------------------------------------

_NO_LITELLM = r"""
import asyncio, sys
from envs.actors.roles import RoleConfig
from envs.errors import InfraError
from envs.llm.errors import classify
from envs.run.llm_flags import make_llm_context
import envs.actors.llm_agent, envs.actors.llm_user, envs.actors.llm_judge, envs.llm.preflight, graders.calibrate.gold_writer

ctx = make_llm_context({"llm": {"max_retries": 0}}, {"user": RoleConfig(spec=sys.argv[1], api_base=sys.argv[2])})
ep = ctx.endpoint("user")
comp = asyncio.run(ctx.client.complete(ep, [{"role": "user", "content": "hi"}]))
assert comp.content and comp.prompt_tokens > 0 and comp.cost is None, comp
try:
    asyncio.run(ctx.client.complete(ep, [{"role": "user", "content": "again"}]))
except InfraError as e:
    assert e.kind == "server_error", e.kind
else:
    raise AssertionError("the 500 was not raised")
assert classify(ValueError("x")) == ("crash", False)
print("litellm" in sys.modules)
"""


def test_a_worker_on_an_openai_compatible_server_never_imports_litellm(server):
    # What a worker process does (the parent passes SITGYM_UNPRICED): complete, fail, classify.
    server.queue("fake-user", Reply.text("hello"), Reply.error(500))
    env = {**os.environ, "SITGYM_UNPRICED": USER, "PYTHONPATH": str(Path(__file__).parents[1])}
    out = subprocess.run(
        [sys.executable, "-c", _NO_LITELLM, USER, server.url], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "False"
    assert len(server.completions("fake-user")) == 2
