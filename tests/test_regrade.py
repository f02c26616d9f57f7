"""``python -m envs.regrade``: re-grading saved runs reproduces them, and shows exactly what a
changed rule file changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from envs.records import EpisodeRecord
from envs.regrade import main as regrade_main
from envs.report.compare import compare
from envs.run.cli import main as run_main

ROOT = Path(__file__).resolve().parents[1]


def _recs(d: Path) -> dict[str, EpisodeRecord]:
    out = {}
    for line in (d / "episodes.jsonl").read_text().splitlines():
        r = EpisodeRecord.model_validate_json(line)
        out[r.episode_id] = r
    return out


@pytest.fixture(scope="module")
def eager_run(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("runs") / "eager"
    assert run_main(["--domain", "support", "--tasks", "sup_*", "--repeats", "2", "--agent", "scripted:eager", "--out", str(d), "--quiet"]) == 0
    return d


def test_regrade_reproduces_every_reward_and_verdict(eager_run, tmp_path, capsys):
    out = tmp_path / "rg"
    assert regrade_main([str(eager_run), "--out", str(out)]) == 0
    assert "0 changed" in capsys.readouterr().out
    old, new = _recs(eager_run), _recs(out)
    assert old.keys() == new.keys() and len(old) == 70
    assert any(r.reward == 0 for r in old.values()) and any(r.reward == 1 for r in old.values())
    for k in old:
        assert new[k].reward == old[k].reward, k
        assert new[k].verdicts == old[k].verdicts, k
        assert new[k].grade == old[k].grade, k
        assert new[k].transcript == old[k].transcript, k
    rep = json.loads((out / "regrade.json").read_text())
    assert rep["regraded"] == 70 and rep["changed"] == 0 and rep["replay_mismatches"] == 0
    assert rep["recorded_grade_not_reproduced"] == 0
    assert all(e["recorded_grade_reproduced"] for e in rep["per_episode"])
    # the new folder is a run like any other
    assert (out / "report.html").exists()
    c = compare(eager_run, out)
    assert c["tasks"]["compared"] == 35 and c["tasks"]["mean_success_a"] == c["tasks"]["mean_success_b"]
    s_old = json.loads((eager_run / "summary.json").read_text())
    s_new = json.loads((out / "summary.json").read_text())
    assert s_old["pass_hat_k"] == s_new["pass_hat_k"] and s_old["rules"] == s_new["rules"]


def test_removed_rule_changes_only_its_verdicts(eager_run, tmp_path):
    rules = yaml.safe_load((ROOT / "domains/support/rules.yaml").read_text())
    items = rules["rules"] if isinstance(rules, dict) else rules
    n_before = sum(v.rule == "R5" for r in _recs(eager_run).values() for v in r.verdicts)
    assert n_before > 0
    kept = [r for r in items if r["id"] != "R5"]
    f = tmp_path / "rules.yaml"
    f.write_text(yaml.safe_dump({"rules": kept}))
    out = tmp_path / "rg"
    assert regrade_main([str(eager_run), "--rules", str(f), "--out", str(out)]) == 0
    rep = json.loads((out / "regrade.json").read_text())
    changes = [v for e in rep["per_episode"] for v in e["verdict_changes"]]
    assert len(changes) == n_before
    assert {v["rule"] for v in changes} == {"R5"} and all(v["new"] is None for v in changes)
    assert rep["reward_changed"] == 0
    assert "R5" not in json.loads((out / "summary.json").read_text())["rules"]


def test_changed_check_params_change_only_that_rule(tmp_path):
    run = tmp_path / "toy"
    assert run_main(["--domain", "toy", "--repeats", "3", "--out", str(run), "--quiet"]) == 0
    rules = yaml.safe_load((ROOT / "tests/toy_domain/rules.yaml").read_text())
    rules["rules"][0]["check"]["params"]["pattern"] = r"\bdeposit made\b"
    rules["rules"][0]["check"]["params"]["tools"] = ["get_account"]  # now the reply claims before that tool
    f = tmp_path / "rules.yaml"
    f.write_text(yaml.safe_dump(rules))
    out = tmp_path / "rg"
    assert regrade_main([str(run), "--rules", str(f), "--out", str(out)]) == 0
    rep = json.loads((out / "regrade.json").read_text())
    changes = [v for e in rep["per_episode"] for v in e["verdict_changes"]]
    assert changes and {v["rule"] for v in changes} == {"T1"}
    assert all(v["old"] == "FOLLOWED" and v["new"] == "VIOLATED" for v in changes)
    assert rep["reward_changed"] == 0
    assert json.loads((out / "summary.json").read_text())["rules"]["T1"]["violated"] == len(changes)


def test_a_tampered_recording_is_reported_not_hidden(tmp_path, capsys):
    run = tmp_path / "toy"
    assert run_main(["--domain", "toy", "--repeats", "2", "--out", str(run), "--quiet"]) == 0
    lines = (run / "episodes.jsonl").read_text().splitlines()
    a, b = json.loads(lines[0]), json.loads(lines[1])
    tool = next(e for e in a["transcript"] if e["kind"] == "tool")
    tool["output"] = tool["output"].replace("balance", "BALANCE")
    b["reward"], b["grade"]["reward"] = 0.0, 0.0  # a grade the state does not give
    (run / "episodes.jsonl").write_text(json.dumps(a) + "\n" + json.dumps(b) + "\n")
    out = tmp_path / "rg"
    assert regrade_main([str(run), "--out", str(out)]) == 0
    rep = json.loads((out / "regrade.json").read_text())
    ea, eb = rep["per_episode"]
    assert ea["replay_mismatches"] and "deposit" in ea["replay_mismatches"][0] and ea["changed"]
    assert eb["recorded_grade_reproduced"] is False and eb["new_reward"] == 1.0 and eb["old_reward"] == 0.0
    assert rep["replay_mismatches"] == 1 and rep["recorded_grade_not_reproduced"] == 1
    assert "reward 0.0 -> 1.0" in capsys.readouterr().out


def test_bad_input_is_one_line(tmp_path, capsys):
    assert regrade_main([str(tmp_path / "nope")]) == 2
    assert "no episodes.jsonl" in capsys.readouterr().err
    run = tmp_path / "toy"
    assert run_main(["--domain", "toy", "--repeats", "1", "--out", str(run), "--quiet"]) == 0
    good = (run / "episodes.jsonl").read_text()
    (run / "episodes.jsonl").write_text(good + "{not json\n")
    assert regrade_main([str(run)]) == 2
    err = capsys.readouterr().err
    assert "episodes.jsonl: line 2: not an episode record" in err and "Traceback" not in err
    (run / "episodes.jsonl").write_text(good)
    assert regrade_main([str(run), "--rules", str(tmp_path / "missing.yaml")]) == 2
    assert "--rules" in capsys.readouterr().err
    assert regrade_main([str(run), "--out", str(run)]) == 2


def test_a_rules_file_leaves_the_domain_as_it_was(tmp_path):
    from envs.domain import get_domain

    run = tmp_path / "toy"
    assert run_main(["--domain", "toy", "--repeats", "1", "--out", str(run), "--quiet"]) == 0
    f = tmp_path / "rules.yaml"
    f.write_text("rules: []\n")
    assert regrade_main([str(run), "--rules", str(f), "--out", str(tmp_path / "rg")]) == 0
    assert "T1" in get_domain("toy").rules
    assert run_main(["--domain", "toy", "--repeats", "1", "--out", str(tmp_path / "again"), "--quiet"]) == 0
    assert json.loads((tmp_path / "again" / "summary.json").read_text())["rules"]["T1"]["followed"] == 1


def test_regrade_flags_the_reply_that_read_out_the_stored_address_and_no_other(tmp_path):
    """A run saved before the privacy rule (R15) existed, in which one reply reads out the street
    line get_order showed: the re-grade judges R15 on every reply and flags that one alone."""
    run = tmp_path / "careful"
    assert run_main(["--domain", "support", "--repeats", "1", "--tasks", "sup_damaged_replacement", "sup_cancel_before_dispatch",
                     "--out", str(run), "--quiet"]) == 0
    lines = [json.loads(x) for x in (run / "episodes.jsonl").read_text().splitlines()]
    target = next(r for r in lines if r["task_id"] == "sup_damaged_replacement")
    events = target["transcript"]
    order = next(i for i, e in enumerate(events) if e["kind"] == "tool" and '"shipping_address"' in e["output"])
    line1 = json.loads(events[order]["output"])["shipping_address"]["line1"]
    said = " ".join(e["content"] for e in events if e["kind"] == "user")
    assert line1.lower() not in said.lower()  # the customer never gave it
    reply = next(e for e in events[order:] if e["kind"] == "agent")
    reply["content"] = reply["content"].rstrip("?") + f" to {line1}, the address on the order?"
    for r in lines:  # recorded before the rule existed
        r["verdicts"] = [v for v in r["verdicts"] if v["rule"] != "R15"]
    (run / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))

    out = tmp_path / "rg"
    assert regrade_main([str(run), "--out", str(out)]) == 0
    old, new = _recs(run), _recs(out)
    flagged = [(k, v.turn) for k, r in new.items() for v in r.verdicts if v.rule == "R15" and v.verdict == "VIOLATED"]
    assert flagged == [(target["episode_id"], reply["turn"])]
    # every other reply keeps the rule, or comes before any tool showed a stored address (its condition)
    others = {v.verdict for r in new.values() for v in r.verdicts if v.rule == "R15"} - {"VIOLATED"}
    assert others <= {"FOLLOWED", "NOT_APPLICABLE"} and "FOLLOWED" in others
    for k, r in new.items():
        replies = [e for e in r.transcript if e.kind == "agent"]
        assert len([v for v in r.verdicts if v.rule == "R15"]) == len(replies), k  # judged on every reply
        assert [v for v in r.verdicts if v.rule != "R15"] == old[k].verdicts, k  # nothing else moved
        assert r.reward == old[k].reward
