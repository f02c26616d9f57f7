"""``LLMClient.complete``: one chat completion, normalised into a ``Completion`` and accounted.

How the request travels depends on the endpoint (``envs.llm.endpoints``): a
``direct`` one is sent by the lean OpenAI-compatible client
(``backends.openai_http``, about 0.5 ms of CPU per call), the rest by
``backends.litellm_backend`` (9-15 ms). Around the call, the same for both:

* a concurrency limit per model and api base (an ``asyncio.Semaphore`` per
  event loop, so a client outlives ``asyncio.run``);
* a request timeout, and retries with exponential backoff and jitter (tenacity)
  on rate limits (honouring ``retry-after``), timeouts, connection errors and
  5xx (``envs.llm.errors`` says which failures are which); litellm's and the
  OpenAI SDK's own retries are off so the count is ours. Exhausted retries, or
  a non-retryable failure (bad key, unknown model), raise
  ``envs.errors.InfraError`` naming the role and the kind;
* the optional on-disk response cache (``envs.llm.cache``);
* token and cost accounting into the actor's ``envs.records.Usage``
  (``add_usage``; prices from ``envs.llm.pricing``). A model without a known
  price records ``cost=None`` for its own role only; a reply without a usage
  block has its tokens counted locally.

Tool calling: the caller passes ``tools`` (native tool calls) or a
``response_format`` (one JSON action per reply); the endpoint's ``tool_mode``
says which.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_exponential_jitter

from envs.errors import InfraError
from envs.llm.backends import litellm_backend
from envs.llm.backends.openai_http import OpenAIHTTP
from envs.llm.cache import ResponseCache
from envs.llm.endpoints import Endpoint, server_key, wire_model
from envs.llm.errors import classify, retry_after, short
from envs.llm.parsing import normalise_arguments
from envs.llm.pricing import price
from envs.records import ToolCall, Usage


@dataclass
class Completion:
    """One reply: text and/or tool calls, its tokens and cost, and whether it came from the cache."""

    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None  # None: the model has no known price
    cached: bool = False
    usage_estimated: bool = False

    def to_cache(self) -> dict:
        return {
            "content": self.content,
            "tool_calls": [c.model_dump() for c in self.tool_calls],
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost": self.cost,
            "usage_estimated": self.usage_estimated,
        }

    @classmethod
    def from_cache(cls, d: dict) -> "Completion":
        return cls(
            content=d.get("content"),
            tool_calls=[ToolCall(**c) for c in d.get("tool_calls", [])],
            prompt_tokens=d.get("prompt_tokens", 0),
            completion_tokens=d.get("completion_tokens", 0),
            cost=d.get("cost"),
            cached=True,
            usage_estimated=d.get("usage_estimated", False),
        )


def add_usage(usage: Usage | None, c: Completion) -> None:
    """Account one call. Unknown price -> cost None for this role; a cached call spends nothing."""
    if usage is None:
        return
    usage.calls += 1
    usage.prompt_tokens += c.prompt_tokens
    usage.completion_tokens += c.completion_tokens
    if c.cached:
        usage.cached_calls += 1
    if c.cost is None:
        usage.cost = None
    elif usage.cost is not None and not c.cached:
        usage.cost += c.cost


class _Retryable(Exception):
    """Internal: a failure worth another attempt (wraps the original; its text is the kind)."""


class LLMClient:
    """Limits, retries, the cache and accounting around the backends (see the module docstring)."""

    def __init__(
        self,
        cache_dir: str | Path | None = None,
        request_timeout: float = 120.0,
        max_retries: int = 4,
        model_concurrency: int = 16,
        backoff: float = 1.0,
        backoff_max: float = 30.0,
    ):
        self.cache = ResponseCache(cache_dir) if cache_dir else None
        self.request_timeout = float(request_timeout)
        self.max_retries = int(max_retries)
        self.model_concurrency = int(model_concurrency)
        self.backoff = float(backoff)
        self.backoff_max = float(backoff_max)
        self._sems: dict[tuple[int, str, str | None], tuple[asyncio.AbstractEventLoop, asyncio.Semaphore]] = {}
        self._http = OpenAIHTTP()
        self.http_calls = 0  # requests actually sent (for tests and benchmarks)
        # A limit shared by several processes (the Ray backend's cluster-wide limiter): an object whose
        # ``slot(key)`` is an async context manager; None: the per-process semaphores below.
        self.limiter: Any = None

    def ready(self, ep: Endpoint) -> Endpoint:
        """Start a ``local:`` model's server if needed (once per model per process)."""
        if ep.local is not None and ep.api_base is None:
            from envs.llm.backends.llamacpp import resolve_local

            ep.model, ep.api_base = resolve_local(ep.local, role=ep.role)
            ep.api_key = "sk-local"
        return ep

    def _sem(self, ep: Endpoint) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        key = (id(loop), ep.model, ep.api_base)
        got = self._sems.get(key)
        if got is None or got[0] is not loop:  # a new loop may reuse a closed one's id
            if got is None:
                for k in [k for k, (lp, _) in self._sems.items() if lp.is_closed()]:
                    del self._sems[k]
            got = self._sems[key] = (loop, asyncio.Semaphore(self.model_concurrency))
        return got[1]

    def _cached(self, key: str) -> Completion | None:
        entry = self.cache.get(key) if self.cache is not None else None
        if entry is None:
            return None
        try:
            return Completion.from_cache(entry)
        except (TypeError, ValueError):  # an entry of another shape: a miss, rewritten below
            return None

    async def complete(
        self,
        ep: Endpoint,
        messages: list[dict],
        *,
        tools: list[dict] | None = None,
        response_format: dict | None = None,
        seed: int | None = None,
        repeat: int | None = None,
        attempt: int = 0,
        usage: Usage | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        """One chat completion, normalised and accounted. Raises InfraError on infrastructure failure."""
        self.ready(ep)
        params: dict[str, Any] = {}
        if ep.temperature is not None:
            params["temperature"] = ep.temperature
        mt = max_tokens or ep.max_tokens
        if mt is not None:
            params["max_tokens"] = mt
        if response_format is not None:
            params["response_format"] = response_format
        key = ResponseCache.key(ep, messages, tools, params, seed, repeat, attempt) if self.cache is not None else ""
        hit = self._cached(key)
        if hit is not None:
            add_usage(usage, hit)
            return hit

        body: dict[str, Any] = dict(messages=messages, **params)
        if tools:
            body["tools"] = tools
        if seed is not None:
            body["seed"] = seed
        send = self._sender(ep, body)
        attempts = 0

        async def one_attempt() -> Any:
            nonlocal attempts
            attempts += 1
            async with self._sem(ep) if self.limiter is None else self.limiter.slot(f"{ep.model}|{ep.api_base}"):
                self.http_calls += 1
                try:
                    if ep.direct:  # aiohttp enforces the timeout itself
                        resp = await send()
                    else:
                        resp = await asyncio.wait_for(send(), self.request_timeout + 10)
                except Exception as e:  # classified below; never swallowed
                    kind, retryable = classify(e)
                    if retryable:
                        raise _Retryable(kind) from e
                    raise
                why = unusable_reply(resp)
                if why:  # the server sent nothing usable: the same for every role, retried, then infra
                    raise _Retryable("empty_reply") from ValueError(why)
                return resp

        resp = None
        try:
            try:
                # The first attempt runs bare: tenacity's loop costs about 0.1 ms per call,
                # a fifth of the whole request, and is only needed once something failed.
                resp = await one_attempt()
            except _Retryable as failed:
                first: _Retryable | None = failed
                async for att in AsyncRetrying(
                    stop=stop_after_attempt(self.max_retries + 1),
                    wait=self._wait,
                    retry=retry_if_exception_type(_Retryable),
                    reraise=True,
                ):
                    with att:
                        if first is not None:  # tenacity's attempt 1 is the one that already failed
                            failed, first = first, None
                            raise failed
                        resp = await one_attempt()
        except _Retryable as r:
            e = r.__cause__
            raise InfraError(
                f"{ep.role} model {ep.spec}: {r} after {attempts} attempts: {short(e)}", role=ep.role, kind=str(r)
            ) from e
        except InfraError:
            raise
        except Exception as e:
            kind, _ = classify(e)
            raise InfraError(f"{ep.role} model {ep.spec}: {kind}: {short(e)}", role=ep.role, kind=kind) from e

        comp = self._normalise(ep, resp, messages)
        if self.cache is not None:
            self.cache.put(key, comp.to_cache())
        add_usage(usage, comp)
        return comp

    def _wait(self, rs: Any) -> float:
        """Seconds before the next attempt: exponential backoff with jitter, or longer if the server said so."""
        exc = rs.outcome.exception() if rs.outcome else None
        base = wait_exponential_jitter(multiplier=self.backoff, max=self.backoff_max, jitter=self.backoff)(rs)
        ra = retry_after(exc.__cause__) if exc is not None and exc.__cause__ is not None else None
        return min(self.backoff_max, max(base, ra)) if ra is not None else base

    def _sender(self, ep: Endpoint, body: dict[str, Any]):
        """A coroutine function making one attempt: the lean client's POST, or litellm's."""
        if ep.direct:
            wire = {"model": wire_model(ep.model), **body}
            key = server_key(ep.model, ep.api_key)
            return lambda: self._http.chat(ep.api_base, key, wire, self.request_timeout)
        return litellm_backend.send(ep, body, self.request_timeout)

    def _normalise(self, ep: Endpoint, resp: Any, messages: list[dict]) -> Completion:
        """A Completion from litellm's response object or the lean client's JSON reply."""
        choices = _get(resp, "choices")
        msg = _get(choices[0], "message") if choices else None
        content = _get(msg, "content")
        if content is not None and not isinstance(content, str):  # content parts: keep the text
            content = "".join(str(_get(p, "text") or "") for p in content) if isinstance(content, list) else str(content)
        calls: list[ToolCall] = []
        for tc in _get(msg, "tool_calls") or []:
            fn = _get(tc, "function")
            calls.append(
                ToolCall(id=_get(tc, "id") or "", name=_get(fn, "name") or "", arguments=normalise_arguments(_get(fn, "arguments")))
            )
        u = _get(resp, "usage")
        pt = int(_get(u, "prompt_tokens") or 0)
        ct = int(_get(u, "completion_tokens") or 0)
        estimated = False
        if pt == 0 and ct == 0:  # no usage block: count locally rather than record zero
            estimated = True
            text = (content or "") + "".join(json.dumps(c.arguments) + c.name for c in calls)
            pt, ct = litellm_backend.count_tokens(ep.model, messages, text)
        return Completion(
            content=content,
            tool_calls=calls,
            prompt_tokens=pt,
            completion_tokens=ct,
            cost=price(ep.model, pt, ct) if ep.local is None else 0.0,
            usage_estimated=estimated,
        )


def unusable_reply(resp: Any) -> str | None:
    """Why a 200 reply holds nothing a caller can use (no choices; no message; content and tool
    calls both missing), or None. An empty string is content: what the model said, for the
    caller to judge (an agent's empty message is the agent's error)."""
    choices = _get(resp, "choices")
    if not choices:
        return "the reply has no choices"
    msg = _get(choices[0], "message")
    if msg is None:
        return "the reply's first choice has no message"
    if _get(msg, "content") is None and not _get(msg, "tool_calls"):
        return "the reply has neither content nor tool calls"
    return None


def _get(obj: Any, key: str) -> Any:
    """A field of a JSON object or of litellm's response objects alike."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)
