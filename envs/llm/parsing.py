"""Reading models' text: code fences, tool-call arguments, the JSON inside a reply.

Pure functions on strings, shared by the client (tool-call arguments) and the
actors (JSON actions, judge verdicts, generated gold items).
"""

from __future__ import annotations

import json
import re
from typing import Any

from envs.bounded import MAX_ARG_DEPTH

_FENCE = re.compile(r"^\s*```[\w-]*\s*\n?(.*?)\n?\s*```\s*$", re.S)


def strip_fences(text: str) -> str:
    """``text`` without a code fence wrapped around all of it (``` or ```json)."""
    m = _FENCE.match(text or "")
    return m.group(1) if m else (text or "")


def normalise_arguments(args: Any) -> dict | str:
    """Tool-call arguments as a dict when they are a JSON object (fenced or not), else the raw string.

    A dict too deep or large for a record becomes text again when it enters a ``ToolCall``
    (``envs.bounded``); so the agent's own text is kept for it here rather than re-encoded."""
    if isinstance(args, str) and args.count("{") + args.count("[") > MAX_ARG_DEPTH and _nesting(args) > MAX_ARG_DEPTH:
        return args  # deeper than a record keeps as data: the agent's own text is kept
    if isinstance(args, dict):
        return args
    if args is None or (isinstance(args, str) and not args.strip()):
        return {}
    if isinstance(args, str):
        try:
            v = json.loads(strip_fences(args))
        except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
            return args
        return v if isinstance(v, dict) else args
    return str(args)


def _nesting(text: str) -> int:
    """The deepest bracket nesting in ``text`` (strings are not skipped: an upper bound)."""
    d = m = 0
    for ch in text:
        if ch in "{[":
            d += 1
            m = max(m, d)
        elif ch in "}]":
            d -= 1
    return m


def extract_json(text: str | None) -> Any:
    """The first JSON object or array in ``text`` (code fences and text around it allowed); None if none."""
    if not text:
        return None
    s = strip_fences(text.strip())
    try:
        return json.loads(s)
    except json.JSONDecodeError:
        pass
    for m in re.finditer(r"```[\w-]*\s*\n?(.*?)```", text, re.S):
        try:
            return json.loads(m.group(1))
        except json.JSONDecodeError:
            continue
    dec = json.JSONDecoder()
    for i, ch in enumerate(s):
        if ch in "{[":
            try:
                v, _ = dec.raw_decode(s[i:])
                return v
            except json.JSONDecodeError:
                continue
    return None
