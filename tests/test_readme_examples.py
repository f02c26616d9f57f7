"""The README's example outputs come from runs of the commands it names."""

from __future__ import annotations

import re
from pathlib import Path

from envs.report.summary import read_summary
from envs.report.terminal import headline

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_the_headline_example_is_the_main_commands(tmp_path, played_runs):
    assert "python -m envs.run --domain support --repeats 8" in README
    shown = " ".join(re.search(r"a headline first \(`([^`]+)`", README).group(1).split())
    # the main command's run, played once per session (tests/conftest.py; test_simulated_users reads it too)
    out = played_runs.copy(played_runs.MAIN, tmp_path / "run")
    assert headline(read_summary(out)) == shown


def test_regrade_offers_no_agent_or_user_flags_and_schema_has_help(capsys):
    import pytest

    from envs.regrade import build_parser
    from envs.report.schema import main as schema_main

    flags = {o for a in build_parser()._actions for o in a.option_strings}
    assert not {f for f in flags if f.startswith(("--agent", "--user"))} and "--judge" in flags and "--judge-api-base" in flags
    with pytest.raises(SystemExit) as e:
        schema_main(["--help"])
    assert e.value.code == 0 and "usage: python -m envs.report.schema" in capsys.readouterr().out
