"""litellm behind one door: the only module in sitgym that imports ``litellm``.

Everything the LLM layer asks of litellm goes through here: sending a chat
completion to a hosted provider (``send``), telling its exceptions apart
(``classify``), counting tokens when a reply has no usage block, the price of
a call from its bundled price map (``cost``), and the preflight's questions
(``provider``, ``environment``, ``knows_price``, ``ping``).

litellm is imported on first use, never at import time: importing it takes
seconds and 9-15 ms of CPU per call go to its machinery, so a run whose roles
are all OpenAI-compatible servers (sent by ``openai_http``) should not pay for
it. ``tests/test_layers.py`` checks that no other module imports it.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import TYPE_CHECKING, Any, Awaitable, Callable

if TYPE_CHECKING:
    from envs.llm.endpoints import Endpoint

# Nothing is fetched at import: litellm reads the price map it ships with.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

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


# --- sending ------------------------------------------------------------------------


def send(ep: "Endpoint", body: dict[str, Any], timeout: float) -> Callable[[], Awaitable[Any]]:
    """A coroutine function making one ``litellm.acompletion`` attempt with ``body``.

    litellm's and the OpenAI SDK's own retries are off: the client counts retries itself.
    """
    litellm = litellm_module()
    kwargs: dict[str, Any] = dict(model=ep.model, timeout=timeout, num_retries=0, max_retries=0, drop_params=True, **body)
    if ep.api_base:
        kwargs["api_base"] = ep.api_base
    if ep.api_key:
        kwargs["api_key"] = ep.api_key
    elif ep.api_base and not has_env_key(ep.model):
        kwargs["api_key"] = "sk-no-key"  # local servers want some key, and check none
    return lambda: litellm.acompletion(**kwargs)


def has_env_key(model: str) -> bool:
    """Does the environment hold the provider's key for this model (litellm then uses it)?
    Asked on every call, not remembered: the environment can change within a process."""
    try:
        return bool(litellm_module().validate_environment(model).get("keys_in_environment"))
    except Exception:
        return False


# --- errors -------------------------------------------------------------------------


def classify(e: BaseException) -> tuple[str, bool] | None:
    """(kind, retryable) of one of litellm's exceptions; None when ``e`` is not one.

    Never imports litellm: if it is not loaded, ``e`` cannot be one of its exceptions.
    """
    if "litellm" not in sys.modules:
        return None
    ex = litellm_module().exceptions
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
    return None


# --- tokens and prices ----------------------------------------------------------------


def count_tokens(model: str, messages: list[dict], reply_text: str) -> tuple[int, int]:
    """(prompt, completion) tokens counted locally, with litellm's tokenizer for the model;
    (0, 0) when it cannot count them."""
    litellm = litellm_module()
    try:
        pt = litellm.token_counter(model=model, messages=messages)
        ct = litellm.token_counter(model=model, text=reply_text) if reply_text else 0
    except Exception:
        return 0, 0
    return int(pt), int(ct)


def cost(model: str, prompt_tokens: int, completion_tokens: int) -> float:
    """USD for one call from litellm's bundled price map; raises when the model has no price."""
    p, c = litellm_module().cost_per_token(model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
    return float(p) + float(c)


# --- preflight questions ----------------------------------------------------------------


def provider(model: str, api_base: str | None) -> str:
    """The litellm provider of a model string; raises when litellm has none for it."""
    _, prov, _, _ = litellm_module().get_llm_provider(model, api_base=api_base)
    return prov


def environment(model: str) -> dict:
    """litellm's view of the keys a model needs: ``keys_in_environment`` and ``missing_keys``."""
    return litellm_module().validate_environment(model)


_PRICE_NAMES: frozenset[str] | None = None


def bundled_price_names() -> frozenset[str]:
    """The model names of the price map litellm ships (its bundled JSON file), read without
    importing litellm (that import takes seconds); empty when litellm is not installed."""
    global _PRICE_NAMES
    if _PRICE_NAMES is None:
        import importlib.util
        import json
        from pathlib import Path

        names: frozenset[str] = frozenset()
        spec = importlib.util.find_spec("litellm")  # locates the package; runs none of it
        if spec is not None and spec.origin:
            path = Path(spec.origin).parent / "model_prices_and_context_window_backup.json"
            try:
                names = frozenset(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                names = frozenset()
        _PRICE_NAMES = names
    return _PRICE_NAMES


def may_have_price(model: str) -> bool:
    """Could litellm price this model? False only when neither the name nor the name without its
    provider prefix is in the bundled price map (then litellm would find no price either)."""
    names = bundled_price_names()
    if not names:
        return True  # the map could not be read: ask litellm itself
    return model in names or model.split("/", 1)[-1] in names


def knows_price(model: str) -> bool:
    """Is the model (with or without its provider prefix) in litellm's price map?"""
    cost_map = litellm_module().model_cost
    return model in cost_map or model.split("/", 1)[-1] in cost_map


async def ping(model: str, timeout: float = 30) -> None:
    """A one-token completion, no retries; raises what litellm raises."""
    await litellm_module().acompletion(
        model=model, messages=[{"role": "user", "content": "ping"}], max_tokens=1, timeout=timeout, num_retries=0, max_retries=0
    )
