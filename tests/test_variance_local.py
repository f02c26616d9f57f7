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

from test_local_llm import TASK  # noqa: E402


@pytest.fixture(scope="module")
def tiny_domain(tmp_path_factory):
    """test_local_llm's two-task toy domain, under a name of its own (a run records its domain's name,
    and envs.variance finds the run's tasks through it)."""
    import dataclasses

    from envs.domain import get_domain, register_domain

    d = tmp_path_factory.mktemp("tinyvar")
    (d / "tasks").mkdir()
    (d / "policy.md").write_text("You help bank customers. Deposit money only when asked.\n")
    (d / "situations.yaml").write_text(
        "situations:\n  - id: cooperative\n    description: A cooperative turn.\n    how_to_play: Answer plainly.\n    rules: [P1]\n"
    )
    (d / "rules.yaml").write_text(
        "rules:\n  - id: P1\n    category: tone\n    text: The agent MUST be polite.\n    violation: Rude words.\n"
        "    good_example: Sure, happy to help.\n    bad_example: Whatever.\n"
    )
    for i, (acc, amount) in enumerate([("A001", 500), ("A002", 20)]):
        (d / "tasks" / f"t{i}.yaml").write_text(TASK.format(
            id=f"tiny-{i}", goal=f"Put {amount} into account {acc}.", request=f"Please deposit {amount} into {acc}.", acc=acc, amount=amount,
        ).replace("domain: toy", "domain: tinyvar"))
    register_domain(
        "tinyvar",
        lambda: dataclasses.replace(get_domain("toy"), name="tinyvar", gym_id="TinyVar-v0", package_dir=d, tasks_path=d / "tasks", options={}),
        gym_id="TinyVar-v0",
    )
    return d

LIMITS = ["--request-timeout", "300", "--max-retries", "1"]


def test_variance_with_local_agent_and_judge(tiny_domain, tmp_path):  
    from envs.records import RunSummary
    from envs.run.cli import main as run
    from envs.variance.cli import main as variance

    out = tmp_path / "run"
    assert run([
        "--domain", "tinyvar", "--repeats", "1", "--quiet", "--out", str(out),
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


def test_local_judge_rejudged_on_a_frozen_support_run(tmp_path):
    """The smallest real variance check: one support episode (the careful agent, the scripted user)
    judged by the local model at temperature 1.0, re-judged twice with the transcript frozen. The
    checks re-run flip nothing; the model's verdicts get a measured flip share, whatever it is."""
    from envs.records import RunSummary
    from envs.run.cli import main as run
    from envs.variance.cli import main as variance

    out = tmp_path / "run"
    assert run(["--domain", "support", "--tasks", "sup_asks_for_human", "--repeats", "1", "--quiet", "--out", str(out),
                "--judge", "local:smollm2", "--judge-temperature", "1.0", "--judge-max-tokens", "96", *LIMITS]) == 0
    before = (out / "episodes.jsonl").read_bytes()
    assert variance([str(out), "--rejudge", "2", "--quiet", *LIMITS]) == 0
    assert (out / "episodes.jsonl").read_bytes() == before
    v = RunSummary.model_validate_json((tmp_path / "run-variance" / "summary.json").read_text()).variance
    assert v.design.episodes_played == 0 and v.user_var.by_construction and v.agent_var.by_construction
    checked = [f for f in v.judge.values() if f.source == "check"]
    assert checked and all(f.flips == 0 and f.rejudged == 2 * f.items for f in checked)
    judged = [f for f in v.judge.values() if f.source == "judge"]
    # a prefer rule whose judge gave no decided verdict is answered by its check: then no judge row
    assert all(f.share is not None for f in judged)
    assert v.judge_flip_share.by_construction is None
