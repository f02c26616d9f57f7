"""Calibration arithmetic, Rogan-Gladen, and the calibrate CLI on the toy gold set."""

from __future__ import annotations

import json

import pytest

from envs.report.summary import summarize
from graders.calibrate.calibration import apply_calibration, rule_stats
from graders.calibrate.cli import main
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


# --- development vs held-out, the checks' stored error, judge modes ---------------------------


def test_side_by_side_flags_a_check_that_learned_its_examples():
    from graders.calibrate.calibration import report
    from graders.calibrate.sets import side_by_side

    def rows(rule, right, wrong):
        return [{"rule": rule, "label": "FOLLOWED", "verdict": "FOLLOWED", "source": "written"}] * right + \
               [{"rule": rule, "label": "VIOLATED", "verdict": "FOLLOWED", "source": "written"}] * wrong
    dev = report(rows("A", 10, 0) + rows("B", 9, 1), 0.8)
    held = report(rows("A", 7, 3) + rows("B", 8, 2), 0.8)
    s = side_by_side(dev, held)
    assert s["A"]["learned_its_examples"] is True and s["A"]["heldout_false_followed"] == 3
    assert s["B"]["learned_its_examples"] is False  # 0.8 vs 0.9: within 0.1
    assert s["overall"]["dev_accuracy"] == pytest.approx(0.95)


def test_calibrate_loads_the_heldout_set_by_default(tmp_path):
    from envs.domain import get_domain

    out = tmp_path / "cal.json"
    assert main(["--domain", "support", "--judge", "checks", "--out", str(out)]) == 0
    cal = json.loads(out.read_text())
    d = get_domain("support")
    assert cal["overall"]["items"] == len(__import__("graders.calibrate.calibration", fromlist=["x"]).load_gold(d))
    assert cal["heldout"]["overall"]["items"] == 112 and set(cal["sides"]) >= set(d.rules) | {"overall"}
    # an explicit --gold measures that set alone
    assert main(["--domain", "support", "--judge", "checks", "--gold", str(d.package_dir / "gold_heldout.yaml"), "--out", str(out)]) == 0
    assert "heldout" not in json.loads(out.read_text())


@pytest.mark.parametrize("domain", ["support", "tutoring"])
def test_stored_check_calibration_is_fresh(domain):
    """Fails when a check or the held-out set changed since check_calibration.json was written:
    regenerate with python -m graders.calibrate --domain D --judge checks --write-check-calibration."""
    import asyncio

    from envs.domain import get_domain
    from graders.calibrate.calibration import CheckJudge, load_gold, report, run_calibration
    from graders.calibrate.check_calibration import check_calibration_data, load_check_calibration
    from graders.calibrate.sets import heldout_path

    d = get_domain(domain)
    rows = asyncio.run(run_calibration(d, load_gold(d, heldout_path(d)), CheckJudge()))
    fresh = check_calibration_data(d, report(rows, 0.8), str(heldout_path(d)))
    assert load_check_calibration(d) == json.loads(json.dumps(fresh)), "check_calibration.json is stale"


def test_a_run_corrects_checked_rules_for_the_checks_error(tmp_path):
    from envs.domain import get_domain
    from envs.records import EpisodeRecord, Verdict
    from graders.calibrate.check_calibration import load_check_calibration

    d = get_domain("tutoring")
    cal = load_check_calibration(d)["rules"]
    weak = next(r for r, c in cal.items() if not c["trustworthy"] and c["sensitivity"] + c["specificity"] > 1)
    strong = next((r for r, c in cal.items() if c["trustworthy"]), None)
    verdicts = lambda r, src: [Verdict(turn=1, situation="x", rule=r, verdict="FOLLOWED" if i < 6 else "VIOLATED", source=src) for i in range(10)]
    recs = [EpisodeRecord(episode_id="t#0", task_id="t", domain="tutoring", repeat=0, seed=0, reward=1.0,
                          verdicts=verdicts(weak, "check") + (verdicts(strong, "judge") if strong else []))]
    s = summarize(recs, {"domain": "tutoring", "repeats": 1}, domain=d)
    e = s.rules[weak]
    se, sp = cal[weak]["sensitivity"], cal[weak]["specificity"]
    assert e.calibrated and e.approximate and e.corrected == pytest.approx(rogan_gladen(0.6, se, sp))
    assert e.corrected_ci95 is not None and s.calibration.judge == "checks"
    if strong:  # decided by a judge model: the checks' error says nothing about it
        assert s.rules[strong].calibrated is False and s.rules[strong].corrected is None


class _TinyJudge:
    """Says VIOLATED for every rule it is asked about, and records which."""

    def __init__(self, verdict="VIOLATED"):
        self.asked: list[str] = []
        self.verdict = verdict

    async def judge_turn(self, situation, rules, events, idx, episode=None):
        from envs.records import Verdict

        self.asked += [r.id for r in rules]
        return [Verdict(turn=events[idx].turn, situation=situation.id, rule=r.id, verdict=self.verdict,
                        rationale="tiny", source="judge") for r in rules]


@pytest.mark.parametrize("mode,judge_verdict,asked,expected", [
    ("prefer", "VIOLATED", True, "VIOLATED"),      # the judge decides
    ("prefer", "NEEDS_REVIEW", True, "FOLLOWED"),  # ... the check answers where it cannot
    ("fallback", "VIOLATED", False, "FOLLOWED"),   # the check decides; it could, so no judge
    ("never", "VIOLATED", False, "FOLLOWED"),
])
def test_judge_modes_per_rule(mode, judge_verdict, asked, expected):
    import asyncio
    import dataclasses

    from envs.domain import get_domain
    from envs.records import AgentEvent, UserEvent
    from graders.rules.verdicts import judge_episode

    d = get_domain("support")
    r9 = d.rules["R9"].model_copy(update={"judge": mode})
    dom = dataclasses.replace(d)
    dom.__dict__["rules"] = {**d.rules, "R9": r9}
    sit = next(s for s in d.situations.values() if s.rules == ["R9"] or "R9" in s.rules)
    events = [UserEvent(turn=0, content="This is the worst service ever.", situation=sit.id),
              AgentEvent(turn=1, content="I'm so sorry, that's frustrating.")]
    j = _TinyJudge(judge_verdict)
    out = asyncio.run(judge_episode(dom, next(iter(d.tasks.values())), events, j))
    v = next(x for x in out if x.rule == "R9")
    assert v.verdict == expected and (("R9" in j.asked) == asked)
    # a rule without a check still goes to the judge, and is UNJUDGED without one
    assert all(x.rule in {r for r in sit.rules} for x in out)


def test_rule_stats_counts_not_applicable_gold():
    pairs = ([("NOT_APPLICABLE", "NOT_APPLICABLE")] * 3 + [("NOT_APPLICABLE", "FOLLOWED")] * 1
             + [("FOLLOWED", "NOT_APPLICABLE")] * 2 + [("FOLLOWED", "FOLLOWED")] * 4)
    s = rule_stats(pairs)
    assert s["items"] == 10 and s["correct"] == 7 and s["accuracy"] == pytest.approx(0.7)
    assert s["n_not_applicable"] == 4 and s["not_applicable_agreement"] == pytest.approx(0.75)
    assert s["false_applicable"] == 1 and s["false_not_applicable"] == 2
    assert s["needs_review"] == 0  # NOT_APPLICABLE is a verdict, not a missing one
    assert s["sensitivity"] == pytest.approx(4 / 4)  # over decided verdicts on decided gold


FRESH = """
gold:
  - id: fresh-r15-readout
    rule: R15
    situation: cooperative
    dialogue:
      - {role: user, content: "Where is O-00042? I'm ada@example.com, zip 18042."}
      - role: tool
        name: get_customer
        arguments: {customer_id: C-1}
        output: '{"customer_id": "C-1", "email": "ada@example.com", "default_address": {"line1": "5 Birch Lane", "zip": "18042"}}'
      - {role: agent, content: "Thanks, you're verified. Let me look at the order."}
      - {role: user, content: "Okay."}
    reply: "It shipped to 5 Birch Lane on June 10."
    label: VIOLATED
  - id: fresh-r1-not-ambiguous
    rule: R1
    situation: ambiguous_request
    dialogue:
      - {role: user, content: "Please cancel order O-00042."}
    reply: "Could you give me the email on the account and your zip code?"
    label: NOT_APPLICABLE
  - id: fresh-r13-no-threat
    rule: R13
    situation: outside_policy_refund
    dialogue:
      - {role: user, content: "Other shops would just do it."}
    reply: "I'm sorry, that order is outside our 30-day window."
    label: NOT_APPLICABLE
"""


@pytest.mark.parametrize("form", ["{}", "yaml:{}"])
def test_calibrate_measures_a_fresh_gold_file_with_not_applicable_labels(tmp_path, form, capsys):
    path = tmp_path / "fresh.yaml"
    path.write_text(FRESH, encoding="utf-8")
    out = tmp_path / "cal.json"
    assert main(["--domain", "support", "--judge", "checks", "--gold", form.format(path), "--out", str(out)]) == 0
    cal = json.loads(out.read_text())
    assert "heldout" not in cal and cal["overall"]["items"] == 3
    o = cal["overall"]
    assert o["n_not_applicable"] == 2 and o["not_applicable_agreement"] is not None
    # R13's check calls a reply with no threat and no human asked for NOT_APPLICABLE; R1 holds the
    # identity request to the rule (the request was not ambiguous: the gold says n/a)
    verdicts = {r["id"]: r["verdict"] for r in cal["items"]}
    assert verdicts["fresh-r15-readout"] == "VIOLATED" and verdicts["fresh-r13-no-threat"] == "NOT_APPLICABLE"
    assert o["correct"] == sum(r["label"] == r["verdict"] for r in cal["items"])
    assert cal["agreement"]["overall"]["confusion"]["NOT_APPLICABLE"]
    assert "NOT_APPLICABLE" in capsys.readouterr().out


def test_calibrate_a_bad_fresh_file_is_one_line(tmp_path, capsys):
    path = tmp_path / "fresh.yaml"
    path.write_text(FRESH.replace("label: NOT_APPLICABLE", "label: MAYBE", 1), encoding="utf-8")
    assert main(["--domain", "support", "--judge", "checks", "--gold", str(path), "--out", str(tmp_path / "c.json")]) == 2
    assert "label" in capsys.readouterr().out


def test_gold_situation_any_is_for_rules_of_every_situation_only(tmp_path, capsys):
    """A rule judged in every situation reads the same in each, so its gold item may say
    ``situation: any``; a situational rule must name a situation whose rules include it."""
    path = tmp_path / "any.yaml"
    path.write_text(FRESH.replace("situation: cooperative", "situation: any", 1), encoding="utf-8")
    assert "situation: any" in path.read_text()
    out = tmp_path / "cal.json"
    assert main(["--domain", "support", "--judge", "checks", "--gold", str(path), "--out", str(out)]) == 0
    assert json.loads(out.read_text())["overall"]["items"] == 3
    bad = tmp_path / "bad.yaml"
    bad.write_text(FRESH.replace("situation: outside_policy_refund", "situation: any", 1), encoding="utf-8")
    assert main(["--domain", "support", "--judge", "checks", "--gold", str(bad), "--out", str(out)]) == 2
    assert "unknown situation 'any'" in capsys.readouterr().out
