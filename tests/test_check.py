"""envs.check: every spec checked before the first episode, the task lint, and the flags."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from envs.domain import get_domain
from envs.spec.check import check_calibration, check_domain
from envs.spec.lint import lint_task
from envs.spec.loading import load_one
from envs.spec.schema import Task

ROOT = Path(__file__).resolve().parents[1]
BROKEN = Path(__file__).parent / "broken_tasks"

# broken task file -> the field its one finding names
EXPECTED = {
    "output_in_no_tool_output": "outputs.0",
    "fact_never_revealed": "expected_actions.0.arguments.order_id",
    "user_tool_call_invalid": "scenario.user_tools.0.arguments",
    "misconception_not_certain": "scenario.known_facts",
    "hints_over_budget": "expected_actions: the gold path gives 3 hints on a budget of 2",
    "reveal_before_hints_exhausted": "expected_actions.4",
    "expected_action_bad_argument": "expected_actions.0.arguments",
    "initial_state_unknown_table": "initial_state.insert.9.table",
    "initial_state_unknown_column": "initial_state.insert.0",
    "unknown_persona": "persona",
    "silent_agent_passes": "task: requires nothing observable of the agent",
}


@pytest.mark.parametrize("domain_name", ["support", "tutoring"])
def test_every_shipped_task_passes_the_check_and_the_lint(domain_name):
    report = check_domain(get_domain(domain_name))
    assert report.problems == []
    assert report.counts["tasks"] >= 30


def test_generated_tutoring_tasks_pass_the_lint(tmp_path):
    lines = [
        {"question": "Ann has 3 bags of 4 apples. She eats 2. How many are left?", "answer": "3*4=12\n12-2=10\n#### 10"},
        {"question": "A pen costs $2. How much do 5 pens cost?", "answer": "5*2=10\n#### 10"},
    ]
    f = tmp_path / "p.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in lines))
    report = check_domain(get_domain("tutoring", {"problems": str(f)}))
    assert report.problems == [] and report.warnings == [] and report.counts["tasks"] == 2


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_broken_task_fails_with_one_clear_line(name):
    path = BROKEN / f"{name}.yaml"
    task = load_one(Task, path)
    found = lint_task(get_domain(task.domain), task, path)
    assert len(found) == 1, found
    assert found[0].startswith(f"{path}: {EXPECTED[name]}"), found[0]
    assert "\n" not in found[0]


def test_every_broken_task_is_tested():
    assert {p.stem for p in BROKEN.glob("*.yaml")} == set(EXPECTED)


def _domain_copy(tmp_path, edit):
    """The support domain with its rules and situations copied to tmp_path and edited."""
    import dataclasses

    base = get_domain("support")
    pkg = tmp_path / "support"
    shutil.copytree(base.package_dir, pkg, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    edit(pkg)
    return dataclasses.replace(base, package_dir=pkg, tasks_path=ROOT / "tasks" / "support")


@pytest.mark.parametrize(
    "old,new,expected",
    [
        ("type: clarify_before_action", "type: clarify_before_actoin", "check.type: unknown check type 'clarify_before_actoin'"),
        ("mutating_tools: [cancel_order,", "mutating_toolz: [cancel_order,", "params.mutating_toolz: the check clarify_before_action reads no param"),
        ("identity_tools: [find_customer_by_name_zip]", "identity_tools: [find_customer]", "params.identity_tools: unknown tool 'find_customer'"),
    ],
)
def test_a_bad_rule_check_is_refused_before_any_episode(tmp_path, old, new, expected):
    def edit(pkg):
        p = pkg / "rules.yaml"
        text = p.read_text()
        assert old in text
        p.write_text(text.replace(old, new, 1))

    report = check_domain(_domain_copy(tmp_path, edit), lint=False)
    assert len(report.problems) == 1 and expected in report.problems[0], report.problems


def test_a_check_missing_a_required_param_is_refused(tmp_path):
    def edit(pkg):
        p = pkg / "rules.yaml"
        text = p.read_text()
        assert "identity_tools: [find_customer_by_name_zip]" in text
        p.write_text(text.replace("identity_tools: [find_customer_by_name_zip]", "", 1))

    report = check_domain(_domain_copy(tmp_path, edit), lint=False)
    assert any("needs param 'identity_tools'" in p for p in report.problems), report.problems


def test_a_situation_naming_an_unknown_rule_is_refused(tmp_path):
    def edit(pkg):
        p = pkg / "situations.yaml"
        text = p.read_text()
        p.write_text(text.replace("rules: [", "rules: [R99, ", 1))

    report = check_domain(_domain_copy(tmp_path, edit), lint=False)
    assert len(report.problems) == 1 and "unknown rule 'R99'" in report.problems[0], report.problems


def test_all_problems_are_reported_at_once(tmp_path):
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    for name in ("expected_action_bad_argument", "initial_state_unknown_table", "unknown_persona"):
        shutil.copy(BROKEN / f"{name}.yaml", tasks / f"{name}.yaml")
    (tasks / "garbled.yaml").write_text("id: [unclosed\n")
    import dataclasses

    d = dataclasses.replace(get_domain("support"), tasks_path=tasks)
    report = check_domain(d)
    assert len(report.problems) == 4, report.problems
    assert not report.ok and "4 problems" in report.summary()


def test_calibration_files_are_validated(tmp_path):
    d = get_domain("support")
    good = {"rules": {"R1": {"accuracy": 0.9, "trustworthy": True, "sensitivity": 0.9, "specificity": 0.9,
                             "n_followed": 5, "n_violated": 5}}}
    (tmp_path / "good.json").write_text(json.dumps(good))
    assert check_calibration(tmp_path / "good.json", d) == []
    (tmp_path / "bad.json").write_text(json.dumps({"rules": {"R1": {"accuracy": 0.9}, "R77": {}}}))
    lines = check_calibration(tmp_path / "bad.json", d)
    assert any("rules.R77: no such rule" in l for l in lines) and any("rules.R1.trustworthy: missing" in l for l in lines)
    assert "not JSON" in check_calibration(_write(tmp_path / "x.json", "{"), d)[0]
    assert "file not found" in check_calibration(tmp_path / "nope.json", d)[0]


def _write(p: Path, text: str) -> Path:
    p.write_text(text)
    return p


def test_the_command_exits_0_with_a_summary_and_2_with_problems(capsys, tmp_path):
    from envs.check import main

    assert main(["--domain", "support"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out == [out[0]] and out[0].startswith("support: ok (")
    assert main(["--domain", "nosuch"]) == 2
    assert "unknown domain" in capsys.readouterr().out


# --- flags, each checked up front: one line, exit 2, no traceback --------------------------------


def _bad_flags(tmp_path):
    afile = tmp_path / "a_file"
    afile.write_text("x")
    (tmp_path / "cal.json").write_text("{")
    return [
        (["--domain", "support", "--concurrency", "0"], "--concurrency: must be at least 1"),
        (["--domain", "support", "--workers", "0"], "--workers: must be at least 1"),
        (["--domain", "support", "--repeats", "0"], "--repeats: must be at least 1"),
        (["--domain", "support", "--model-concurrency", "0"], "--model-concurrency: must be at least 1"),
        (["--domain", "support", "--max-retries", "-1"], "--max-retries: must be at least 0"),
        (["--domain", "support", "--request-timeout", "0"], "--request-timeout: must be above 0"),
        (["--resume", str(tmp_path / "nonexistent")], "no such run folder"),
        (["--resume", str(afile)], "is a file, not a run folder"),
        (["--resume", str(tmp_path)], "holds no run"),
        (["--domain", "support", "--out", str(afile)], "--out: "),
        (["--domain", "support", "--calibration", str(tmp_path / "missing.json")], "file not found"),
        (["--domain", "support", "--calibration", str(tmp_path / "cal.json")], "not JSON"),
        (["--domain", "support", "--problems", str(afile)], "--domain-option problems: unknown option of domain support"),
        (["--domain", "tutoring", "--taubench-data", str(tmp_path)], "--domain-option data: unknown option of domain tutoring"),
        (["--domain", "nosuch"], "unknown domain"),
        (["--domain", "support", "--tasks", "nothing_like_this*"], "--tasks: no task matches"),
    ]


@pytest.mark.parametrize("i", range(16))
def test_a_bad_flag_is_one_line_and_exit_2(i, tmp_path, capsys, monkeypatch):
    from envs.run.cli import main

    monkeypatch.chdir(tmp_path)
    argv, expected = _bad_flags(tmp_path)[i]
    assert main([*argv, "--quiet"]) == 2
    out = capsys.readouterr().out.strip()
    assert expected in out and "Traceback" not in out
    assert len(out.splitlines()) == 1, out
    assert not (tmp_path / "runs").exists()  # refused before any run folder or episode


def test_a_calibration_of_another_domain_is_refused_before_any_episode(tmp_path, capsys, monkeypatch):
    from envs.run.cli import main

    monkeypatch.chdir(tmp_path)
    entry = {"accuracy": 0.9, "trustworthy": True, "sensitivity": 0.9, "specificity": 0.9, "n_followed": 5, "n_violated": 5}
    (tmp_path / "cal.json").write_text(json.dumps({"rules": {"not_a_support_rule": entry}}))
    assert main(["--domain", "support", "--calibration", str(tmp_path / "cal.json"), "--quiet"]) == 2
    assert "no such rule in domain support" in capsys.readouterr().out
    assert not (tmp_path / "runs").exists()


def test_html_report_command_takes_help_and_bad_args(capsys, tmp_path):
    from envs.report.html import main

    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    assert main([str(tmp_path / "nonexistent")]) == 2
    assert main([str(tmp_path)]) == 2
    (tmp_path / "summary.json").write_text("[1, 2]")
    assert main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no such run folder" in err and "file not found" in err and "not a run summary" in err


def test_model_concurrency_follows_the_run():
    from envs.run.llm_flags import model_concurrency_for

    assert model_concurrency_for(64, None) == (64, None)
    cap, note = model_concurrency_for(64, 16)
    assert cap == 16 and "below the 64 calls" in note
    assert model_concurrency_for(8, 16) == (16, None)


def test_the_lint_plays_the_do_nothing_agents_on_a_task_they_pass():
    """A task a silent agent passes is found by playing it, not only by reading it (envs.check plays)."""
    from envs.spec.lint import silent_agent_passes

    path = BROKEN / "silent_agent_passes.yaml"
    task = load_one(Task, path)
    found = silent_agent_passes(get_domain("support"), task)
    assert len(found) == 1 and "scripted:silent" in found[0], found  # read-loop ends at max_steps: a failure
    played = lint_task(get_domain("support"), task, path, play=True)
    assert any("scripted:silent" in p for p in played) and all(p.startswith(f"{path}: task:") for p in played), played


def test_a_required_assertion_a_silent_agent_passes_does_not_count(tmp_path):
    """tool_not_called is passed by silence: required or not, the task still requires nothing."""
    from envs.spec.lint import requires_nothing
    from envs.spec.schema import AssertionSpec

    task = load_one(Task, BROKEN / "silent_agent_passes.yaml")
    negative = AssertionSpec(type="tool_not_called", tool="cancel_order", required=True)
    assert requires_nothing(get_domain("support"), task.model_copy(update={"assertions": [negative]}))
    positive = AssertionSpec(type="tool_called", tool="get_order", required=True)
    assert not requires_nothing(get_domain("support"), task.model_copy(update={"assertions": [positive]}))


def test_an_llm_judge_assertion_cannot_be_required():
    from pydantic import ValidationError

    from envs.spec.schema import AssertionSpec

    with pytest.raises(ValidationError, match="cannot be `required`"):
        AssertionSpec(type="llm_judge", question="Was the agent polite?", required=True)
