"""Keeping whatever an agent or a model sends inside what a record can hold and read back.

The store writes JSON that pydantic reads back with a nesting limit (about 200 levels for a
whole record) and cannot encode lone surrogates. So before a value from outside goes into a
record:

* ``bounded_arguments`` keeps tool-call arguments as data when they are a JSON object no
  deeper than ``MAX_ARG_DEPTH`` and no larger than ``MAX_ARG_CHARS``; otherwise as the raw
  JSON text the agent sent (or its encoding, built without recursion), cut to
  ``MAX_ARG_CHARS`` with the cut stated;
* ``cap_text`` cuts a string to a size, saying how much was cut;
* ``clean_text`` replaces lone surrogates with U+FFFD (pairs are joined into their character).

Every function here is iterative: no input depth can raise ``RecursionError``.
"""

from __future__ import annotations

import json
from typing import Any

# Deep enough for any real tool call; shallow enough that the whole record (which nests the
# arguments some 6 levels down) stays far inside the reader's limit.
MAX_ARG_DEPTH = 64
MAX_ARG_CHARS = 100_000
MAX_MESSAGE_CHARS = 200_000
CUT_MARK = "…[cut by sitgym: {kept} of {total} characters kept]"


def cap_text(s: str, limit: int) -> str:
    """``s`` when it fits in ``limit`` characters, else its head with the cut stated."""
    if len(s) <= limit:
        return s
    return s[:limit] + CUT_MARK.format(kept=limit, total=len(s))


def clean_text(s: str) -> str:
    """``s`` encodable as UTF-8: surrogate pairs joined, lone surrogates made U+FFFD."""
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def depth_and_size(value: Any, stop_depth: int = MAX_ARG_DEPTH, stop_size: int = MAX_ARG_CHARS) -> tuple[int, int, bool]:
    """(nesting depth, rough encoded size, all strings clean) of a JSON-like value.

    Stops early once the depth passes ``stop_depth`` or the size ``stop_size`` (the figures are
    then lower bounds). Containers other than dict/list/tuple count as leaves (their ``str``)."""
    depth, size, clean = 0, 0, True
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            depth = max(depth, d)
            size += 2
            for k, x in v.items():
                ks = k if isinstance(k, str) else str(k)
                size += len(ks) + 4
                clean = clean and _is_clean(ks)
                stack.append((x, d + 1))
        elif isinstance(v, (list, tuple)):
            depth = max(depth, d)
            size += 2
            stack.extend((x, d + 1) for x in v)
        elif isinstance(v, str):
            size += len(v) + 2
            clean = clean and _is_clean(v)
        else:
            size += 8
        if depth > stop_depth or size > stop_size:
            break
    return depth, size, clean


def _is_clean(s: str) -> bool:
    try:
        s.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def dumps_iterative(value: Any, limit: int | None = None) -> str:
    """JSON text of ``value`` at any depth (no recursion); stops once ``limit`` characters are out.

    Non-JSON leaves are written as their ``str``; strings are cleaned of lone surrogates."""
    out: list[str] = []
    n = 0
    # The stack holds either values to encode or literal text to emit.
    stack: list[tuple[bool, Any]] = [(False, value)]
    while stack:
        literal, v = stack.pop()
        if literal:
            piece = v
        elif isinstance(v, dict):
            items = list(v.items())
            stack.append((True, "}"))
            for i in range(len(items) - 1, -1, -1):
                k, x = items[i]
                stack.append((False, x))
                stack.append((True, ("" if i == 0 else ", ") + json.dumps(clean_text(str(k)), ensure_ascii=False) + ": "))
            piece = "{"
        elif isinstance(v, (list, tuple)):
            stack.append((True, "]"))
            for i in range(len(v) - 1, -1, -1):
                stack.append((False, v[i]))
                if i:
                    stack.append((True, ", "))
            piece = "["
        elif isinstance(v, str):
            piece = json.dumps(clean_text(v), ensure_ascii=False)
        elif v is None or isinstance(v, (bool, int, float)):
            piece = json.dumps(v) if not isinstance(v, float) or v == v and abs(v) != float("inf") else json.dumps(str(v))
        else:
            piece = json.dumps(clean_text(str(v)), ensure_ascii=False)
        out.append(piece)
        n += len(piece)
        if limit is not None and n > limit:
            break
    return "".join(out)


def bounded_arguments(arguments: Any) -> dict | str:
    """Tool-call arguments a record can hold: the dict itself when it is small, shallow and clean,
    else JSON text (the agent's own text when it sent text), capped with the cut stated."""
    if arguments is None:
        return {}
    if isinstance(arguments, str):
        return cap_text(clean_text(arguments), MAX_ARG_CHARS)
    if isinstance(arguments, dict):
        depth, size, clean = depth_and_size(arguments)
        if depth <= MAX_ARG_DEPTH and size <= MAX_ARG_CHARS and clean and all(isinstance(k, str) for k in arguments):
            return arguments
    text = dumps_iterative(arguments, limit=MAX_ARG_CHARS + 1)
    return cap_text(text, MAX_ARG_CHARS)


def loads_bounded(text: str) -> Any:
    """``json.loads`` that reports nesting too deep to parse as ``ValueError`` (never RecursionError)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply to parse") from None
