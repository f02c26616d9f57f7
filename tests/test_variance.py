"""``envs.variance``: the split of a run's spread between the user, the agent and the judge, on the
fake OpenAI-compatible server (real HTTP), where the fake's sampling is a known function of the
seed each request carries, so what each arm must find is known."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from envs.records import RunSummary
from fake_llm_server import STOP, FakeLLMServer, Reply, _say, default_agent, default_user, default_judge

AGENT, USER, JUDGE = "openai/fake-agent", "openai/fake-user", "openai/fake-judge"
FAST = ["--request-timeout", "30", "--max-retries", "1", "--request-backoff", "0.01"]  # generous: the fake server answers at once, a busy machine may not schedule it for seconds


def odd(body: dict) -> bool:
    return int(body.get("seed") or 0) % 2 == 1


def seeded_user(body: dict) -> Reply:
    """A user whose sampling decides the outcome: on an odd seed it asks for the wrong amount."""
    r = default_user(body)
    if odd(body) and "500" in (r.content or ""):
        return _say("Please deposit 50 into A001.", "response_format" in body)
    return r


def seeded_agent(body: dict) -> Reply:
    """An agent whose sampling decides the outcome: on an odd seed it deposits 400 whatever was asked."""
    r = default_agent(body)
    if odd(body) and r.tool_calls:
        return Reply.call("deposit", json.dumps({"account_id": "A001", "amount": 400}))
    return r


def seeded_judge(body: dict) -> Reply:
    """A judge whose verdict follows its seed: VIOLATED on odd seeds."""
    r = default_judge(body)
    if odd(body):
        return Reply.text((r.content or "").replace("FOLLOWED", "VIOLATED"))
    return r


@pytest.fixture(scope="module")
def server():
    srv = FakeLLMServer().start()
    yield srv
    srv.stop()


@pytest.fixture(autouse=True)
def _clean(server):
    server.reset()


def make_run(server, tmp_path: Path, *, agent=AGENT, user=USER, judge=None, domain="toy", tasks=None, repeats=2, name="run"):
    from envs.run.cli import main

    argv = ["--domain", domain, "--repeats", str(repeats), "--agent", agent, "--user", user, "--quiet",
            "--api-base", server.url, "--out", str(tmp_path / name), *FAST]
    if judge:
        argv += ["--judge", judge]
    if tasks:
        argv += ["--tasks", *tasks]
    assert main(argv) == 0
    return tmp_path / name


def digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def variance(server, run: Path, *extra) -> int:
    from envs.variance.cli import main

    return main([str(run), "--api-base", server.url, "--quiet", *FAST, *extra])


def read_block(out: Path):
    s = RunSummary.model_validate_json((out / "summary.json").read_text())
    assert s.variance is not None
    return s.variance


def test_llm_user_careful_agent_user_share_nonzero_agent_share_zero(server, tmp_path, capsys):
    server.behaviours["fake-user"] = seeded_user
    run = make_run(server, tmp_path)
    before = digest(run)
    assert variance(server, run, "--replays", "8", "--bases", "2", "--rejudge", "2") == 0
    assert digest(run) == before  # the run's own files are only read
    out = tmp_path / "run-variance"
    v = read_block(out)
    # user seeds drawn per replay: half odd, half even, so the user arm's outcome varies
    (t,) = v.per_task
    assert t.user_replays == 16 and t.agent_replays == 16
    assert t.user_var > 0 and t.agent_var == 0.0
    rows0 = [json.loads(l) for l in (out / "design.jsonl").read_text().splitlines()]
    assert t.user_successes == sum(r["record"]["reward"] == 1.0 for r in rows0 if r["arm"] == "user")
    assert 0 < t.user_successes < 16 and t.agent_successes % 8 == 0  # the agent arm: each base's 8 replays alike
    assert v.user_share.value == 1.0 and v.agent_var.value == 0.0 and v.agent_var.by_construction is None
    # the user arm's variance is the mean of the two bases' sample variances, recomputed here
    rows = [json.loads(l) for l in (out / "design.jsonl").read_text().splitlines()]
    assert len(rows) == 32 and {r["arm"] for r in rows} == {"user", "agent"}
    for base in (0, 1):
        user_rows = [r for r in rows if r["arm"] == "user" and r["base"] == base]
        assert len({r["user_seed"] for r in user_rows}) == 8 and all(r["agent_seed"] is None for r in user_rows)
        for r in user_rows:  # success is exactly the parity of the user's seed
            assert r["record"]["reward"] == (0.0 if r["user_seed"] % 2 else 1.0)
    def var(xs):
        m = sum(xs) / len(xs)
        return sum((x - m) ** 2 for x in xs) / (len(xs) - 1)
    want = sum(var([r["record"]["reward"] for r in rows if r["arm"] == "user" and r["base"] == b]) for b in (0, 1)) / 2
    assert t.user_var == pytest.approx(want)
    # the agent arm held the user: pass^k over it is the agent's own, beside the plain one
    assert v.pass_hat_k_agent["1"] in (0.0, 0.5, 1.0) and set(v.pass_hat_k) <= {"1", "2"}
    # checks only: the judge is zero by construction, and the re-run checks flipped nothing
    assert v.judge_flip_share.by_construction and all(f.flips == 0 and f.source == "check" for f in v.judge.values())
    assert v.judge["T1"].rejudged == 2 * v.judge["T1"].items > 0
    text = capsys.readouterr().out
    assert "user: agent held" in text and "zero by construction" in text and "user share" in text
    assert f"user arm: {t.user_successes} of 16 clean replays succeeded" in text
    # the folder reads as a run: the schema describes the block, compare takes it
    schema = json.loads((out / "summary.schema.json").read_text())
    assert "VarianceReport" in json.dumps(schema)
    page = (out / "report.html").read_text()
    assert "Whose noise" in page and "by construction" in page and "user share" in page


def test_stochastic_agent_scripted_user_the_reverse(server, tmp_path):
    server.behaviours["fake-agent"] = seeded_agent
    run = make_run(server, tmp_path, user="scripted", repeats=2)
    assert variance(server, run, "--replays", "8", "--rejudge", "0") == 0
    v = read_block(tmp_path / "run-variance")
    (t,) = v.per_task
    assert t.user_var == 0.0 and v.user_var.by_construction and "scripted user" in v.user_var.by_construction
    assert t.agent_replays == 8 and t.user_replays == 0 and t.agent_var > 0
    assert v.user_share.value == 0.0
    assert v.pass_hat_k_agent["1"] == pytest.approx(1 - sum(
        json.loads(l)["agent_seed"] % 2 for l in (tmp_path / "run-variance" / "design.jsonl").read_text().splitlines()) / 8)


def test_judge_rejudged_with_frozen_transcript_measures_flips(server, tmp_path):
    server.behaviours["fake-judge"] = seeded_judge
    # two repeats and eight re-judgings: enough that the fake judge's seeded verdicts both flip and hold (the
    # customer's anger is said where it reacts to something, so one repeat of these tasks judges few)
    run = make_run(server, tmp_path, agent="scripted:careful", user="scripted", judge=JUDGE, domain="support",
                   tasks=["sup_cancel_before_dispatch", "sup_furious_damaged_refund"], repeats=2)
    before = digest(run)
    assert variance(server, run, "--replays", "2", "--rejudge", "8") == 0
    assert digest(run) == before
    v = read_block(tmp_path / "run-variance")
    judged = {k: f for k, f in v.judge.items() if f.source == "judge"}
    checked = {k: f for k, f in v.judge.items() if f.source == "check"}
    assert judged and checked
    assert all(f.flips == 0 for f in checked.values())  # deterministic checks: zero, measured
    n = sum(f.rejudged for f in judged.values())
    assert n > 0 and 0 < v.judge_flip_share.value < 1 and v.judge_flip_share.by_construction is None
    for f in judged.values():
        assert f.rejudged == 8 * f.items and (f.ci95 is not None or f.items < 2)  # one item: no interval
    # scripted agent and user: nothing to replay, the arms are zero by construction
    assert v.design.episodes_played == 0 and v.user_var.by_construction and v.agent_var.by_construction


def test_bad_input_is_one_line_and_exit_2(server, tmp_path, capsys):
    from envs.run.cli import main as run_main

    assert run_main(["--domain", "toy", "--repeats", "1", "--quiet", "--out", str(tmp_path / "scripted")]) == 0
    server.behaviours["fake-user"] = seeded_user
    llm = make_run(server, tmp_path, repeats=1, name="llm")
    before, sent = digest(llm), len(server.completions())
    (tmp_path / "notarun").mkdir()
    cases = [
        ([str(tmp_path / "scripted")], "no LLM role"),
        ([str(tmp_path / "notarun")], "not a run folder"),
        ([str(llm), "--max-episodes", "3", "--replays", "4"], "the design needs"),
        ([str(llm), "--replays", "1"], "--replays"),
        ([str(llm), "--bases", "3"], "--bases"),
        ([str(llm), "--out", str(llm / "inside")], "--out"),
    ]
    from envs.variance.cli import main

    for argv, why in cases:
        capsys.readouterr()
        assert main([*argv, "--api-base", server.url]) == 2, argv
        out = capsys.readouterr().out.strip()
        assert why in out and len(out.splitlines()) == 1, out
    assert digest(llm) == before and not (tmp_path / "llm-variance").exists()
    assert len(server.completions()) == sent  # refused before any request


def test_compare_judges_a_difference_against_the_agents_own_variance(server, tmp_path, capsys):
    from envs.compare import main as compare

    server.behaviours["fake-user"] = seeded_user
    a = make_run(server, tmp_path, repeats=4, name="a")
    server.behaviours["fake-agent"] = seeded_agent
    b = make_run(server, tmp_path, repeats=4, name="b")
    assert variance(server, a, "--replays", "4", "--rejudge", "0") == 0
    assert variance(server, b, "--replays", "4", "--rejudge", "0") == 0
    capsys.readouterr()
    # plain runs: no split, so no line about it
    assert compare([str(a), str(b), "--json", str(tmp_path / "plain.json")]) == 0
    assert json.loads((tmp_path / "plain.json").read_text())["variance"] is None
    assert "agent's own variance" not in capsys.readouterr().out
    assert compare([str(tmp_path / "a-variance"), str(tmp_path / "b-variance"), "--json", str(tmp_path / "c.json")]) == 0
    text = capsys.readouterr().out
    c = json.loads((tmp_path / "c.json").read_text())
    # one task: too few to pair, and the output says so (the pairing arithmetic: tests/test_power.py)
    assert c["variance"]["tasks"] == 1 and "fewer than 2 shared tasks" in text


def test_replays_keep_the_runs_per_episode_budgets(server, tmp_path):
    """A budget decides how an episode ends: the designed replays play under the run's own."""
    from envs.run.cli import main as run_main

    server.behaviours["fake-user"] = seeded_user
    run = tmp_path / "run"
    assert run_main(["--domain", "toy", "--repeats", "1", "--agent", AGENT, "--user", USER, "--quiet", "--api-base", server.url,
                     "--out", str(run), "--max-tokens-per-episode", "1", *FAST]) == 0
    base = [json.loads(l) for l in (run / "episodes.jsonl").read_text().splitlines()]
    assert {r["termination"] for r in base} == {"budget_tokens"}
    assert variance(server, run, "--replays", "2", "--rejudge", "0") == 0
    rows = [json.loads(l) for l in (tmp_path / "run-variance" / "design.jsonl").read_text().splitlines()]
    assert len(rows) == 4 and {r["record"]["termination"] for r in rows} == {"budget_tokens"}


def test_errored_repeats_are_left_out_of_the_runs_own_variance(server, tmp_path):
    """An errored episode is infrastructure, not a failed trial: the run's variance ("all repeats")
    is over its clean repeats only, as each arm's is."""
    from envs.run.cli import main as run_main

    def user(body: dict) -> Reply:
        return Reply.error(400, message="bad request") if odd(body) else default_user(body)

    server.behaviours["fake-user"] = user
    run = tmp_path / "run"
    assert run_main(["--domain", "toy", "--repeats", "6", "--agent", AGENT, "--user", USER, "--quiet", "--api-base", server.url,
                     "--out", str(run), "--retry-errors", "0", *FAST]) in (0, 1)
    recs = [json.loads(l) for l in (run / "episodes.jsonl").read_text().splitlines()]
    clean = [float(r["reward"] >= 1.0) for r in recs if r["status"] == "ok"]
    assert len(clean) < len(recs) and len(clean) >= 2 and set(clean) == {1.0}  # some errored; every clean one passed
    assert variance(server, run, "--replays", "2", "--rejudge", "0") == 0
    (t,) = read_block(tmp_path / "run-variance").per_task
    assert t.total_var == 0.0  # counted as failures, the errors would have made it positive
