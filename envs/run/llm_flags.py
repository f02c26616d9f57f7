"""The CLI flags of the LLM layer and the run's ``LLMContext``.

Also the judge that ``python -m graders.calibrate`` measures, built from the same
flags (``make_calibration_judge``); the writer of missing gold items is
``graders.calibrate.gold_writer``.

``envs.run`` calls ``add_llm_arguments(parser)``; the values land in the run
config under ``cfg["llm"]`` (so ``--resume`` reuses them) and
``make_llm_context(cfg, roles)`` builds the client and role endpoints.

Each role takes ``scripted[:variant]``, a litellm model string (hosted, or an
``openai/NAME`` / ``hosted_vllm/NAME`` / ``ollama/NAME`` server through
``--api-base`` or ``--ROLE-api-base``), or ``local:smollm2`` /
``local:PATH.gguf`` (llama.cpp in-process).
"""

from __future__ import annotations

import argparse
from typing import Any

from envs.llm.client import LLMClient
from envs.llm.context import LLMContext
from envs.llm.endpoints import CLIENTS

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


def add_llm_arguments(ap: argparse.ArgumentParser) -> None:
    g = ap.add_argument_group("LLM roles (litellm)")
    g.add_argument("--api-base", default=None, help="OpenAI-compatible server for every LLM role (vLLM, llama.cpp, Ollama)")
    for role in ("agent", "user", "judge"):
        g.add_argument(f"--{role}-api-base", default=None, help=f"server for the {role} only (overrides --api-base)")
        g.add_argument(f"--{role}-temperature", type=float, default=None, help=f"{role} temperature (default: provider's; judge 0)")
        g.add_argument(f"--{role}-max-tokens", type=int, default=None, help=f"{role} max tokens per reply (local: 256)")
        g.add_argument(f"--{role}-tool-mode", choices=("native", "json"), default=None, help=f"--tool-mode for the {role} only")
    g.add_argument(
        "--tool-mode",
        choices=("native", "json"),
        default=None,
        help="native tool calls, or one JSON action per reply via response_format (default: json for local:, else native)",
    )
    g.add_argument(
        "--client",
        choices=CLIENTS,
        default=None,
        help="auto (default): OpenAI-compatible servers given by an api base, and local: models, through a lean HTTP "
        "client (about 0.5 ms of CPU per call), everything else through litellm (9-15 ms); litellm: everything through "
        "litellm; direct: the lean client, refusing a role it cannot reach",
    )
    g.add_argument("--cache", default=None, metavar="DIR", help="on-disk response cache: a rerun replays answers with no request")
    g.add_argument("--request-timeout", type=float, default=None, metavar="S", help=f"seconds per request (default {DEFAULTS['request_timeout']:g})")
    g.add_argument("--request-backoff", type=float, default=None, metavar="S", help="first retry delay, doubled each time, with jitter (default 1)")
    g.add_argument("--max-retries", type=int, default=None, metavar="N", help=f"retries on 429 / timeout / connection / 5xx (default {DEFAULTS['max_retries']})")
    g.add_argument("--model-concurrency", type=int, default=None, metavar="N", help="requests in flight per model and server (default: what --concurrency needs, one per episode in flight)")


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


# --- graders.calibrate: the judge being measured ---------------------------------------------------------


def make_calibration_judge(domain: Any, args: argparse.Namespace) -> Any:
    """An ``LLMJudge`` for ``python -m graders.calibrate`` (checked before any item is judged)."""
    from envs.actors.roles import make_llm_judge
    from envs.actors.roles import RoleConfig

    role = RoleConfig(
        spec=args.judge,
        api_base=args.judge_api_base or args.api_base,
        temperature=args.judge_temperature,
        max_tokens=args.judge_max_tokens,
        tool_mode=getattr(args, "judge_tool_mode", None),
    )
    cfg = {"llm": {"cache": args.cache, "client": getattr(args, "client", None)}}
    ctx = make_llm_context(cfg, {"judge": role})
    ctx.preflight()
    return make_llm_judge(domain, role, ctx)()
