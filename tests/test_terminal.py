"""The terminal summary: headline first, tables fitted to 80 and 120 columns, names, order, plurals."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from envs.domain import get_domain
from envs.records import EpisodeRecord, Verdict
from envs.report.rule_names import derive_name, rule_label, short_rule_names
from envs.report.summary import summarize
from envs.report.terminal import fit_table, Col, headline, plural, print_summary, shorten


def _render(summary, width: int) -> list[str]:
    buf = io.StringIO()
    print_summary(summary, Console(file=buf, width=width, color_system=None, force_terminal=False))
    return buf.getvalue().splitlines()


@pytest.fixture(scope="module")
def eager_summary(tmp_path_factory):
    from envs.run.cli import main
    from envs.report.summary import read_summary

    out = tmp_path_factory.mktemp("eager") / "run"
    assert main(["--domain", "support", "--tasks", "sup_*", "--agent", "scripted:eager", "--repeats", "2", "--out", str(out), "--quiet"]) == 0
    return read_summary(out)


@pytest.mark.parametrize("width", [80, 120])
def test_tables_fit_without_cut_headers_or_wrapped_rows(eager_summary, width):
    lines = _render(eager_summary, width)
    assert lines[0].startswith("pass^1 ") and f"over {eager_summary.tasks} tasks x 2; 0 errors" in lines[0]  # the headline comes first
    assert all(len(l) <= width for l in lines), max(lines, key=len)
    # Rule table: every header whole on one line, then one line per rule, in natural order.
    (hi,) = [i for i, l in enumerate(lines) if l.startswith("rule ") and "followed" in l]
    for header in ("rule", "followed", "rate", "95% CI", "n/a"):
        assert re.search(rf"(^|\s){re.escape(header)}(\s|$)", lines[hi]), (header, lines[hi])
    rows = lines[hi + 2 : hi + 2 + len(eager_summary.rules)]
    ids = [r.split()[0] for r in rows]
    assert ids == [f"R{i}" for i in range(1, len(eager_summary.rules) + 1)]  # R2 before R10, and each row is a single line
    assert all(re.search(r"\d+/\d+", r) for r in rows)
    # Failures: every task id whole on a line with its count and ending, then its first failure,
    # the cause first, wrapped (never cut) across the width.
    (fi,) = [i for i, l in enumerate(lines) if l.startswith("task ")]
    for header in ("task", "solved", "ended by"):
        assert header in lines[fi]
    assert "each with its first failure" in " ".join(lines[fi - 2 : fi])  # the title, wrapped at spaces
    failing = [p for p in eager_summary.per_task if p.successes < p.trials]
    oos = next(p for p in failing if p.id == "sup_damaged_out_of_stock").first_failure.why
    failing = failing[:40]  # the ones shown
    block = lines[fi + 2 :]
    starts = [i for i, l in enumerate(block) if not l.startswith(" ")][: len(failing)]
    for p, i in zip(failing, starts):
        ends = ", ".join(f"{k} {v}" for k, v in sorted(p.terminations.items()))
        assert block[i].split()[0] == p.id and block[i].endswith(ends), block[i]
        assert block[i + 1].startswith("  #0: ")
    text = " ".join(" ".join(l.split()) for l in block[: starts[-1] + 6])
    for p in failing[:-1]:  # the whole first failure is there, in words, when rejoined
        assert p.first_failure.why in text, p.first_failure.why
    # the cause in words: the wrong arguments, and the row made with another amount than the goal's
    assert oos.startswith("refund_items with item_ids [91110, 91111] (goal [91110])"), oos
    assert "refunds: a row made with amount_cents 16200 (goal 12250)" in oos and "refund_id 263 (goal 144)" not in oos
    if width >= 120:
        assert "R10 ask for missing detail" in "\n".join(rows) and "weakest situation" in lines[hi]


def test_narrow_terminal_leaves_columns_out_and_says_so():
    cols = [Col("name", flexible=True, min_width=8), Col("a long header", "right"), Col("optional", drop=1)]
    rows = [["x" * 50, "1", "kept when room"]]
    buf = io.StringIO()
    Console(file=buf, width=40, color_system=None).print(fit_table("t", cols, rows, 40))
    out = buf.getvalue()
    assert "a long header" in out and "optional" not in out.splitlines()[1] and "left out at this width: optional" in out
    assert all(len(l) <= 40 for l in out.splitlines())


def test_plurals_and_headline_on_one_episode(tmp_path):
    rec = EpisodeRecord(episode_id="toy-deposit#0", task_id="toy-deposit", domain="toy", repeat=0, seed=1, reward=1.0,
                        termination="user_stop", verdicts=[Verdict(turn=1, situation="cooperative", rule="T1", verdict="FOLLOWED")])
    s = summarize([rec], {"domain": "toy", "repeats": 1}, domain=get_domain("toy"))
    text = "\n".join(_render(s, 100))
    assert headline(s) == "pass^1 1.000 [1.00, 1.00] over 1 task x 1; 0 errors"
    assert "1 episode over 1 task x 1 repeat; 0 errors; 0 agent errors" in text
    assert "1 episodes" not in text and "x 1 repeats" not in text and "errors: 0 ;" not in text
    assert plural(0, "error") == "0 errors" and plural(1, "call") == "1 call" and plural(2, "pair") == "2 pairs"


def test_headline_says_budget_stops_replays_and_unplayed():
    rec = EpisodeRecord(episode_id="t#0", task_id="t", domain="toy", repeat=0, seed=1, termination="budget_tokens", budget="x", attempt=2)
    s = summarize([rec], {"domain": "toy", "repeats": 1})
    s.budget_stops, s.retried, s.retried_ok, s.not_played = {"budget_tokens": 1}, 1, 1, 3
    h = headline(s)
    assert "1 episode ended by a budget" in h and "1 episode replayed after an error (1 recovered)" in h and "3 not played (cost cap)" in h


def test_shorten_summarises_whole_parts():
    why = "orders {'id': 'O-1'}: status: 'cancelled' (expected 'processing'); refunds: missing row {'id': 3}"
    assert shorten(why, 200) == why
    assert shorten(why, 78) == "orders {'id': 'O-1'}: status: 'cancelled' (expected 'processing') (+1 more)"
    short = shorten("required outputs not stated: said nothing about the refund date of the order", 30)
    assert len(short) <= 30 and short.endswith("…") and not short[:-1].endswith(" ")


def test_rule_names_from_yaml_or_derived():
    support = get_domain("support")
    names = short_rule_names(support.rules.values())
    assert names["R10"] == "ask for missing detail" and len(names) == len(support.rules)
    assert rule_label("R10", names) == "R10 ask for missing detail" and rule_label("withhold_answer", {}) == "withhold_answer"
    # Without a name: a few words of the obligation, the condition and the subject left out.
    assert derive_name("If a detail needed to act is missing, the agent MUST ask for it and MUST NOT guess it.") == "ask for it"
    assert derive_name("If the user asks for a deposit, the agent MUST NOT claim it is done before calling deposit.") == "not claim it is done"
    # Descriptive ids (tutoring) are their own names.
    assert short_rule_names(get_domain("tutoring").rules.values()) == {}
