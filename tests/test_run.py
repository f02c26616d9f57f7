"""The runner CLI: a graded run, bad input in one line, and kill + resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from envs.run.cli import main
from envs.errors import SpecError
from envs.spec.loading import load_one
from envs.spec.schema import Task

ROOT = Path(__file__).resolve().parents[1]


def _records(run_dir: Path) -> list[dict]:
    return [json.loads(l) for l in (run_dir / "episodes.jsonl").read_text().splitlines() if l.strip()]


def test_run_writes_episodes_and_summary(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["--domain", "toy", "--repeats", "4", "--out", str(out), "--quiet"]) == 0
    recs = _records(out)
    assert len(recs) == 4 and {r["repeat"] for r in recs} == {0, 1, 2, 3}
    s = json.loads((out / "summary.json").read_text())
    assert s["domain"] == "toy" and s["repeats"] == 4 and s["episodes"] == 4 and s["errors"] == 0
    assert s["pass_hat_k"] == {"1": 1.0, "2": 1.0, "3": 1.0, "4": 1.0}
    assert s["per_task"] == [
        {"id": "toy-deposit", "trials": 4, "successes": 4, "errors": 0, "clean_trials": 4, "terminations": {"user_stop": 4}}
    ]
    assert s["rules"]["T1"]["followed"] == 4
    assert s["coverage"] == {"T1": {"cooperative": 4}} and s["coverage_gaps"] == []
    assert "pass^k" in capsys.readouterr().out
    page = (out / "report.html").read_text()
    assert "<svg" in page and "toy-deposit" in page and "http" not in page.replace("http-equiv", "")


def test_run_is_reproducible(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        assert main(["--domain", "toy", "--repeats", "2", "--agent", "scripted:idle", "--out", str(d), "--quiet"]) == 0
    strip = lambda r: {k: v for k, v in r.items() if k not in ("timings", "started_at")}  # noqa: E731
    assert [strip(r) for r in _records(a)] == [strip(r) for r in _records(b)]


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["--domain", "nope"], "--domain: unknown domain 'nope'"),
        (["--domain", "toy", "--agent", "scripted:nope"], "has no scripted agent 'nope'"),
        (["--domain", "toy", "--tasks", "zzz*"], "--tasks: no task matches 'zzz*'"),
        (["--domain", "toy", "--repeats", "0"], "--repeats: must be at least 1"),
    ],
)
def test_bad_cli_input_is_one_line(tmp_path, capsys, argv, fragment):
    assert main(argv + ["--out", str(tmp_path / "r"), "--quiet"]) == 2
    out = capsys.readouterr().out
    assert fragment in out and "Traceback" not in out and len(out.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("id: x\ndomain: toy\n", "scenario: Field required"),
        ("id: x\ndomain: toy\nscenario: {goal: g, request: r, max_turns: -1}\n", "scenario.max_turns"),
        ("id: x\ndomain: toy\nscenario: {goal: g, request: r}\nignore_columns: [nodot]\n", "ignore_columns: Value error, 'nodot' must be written table.column"),
        ("id: [unclosed\n", "line"),
        ("- just a list\n", "expected a mapping"),
    ],
)
def test_malformed_task_file_names_file_field_reason(tmp_path, text, fragment):
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(SpecError) as e:
        load_one(Task, p)
    msg = str(e.value)
    assert msg.startswith(str(p)) and fragment in msg and "\n" not in msg


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tests"), str(ROOT)])
    env["SITGYM_DOMAINS"] = "toy_domain"
    return env


def test_kill_and_resume_loses_and_repeats_nothing(tmp_path):
    out = tmp_path / "run"
    n = 400
    cmd = [sys.executable, "-m", "envs.run", "--domain", "toy", "--repeats", str(n), "--out", str(out), "--quiet"]
    proc = subprocess.Popen(cmd, env=_env(), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    path = out / "episodes.jsonl"
    deadline = time.time() + 60
    while time.time() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") >= 20:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = path.read_bytes().count(b"\n")
    assert 0 < before < n, "the run should have been killed mid-way"
    # Simulate the worst case as well: a record torn in the middle of a write.
    with open(path, "ab") as f:
        f.write(b'{"episode_id": "toy-deposit#9999", "task_')
    res = subprocess.run(
        [sys.executable, "-m", "envs.run", "--resume", str(out), "--quiet"],
        env=_env(), cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert res.returncode == 0, res.stderr + res.stdout
    assert f"{before} episodes kept" in res.stdout
    recs = _records(out)
    keys = [(r["task_id"], r["repeat"]) for r in recs]
    assert len(keys) == len(set(keys)) == n
    s = json.loads((out / "summary.json").read_text())
    assert s["episodes"] == n and s["pass_hat_k"]["1"] == 1.0


def test_a_person_can_play_the_user(tmp_path):
    out = tmp_path / "human"
    typed = 'Please deposit 500 into A001.\n/tool check_balance_app {"account_id": "A001"}\n/stop\n'
    res = subprocess.run(
        [sys.executable, "-m", "envs.run", "--domain", "toy", "--user", "human", "--out", str(out), "--quiet"],
        input=typed, env=_env(), cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Your goal: Put 500 into account A001." in res.stdout and "balance 2971" in res.stdout
    (rec,) = _records(out)
    assert rec["reward"] == 1.0 and rec["termination"] == "user_stop"
    assert [e["kind"] for e in rec["transcript"]] == ["user", "tool", "agent", "tool", "user"]


def test_workers_play_each_episode_once(tmp_path):
    out = tmp_path / "w"
    res = subprocess.run(
        [sys.executable, "-m", "envs.run", "--domain", "toy", "--repeats", "12", "--workers", "3", "--out", str(out), "--quiet"],
        env=_env(), cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    recs = _records(out)
    keys = sorted((r["task_id"], r["repeat"]) for r in recs)
    assert keys == [("toy-deposit", i) for i in range(12)]
    s = json.loads((out / "summary.json").read_text())
    assert s["episodes"] == 12 and s["pass_hat_k"]["12"] == 1.0
