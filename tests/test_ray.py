"""``--backend ray``: a local Ray instance (num_cpus=2); the same records as a local run, no episode lost
or recorded twice when a worker dies, and model concurrency held across workers."""

from __future__ import annotations

import json
import os

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (the ray extra: pip install -e '.[ray]')")

import envs  # noqa: E402,F401
from envs.domain import get_domain  # noqa: E402
from envs.episode import episode_seed  # noqa: E402
from envs.run.config import RunConfig  # noqa: E402
from envs.run.ray_backend import PASSED_ENV, play_on_ray  # noqa: E402
from fake_llm_server import FakeLLMServer  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": env})
    yield
    ray.shutdown()


class ListStore:
    def __init__(self):
        self.records = []

    def append(self, rec):
        self.records.append(rec)


def _strip(rec) -> dict:
    d = json.loads(rec.model_dump_json())
    d.pop("timings"), d.pop("started_at")
    return d


def test_ray_gives_the_records_a_local_run_gives(tmp_path):
    from envs.run.cli import main

    tasks = ["sup_cancel_before_dispatch", "sup_ambig_one_item", "sup_asks_for_human"]
    cfg = RunConfig(domain="support", repeats=2, tasks=tasks, seed=5)
    plan = [(t, r, 5) for t in tasks for r in range(2)]
    store = ListStore()
    facts = play_on_ray(cfg, plan, store, lambda rec: None, workers=2, per_worker=2)
    assert facts["workers_lost"] == 0 and facts["startup_s"] > 0
    assert main(["--domain", "support", "--tasks", *tasks, "--repeats", "2", "--seed", "5", "--out", str(tmp_path / "local"), "--quiet"]) == 0
    local = [json.loads(x) for x in (tmp_path / "local" / "episodes.jsonl").read_text().splitlines()]
    for d in local:
        d.pop("timings"), d.pop("started_at")
    on_ray = {(d["task_id"], d["repeat"]): d for d in map(_strip, store.records)}
    assert len(on_ray) == len(store.records) == 6
    assert on_ray == {(d["task_id"], d["repeat"]): d for d in local}
    assert all(d["seed"] == episode_seed(5, d["task_id"], d["repeat"]) for d in on_ray.values())


def test_a_killed_worker_loses_no_episode_and_repeats_none():
    domain = get_domain("support")
    tasks = sorted(domain.tasks)[:10]
    cfg = RunConfig(domain="support", repeats=3, tasks=tasks)
    plan = [(t, r, 0) for t in tasks for r in range(3)]
    pool: list = []
    killed: list = []
    store = ListStore()

    def tick(rec) -> None:
        if not killed and len(store.records) >= 2:
            killed.append(pool[0])
            ray.kill(pool[0], no_restart=True)

    facts = play_on_ray(cfg, plan, store, tick, workers=2, per_worker=4, on_started=pool.extend)
    keys = [(r.task_id, r.repeat) for r in store.records]
    assert killed and facts["workers_lost"] >= 1
    assert len(keys) == len(set(keys)) == len(plan)  # every episode once
    assert set(keys) == {(t, r) for t, r, _ in plan}
    assert all(r.status == "ok" for r in store.records)


def test_model_concurrency_holds_across_workers():
    srv = FakeLLMServer(latency=0.15).start()
    try:
        cfg = RunConfig(
            domain="toy", repeats=8, agent="openai/fake-agent", user="openai/fake-user",
            llm={"api_base": srv.url, "model_concurrency": 2, "request_timeout": 30, "max_retries": 1},
        )
        plan = [(t, r, 0) for t in sorted(get_domain("toy").tasks) for r in range(8)]
        store = ListStore()
        facts = play_on_ray(cfg, plan, store, lambda rec: None, workers=2, per_worker=4, model_concurrency=2)
        assert len(store.records) == len(plan) and all(r.status == "ok" for r in store.records), [r.error for r in store.records]
        # two workers with four episodes each in flight, and never more than 2 requests per model at once
        assert max(facts["peak_in_flight"].values()) == 2
        assert srv.peak_in_flight <= 4  # two models (agent and user), 2 each
    finally:
        srv.stop()
