"""``LLMContext``: a run's client and its role endpoints, and the fail-fast check of them all.

The CLI builds it (``envs.run.llm_flags.make_llm_context``); the LLM actors
take their endpoint and the shared client from it.
"""

from __future__ import annotations

from typing import Any

from envs.llm.client import LLMClient
from envs.llm.endpoints import Endpoint, make_endpoint
from envs.llm.preflight import check_endpoint
from envs.llm.pricing import price


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
        """Fail fast, one line naming the role and the model (SpecError), before any episode starts."""
        for ep in self.endpoints.values():
            check_endpoint(self.client, ep)
            if ep.local is None:
                price(ep.model, 1, 1)  # learn now whether the model has a price (see envs.llm.pricing)
