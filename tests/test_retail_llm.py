"""tau-bench retail with LLM actors over real HTTP (the fake server): the run completes and grades,
the agent sees tau-bench's tool schemas and policy, and the user plays the task's instruction."""

from __future__ import annotations

import json

import pytest

from conftest import SHARED
from envs.run.cli import main
from fake_llm_server import FakeLLMServer

DATA = SHARED / "tau-bench-retail"
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason="tau-bench retail data not found at ../shared/data/tau-bench-retail")


def test_retail_run_with_llm_actors(tmp_path):
    srv = FakeLLMServer().start()
    try:
        out = tmp_path / "run"
        rc = main([
            "--domain", "taubench-retail", "--taubench-data", str(DATA), "--tasks", "retail-test-000", "retail-test-001",
            "--agent", "openai/fake-agent", "--user", "openai/fake-user", "--api-base", srv.url,
            "--out", str(out), "--quiet", "--request-timeout", "30", "--max-retries", "1",  # generous: the fake server answers at once, a busy machine may not schedule it for seconds
        ])
        assert rc == 0
        recs = [json.loads(l) for l in (out / "episodes.jsonl").read_text().splitlines()]
        assert len(recs) == 2 and all(r["status"] == "ok" and r["grade"] is not None for r in recs)
        # The fake agent only knows the toy domain's "deposit": an unknown action, counted as the agent's error.
        assert all(r["agent_errors"] >= 1 and r["reward"] == 0.0 for r in recs)
        unknown = [e for r in recs for e in r["transcript"] if e["kind"] == "tool" and e["output"].startswith("Unknown action")]
        assert unknown
        agent_reqs = [r for r in srv.requests if r["model"] == "fake-agent"]
        tools = {t["function"]["name"] for t in agent_reqs[0]["tools"]}
        assert {"get_order_details", "exchange_delivered_order_items", "transfer_to_human_agents"} <= tools and len(tools) == 16
        policy = (DATA / "policy.md").read_text()
        assert policy[:200] in agent_reqs[0]["messages"][0]["content"]
        user_reqs = [r for r in srv.requests if r["model"] == "fake-user"]
        assert any("Yusuf Rossi" in json.dumps(r["messages"]) for r in user_reqs)
        s = json.loads((out / "summary.json").read_text())
        assert s["episodes"] == 2 and s["errors"] == 0 and s["agent_errors"] >= 2
    finally:
        srv.stop()
