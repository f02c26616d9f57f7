"""The layers' borders, checked on the source: who may import what."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _imports_of(tree: ast.AST) -> set[str]:
    """Top-level package names a module imports, in any form: ``import x.y``, ``from x import y``,
    ``importlib.import_module("x")`` or ``__import__("x")``, at module level or inside functions."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
            if name in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                found.add(node.args[0].value.split(".")[0])
    return found


def _modules_importing(package: str, *dirs: str) -> list[str]:
    hits = []
    for d in dirs:
        for path in sorted((ROOT / d).rglob("*.py")):
            if package in _imports_of(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
                hits.append(path.relative_to(ROOT).as_posix())
    return hits


def test_only_one_module_imports_litellm():
    # The scanner sees every form of import (else the assertion below would prove nothing).
    forms = [
        "import litellm",
        "import litellm.exceptions as ex",
        "from litellm import acompletion",
        "from litellm.utils import token_counter",
        "def f():\n    import litellm",
        "class C:\n    def m(self):\n        from litellm import cost_per_token",
        "import importlib\nimportlib.import_module('litellm')",
        "__import__('litellm.types')",
    ]
    for src in forms:
        assert "litellm" in _imports_of(ast.parse(src)), src
    for src in ["import litellmx", "from envs.llm.backends import litellm_backend", "x = 'litellm'", "from . import litellm"]:
        assert "litellm" not in _imports_of(ast.parse(src)), src

    assert _modules_importing("litellm", "envs", "graders", "domains") == ["envs/llm/backends/litellm_backend.py"]


def _full_imports_of(tree: ast.AST) -> set[str]:
    """Full dotted module names a module imports (``import a.b`` -> a.b; ``from a.b import c`` -> a.b and a.b.c)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def _sources(*dirs: str):
    for d in dirs:
        for path in sorted((ROOT / d).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")


def test_the_graders_import_nothing_from_the_runner_the_reports_or_the_gym():
    bad = [
        f"{name}: {mod}"
        for name, src in _sources("graders")
        for mod in _full_imports_of(ast.parse(src))
        if mod.split(".")[:2] in (["envs", "run"], ["envs", "report"], ["envs", "gym"])
    ]
    assert not bad, bad



def test_the_engine_imports_no_domain_by_name():
    """envs/ finds domains through the registry (the ``domains`` package is walked, never named)."""
    bad = [
        f"{name}: {mod}"
        for name, src in _sources("envs", "graders")
        for mod in _full_imports_of(ast.parse(src))
        if mod.startswith("domains.") or mod.startswith("tests.")
    ]
    assert not bad, bad
    # and the scanner sees such an import
    assert "domains.support" in _full_imports_of(ast.parse("def f():\n    from domains.support import checks"))


def test_no_long_module_without_a_reason():
    """A module over 400 lines says in its docstring why it is long (the word 'long' in a line of it)."""
    long_ = []
    for name, src in _sources("envs", "graders", "domains", "benchmarks"):
        if src.count("\n") > 400:
            doc = ast.get_docstring(ast.parse(src)) or ""
            if not re.search(r"\blong\b", doc, re.I):
                long_.append(f"{name}: {src.count(chr(10))} lines")
    assert not long_, long_
