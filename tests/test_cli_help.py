"""Every option and argument of every command line has help text.

The commands are found, not listed: every module under envs/, graders/ and domains/ that builds an
``argparse.ArgumentParser`` is imported and its ``main`` (or ``build_parser``) called with the parser's
parsing stopped, so a new command or a new flag without help fails here.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


class _Caught(Exception):
    def __init__(self, parser: argparse.ArgumentParser):
        self.parser = parser


def _cli_modules() -> list[str]:
    mods = []
    for top in ("envs", "graders", "domains"):  # the user's commands (benchmarks/ scripts: not yet)
        for f in sorted((ROOT / top).rglob("*.py")):
            if "ArgumentParser(" in f.read_text(encoding="utf-8"):
                mods.append(".".join(f.relative_to(ROOT).with_suffix("").parts))
    return mods


def _parser_of(module: str, monkeypatch) -> argparse.ArgumentParser:
    mod = importlib.import_module(module)
    if hasattr(mod, "build_parser"):
        return mod.build_parser()

    def caught(self, args=None, namespace=None):
        raise _Caught(self)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", caught)
    with pytest.raises(_Caught) as e:
        mod.main([])
    return e.value.parser


def _walk(parser: argparse.ArgumentParser, where: str):
    for a in parser._actions:
        if isinstance(a, argparse._HelpAction):
            continue
        if isinstance(a, argparse._SubParsersAction):
            for name, sub in a.choices.items():
                yield from _walk(sub, f"{where} {name}")
            continue
        yield where, a


def test_the_commands_are_found():
    mods = _cli_modules()
    assert {"envs.run.args", "envs.report.compare", "envs.export", "envs.check", "graders.calibrate.cli"} <= set(mods)


@pytest.mark.parametrize("module", _cli_modules())
def test_every_option_has_help(module, monkeypatch):
    parser = _parser_of(module, monkeypatch)
    assert parser.format_help()  # a stray % in a help text breaks --help
    bare = [
        f"{where}: {'/'.join(a.option_strings) or a.dest}"
        for where, a in _walk(parser, parser.prog)
        if not (a.help and a.help.strip())
    ]
    assert not bare, "options without help text:\n" + "\n".join(bare)
