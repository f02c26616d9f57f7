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


def readme_vf_eval_command() -> str:
    """The README's vf-eval command for the local model, as written (``URL`` stands for the base URL
    ``python -m envs.serve local:smollm2`` prints)."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("**verifiers (PrimeIntellect).**"):]
    cmd = re.search(r"as `tests/test_verifiers.py` runs it\):\s*`(vf-eval [^`]+)`", section)
    assert cmd, "the README's vf-eval command for the local model is gone"
    return " ".join(cmd.group(1).split())


def serve_local_model(tmp_path: Path) -> tuple[subprocess.Popen, str, str]:
    """``python -m envs.serve local:smollm2`` as the README says to start it: (process, base URL, model)."""
    import re

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    log = (tmp_path / "serve.out").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "envs.serve", "local:smollm2"], stdout=log, stderr=subprocess.STDOUT,
                            env=env, cwd=tmp_path)
    import time

    deadline = time.monotonic() + 600  # generous: loading the weights on a busy machine
    while time.monotonic() < deadline and proc.poll() is None:
        m = re.search(r"at (http://127\.0\.0\.1:\d+/v1) as model '([^']+)'", (tmp_path / "serve.out").read_text())
        if m:
            return proc, m.group(1), m.group(2)
        time.sleep(0.2)
    proc.kill()
    raise AssertionError(f"envs.serve printed no URL: {(tmp_path / 'serve.out').read_text()[-2000:]}")


def _run_readme_command(tmp_path: Path, url: str) -> list[dict]:
    """The README's vf-eval command, word for word but for ``URL``, run in ``tmp_path``; its traces."""
    import shlex

    argv = [url if a == "URL" else a for a in shlex.split(readme_vf_eval_command())]
    script = Path(sys.executable).parent / "vf-eval"
    argv[0] = str(script) if script.exists() else argv[0]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    p = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=3600)
    assert p.returncode == 0, p.stderr[-3000:]
    (traces_file,) = tmp_path.glob("outputs/*/traces.jsonl")  # vf-eval's default output folder
    return _traces([json.loads(line) for line in traces_file.read_text().splitlines() if line.strip()])


def test_the_readmes_vf_eval_command_runs_as_written(server, tmp_path):
    """The README's vf-eval command for the local model, word for word (only ``URL`` replaced), against
    an OpenAI-compatible server answering as the model it names: every flag parses and takes effect
    (support's ambiguous-request tasks, one rollout each, sitgym's harness in JSON tool mode with
    128-token replies), every rollout is scored with sitgym's reward, none errored. The same command
    on the real local model: ``test_vf_eval_cli_on_the_local_model`` below (the toy domain, to stay
    within the suite's time) and by hand (see the report)."""
    import shlex

    command = shlex.split(readme_vf_eval_command())
    model = command[command.index("--model") + 1]
    server.behaviours[model] = lambda body: __import__("fake_llm_server").default_agent(body)
    traces = _run_readme_command(tmp_path, server.url)
    pattern = command[command.index("--env.taskset.tasks") + 1]
    assert len(traces) == len(list(load_environment(domain="support", tasks=[pattern]).taskset)) == 3
    asked = server.completions(model)
    assert asked and all("response_format" in b and b.get("max_tokens") == 128 for b in asked)  # json tool mode, 128 tokens
    for t in traces:
        info = t["info"]["sitgym"]
        assert info["status"] == "ok", (info.get("error"), t.get("errors"))
        assert t["info"]["sitgym_record"]["task_id"].startswith("sup_ambig")
        assert t["rewards"]["outcome"]["score"] == info["outcome"] == t["info"]["sitgym_record"]["reward"]


@pytest.mark.slow
@pytest.mark.local_llm
def test_vf_eval_cli_on_the_local_model(tmp_path):
    """vf-eval on the local model served as the README says (``python -m envs.serve local:smollm2``),
    with the README command's harness options, on the toy domain (support's prompts are long for a
    135M model on a busy CPU: the README's own command is run against a served endpoint above)."""
    import shlex

    from envs.llm.backends.llamacpp import available

    why = available()
    if why:
        pytest.skip(f"local:smollm2 unavailable: {why}")
    command = shlex.split(readme_vf_eval_command())
    harness = [a for i, a in enumerate(command) if a.startswith("--env.agent.harness.") or command[i - 1].startswith("--env.agent.harness.")]
    assert "--env.agent.harness.tool-mode" in harness
    proc, url, model = serve_local_model(tmp_path)
    try:
        assert command[command.index("--model") + 1] == model  # the README names the model envs.serve serves
        rows = vf_eval(tmp_path, url, model, *harness, "--env.agent.harness.request-timeout", "600")  # generous: busy machines
    finally:
        proc.terminate()
        proc.wait(60)
    traces = _traces(rows)
    assert traces
    for t in traces:
        info = t["info"]["sitgym"]
        if info["status"] == "ok":  # whatever the tiny model did, verifiers' reward is sitgym's
            assert t["rewards"]["outcome"]["score"] == info["outcome"] == t["info"]["sitgym_record"]["reward"]
        else:
            assert t.get("errors") or any(r.get("errors") for r in rows)
