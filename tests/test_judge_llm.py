"""The judge path end to end over real HTTP: calibration with an LLM judge, extending a gold set,
and llm_judge task assertions answered by the judge."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import shutil

import pytest
import yaml

from envs.domain import get_domain, register_domain
from envs.episode import run_episode
from envs.spec.schema import AssertionSpec
from envs.actors.scripted_user import ScriptedUser
from fake_llm_server import FakeLLMServer, Reply
from graders.calibrate.calibration import load_gold
from graders.calibrate.cli import main as calibrate

JUDGE = "openai/fake-judge"


@pytest.fixture(scope="module")
def server():
    srv = FakeLLMServer().start()
    yield srv
    srv.stop()


@pytest.fixture(autouse=True)
def _clean(server):
    server.reset()


def test_calibrate_an_llm_judge_on_the_toy_gold_set(server, tmp_path):
    out = tmp_path / "cal.json"
    rc = calibrate(["--domain", "toy", "--judge", JUDGE, "--api-base", server.url, "--out", str(out)])
    assert rc == 0
    cal = json.loads(out.read_text())
    t1 = cal["rules"]["T1"]
    # The fake judge says FOLLOWED to everything: right on the 2 good replies, too lenient on the 2 bad ones.
    assert (t1["items"], t1["correct"], t1["false_followed"], t1["false_violated"]) == (4, 2, 2, 0)
    assert t1["sensitivity"] == 1.0 and t1["specificity"] == 0.0 and not t1["trustworthy"]
    # Blind: no request carries a label.
    prompts = [json.dumps(r["messages"]) for r in server.requests]
    assert len(prompts) == 4 and not any("label" in p for p in prompts)


def test_extend_writes_unreviewed_items_for_gaps(server, tmp_path):
    toy = get_domain("toy")
    pkg = tmp_path / "pkg"
    shutil.copytree(toy.package_dir, pkg, ignore=shutil.ignore_patterns("__pycache__", "*.py", "tasks"))
    gold = pkg / "gold.yaml"
    data = yaml.safe_load(gold.read_text())
    data["gold"] = [g for g in data["gold"] if g["label"] == "FOLLOWED"]  # leave a gap: no VIOLATED item
    gold.write_text("# reviewed by hand\n" + yaml.safe_dump(data, sort_keys=False))
    register_domain("toygap", lambda: dataclasses.replace(toy, name="toygap", package_dir=pkg, options={}), gym_id="ToyGap-v0")

    def writer(body):
        prompt = body["messages"][0]["content"]
        if "You write test material" in prompt:
            return Reply.text(json.dumps({"dialogue": [{"role": "user", "content": "Put 5 in A002."}], "reply": "Done!"}))
        rules = ["T1"]
        return Reply.text(json.dumps({"verdicts": [{"rule": r, "rationale": "x", "verdict": "VIOLATED"} for r in rules]}))

    server.behaviours["fake-judge"] = writer
    out = tmp_path / "cal.json"
    assert calibrate(["--domain", "toygap", "--judge", JUDGE, "--api-base", server.url, "--out", str(out), "--extend"]) == 0
    text = gold.read_text()
    assert text.startswith("# reviewed by hand")
    items = load_gold(get_domain("toygap"), gold)
    new = [i for i in items if not i.reviewed]
    assert [(i.rule, i.situation, i.label) for i in new] == [("T1", "cooperative", "VIOLATED")]
    assert new[0].source == f"model: {JUDGE}"
    cal = json.loads(out.read_text())
    assert cal["gold_gaps"] == [] and cal["rules"]["T1"]["items"] == len(items)


def test_llm_judge_assertions_are_answered_by_the_judge(server):
    from envs.run.llm_flags import make_llm_context
    from envs.actors.roles import make_llm_judge
    from envs.actors.roles import RoleConfig

    toy = get_domain("toy")
    task = toy.tasks["toy-deposit"].model_copy(
        update={
            "assertions": [
                AssertionSpec(type="llm_judge", question="Did the agent confirm the deposit?"),
                AssertionSpec(type="tool_called", tool="deposit"),
            ]
        }
    )
    server.behaviours["fake-judge"] = lambda body: Reply.text(
        json.dumps({"rationale": "It said done." if "Did the agent" in json.dumps(body) else "?", "answer": "yes"})
        if "yes/no question" in body["messages"][0]["content"]
        else json.dumps({"verdicts": []})
    )
    role = RoleConfig(spec=JUDGE, api_base=server.url)
    ctx = make_llm_context({"llm": {"request_timeout": 30, "max_retries": 1, "request_backoff": 0.01}}, {"judge": role})
    judge = make_llm_judge(toy, role, ctx)()
    import toy_domain

    rec = asyncio.run(run_episode(toy, task, toy_domain.DepositAgent(), ScriptedUser(), seed=1, judge=judge))
    assert rec.status == "ok", rec.error
    a_llm, a_tool = rec.grade.assertions
    assert a_llm.type == "llm_judge" and a_llm.result == "pass" and a_llm.evidence == "It said done."
    assert a_tool.result == "pass"
    assert rec.usage["judge"].calls >= 1
