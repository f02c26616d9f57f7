"""The fail-fast checks of one endpoint, before any episode starts.

``check_endpoint`` raises ``SpecError`` with one line naming the role and the
model when (an endpoint the lean client sends to an OpenAI-compatible server is checked at
the server only, without importing litellm): a ``local:`` model does not start; litellm knows no provider for
the model string; a server given by an api base is unreachable, refuses the
key or does not serve the model; a hosted model's key is missing; or a hosted
model litellm has no price for does not answer a one-token ping.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

from envs.errors import SpecError
from envs.llm.backends import litellm_backend
from envs.llm.client import LLMClient
from envs.llm.endpoints import Endpoint, server_key
from envs.llm.errors import classify, short


def check_endpoint(client: LLMClient, ep: Endpoint, timeout: float = 10.0) -> None:
    """Raise SpecError unless the endpoint looks usable (see the module docstring)."""
    if ep.local is not None:
        try:
            client.ready(ep)
        except SpecError:
            raise
        except Exception as e:
            raise SpecError(f"{ep.label}: the local model did not start: {short(e)}") from None
    if ep.direct and ep.api_base:
        # Sent by the lean client to an OpenAI-compatible server: litellm plays no part in the run,
        # so its provider table is not asked (importing litellm takes seconds).
        _check_server(ep, timeout)
        return
    try:
        litellm_backend.provider(ep.model, ep.api_base)
    except Exception:
        raise SpecError(
            f"{ep.label}: unknown model (litellm has no provider for it; write provider/model, e.g. openai/{ep.model})"
        ) from None
    if ep.api_base:
        _check_server(ep, timeout)
        return
    env = litellm_backend.environment(ep.model)
    if not env.get("keys_in_environment") and not ep.api_key:
        missing = ", ".join(env.get("missing_keys") or []) or "the provider's API key"
        raise SpecError(f"{ep.label}: missing key: set {missing} (or point --{ep.role}-api-base at a server)")
    if not litellm_backend.knows_price(ep.model):
        _ping(ep)


def _check_server(ep: Endpoint, timeout: float) -> None:
    """GET {api_base}/models: the server answers, and serves the model when it lists what it serves."""
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


def _ping(ep: Endpoint) -> None:
    """A one-token call for a hosted model litellm does not know (is the name right?)."""
    try:
        asyncio.run(litellm_backend.ping(ep.model))
    except Exception as e:
        kind, _ = classify(e)
        what = {"not_found": "unknown model", "auth": "the key was refused", "connection": "unreachable"}.get(kind, kind)
        raise SpecError(f"{ep.label}: {what}: {short(e, 120)}") from None
