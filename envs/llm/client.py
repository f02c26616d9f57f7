"""The LLM layer: the one module that talks to litellm.

``LLMClient.complete`` sends one chat completion and returns a normalised
``Completion``. It goes through ``litellm.acompletion``, except for servers that
speak the OpenAI protocol and that the user points at (``openai/NAME`` or
``hosted_vllm/NAME`` with an api base, and ``local:`` models): those are sent
by ``envs.llm.backends.openai_http``, a lean client that spends about 0.5 ms of CPU per
call where litellm spends 9-15 ms (``--client litellm`` sends everything
through litellm). Around the call, the same for both:

* a concurrency limit per model and api base (an ``asyncio.Semaphore`` per
  event loop, so a client outlives ``asyncio.run``);
* a request timeout, and retries with exponential backoff and jitter (tenacity)
  on rate limits (honouring ``retry-after``), timeouts, connection errors and
  5xx; litellm's and the OpenAI SDK's own retries are turned off so the count
  is ours. Exhausted retries, or a non-retryable failure (bad key, unknown
  model), raise ``envs.episode.loop.InfraError`` naming the role and the kind;
* an optional on-disk response cache keyed on everything that changes the
  answer (model, api base, messages, tools, params, role, episode seed,
  repeat, attempt): a rerun with the cache makes no request and replays the
  same answers;
* token and cost accounting into the actor's ``envs.records.Usage``. A model
  without a known price records ``cost=None`` for its own role only; a reply
  without a usage block has its tokens counted locally.

``LLMContext`` is what the CLI builds (``envs.run.llm_flags.make_llm_context``): the
client plus the role endpoints, with ``preflight()`` failing fast, one line
naming the role and the model, on a missing key, an unknown model or an
unreachable server, before any episode starts.

Tool calling: ``native`` uses the provider's ``tools``/``tool_calls``;
``json`` asks for a JSON action through ``response_format`` (small local
servers have no native tool calls). ``local:`` models default to ``json``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_exponential_jitter  # noqa: E402

from envs.llm.backends.openai_http import OPENAI_COMPATIBLE, HTTPStatusError, OpenAIHTTP, server_key, wire_model  # noqa: E402
from envs.records import ToolCall, Usage  # noqa: E402
from envs.errors import SpecError  # noqa: E402

_LITELLM = None


def litellm_module():
    """litellm, imported once, quietly (no cost map fetch, no banners, no telemetry)."""
    global _LITELLM
    if _LITELLM is None:
        import litellm

        litellm.suppress_debug_info = True
        litellm.telemetry = False
        litellm.drop_params = True
        litellm.turn_off_message_logging = True
        warnings.filterwarnings("ignore", message="Pydantic serializer warnings")
        warnings.filterwarnings("ignore", category=UserWarning, module="pydantic")
        _LITELLM = litellm
    return _LITELLM


# --- endpoints ---------------------------------------------------------------------


@dataclass
class Endpoint:
    """One role's model, resolved: the litellm model string, its server and its params."""

    role: str
    spec: str  # as the user wrote it (local:smollm2, gpt-4.1, openai/x)
    model: str  # the litellm model string
    api_base: str | None = None
    api_key: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    tool_mode: str = "native"  # native | json
    local: str | None = None  # the local: target, started lazily
    direct: bool = False  # sent by envs.llm.backends.openai_http instead of litellm

    @property
    def label(self) -> str:
        return f"--{self.role} {self.spec}"


CLIENTS = ("auto", "litellm", "direct")


def make_endpoint(role: str, rc: Any, client: str = "auto") -> Endpoint:
    """An endpoint from a ``RoleConfig`` (spec, api_base, temperature, max_tokens, tool_mode).

    ``client``: ``auto`` sends OpenAI-compatible servers the user points at (and
    ``local:`` models) through the lean HTTP client and the rest through litellm;
    ``litellm`` sends everything through litellm; ``direct`` insists on the lean
    client and refuses an endpoint it cannot reach.
    """
    spec = rc.spec
    local = spec[len("local:") :] if spec.startswith("local:") else None
    if local is not None and not local:
        raise SpecError(f"--{role} {spec}: give local:smollm2 or local:PATH.gguf")
    tool_mode = rc.tool_mode or ("json" if local is not None else "native")
    if tool_mode not in ("native", "json"):
        raise SpecError(f"--{role}-tool-mode: {tool_mode!r} is not native or json")
    temperature = rc.temperature
    if temperature is None and role == "judge":
        temperature = 0.0
    max_tokens = rc.max_tokens
    if max_tokens is None and local is not None:
        max_tokens = 256
    api_key = None
    if rc.api_base and local is None:
        api_key = os.environ.get("SITGYM_API_KEY") or None
    if client not in CLIENTS:
        raise SpecError(f"--client: {client!r} is not one of {', '.join(CLIENTS)}")
    compatible = local is not None or (bool(rc.api_base) and spec.startswith(OPENAI_COMPATIBLE))
    if client == "direct" and not compatible:
        raise SpecError(
            f"--{role} {spec}: --client direct needs an OpenAI-compatible server "
            f"({' or '.join(p + 'NAME' for p in OPENAI_COMPATIBLE)} with --{role}-api-base, or local:)"
        )
    return Endpoint(
        role=role,
        spec=spec,
        model=spec if local is None else "",
        api_base=rc.api_base if local is None else None,
        api_key=api_key,
        temperature=temperature,
        max_tokens=max_tokens,
        tool_mode=tool_mode,
        local=local,
        direct=compatible and client != "litellm",
    )


# --- completions ---------------------------------------------------------------------


@dataclass
class Completion:
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
    """Internal: a failure worth another attempt (wraps the original)."""


def classify(e: BaseException) -> tuple[str, bool]:
    """(kind, retryable) of a failed call (litellm's exceptions, or the lean client's)."""
    if isinstance(e, HTTPStatusError):
        return _classify_status(e.status_code, e.message)
    if isinstance(e, asyncio.TimeoutError):
        return "timeout", True
    import aiohttp

    if isinstance(e, aiohttp.ClientError):  # refused, reset, dropped mid-reply, bad payload
        return "connection", True
    litellm = litellm_module()
    ex = litellm.exceptions
    if isinstance(e, ex.Timeout):
        return "timeout", True
    if isinstance(e, ex.RateLimitError):
        return "rate_limit", True
    if isinstance(e, (ex.AuthenticationError, ex.PermissionDeniedError)):
        return "auth", False
    if isinstance(e, ex.NotFoundError):
        return "not_found", False
    if isinstance(e, ex.ContextWindowExceededError):
        return "context_window", False
    if isinstance(e, ex.APIConnectionError):
        return "connection", True
    status = getattr(e, "status_code", None)
    if isinstance(e, (ex.InternalServerError, ex.ServiceUnavailableError, ex.BadGatewayError)) or (
        isinstance(status, int) and status >= 500
    ):
        return ("connection" if "connection error" in str(e).lower() else "server_error"), True
    if isinstance(e, ex.BadRequestError):
        return "bad_request", False
    if isinstance(e, ex.APIError):
        return "api_error", False
    return "crash", False


def _classify_status(status: int, message: str) -> tuple[str, bool]:
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


def _short(e: BaseException, n: int = 160) -> str:
    msg = str(e).replace("\n", " ")
    msg = re.sub(r"^litellm\.\w+:\s*", "", msg)
    return (msg[: n - 3] + "...") if len(msg) > n else msg


class LLMClient:
    """litellm with limits, retries, a cache and accounting (see the module docstring)."""

    def __init__(
        self,
        cache_dir: str | Path | None = None,
        request_timeout: float = 120.0,
        max_retries: int = 4,
        model_concurrency: int = 16,
        backoff: float = 1.0,
        backoff_max: float = 30.0,
    ):
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self.request_timeout = float(request_timeout)
        self.max_retries = int(max_retries)
        self.model_concurrency = int(model_concurrency)
        self.backoff = float(backoff)
        self.backoff_max = float(backoff_max)
        self._sems: dict[tuple[int, str, str | None], tuple[asyncio.AbstractEventLoop, asyncio.Semaphore]] = {}
        self._http = OpenAIHTTP()
        self.http_calls = 0  # requests actually sent (for tests and benchmarks)

    # -- endpoints ------------------------------------------------------------------

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

    # -- cache --------------------------------------------------------------------------

    def cache_key(self, ep: Endpoint, messages: list[dict], tools: list[dict] | None, params: dict, seed: int | None, repeat: int | None, attempt: int) -> str:
        blob = json.dumps(
            {
                "v": 1,
                "model": ep.model if ep.local is None else f"local:{ep.local}",
                "api_base": ep.api_base if ep.local is None else None,
                "messages": messages,
                "tools": tools,
                "params": params,
                "role": ep.role,
                "seed": seed,
                "repeat": repeat,
                "attempt": attempt,
            },
            sort_keys=True,
            default=str,
        )
        return hashlib.sha256(blob.encode()).hexdigest()

    def _cache_path(self, key: str) -> Path:
        assert self.cache_dir is not None
        return self.cache_dir / key[:2] / f"{key}.json"

    def _cache_get(self, key: str) -> Completion | None:
        if self.cache_dir is None:
            return None
        p = self._cache_path(key)
        try:
            return Completion.from_cache(json.loads(p.read_text(encoding="utf-8")))
        except (FileNotFoundError, json.JSONDecodeError, TypeError, ValueError):
            return None

    def _cache_put(self, key: str, c: Completion) -> None:
        if self.cache_dir is None:
            return
        p = self._cache_path(key)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_suffix(f".{os.getpid()}.{id(c)}.tmp")
        tmp.write_text(json.dumps(c.to_cache()), encoding="utf-8")
        os.replace(tmp, p)  # atomic: a killed run never leaves a torn entry

    # -- the call -------------------------------------------------------------------------

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
        from envs.errors import InfraError

        self.ready(ep)
        params: dict[str, Any] = {}
        if ep.temperature is not None:
            params["temperature"] = ep.temperature
        mt = max_tokens or ep.max_tokens
        if mt is not None:
            params["max_tokens"] = mt
        if response_format is not None:
            params["response_format"] = response_format
        key = self.cache_key(ep, messages, tools, params, seed, repeat, attempt) if self.cache_dir else ""
        hit = self._cache_get(key)
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

        async def attempt() -> Any:
            nonlocal attempts
            attempts += 1
            async with self._sem(ep):
                self.http_calls += 1
                try:
                    if ep.direct:  # aiohttp enforces the timeout itself
                        return await send()
                    return await asyncio.wait_for(send(), self.request_timeout + 10)
                except Exception as e:  # classified below; never swallowed
                    kind, retryable = classify(e)
                    if retryable:
                        raise _Retryable(kind) from e
                    raise

        resp = None
        try:
            try:
                # The first attempt runs bare: tenacity's loop costs about 0.1 ms per call,
                # a fifth of the whole request, and is only needed once something failed.
                resp = await attempt()
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
                        resp = await attempt()
        except _Retryable as r:
            e = r.__cause__
            raise InfraError(
                f"{ep.role} model {ep.spec}: {r} after {attempts} attempts: {_short(e)}", role=ep.role, kind=str(r)
            ) from e
        except InfraError:
            raise
        except Exception as e:
            kind, _ = classify(e)
            raise InfraError(f"{ep.role} model {ep.spec}: {kind}: {_short(e)}", role=ep.role, kind=kind) from e

        comp = self._normalise(ep, resp, messages)
        self._cache_put(key, comp)
        add_usage(usage, comp)
        return comp

    def _wait(self, rs: Any) -> float:
        """Seconds before the next attempt: exponential backoff with jitter, or longer if the server said so."""
        exc = rs.outcome.exception() if rs.outcome else None
        base = wait_exponential_jitter(multiplier=self.backoff, max=self.backoff_max, jitter=self.backoff)(rs)
        ra = retry_after(exc.__cause__) if exc is not None and exc.__cause__ is not None else None
        return min(self.backoff_max, max(base, ra)) if ra is not None else base

    def _sender(self, ep: Endpoint, body: dict[str, Any]):
        """A coroutine function making one attempt: the lean client's POST, or litellm.acompletion."""
        if ep.direct:
            wire = {"model": wire_model(ep.model), **body}
            key = server_key(ep.model, ep.api_key)
            return lambda: self._http.chat(ep.api_base, key, wire, self.request_timeout)
        litellm = litellm_module()
        kwargs: dict[str, Any] = dict(
            model=ep.model, timeout=self.request_timeout, num_retries=0, max_retries=0, drop_params=True, **body
        )
        if ep.api_base:
            kwargs["api_base"] = ep.api_base
        if ep.api_key:
            kwargs["api_key"] = ep.api_key
        elif ep.api_base and not _has_env_key(ep.model):
            kwargs["api_key"] = "sk-no-key"  # local servers want some key, and check none
        return lambda: litellm.acompletion(**kwargs)

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
            litellm = litellm_module()
            try:
                pt = litellm.token_counter(model=ep.model, messages=messages)
                text = (content or "") + "".join(json.dumps(c.arguments) + c.name for c in calls)
                ct = litellm.token_counter(model=ep.model, text=text) if text else 0
            except Exception:
                pt = ct = 0
        return Completion(
            content=content,
            tool_calls=calls,
            prompt_tokens=pt,
            completion_tokens=ct,
            cost=price(ep.model, pt, ct) if ep.local is None else 0.0,
            usage_estimated=estimated,
        )


def _get(obj: Any, key: str) -> Any:
    """A field of a JSON object or of litellm's response objects alike."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


# Models litellm has no price for. A run's worker processes are told the parent's findings
# (SITGYM_UNPRICED, comma-separated) so that, on OpenAI-compatible servers, they never
# import litellm at all: that import alone takes 5 s or more of each worker's start.
_UNPRICED: set[str] = set(filter(None, os.environ.get("SITGYM_UNPRICED", "").split(",")))


def unpriced_models() -> list[str]:
    return sorted(_UNPRICED)


def price(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD for this call, or None when litellm has no price for the model."""
    if model in _UNPRICED:  # litellm's search for a price it lacks costs about a millisecond
        return None
    litellm = litellm_module()
    try:
        p, c = litellm.cost_per_token(model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
    except Exception:
        _UNPRICED.add(model)
        return None
    return float(p) + float(c)


def _has_env_key(model: str) -> bool:
    """Does the environment hold the provider's key for this model (litellm then uses it)?
    Asked on every call, not remembered: the environment can change within a process."""
    try:
        return bool(litellm_module().validate_environment(model).get("keys_in_environment"))
    except Exception:
        return False


# --- parsing helpers (shared by the actors) ------------------------------------------------

_FENCE = re.compile(r"^\s*```[\w-]*\s*\n?(.*?)\n?\s*```\s*$", re.S)


def strip_fences(text: str) -> str:
    m = _FENCE.match(text or "")
    return m.group(1) if m else (text or "")


def normalise_arguments(args: Any) -> dict | str:
    """Tool-call arguments as a dict when they are a JSON object (fenced or not), else the raw string."""
    if isinstance(args, dict):
        return args
    if args is None or (isinstance(args, str) and not args.strip()):
        return {}
    if isinstance(args, str):
        try:
            v = json.loads(strip_fences(args))
        except json.JSONDecodeError:
            return args
        return v if isinstance(v, dict) else args
    return str(args)


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


# --- the run's context --------------------------------------------------------------------


class LLMContext:
    """The client and the role endpoints of a run; ``preflight()`` checks them all."""

    def __init__(self, roles: dict[str, Any], client: LLMClient, client_mode: str = "auto"):
        self.client = client
        self.endpoints: dict[str, Endpoint] = {}
        for role, rc in roles.items():
            if rc is None or rc.is_scripted or rc.spec in ("human", "none", ""):
                continue
            self.endpoints[role] = make_endpoint(role, rc, client_mode)

    def endpoint(self, role: str) -> Endpoint:
        return self.endpoints[role]

    def start_local(self) -> None:
        """Start the ``local:`` models' servers now rather than at the first call."""
        for ep in self.endpoints.values():
            self.client.ready(ep)

    def preflight(self) -> None:
        """Fail fast, one line naming the role and the model, before any episode starts."""
        for ep in self.endpoints.values():
            check_endpoint(self.client, ep)
            if ep.local is None:
                price(ep.model, 1, 1)  # learn now whether the model has a price (see _UNPRICED)


def check_endpoint(client: LLMClient, ep: Endpoint, timeout: float = 10.0) -> None:
    litellm = litellm_module()
    if ep.local is not None:
        try:
            client.ready(ep)
        except SpecError:
            raise
        except Exception as e:
            raise SpecError(f"{ep.label}: the local model did not start: {_short(e)}") from None
    try:
        _, provider, _, _ = litellm.get_llm_provider(ep.model, api_base=ep.api_base)
    except Exception:
        raise SpecError(
            f"{ep.label}: unknown model (litellm has no provider for it; write provider/model, e.g. openai/{ep.model})"
        ) from None
    if ep.api_base:
        _check_server(ep, provider, timeout)
        return
    env = litellm.validate_environment(ep.model)
    if not env.get("keys_in_environment") and not ep.api_key:
        missing = ", ".join(env.get("missing_keys") or []) or "the provider's API key"
        raise SpecError(f"{ep.label}: missing key: set {missing} (or point --{ep.role}-api-base at a server)")
    if ep.model not in litellm.model_cost and ep.model.split("/", 1)[-1] not in litellm.model_cost:
        _ping(client, ep)


def _check_server(ep: Endpoint, provider: str, timeout: float) -> None:
    """GET {api_base}/models: the server answers, and serves the model when it lists what it serves."""
    import urllib.error
    import urllib.request

    url = ep.api_base.rstrip("/") + "/models"
    headers = {"Authorization": f"Bearer {server_key(ep.model, ep.api_key)}"}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout) as r:
            body = json.loads(r.read().decode("utf-8", "replace") or "{}")
    except urllib.error.HTTPError as e:
        if e.code in (401, 403):
            raise SpecError(f"{ep.label}: the server at {ep.api_base} refused the key (HTTP {e.code})") from None
        return  # answers, but lists no models: reachable is all we can check
    except (urllib.error.URLError, OSError, TimeoutError) as e:
        reason = getattr(e, "reason", e)
        raise SpecError(f"{ep.label}: server unreachable at {ep.api_base} ({reason})") from None
    except json.JSONDecodeError:
        return
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list) or not data:
        return
    served = {str(d.get("id")) for d in data if isinstance(d, dict)}
    name = ep.model.split("/", 1)[1] if "/" in ep.model else ep.model
    if name not in served and ep.model not in served:
        listed = ", ".join(sorted(served)[:8])
        raise SpecError(f"{ep.label}: unknown model: the server at {ep.api_base} serves {listed}")


def _ping(client: LLMClient, ep: Endpoint) -> None:
    """A one-token call for a hosted model litellm does not know (is the name right?)."""
    litellm = litellm_module()
    try:
        asyncio.run(
            litellm.acompletion(
                model=ep.model, messages=[{"role": "user", "content": "ping"}], max_tokens=1, timeout=30, num_retries=0, max_retries=0
            )
        )
    except Exception as e:
        kind, _ = classify(e)
        what = {"not_found": "unknown model", "auth": "the key was refused", "connection": "unreachable"}.get(kind, kind)
        raise SpecError(f"{ep.label}: {what}: {_short(e, 120)}") from None

