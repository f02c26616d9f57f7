"""sitgym run by verifiers (``verifiers==0.4.0``, ``verifiers.v1``): ``envs.integrations.verifiers_env``.

In-process: the environment loads the domain's tasks, and one rollout, its model calls going through
verifiers' interception to ``tests/fake_llm_server.py``, carries sitgym's reward (and a 0, and an
errored rollout, when the policy fails). Then verifiers' own ``vf-eval`` CLI, as a subprocess, on
the fake server and on the built-in local model (SmolLM2 in llama.cpp) when it is installed.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

vf = pytest.importorskip("verifiers.v1", reason="verifiers not installed (pip install -e '.[verifiers]')")

from fake_llm_server import FakeLLMServer, Reply  # noqa: E402

from envs.errors import SpecError  # noqa: E402
from envs.integrations.verifiers_env import load_environment  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def server():
    srv = FakeLLMServer().start()
    yield srv
    srv.stop()


@pytest.fixture(autouse=True)
def _key(monkeypatch, server):
    server.reset()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")


def play(env, url: str, model: str = "fake-agent") -> vf.Episode:
    ctx = vf.ModelContext(
        client=vf.EvalClientConfig(base_url=url, api_key_var="OPENAI_API_KEY"), model=model, sampling=vf.SamplingConfig()
    )

    async def go():
        async with env.serving():
            (task,) = list(env.taskset)[:1]
            return await env.run_slot(env.slots(task)[0], ctx)

    return asyncio.run(go())


def test_the_taskset_is_the_domains_tasks_and_a_bad_pattern_is_one_line():
    from envs.domain import get_domain

    env = load_environment(domain="toy")
    assert [t.data.task_id for t in env.taskset] == list(get_domain("toy").tasks)
    assert type(env).__name__ == "SitgymEnv" and type(env._harnesses["agent"]).__name__ == "SitgymHarness"
    with pytest.raises(SpecError, match="'nope\\*' matches no task of domain toy"):
        list(load_environment(domain="toy", tasks=["nope*"]).taskset)
    with pytest.raises(SpecError, match="--weights: outcome: 'x' is not a number"):
        list(load_environment(domain="toy", weights="outcome=x").taskset)


def test_one_rollout_through_the_interception_carries_sitgyms_reward(server):
    ep = play(load_environment(domain="toy", weights="outcome=1,turns=-0.25"), server.url)
    assert ep.ok and not ep.errors
    (trace,) = ep.traces
    info = trace.info["sitgym"]
    rec = trace.info["sitgym_record"]
    assert rec["status"] == "ok" and rec["reward"] == 1.0 and info["termination"] == "user_stop"
    # the policy's calls reached the model through verifiers (recorded on its trace), the user is scripted
    agent_calls = server.completions("fake-agent")
    assert agent_calls and trace.num_turns == len(agent_calls)
    assert any(e["kind"] == "tool" and e["call"]["name"] == "deposit" for e in rec["transcript"])
    rewards = {k: r.score * r.weight for k, r in trace.rewards.items()}
    assert rewards["outcome"] == 1.0 and rewards["turns"] == -0.25 * info["reward"]["units"]["turns"]
    assert sum(rewards.values()) == pytest.approx(info["reward"]["total"])
    assert trace.metrics["sitgym_outcome"] == 1.0


def test_a_policy_that_does_not_act_scores_0_with_the_reason(server):
    server.queue("fake-agent", Reply.text("Done: deposit made."))  # says it, never calls the tool
    ep = play(load_environment(domain="toy"), server.url)
    (trace,) = ep.traces
    assert ep.ok and trace.info["sitgym"]["outcome"] == 0.0
    assert trace.rewards["outcome"].score == 0.0
    assert "accounts" in trace.info["sitgym"]["first_failure"]


def test_a_failing_endpoint_is_an_errored_rollout_not_a_score(server):
    server.queue("fake-agent", *[Reply.error(401, message="bad key")] * 4)
    ep = play(load_environment(domain="toy"), server.url)
    assert not ep.ok
    (trace,) = ep.traces
    assert trace.info["sitgym"]["status"] == "error"
    assert "401" in trace.info["sitgym"]["error"] and trace.info["sitgym_record"]["error_role"] == "agent"
    # verifiers records the provider's failure on the trace (or sitgym's harness error); no score
    assert any("401" in e.message or "sitgym episode" in e.message for e in [*ep.errors, *trace.errors])
    assert not trace.rewards or all(r.score in (None, 0.0) for r in trace.rewards.values())


def vf_eval(tmp_path: Path, url: str, model: str, *extra: str, timeout: float = 600) -> list[dict]:
    """Run the real ``vf-eval`` CLI on sitgym's environment; the traces it wrote."""
    script = Path(sys.executable).parent / "vf-eval"
    cmd = [str(script)] if script.exists() else [sys.executable, "-c", "from verifiers.v1.cli.eval.main import main; main()"]
    env = {**os.environ, "OPENAI_API_KEY": "sk-fake"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "tests"), env.get("PYTHONPATH", "")])
    argv = [
        *cmd,
        "sitgym-verifiers",
        "--env.taskset.domain",
        "toy",
        "--model",
        model,
        "--client.base-url",
        url,
        "--client.api-key-var",
        "OPENAI_API_KEY",
        "--push",
        "false",
        "--no-rich",
        "-o",
        str(tmp_path),
        *extra,
    ]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    (traces,) = tmp_path.glob("*/traces.jsonl")
    return [json.loads(line) for line in traces.read_text().splitlines() if line.strip()]


def _traces(rows: list[dict]) -> list[dict]:
    # traces.jsonl holds episodes (each with its traces) in verifiers 0.4.0; accept bare traces too
    return [t for r in rows for t in (r.get("traces") or [r])]


def test_vf_eval_cli_scores_sitgym_episodes(server, tmp_path):
    traces = _traces(vf_eval(tmp_path, server.url, "fake-agent", "-r", "2"))
    assert len(traces) == 2
    for t in traces:
        assert t["info"]["sitgym_record"]["reward"] == 1.0
        assert t["rewards"]["outcome"]["score"] == 1.0
    assert len(server.completions("fake-agent")) >= 4


@pytest.mark.slow
@pytest.mark.local_llm
def test_vf_eval_cli_on_the_local_model(tmp_path):
    from envs.llm.backends.llamacpp import LocalServer, available, smollm2_path

    why = available()
    if why:
        pytest.skip(f"local:smollm2 unavailable: {why}")
    srv = LocalServer(smollm2_path())
    try:
        rows = vf_eval(
            tmp_path,
            srv.url,
            srv.alias,
            "--env.agent.harness.id",
            "sitgym-verifiers",
            "--env.agent.harness.tool-mode",
            "json",
            "--env.agent.harness.max-tokens",
            "128",
        )
    finally:
        srv.stop()
    traces = _traces(rows)
    assert traces
    for t in traces:
        info = t["info"]["sitgym"]
        if info["status"] == "ok":  # whatever the tiny model did, verifiers' reward is sitgym's
            assert t["rewards"]["outcome"]["score"] == info["outcome"] == t["info"]["sitgym_record"]["reward"]
        else:
            assert t.get("errors") or any(r.get("errors") for r in rows)
