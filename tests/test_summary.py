"""The summary's figures agree with a brute-force recount of ``episodes.jsonl``, for any mix of
ok, errored and error-limit episodes (with duplicates: the newest record of an episode wins)."""

from __future__ import annotations

import json
from collections import Counter
from math import comb

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envs.records import EpisodeRecord, ToolCall, ToolEvent
from envs.report.summary import summarize
from envs.run.store import RunStore
from graders.statistics import bootstrap_pass_hat_k

KINDS = ("ok_pass", "ok_fail", "error", "error_limit")

episode = st.tuples(
    st.sampled_from(["t_a", "t_b", "t_c"]), st.integers(0, 3), st.sampled_from(KINDS),
    st.lists(st.tuples(st.sampled_from(["agent", "user"]), st.sampled_from(["f", "g"]), st.booleans()), max_size=3),
)


def make(task, repeat, kind, calls) -> EpisodeRecord:
    rec = EpisodeRecord(episode_id=f"{task}#{repeat}", task_id=task, domain="toy", repeat=repeat, seed=0)
    rec.reward = 1.0 if kind == "ok_pass" else 0.0
    if kind == "error":
        rec.status, rec.error_role, rec.error_kind, rec.termination = "error", "agent", "timeout", "error"
        rec.reward = 1.0  # a stale reward on an errored record must count nowhere
    elif kind == "error_limit":
        rec.termination, rec.agent_errors = "agent_error_limit", 5
    else:
        rec.termination = "user_stop"
    rec.transcript = [
        ToolEvent(turn=0, side=side, call=ToolCall(name=name, arguments={}), output="", ok=ok, error_kind=None if ok else "bad_arguments")
        for side, name, ok in calls
    ]
    return rec


def recount(path):
    """The figures, recounted the slow and obvious way from the file's lines."""
    newest = {}
    for line in path.read_text().splitlines():
        r = json.loads(line)
        newest[(r["task_id"], r["repeat"])] = r
    recs = list(newest.values())
    by_task = {}
    for r in recs:
        by_task.setdefault(r["task_id"], []).append(r)
    ok = [r for r in recs if r["status"] == "ok"]
    trials = [(len(rs), sum(r["status"] == "ok" and r["reward"] >= 1 for r in rs)) for rs in by_task.values()]
    kmax = min(n for n, _ in trials)
    hat = {str(k): sum(comb(c, k) / comb(n, k) for n, c in trials) / len(trials) for k in range(1, kmax + 1)}
    tools = Counter()
    for r in recs:
        for e in r["transcript"]:
            tools[(e["side"], "calls")] += 1
            tools[(e["side"], "failures")] += not e["ok"]
    return {
        "episodes": len(recs),
        "errors": len(recs) - len(ok),
        "clean": len(ok),
        "mean_reward": (sum(r["reward"] for r in ok) / len(ok)) if ok else None,
        "agent_failed": sum(r["termination"] == "agent_error_limit" for r in ok),
        "pass_hat_k": hat,
        "successes": {t: sum(r["status"] == "ok" and r["reward"] >= 1 for r in rs) for t, rs in by_task.items()},
        "tools": dict(tools),
    }


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(eps=st.lists(episode, min_size=1, max_size=30))
def test_summary_agrees_with_a_recount(tmp_path_factory, eps):
    store = RunStore(tmp_path_factory.mktemp("run"))
    for e in eps:
        store.append(make(*e))
    s = summarize(store.iter_latest(), {"domain": "toy", "repeats": 4})
    want = recount(store.episodes_path)
    assert (s.episodes, s.errors, s.clean_episodes, s.agent_failed) == (want["episodes"], want["errors"], want["clean"], want["agent_failed"])
    assert s.mean_reward_over == want["clean"]
    assert (s.mean_reward is None) == (want["mean_reward"] is None)
    if s.mean_reward is not None:
        assert abs(s.mean_reward - want["mean_reward"]) < 1e-12
    assert s.pass_hat_k.keys() == want["pass_hat_k"].keys()
    assert all(abs(s.pass_hat_k[k] - v) < 1e-12 for k, v in want["pass_hat_k"].items())
    assert {t.id: t.successes for t in s.per_task} == want["successes"]
    got_tools = {(side, f): getattr(t, f) for side, t in s.tool_calls.items() for f in ("calls", "failures")}
    assert {k: v for k, v in got_tools.items()} == {k: v for k, v in want["tools"].items()}
    for k, (lo, hi) in s.pass_hat_k_ci95.items():
        assert 0.0 <= lo <= hi <= 1.0


def test_the_bootstrap_brackets_the_estimate_for_2000_repeats():
    import time

    t0 = time.perf_counter()
    ci = bootstrap_pass_hat_k([(2000, 1990)], 2000)
    print(f"bootstrap over 2000 repeats: {time.perf_counter() - t0:.2f} s")  # a figure, not a limit (busy machines)
    assert ci["1"] == [0.995, 0.995]  # one task: every resample is that task
    ci = bootstrap_pass_hat_k([(10, 0), (10, 10)], 3)
    assert ci["1"][0] < 0.5 < ci["1"][1]
