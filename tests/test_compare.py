"""envs.report.compare: statistics against hand-computed values, and two real toy runs."""

from __future__ import annotations

import pytest

from envs.report.compare import compare, main as compare_main
from graders.statistics import fisher_exact, paired_permutation
from envs.run.cli import main as run_main


def test_fisher_exact_known_values():
    # The classic tea-tasting table: [[3, 1], [1, 3]] -> two-sided p = 0.4857
    assert fisher_exact(3, 1, 1, 3) == pytest.approx(0.4857, abs=1e-4)
    assert fisher_exact(10, 0, 0, 10) == pytest.approx(2 / 184756, rel=1e-6)
    assert fisher_exact(5, 5, 5, 5) == pytest.approx(1.0)


def test_paired_permutation_exact():
    assert paired_permutation([0, 0, 0]) == 1.0
    # 5 tasks all improved by 1: only the all-plus and all-minus sign patterns are as extreme.
    assert paired_permutation([1, 1, 1, 1, 1]) == pytest.approx(2 / 32)
    assert paired_permutation([1, -1]) == pytest.approx(1.0)


def test_compare_two_toy_runs(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    assert run_main(["--domain", "toy", "--repeats", "3", "--agent", "scripted:idle", "--out", str(a), "--quiet"]) == 0
    assert run_main(["--domain", "toy", "--repeats", "3", "--agent", "scripted:depositor", "--out", str(b), "--quiet"]) == 0
    c = compare(a, b)
    assert c["tasks"]["compared"] == 1
    assert c["tasks"]["mean_success_a"] == 0.0 and c["tasks"]["mean_success_b"] == 1.0
    assert [r["task"] for r in c["tasks"]["better"]] == ["toy-deposit"] and not c["tasks"]["worse"]
    assert c["pass_hat_k"]["b"]["3"] == 1.0 and c["pass_hat_k"]["a"]["3"] == 0.0
    assert compare_main([str(a), str(b)]) == 0
    assert "toy-deposit" in capsys.readouterr().out
    assert compare_main([str(a), str(tmp_path / "missing")]) == 2


@pytest.fixture(scope="module")
def careful_vs_eager(tmp_path_factory, played_runs):
    # the support runs test_power compares too, played once a session (tests/conftest.py)
    d = tmp_path_factory.mktemp("cmp")
    return played_runs.copy(played_runs.CAREFUL_SUP2, d / "a"), played_runs.copy(played_runs.EAGER_SUP2, d / "b")


def test_compare_lists_every_task_it_found(careful_vs_eager, capsys):
    a, b = careful_vs_eager
    c = compare(a, b)
    worse = [r["task"] for r in c["tasks"]["worse"]]
    assert len(worse) == 32 and not c["tasks"]["better"]
    assert compare_main([str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert all(f"worse: {t} " in out for t in worse) and "more worse" not in out


def test_compare_top_says_how_many_it_left_out(careful_vs_eager, capsys):
    a, b = careful_vs_eager
    assert compare_main([str(a), str(b), "--top", "5"]) == 0
    out = capsys.readouterr().out
    assert out.count("  worse: ") == 5 and "... and 27 more worse" in out


def test_compare_rules_in_natural_order_with_names(careful_vs_eager, capsys):
    a, b = careful_vs_eager
    c = compare(a, b)
    ids = list(c["rules"])
    assert ids[:3] == ["R1", "R2", "R3"]
    assert ids == sorted(ids, key=lambda r: int(r[1:]))  # natural order: R10 after R9, not after R1
    assert compare_main([str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert out.index("R2 no refund promise") < out.index("R10 ask for missing")


def test_compare_draws_the_run_tables_style_within_80_columns(careful_vs_eager, tmp_path):
    """One table style for every command (a rule under the header, no box), the runs' names on a line
    of their own, and every line (the power line too) wrapped within the width."""
    import io
    from pathlib import Path

    from rich.console import Console

    from envs.report.compare import print_comparison

    a, b = careful_vs_eager
    # long run names, as a timestamped runs/<id> gives them
    la, lb = tmp_path / ("careful-" + "x" * 60), tmp_path / ("eager-" + "y" * 60)
    la.symlink_to(a), lb.symlink_to(b)
    buf = io.StringIO()
    print_comparison(compare(la, lb), console=Console(file=buf, width=80, color_system=None))
    text = buf.getvalue()
    assert max(len(x) for x in text.splitlines()) <= 80
    assert not set("┏┃│╭╮┡━") & set(text) and "─" in text  # rich's SIMPLE_HEAD rule, as envs.run draws
    assert "pass^k, A vs B" in text and "detectable difference" in text
    assert "inside it" in " ".join(text.split()) or "outside it" in " ".join(text.split())


def test_every_command_draws_its_tables_through_one_style():
    """rich tables are made in the one style (envs.table_style.line_table, filled by
    envs.report.terminal.fit_table) only."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    makers = [
        str(f.relative_to(root))
        for top in ("envs", "graders", "domains")
        for f in (root / top).rglob("*.py")
        if f.name not in ("terminal.py", "table_style.py") and ("from rich.table import" in f.read_text() or "rich.table.Table" in f.read_text())
    ]
    assert not makers, f"tables drawn outside envs.report.terminal: {makers}"
