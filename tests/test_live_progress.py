"""An LLM run shows its episodes while they play: each in-flight one's turn, tokens and cost under
the bar, and a line when one ends; ``--quiet`` shows none of it. Against the fake server, whose
replies take 0.3 s, in a child process whose console believes it is an interactive terminal."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fake_llm_server import FakeLLMServer

ROOT = Path(__file__).resolve().parents[1]
ANSI = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]")


@pytest.fixture(scope="module")
def slow_server():
    srv = FakeLLMServer(latency=0.3).start()
    yield srv
    srv.stop()


def _run(server, tmp_path, *extra) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT)]), "SITGYM_DOMAINS": "toy_domain",
           "TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "1", "COLUMNS": "100"}
    argv = [sys.executable, "-m", "envs.run", "--domain", "toy", "--repeats", "3", "--concurrency", "2",
            "--agent", "openai/fake-agent", "--user", "openai/fake-user", "--api-base", server.url,
            "--request-timeout", "60", "--out", str(tmp_path / "run"), *extra]
    p = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    return ANSI.sub("", p.stdout.replace("\r", "\n"))


def test_episodes_in_flight_and_ended_are_shown(slow_server, tmp_path):
    out = _run(slow_server, tmp_path)
    flying = re.findall(r"^  (toy-deposit#\d): turn (\d)/4, ([\d,]+) tokens, cost unknown \(unpriced model\), \d+ s$", out, re.M)
    assert {eid for eid, _, _ in flying} >= {"toy-deposit#0", "toy-deposit#1"}, out[-3000:]
    assert any(int(tok.replace(",", "")) > 0 for _, _, tok in flying)  # tokens counted while it plays
    ended = re.findall(r"^(toy-deposit#\d): solved after 1 turn; ([\d,]+) tokens, cost unknown \(unpriced model\), \d+ s$", out, re.M)
    assert sorted(e for e, _ in ended) == ["toy-deposit#0", "toy-deposit#1", "toy-deposit#2"], out[-3000:]


def test_quiet_shows_no_progress(slow_server, tmp_path):
    out = _run(slow_server, tmp_path, "--quiet")
    assert "tokens, cost" not in out and "solved after" not in out and "ETA" not in out
    assert out.startswith("pass^1 1.000")
