"""Lint warnings on imported tasks, counted by kind (envs/spec/warning_kinds.py; envs.check)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from envs.spec.warning_kinds import group_warnings, kind_of, summary_lines

WARNINGS = [
    "taubench-retail: task retail-test-002: expected_actions.1: get_product_details fails when the gold path is replayed (Error: product not found)",
    "taubench-retail: task retail-test-002: expected_actions.1.arguments.product_id: get_product_details needs '6086499569', which the user never gets to say (not in the request) and no earlier call of the gold path returns",
    "taubench-retail: task retail-test-003: expected_actions.2.arguments.item_ids.0: return_delivered_order_items needs '1234', which the user never gets to say (not in the request) and no earlier call of the gold path returns",
    "/data/x: tasks: task retail-test-004: expected_actions.0.arguments.expression: calculate needs '2 * 3', which the user never gets to say (not in the request) and no earlier call of the gold path returns",
    "taubench-retail: task retail-test-004: outputs.0: '12.5' appears in no tool output of the gold path and not in the policy",
]


def test_a_kind_is_the_reason_without_what_differs_per_task():
    assert kind_of(WARNINGS[1]) == ("<name> needs …, which the user never gets to say", "retail-test-002")
    assert kind_of(WARNINGS[0]) == ("<name> fails when the gold path is replayed", "retail-test-002")
    # a one-word tool name is an identifier when the domain names it; the task id survives a path with colons
    assert kind_of(WARNINGS[3], ["calculate"])[0] == kind_of(WARNINGS[2])[0] and kind_of(WARNINGS[3])[1] == "retail-test-004"
    assert kind_of("something odd") == ("something odd", None)


def test_warnings_are_counted_by_kind_with_their_tasks():
    groups = group_warnings(WARNINGS, ["calculate"])
    assert [(g.count, len(g.tasks)) for g in groups] == [(3, 3), (1, 1), (1, 1)]
    assert groups[0].example == WARNINGS[1] and sum(g.count for g in groups) == len(WARNINGS)
    lines = summary_lines(WARNINGS, ["calculate"])
    assert lines[0].startswith("warning: 5 lint warnings on imported tasks, 3 kinds") and "--verbose" in lines[0]
    assert lines[1] == "     3 on 3 tasks: <name> needs …, which the user never gets to say"
    assert summary_lines([]) == []


DATA = Path(os.environ.get("SITGYM_TAUBENCH_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data" / "tau-bench-retail")


@pytest.mark.skipif(not (DATA / "db" / "users.json").is_file(), reason=f"tau-bench retail data not found at {DATA}")
def test_check_summarises_taubench_warnings_unless_verbose(capsys):
    from envs.check import main

    assert main(["--domain", "taubench-retail", "--domain-option", f"data={DATA}"]) == 0
    short = capsys.readouterr().out.splitlines()
    assert main(["--domain", "taubench-retail", "--domain-option", f"data={DATA}", "--verbose"]) == 0
    full = capsys.readouterr().out.splitlines()
    each = [x for x in full if x.startswith("warning: ")]
    n = int(short[0].split()[1])
    assert n == len(each) > 100 and len(short) < 12 and not any(x.startswith("warning: taubench") for x in short)
    assert sum(int(x.split()[0]) for x in short[1:-1]) == n  # the kinds' counts add up to every warning
    assert full[-1] == short[-1] and f"{n} lint warnings" in short[-1]
