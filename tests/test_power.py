"""The detectable difference (graders.power) and its lines in envs.compare and envs.run: the formula
checked by hand, and two pairs of runs whose difference is and is not inside it."""

from __future__ import annotations

import json
import math
import shutil

import pytest

from envs.records import EpisodeRecord
from graders.power import mde_factor, paired_power, plan_for_difference, t_quantile


def test_t_quantiles_and_the_factor():
    assert t_quantile(0.975, math.inf) == pytest.approx(1.95996, abs=1e-4)
    assert t_quantile(0.975, 10) == pytest.approx(2.228, abs=0.01)  # tables: 2.228
    assert t_quantile(0.8, 5) == pytest.approx(0.920, abs=0.01)  # tables: 0.920
    assert mde_factor(10_000) == pytest.approx(1.95996 + 0.84162, abs=1e-3)


def test_mde_by_hand_and_needed_inverts_it():
    # 4 tasks; B differs from A by +0.5, 0, 0, +0.5 with 2 repeats each
    a = {"t1": 0.5, "t2": 1.0, "t3": 0.0, "t4": 0.5}
    b = {"t1": 1.0, "t2": 1.0, "t3": 0.0, "t4": 1.0}
    n = {t: 2 for t in a}
    pw = paired_power(a, n, b, n)
    d = [0.5, 0.0, 0.0, 0.5]
    s2 = sum((x - 0.25) ** 2 for x in d) / 3
    within = (0.25 / 2 + 0 + 0 + 0.25 / 2) / 4
    assert pw.within == pytest.approx(within) and pw.between == pytest.approx(s2 - within)
    assert pw.mde == pytest.approx(mde_factor(4) * math.sqrt(s2) / 2)
    need = pw.needed(0.1)
    more = paired_power({f"{t}{i}": v for i in range(need["tasks"]) for t, v in a.items()},
                        {f"{t}{i}": 2 for i in range(need["tasks"]) for t in a},
                        {f"{t}{i}": v for i in range(need["tasks"]) for t, v in b.items()},
                        {f"{t}{i}": 2 for i in range(need["tasks"]) for t in a})
    assert more.tasks >= need["tasks"]
    # the MDE formula at the tasks `needed` gives is at most the target
    assert mde_factor(need["tasks"]) * pw.sigma_d / math.sqrt(need["tasks"]) <= 0.1


def test_plan_for_one_run():
    # every task 0.5 over 8 repeats: v = 0.25, sigma_d^2 = 2 v / R
    p = plan_for_difference({f"t{i}": 0.5 for i in range(35)}, {f"t{i}": 8 for i in range(35)}, 0.05)
    assert p["within"] == 0.25
    assert p["tasks"] == math.ceil(mde_factor(p["tasks"]) ** 2 * (2 * 0.25 / 8) / 0.05**2)
    need_var = (0.05 * math.sqrt(35) / mde_factor(35)) ** 2
    assert p["repeats"] == math.ceil((2 * 0.25 / 8) * 8 / need_var)
    # deterministic tasks: repeats cannot help
    q = plan_for_difference({f"t{i}": 1.0 for i in range(35)}, {f"t{i}": 8 for i in range(35)}, 0.05)
    assert q["repeats"] is None and q["tasks"] > 35


def _run(played_runs, tmp_path, name, *extra):
    """A copy of the support run (sup_*, 2 repeats) with these flags, played once a session (tests/conftest.py)."""
    return played_runs.copy(["--domain", "support", "--tasks", "sup_*", "--repeats", "2", *extra], tmp_path / name)


def _flip(src, dst, k):
    """A copy of run ``src`` whose first ``k`` successes are failures (B worse than A by k / trials)."""
    shutil.copytree(src, dst)
    lines = (dst / "episodes.jsonl").read_text().splitlines()
    out, left = [], k
    for line in lines:
        rec = EpisodeRecord.model_validate_json(line)
        if left and rec.reward == 1.0:
            rec.reward, left = 0.0, left - 1
        out.append(rec.model_dump_json())
    (dst / "episodes.jsonl").write_text("\n".join(out) + "\n")
    return dst


def test_compare_says_whether_a_difference_is_inside_what_it_could_detect(tmp_path, capsys, played_runs):
    from envs.compare import main as compare

    careful = _run(played_runs, tmp_path, "careful")
    eager = _run(played_runs, tmp_path, "eager", "--agent", "scripted:eager")
    capsys.readouterr()
    assert compare([str(careful), str(eager), "--json", str(tmp_path / "c1.json")]) == 0
    text = " ".join(capsys.readouterr().out.split())  # prose lines wrap at the width
    c1 = json.loads((tmp_path / "c1.json").read_text())["power"]
    assert c1["tasks"] == 35 and not c1["inside"] and abs(c1["observed"]) > c1["mde"]
    assert "detectable difference" in text and "outside it" in text
    # one failed trial of 70: a 0.014 difference, inside what 35 tasks x 2 repeats can see
    near = _flip(careful, tmp_path / "near", 1)
    assert compare([str(careful), str(near), "--json", str(tmp_path / "c2.json")]) == 0
    text = " ".join(capsys.readouterr().out.split())  # prose lines wrap at the width
    c2 = json.loads((tmp_path / "c2.json").read_text())["power"]
    assert c2["inside"] and abs(c2["observed"]) < c2["mde"] and c2["needed"]["tasks"] > 35
    assert "inside it: these runs cannot tell this difference from noise" in text and "to settle" in text


def test_run_prints_what_a_5_point_difference_needs(tmp_path, capsys):
    from envs.run.cli import main  # played here: the test reads what the command prints

    assert main(["--domain", "support", "--tasks", "sup_*", "--repeats", "2", "--agent", "scripted:eager", "--quiet", "--out", str(tmp_path / "r")]) == 0
    text = " ".join(capsys.readouterr().out.split())  # prose lines wrap at the width
    assert "power: a 5-point pass^1 difference" in text and "tasks at 2 repeats" in text


def _with_split(folder, agent_var: float):
    """Give a run folder a variance block whose agent arm measured ``agent_var`` on every task."""
    from envs.records import RunSummary, VarianceDesign, VarianceReport, VarianceTask

    s = RunSummary.model_validate_json((folder / "summary.json").read_text())
    s.variance = VarianceReport(
        design=VarianceDesign(source_run=str(folder), bases=1, replays=4, rejudge=0),
        per_task=[VarianceTask(task=t.id, agent_var=agent_var) for t in s.per_task],
    )
    (folder / "summary.json").write_text(s.model_dump_json())


def test_compare_uses_the_agents_own_variance_when_both_runs_have_the_split(tmp_path, capsys, played_runs):
    from envs.compare import main as compare

    careful = _run(played_runs, tmp_path, "careful")
    near = _flip(careful, tmp_path / "near", 1)
    _with_split(careful, 0.0)
    _with_split(near, 0.0)
    capsys.readouterr()
    assert compare([str(careful), str(near), "--json", str(tmp_path / "c.json")]) == 0
    text = " ".join(capsys.readouterr().out.split())  # prose lines wrap at the width
    c = json.loads((tmp_path / "c.json").read_text())
    v, pw = c["variance"], c["power"]
    # the agent's share is zero: only the task-to-task spread is left, so the MDE shrinks
    assert v["tasks"] == 35 and v["agent_within"] == 0.0 and v["between"] == pytest.approx(pw["between"])
    assert v["mde"] < pw["mde"] and v["mde"] == pytest.approx(mde_factor(35) * math.sqrt(pw["between"]) / math.sqrt(35))
    assert "against the agent's own variance" in text
    # an agent as noisy as a coin on every task: the MDE grows past the plain one
    _with_split(careful, 0.25)
    _with_split(near, 0.25)
    assert compare([str(careful), str(near), "--json", str(tmp_path / "c2.json")]) == 0
    v2 = json.loads((tmp_path / "c2.json").read_text())["variance"]
    assert v2["agent_within"] == pytest.approx(0.25 / 2 * 2) and v2["mde"] > pw["mde"] and v2["inside"]
