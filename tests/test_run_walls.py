"""A resumed run's ``wall_s`` sums the processes that played it; the stale-lock line appears only
when a killed run's lock was really taken over."""

from __future__ import annotations

import json

from envs.run.cli import main


def test_wall_s_sums_the_processes_of_a_resumed_run_and_a_clean_finish_leaves_no_stale_lock(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["--domain", "toy", "--repeats", "2", "--out", str(run), "--quiet"]) == 0
    first = json.loads((run / "summary.json").read_text())["wall_s"]
    assert (run / "run.lock").read_text() == ""  # released on a clean finish: no holder left behind
    capsys.readouterr()
    assert main(["--resume", str(run), "--quiet", "--repeats", "2"]) == 0
    out = capsys.readouterr().out
    assert "took over the lock" not in out
    walls = json.loads((run / "wall.json").read_text())["processes_s"]
    assert len(walls) == 2 and abs(walls[0] - first) < 0.01
    assert abs(json.loads((run / "summary.json").read_text())["wall_s"] - sum(walls)) < 1e-6


def test_the_lock_of_a_killed_run_is_taken_over_and_said(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["--domain", "toy", "--out", str(run), "--quiet"]) == 0
    (run / "run.lock").write_text("pid 999999 on elsewhere since 2026-01-01T00:00:00\n")  # as a killed run leaves it
    capsys.readouterr()
    assert main(["--resume", str(run), "--quiet"]) == 0
    assert "took over the lock of a run no longer running (pid 999999" in capsys.readouterr().out
