"""``envs.variance`` on the in-process SmolLM2 model (real llama.cpp over real HTTP): the local model
as agent and judge at temperature 1.0, a scripted user. The user's share is zero by construction,
the agent arm is played, and each judged reply is re-judged with its transcript frozen, giving a
measured flip rate per rule. Slow on shared cores: one task set of two, one repeat, two replays."""

from __future__ import annotations

import json

import pytest

from envs.llm.backends.llamacpp import available

pytestmark = [pytest.mark.local_llm, pytest.mark.slow]

why = available()
if why:
    pytest.skip(f"local:smollm2 unavailable: {why}", allow_module_level=True)

from test_local_llm import tiny_domain  # noqa: E402,F401  (the two-task toy domain fixture)

LIMITS = ["--request-timeout", "300", "--max-retries", "1"]


def test_variance_with_local_agent_and_judge(tiny_domain, tmp_path):  # noqa: F811
    from envs.records import RunSummary
    from envs.run.cli import main as run
    from envs.variance.cli import main as variance

    out = tmp_path / "run"
    assert run([
        "--domain", "tinytoy", "--repeats", "1", "--quiet", "--out", str(out),
        "--agent", "local:smollm2", "--agent-temperature", "1.0", "--agent-max-tokens", "64",
        "--user", "scripted", "--judge", "local:smollm2", "--judge-temperature", "1.0", "--judge-max-tokens", "96",
        "--concurrency", "1", *LIMITS,
    ]) == 0  # fmt: skip
    before = (out / "episodes.jsonl").read_bytes()
    assert variance([str(out), "--replays", "2", "--rejudge", "2", "--concurrency", "1", "--quiet", *LIMITS]) == 0
    assert (out / "episodes.jsonl").read_bytes() == before
    v = RunSummary.model_validate_json((tmp_path / "run-variance" / "summary.json").read_text()).variance
    assert v.user_var.by_construction and v.design.episodes_played == 4
    assert {t.task for t in v.per_task} == {"tiny-0", "tiny-1"}
    assert sum(t.agent_replays for t in v.per_task) + v.design.errors == 4  # every replay counted, clean or errored
    judged = [f for f in v.judge.values() if f.source == "judge"]
    clean = sum(1 for l in before.decode().splitlines() if json.loads(l)["status"] == "ok")
    if clean:  # a measured flip rate per rule, whatever it is
        assert judged and all(f.rejudged == 2 * f.items and f.share is not None for f in judged)
        assert v.judge_flip_share.value is not None and v.judge_flip_share.by_construction is None
