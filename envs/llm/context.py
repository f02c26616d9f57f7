"""``LLMContext``: a run's client and its role endpoints, and the fail-fast check of them all.

The CLI builds it (``make_llm_context`` below, from the run's ``llm`` settings); the LLM actors
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


# --- building one from a run's settings (the CLI's --llm flags, a run config's ``llm`` block) -------

DEFAULTS = {"request_timeout": 120.0, "max_retries": 4, "model_concurrency": 16, "request_backoff": 1.0, "client": "auto"}
# An episode awaits each model call before making the next (agent, user and judge take turns),
# so it has at most one call in flight: a run needs its concurrency in calls per model and server.
CALLS_IN_FLIGHT_PER_EPISODE = 1


def model_concurrency_for(run_concurrency: int, given: int | None) -> tuple[int, str | None]:
    """The per-model cap for a run of ``run_concurrency`` episodes in flight: ``given`` when the
    user set one, else what the run needs (the concurrency times the calls one episode can have
    in flight). Returns (cap, a one-line note when the given cap is below that need, else None)."""
    need = max(1, run_concurrency * CALLS_IN_FLIGHT_PER_EPISODE)
    if given is None:
        return need, None
    if given < need:
        return given, (
            f"--model-concurrency {given} is below the {need} calls --concurrency {run_concurrency} can have in flight: "
            f"at most {given} calls per model and server will run at once"
        )
    return given, None


def make_llm_context(cfg: dict, roles: dict[str, Any], run_concurrency: int | None = None) -> LLMContext:
    """The run's client and role endpoints. Given ``run_concurrency``, the per-model cap defaults
    to what that many episodes need (``model_concurrency_for``); without it, to 16."""
    given = {k: v for k, v in (cfg.get("llm") or {}).items() if v is not None}
    llm = {**DEFAULTS, **given}
    if run_concurrency is not None:
        llm["model_concurrency"], _ = model_concurrency_for(run_concurrency, given.get("model_concurrency"))
    from envs.errors import SpecError

    if llm["max_retries"] < 0 or llm["model_concurrency"] < 1 or llm["request_timeout"] <= 0:
        raise SpecError("--max-retries >= 0, --model-concurrency >= 1 and --request-timeout > 0, please")
    client = LLMClient(
        cache_dir=llm.get("cache"),
        request_timeout=llm["request_timeout"],
        max_retries=llm["max_retries"],
        model_concurrency=llm["model_concurrency"],
        backoff=llm["request_backoff"],
    )
    return LLMContext(roles, client, llm["client"])
