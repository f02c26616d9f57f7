"""A run pins its tasks: ``config.json`` records each task's content hash, and ``--resume`` refuses,
in one line, a run whose task files changed or whose selection would now match more tasks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def domain_copy(tmp_path):
    """The toy domain copied under another name (``toypins``), its task folder ours to edit."""
    pkg = tmp_path / "pkgs" / "toypins"
    shutil.copytree(ROOT / "tests" / "toy_domain", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    init = pkg / "__init__.py"
    init.write_text(init.read_text().replace('name="toy"', 'name="toypins"').replace("Toy-v0", "ToyPins-v0")
                    .replace('register_domain("toy"', 'register_domain("toypins"'))
    tasks = pkg / "tasks" / "toy"
    for f in tasks.glob("*.yaml"):
        f.write_text(f.read_text().replace("domain: toy\n", "domain: toypins\n"))
    return pkg, tasks


def cli(pkg, *argv):
    env = {**os.environ, "SITGYM_DOMAINS": "toypins", "PYTHONPATH": os.pathsep.join([str(ROOT), str(pkg.parent)])}
    return subprocess.run([sys.executable, "-m", "envs.run", *argv], capture_output=True, text=True, env=env, timeout=300)


def test_config_records_each_tasks_hash_and_an_unchanged_resume_plays_on(domain_copy, tmp_path):
    pkg, _ = domain_copy
    run = tmp_path / "run"
    r = cli(pkg, "--domain", "toypins", "--repeats", "2", "--out", str(run), "--quiet")
    assert r.returncode == 0, r.stdout + r.stderr
    hashes = json.loads((run / "config.json").read_text())["task_hashes"]
    assert set(hashes) == {"toy-deposit"} and len(hashes["toy-deposit"]) == 16
    r = cli(pkg, "--resume", str(run), "--quiet")
    assert r.returncode == 0, r.stdout + r.stderr


def test_resume_refuses_a_task_edited_since_the_run_started(domain_copy, tmp_path):
    pkg, tasks = domain_copy
    run = tmp_path / "run"
    assert cli(pkg, "--domain", "toypins", "--out", str(run), "--quiet").returncode == 0
    f = next(tasks.glob("*.yaml"))
    text = f.read_text()
    assert "max_turns: " in text
    f.write_text(text.replace("max_turns: ", "max_turns: 1", 1))  # 6 -> 16, or any other number: changed
    r = cli(pkg, "--resume", str(run), "--quiet")
    lines = [l for l in r.stdout.splitlines() if l.strip()]
    assert r.returncode == 2 and len(lines) == 1 and "task toy-deposit changed since the run started" in lines[0], r.stdout


def test_resume_refuses_a_selection_that_now_matches_more_tasks(domain_copy, tmp_path):
    pkg, tasks = domain_copy
    run = tmp_path / "run"
    assert cli(pkg, "--domain", "toypins", "--out", str(run), "--quiet").returncode == 0
    f = next(tasks.glob("*.yaml"))
    (tasks / "deposit_again.yaml").write_text(f.read_text().replace("id: toy-deposit", "id: toy-deposit-again"))
    r = cli(pkg, "--resume", str(run), "--quiet")
    lines = [l for l in r.stdout.splitlines() if l.strip()]
    assert r.returncode == 2 and len(lines) == 1 and "now matches 1 more task(s) (toy-deposit-again)" in lines[0], r.stdout
