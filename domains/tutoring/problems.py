"""Problems of the tutoring domain: the hand-written set and GSM8K-format files.

A problem is a statement, a final answer and worked steps. Each step has an
``expr`` evaluated with exact fractions (``evaluate``) and the ``result`` it
must give; the final answer is the last step's result. ``common_errors`` are
the wrong answers a student with a known misconception arrives at (the
tutor's guide lists them; the scripted student computes them).

GSM8K files hold one JSON object per line with ``question`` and ``answer``,
the answer's last line being ``#### <number>``. Calculator annotations
(``<<16-3-4=9>>``) become machine-checkable steps when present.
"""

from __future__ import annotations

import ast
import json
import operator
import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Callable

import yaml

from envs.errors import SpecError

HERE = Path(__file__).resolve().parent


# --- exact arithmetic ---------------------------------------------------------------

_OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}


def evaluate(expr: str) -> Fraction:
    """Evaluate an arithmetic expression exactly (numbers, + - * / // % **, parentheses)."""

    def ev(node: ast.AST) -> Fraction:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return Fraction(str(node.value))
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            left, right = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Pow):
                if right.denominator != 1 or abs(right) > 12:
                    raise ValueError("only small whole powers")
                return left ** int(right)
            return Fraction(_OPS[type(node.op)](left, right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        raise ValueError(f"not arithmetic: {ast.dump(node)[:60]}")

    expr = expr.replace("×", "*").replace("÷", "/").replace("x", "*") if re.fullmatch(r"[\d\s.+\-*/()x×÷%]+", expr) else expr
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError as e:
        raise ValueError(f"cannot parse {expr!r}: {e.msg}") from None
    return ev(tree)


_CHAIN = {ast.Add: "+", ast.Sub: "+", ast.Mult: "*", ast.Div: "*", ast.FloorDiv: "//"}
_SYMBOL = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "/"}


def worked_steps(expr: str, show: Callable[[Fraction], str], fractions: bool = False) -> list[tuple[str, Fraction]]:
    """An expression worked the way a student writes it down, one calculation a line, innermost first:
    "(42-42/3)//6" -> [("42/3", 14), ("42-14", 28), ("28/6", 4)]. A run of one kind of operation stays one
    calculation ("100+40+55", "60*20/100"); a bracket, a change of kind or a whole-number division (written
    "/") is worked out first. With ``fractions`` a fraction written as one ("1/3", not "42/3") is a number.
    ``show`` writes a value ("3.5"). Raises ValueError for what ``evaluate`` cannot read."""
    tree = ast.parse(expr.strip(), mode="eval").body
    out: list[tuple[str, Fraction]] = []

    def number(node: ast.AST) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return show(Fraction(str(node.value)))
        if (fractions and isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and all(
                isinstance(x, ast.Constant) and isinstance(x.value, int) for x in (node.left, node.right))
                and node.right.value and node.left.value % node.right.value):
            return f"{node.left.value}/{node.right.value}"
        return None

    def part(node: ast.AST, kind: str, after_minus: bool) -> str:
        n = number(node)
        if n is not None:
            return n
        if not isinstance(node, ast.BinOp) or type(node.op) not in _CHAIN:
            raise ValueError(f"not a calculation: {ast.dump(node)[:60]}")
        mine = _CHAIN[type(node.op)]
        if mine == "//" or mine != kind or after_minus:
            return show(step(node))
        return chain(node)

    def chain(node: ast.BinOp) -> str:
        kind = _CHAIN[type(node.op)]
        right_first = isinstance(node.op, (ast.Sub, ast.Div, ast.FloorDiv)) and isinstance(node.right, ast.BinOp)
        left = part(node.left, kind, False)
        right = part(node.right, kind, right_first)
        if "/" in right and kind != "+":
            right = f"({right})"  # "18/(1/3)", not "18/1/3"
        return f"{left}{_SYMBOL[type(node.op)]}{right}"

    def step(node: ast.AST, last: bool = False) -> Fraction:
        text, value = chain(node), evaluate(ast.unparse(node))
        if last or text != show(value):  # a fraction of two worked numbers ("2/7") is a number, not a step
            out.append((text, value))
        return value

    if number(tree) is not None:
        return [(number(tree), evaluate(expr))]
    step(tree, last=True)
    return out


# Digits bounded: a run of more than 30 digits is no number anyone means, and an unbounded run
# would be read in quadratic time (and past int()'s 4,300-digit limit).
_NUMBER = re.compile(r"(?<![\w.])-?\$?\s?(\d{1,3}(?:,\d{3}){1,10}|\d{1,30})(?:\.(\d{1,30}))?(?:\s*/\s*(\d{1,30}))?(?![\w])")


def parse_number(text: str) -> Fraction:
    """A number as written in an answer or a result: "42", "$2.30", "2,760", "5/12"."""
    s = str(text).strip().replace("$", "").replace(",", "").replace("%", "").strip()
    m = re.fullmatch(r"(-?\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)", s)
    if m:
        return Fraction(m.group(1)) / Fraction(m.group(2))
    return Fraction(s)


def numbers_in(text: str) -> list[Fraction]:
    """Every number written in a text ("3/4", "2.5", "$1,200", "3:45" gives 3 and 45)."""
    out = []
    for m in _NUMBER.finditer(text):
        whole = m.group(1).replace(",", "")
        if m.group(3):
            den = int(m.group(3))
            if den:
                out.append(Fraction(int(whole), den))
            continue
        out.append(Fraction(f"{whole}.{m.group(2)}") if m.group(2) else Fraction(int(whole)))
    return out


def last_number(text: str) -> Fraction | None:
    nums = numbers_in(text)
    return nums[-1] if nums else None


def fmt(value: Fraction) -> str:
    """A value the way a student writes it: whole numbers plain, short decimals, else a fraction."""
    if value.denominator == 1:
        return str(value.numerator)
    d = value.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d == 1:
        return format(float(value), "f").rstrip("0").rstrip(".")
    return f"{value.numerator}/{value.denominator}"


# --- problems -------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    text: str
    expr: str
    result: str


@dataclass(frozen=True)
class CommonError:
    code: str
    expr: str
    answer: str
    #: the misconception's working reaches the right answer here (right for a wrong reason)
    coincides: bool = False
    #: the wrong value the misconception gives the first step, carried through the later ones ("" if none is set)
    first_step: str = ""


@dataclass(frozen=True)
class Problem:
    id: str
    statement: str
    answer: str
    steps: tuple[Step, ...]
    skills: tuple[str, ...] = ()
    topic: str = "arithmetic"
    grade: int = 4
    source: str = "sitgym"
    common_errors: tuple[CommonError, ...] = field(default_factory=tuple)
    #: misconceptions in step order, one per step: each later one shows once the earlier is fixed
    chain: tuple[str, ...] = ()
    #: what a student calls the problem when it points to it ("Maya's notebooks"): it never reads it out
    about: tuple[str, ...] = ()
    #: what a student drifts off to from this problem: its own life where the problem's things touch it
    #: ("I always lose my pencils"), never a fact of the problem, never about the maths
    asides: tuple[str, ...] = ()

    @property
    def value(self) -> Fraction:
        return parse_number(self.answer)


@dataclass(frozen=True)
class Misconception:
    code: str
    description: str
    keywords: tuple[str, ...]
    hint: str


@lru_cache(maxsize=1)
def misconceptions() -> dict[str, Misconception]:
    data = yaml.safe_load((HERE / "misconceptions.yaml").read_text(encoding="utf-8"))["misconceptions"]
    return {
        m["code"]: Misconception(m["code"], m["description"], tuple(m["keywords"]), m["hint"]) for m in data
    }


def load_handwritten(path: Path | None = None) -> list[Problem]:
    path = path or HERE / "problems.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))["problems"]
    out = []
    for p in data:
        out.append(
            Problem(
                id=p["id"],
                statement=p["statement"],
                answer=str(p["answer"]),
                steps=tuple(Step(s["text"], s["expr"], str(s["result"])) for s in p["steps"]),
                skills=tuple(p.get("skills", ())),
                topic=p.get("topic", "arithmetic"),
                grade=int(p.get("grade", 4)),
                source="sitgym",
                common_errors=tuple(CommonError(e["code"], e["expr"], str(e["answer"]), bool(e.get("coincides", False)), str(e.get("first_step", "")))
                                    for e in p.get("common_errors", ())),
                chain=tuple(p.get("chain", ())),
                about=tuple(p.get("about", ())),
                asides=tuple(p.get("asides", ())),
            )
        )
    return out


_CALC = re.compile(r"<<([^<>=]*)=([^<>]*)>>")


def load_gsm8k(path: str | Path, limit: int | None = None) -> list[Problem]:
    """Problems from a GSM8K-format ``.jsonl`` file; a bad line raises ``SpecError("FILE: line N: reason")``."""
    path = Path(path)
    if not path.is_file():
        raise SpecError(f"{path}: file not found")
    out: list[Problem] = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, start=1):
            if not line.strip():
                continue
            where = f"{path}: line {n}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise SpecError(f"{where}: not valid JSON ({e.msg})") from None
            if not isinstance(obj, dict):
                raise SpecError(f"{where}: expected a JSON object with 'question' and 'answer'")
            q, a = obj.get("question"), obj.get("answer")
            if not isinstance(q, str) or not q.strip():
                raise SpecError(f"{where}: missing or empty 'question'")
            if not isinstance(a, str):
                raise SpecError(f"{where}: missing 'answer'")
            m = re.search(r"####\s*(.+?)\s*$", a.strip())
            if not m:
                raise SpecError(f"{where}: 'answer' does not end with '#### <number>'")
            try:
                value = parse_number(m.group(1))
            except (ValueError, ZeroDivisionError):
                raise SpecError(f"{where}: final answer {m.group(1)!r} is not a number") from None
            steps = []
            for i, c in enumerate(_CALC.finditer(a)):
                expr, res = c.group(1).strip(), c.group(2).strip()
                try:
                    if evaluate(expr) == parse_number(res):
                        steps.append(Step(text=f"step {i + 1}", expr=expr, result=fmt(parse_number(res))))
                except (ValueError, ZeroDivisionError, TypeError):
                    continue  # an annotation we cannot check is left out, never trusted
            final = fmt(value)
            if not steps or parse_number(steps[-1].result) != value:
                steps.append(Step(text="the final answer", expr=final, result=final))
            errors = ()
            inter = [s for s in steps[:-1] if parse_number(s.result) != value]
            if inter:
                errors = (CommonError("stopped_early", inter[-1].expr, inter[-1].result),)
            out.append(
                Problem(
                    id=f"GSM-{len(out) + 1:04d}",
                    statement=" ".join(q.split()),
                    answer=final,
                    steps=tuple(steps),
                    skills=("multi_step",),
                    topic="word_problem",
                    grade=5,
                    source=f"gsm8k:{path.name}:{n}",
                    common_errors=errors,
                )
            )
            if limit is not None and len(out) >= limit:
                break
    if not out:
        raise SpecError(f"{path}: no problems in the file")
    return out


def load_problems(source: str | Path | None = None) -> list[Problem]:
    """The hand-written set (default) or the problems of a GSM8K-format file."""
    return load_handwritten() if source is None else load_gsm8k(source)
