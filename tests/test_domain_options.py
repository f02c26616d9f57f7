"""Domain options (--domain-option, typed per domain), frozen domain definitions, and the typed
run config and summary (summary.json against its JSON Schema; old run folders still resume)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from envs.domain import get_domain
from envs.errors import SpecError
from envs.records import RunSummary
from envs.run.cli import main
from envs.run.config import RunConfig

ROOT = Path(__file__).resolve().parents[1]
PROBLEMS = [
    {"question": "Ann has 3 bags of 4 apples. She eats 2. How many are left?", "answer": "3*4=<<3*4=12>>12\n12-2=<<12-2=10>>10\n#### 10"},
    {"question": "A pen costs $2. How much do 3 pens cost?", "answer": "3*2=<<3*2=6>>6\n#### 6"},
    {"question": "Tom has 5 cards and gets 4 more. How many now?", "answer": "5+4=<<5+4=9>>9\n#### 9"},
]


def _problems(tmp_path: Path, n: int, name: str = "p.jsonl") -> Path:
    p = tmp_path / name
    p.write_text("".join(json.dumps(x) + "\n" for x in PROBLEMS[:n]), encoding="utf-8")
    return p


def test_configuring_a_domain_twice_gives_independent_definitions(tmp_path):
    base = get_domain("tutoring")
    a = base.with_options(problems=str(_problems(tmp_path, 2, "a.jsonl")))
    b = base.with_options(problems=str(_problems(tmp_path, 3, "b.jsonl")), problem_tasks="2")
    assert a is not b and a.cache is not b.cache and a.cache is not base.cache
    assert len(a.problems) == 2 and len(b.problems) == 3
    assert len(a.tasks) == 2 and len(b.tasks) == 2  # b: problem_tasks limits its tasks
    assert a.template() != b.template()
    # the definition configured from is untouched: still the hand-written set
    assert base.options.problems is None and len(base.problems) > 3 and base.template() not in (a.template(), b.template())
    with pytest.raises(AttributeError):
        base.options_model = None  # frozen
    # the registry hands out one definition per set of options
    opts = {"problems": str(tmp_path / "a.jsonl")}
    assert get_domain("tutoring", opts) is get_domain("tutoring", opts)
    assert get_domain("tutoring", opts) is not base and get_domain("tutoring") is base


def test_taubench_options_make_new_tools_and_accept_the_old_name(tmp_path):
    base = get_domain("taubench-retail")
    d = base.with_options(taubench_data=str(tmp_path))
    assert d.options.data == tmp_path and base.options.data is None
    assert d.agent_tools is not base.agent_tools  # its tools read the schemas of its own data
    assert d.scripted_agents["gold"]().domain is d


def test_bad_options_are_one_line():
    with pytest.raises(SpecError, match=r"^nope: unknown option of domain tutoring \(known: problems, problem_tasks\)$"):
        get_domain("tutoring").with_options(nope=1)
    with pytest.raises(SpecError, match=r"^problem_tasks: Input should be greater than or equal to 1"):
        get_domain("tutoring", {"problem_tasks": 0})


def test_domain_option_on_the_command_line(tmp_path):
    out = tmp_path / "run"
    src = _problems(tmp_path, 3)
    argv = ["--domain", "tutoring", "--domain-option", f"problems={src}", "--domain-option", "problem-tasks=2", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["domain_options"] == {"problems": str(src), "problem_tasks": 2}
    s = json.loads((out / "summary.json").read_text())
    assert s["tasks"] == 2 and s["pass_hat_k"]["1"] == 1.0
    # resuming with a different option value is refused
    assert main(["--resume", str(out), "--domain-option", "problem_tasks=3", "--quiet"]) == 2


@pytest.mark.parametrize(
    "argv, line",
    [
        (["--domain", "tutoring", "--domain-option", "problem_tasks=many"],
         "--domain-option problem_tasks: Input should be a valid integer, unable to parse string as an integer (got 'many')"),
        (["--domain", "toy", "--domain-option", "nope=1"], "--domain-option nope: unknown option of domain toy (known: none)"),
        (["--domain", "toy", "--problems", "x.jsonl"], "--domain-option problems: unknown option of domain toy (known: none)"),
        (["--domain", "toy", "--domain-option", "novalue"], "--domain-option: expected KEY=VALUE, got 'novalue'"),
    ],
)
def test_bad_domain_option_is_one_line_exit_2(tmp_path, capsys, argv, line):
    assert main(argv + ["--out", str(tmp_path / "r"), "--quiet"]) == 2
    out = capsys.readouterr().out.strip()
    assert out == f"error: {line}"


def test_summary_validates_against_its_written_schema(tmp_path):
    out = tmp_path / "run"
    assert main(["--domain", "toy", "--repeats", "2", "--agent", "scripted:idle", "--out", str(out), "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    schema = json.loads((out / "summary.schema.json").read_text())
    assert summary["schema_version"] == 1
    jsonschema.validate(summary, schema)
    assert summary["per_task"][0]["first_failure"]["repeat"] == 0  # the idle agent never solves it
    broken = dict(summary, episodes="two")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)
    printed = subprocess.run(
        [sys.executable, "-m", "envs.report.schema"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    ).stdout
    assert json.loads(printed) == schema
    assert schema["properties"]["pass_hat_k"]["description"].startswith("pass^k for k")


def test_an_old_run_folder_still_resumes_and_compares(tmp_path):
    out = tmp_path / "old"
    assert main(["--domain", "toy", "--repeats", "2", "--out", str(out), "--quiet"]) == 0
    # config.json and summary.json as written before they were typed
    (out / "config.json").write_text(json.dumps(
        {"agent": "scripted", "domain": "toy", "llm": {}, "repeats": 2, "run_id": "old", "seed": 0, "user": "scripted"}))
    s = json.loads((out / "summary.json").read_text())
    for k in ("schema_version", "clean_episodes", "coverage_gaps"):
        s.pop(k)
    (out / "summary.json").write_text(json.dumps(s))
    assert main(["--resume", str(out), "--quiet"]) == 0
    assert main(["--resume", str(out), "--repeats", "3", "--quiet"]) == 2  # still refuses a changed setting
    from envs.report.compare import compare

    (out / "summary.json").write_text(json.dumps(s))
    assert compare(out, out)["tasks"]["compared"] == 1


def test_old_config_keys_become_domain_options():
    old = {"domain": "taubench-retail", "taubench_data": "/data/tau", "problems": None, "repeats": 3}
    cfg = RunConfig.model_validate(old)
    assert cfg.domain_options == {"data": "/data/tau"} and cfg.repeats == 3 and cfg.agent == "scripted"
    assert RunSummary.model_validate({"domain": "x"}).schema_version == 1
