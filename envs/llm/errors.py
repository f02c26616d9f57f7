"""What kind of failure a model call met, and whether another attempt may help.

``classify`` maps the lean client's failures (``HTTPStatusError``, timeouts,
aiohttp's connection errors) and litellm's exceptions to one set of kinds:
``rate_limit``, ``timeout``, ``connection``, ``server_error`` and
``bad_response`` and ``empty_reply`` (a 200 with no choices, or neither content nor tool calls: the same for every role) are retried; ``auth``, ``not_found``, ``context_window``,
``bad_request``, ``api_error`` and ``crash`` are not. The kind ends up in
``InfraError.kind`` and in the run summary's ``errors_by_role_kind``.
"""

from __future__ import annotations

import asyncio
import re

import aiohttp

from envs.llm.backends import litellm_backend
from envs.llm.backends.openai_http import HTTPStatusError


def classify(e: BaseException) -> tuple[str, bool]:
    """(kind, retryable) of a failed call (the lean client's failures, or litellm's exceptions)."""
    if isinstance(e, HTTPStatusError):
        return classify_status(e.status_code, e.message)
    if isinstance(e, asyncio.TimeoutError):
        return "timeout", True
    if isinstance(e, aiohttp.ClientError):  # refused, reset, dropped mid-reply, bad payload
        return "connection", True
    return litellm_backend.classify(e) or ("crash", False)


def classify_status(status: int, message: str) -> tuple[str, bool]:
    """(kind, retryable) of an HTTP status, with the kinds litellm's exceptions map to."""
    if status == 429:
        return "rate_limit", True
    if status in (401, 403):
        return "auth", False
    if status == 404:
        return "not_found", False
    if status == 408:
        return "timeout", True
    if status >= 500:
        return "server_error", True
    if status < 400:  # a 2xx whose body is not a JSON object: a broken reply, worth another try
        return "bad_response", True
    low = message.lower()
    if "context" in low and ("length" in low or "window" in low or "too long" in low or "maximum" in low):
        return "context_window", False
    if status in (400, 413, 422):
        return "bad_request", False
    return "api_error", False


def retry_after(e: BaseException) -> float | None:
    """Seconds the server asked us to wait (retry-after-ms / retry-after), if any."""
    for attr in ("litellm_response_headers", "headers"):
        h = getattr(e, attr, None)
        if h:
            break
    else:
        resp = getattr(e, "response", None)
        h = getattr(resp, "headers", None)
    if not h:
        return None
    try:
        if h.get("retry-after-ms"):
            return float(h["retry-after-ms"]) / 1000.0
        if h.get("retry-after"):
            return float(h["retry-after"])
    except (TypeError, ValueError):
        return None
    return None


def short(e: BaseException, n: int = 160) -> str:
    """The error's message on one line, at most ``n`` characters, without litellm's class prefix."""
    msg = str(e).replace("\n", " ")
    msg = re.sub(r"^litellm\.\w+:\s*", "", msg)
    return (msg[: n - 3] + "...") if len(msg) > n else msg
