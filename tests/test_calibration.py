"""Calibration arithmetic, Rogan-Gladen, and the calibrate CLI on the toy gold set."""

from __future__ import annotations

import json

import pytest

from envs.report.summary import summarize
from graders.calibrate.calibration import apply_calibration, main, rule_stats
from graders.statistics import rogan_gladen, rogan_gladen_ci


def test_rule_stats_hand_computed():
    pairs = (
        [("FOLLOWED", "FOLLOWED")] * 6
        + [("FOLLOWED", "VIOLATED")] * 2
        + [("FOLLOWED", "NEEDS_REVIEW")] * 2
        + [("VIOLATED", "VIOLATED")] * 7
        + [("VIOLATED", "FOLLOWED")] * 3
    )
    s = rule_stats(pairs, threshold=0.8)
    assert s["items"] == 20 and s["correct"] == 13
    assert s["accuracy"] == pytest.approx(0.65)
    assert s["false_violated"] == 2 and s["false_followed"] == 3
    assert s["strict_lenient_ratio"] == pytest.approx(2 / 3)
    assert s["needs_review"] == 2 and s["needs_review_rate"] == pytest.approx(0.1)
    assert s["sensitivity"] == pytest.approx(6 / 8) and s["specificity"] == pytest.approx(7 / 10)
    assert s["trustworthy"] is False
    assert rule_stats([("FOLLOWED", "FOLLOWED")] * 4 + [("VIOLATED", "VIOLATED")] * 4)["trustworthy"] is True


def test_rogan_gladen_known_values_and_clamping():
    # Se 0.9, Sp 0.8, observed 0.62 -> (0.62 + 0.8 - 1) / (0.9 + 0.8 - 1) = 0.42 / 0.7 = 0.6
    assert rogan_gladen(0.62, 0.9, 0.8) == pytest.approx(0.6)
    assert rogan_gladen(0.5, 1.0, 1.0) == pytest.approx(0.5)  # a perfect judge changes nothing
    assert rogan_gladen(0.95, 0.9, 0.8) == 1.0  # (0.75 / 0.7) > 1: clamped
    assert rogan_gladen(0.1, 0.9, 0.8) == 0.0  # negative: clamped
    assert rogan_gladen(0.5, 0.5, 0.5) is None  # a chance-level judge cannot be corrected
    lo, hi = rogan_gladen_ci(62, 100, 0.9, 0.8, 50, 50)
    assert 0.0 <= lo < 0.6 < hi <= 1.0


def test_calibrate_cli_with_checks_on_toy_gold(tmp_path, capsys):
    out = tmp_path / "calibration.json"
    assert main(["--domain", "toy", "--judge", "checks", "--out", str(out)]) == 0
    cal = json.loads(out.read_text())
    t1 = cal["rules"]["T1"]
    # g4 is a violation the regex misses: 3 of 4 right, one false FOLLOWED.
    assert t1["items"] == 4 and t1["correct"] == 3 and t1["false_followed"] == 1 and t1["false_violated"] == 0
    assert t1["accuracy"] == pytest.approx(0.75) and cal["untrustworthy"] == ["T1"]
    assert {r["id"] for r in cal["items"]} == {"g1", "g2", "g3", "g4"}
    assert "T1" in capsys.readouterr().out


def test_run_summary_with_calibration(tmp_path):
    from envs.records import EpisodeRecord, Verdict

    recs = [
        EpisodeRecord(
            episode_id=f"t#{i}", task_id="t", domain="toy", repeat=i, seed=i, reward=1.0,
            verdicts=[Verdict(turn=1, situation="cooperative", rule="T1", verdict="FOLLOWED" if i < 7 else "VIOLATED")],
        )
        for i in range(10)
    ]
    s = summarize(recs, {"domain": "toy", "repeats": 10})
    cal = {"judge": "x", "threshold": 0.8, "rules": {"T1": {"accuracy": 0.85, "trustworthy": True, "sensitivity": 0.9,
                                                             "specificity": 0.8, "n_followed": 20, "n_violated": 20}}}
    p = tmp_path / "cal.json"
    p.write_text(json.dumps(cal))
    apply_calibration(s, p)
    e = s.rules["T1"]
    assert e.compliance == pytest.approx(0.7)
    assert e.corrected == pytest.approx((0.7 + 0.8 - 1) / 0.7)
    assert e.corrected_ci95[0] < e.corrected < e.corrected_ci95[1]
    assert e.untrusted is False and e.calibrated is True and e.judge_accuracy == 0.85
    assert e.by_situation["cooperative"].corrected == pytest.approx(e.corrected)
    assert s.calibration.file == str(p) and s.calibration.judge == "x"
