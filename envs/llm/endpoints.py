"""A role's model, resolved: which model string, which server, which key, and how it is sent.

``make_endpoint(role, role_config, client)`` turns what the user wrote
(``gpt-4.1``, ``openai/NAME`` with an api base, ``local:smollm2``) into an
``Endpoint``. ``Endpoint.direct`` says how its requests travel: through the
lean OpenAI-compatible client (``backends.openai_http``) or through litellm
(``backends.litellm_backend``); ``CLIENTS`` are the ``--client`` choices.
``wire_model`` and ``server_key`` say what an OpenAI-compatible server is
sent as the model name and the bearer token.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from envs.errors import SpecError

# litellm provider prefixes whose servers speak the OpenAI chat-completions protocol.
OPENAI_COMPATIBLE = ("openai/", "hosted_vllm/")

CLIENTS = ("auto", "litellm", "direct")

# The variable litellm reads a key from for each provider, when no key is given.
_KEY_VARS = {"openai/": "OPENAI_API_KEY", "hosted_vllm/": "HOSTED_VLLM_API_KEY"}


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
    direct: bool = False  # sent by backends.openai_http instead of litellm

    @property
    def label(self) -> str:
        return f"--{self.role} {self.spec}"


def make_endpoint(role: str, rc: Any, client: str = "auto") -> Endpoint:
    """An endpoint from a ``RoleConfig`` (spec, api_base, temperature, max_tokens, tool_mode).

    ``client``: ``auto`` sends OpenAI-compatible servers the user points at (and
    ``local:`` models) through the lean HTTP client and the rest through litellm;
    ``litellm`` sends everything through litellm; ``direct`` insists on the lean
    client and refuses an endpoint it cannot reach. Raises SpecError on a bad flag.
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


def server_key(model: str, api_key: str | None) -> str:
    """The bearer token for a server: the given key, else the provider's variable as litellm
    reads it, else a placeholder (local servers want some key and check none)."""
    if api_key:
        return api_key
    for p, var in _KEY_VARS.items():
        if model.startswith(p) and os.environ.get(var):
            return os.environ[var]
    return "sk-no-key"


def wire_model(model: str) -> str:
    """The model name the server knows: the litellm provider prefix removed."""
    for p in OPENAI_COMPATIBLE:
        if model.startswith(p):
            return model[len(p) :]
    return model
