"""The CLI flags of the LLM layer and the run's ``LLMContext``.

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

from envs.llm import LLMClient, LLMContext

DEFAULTS = {"request_timeout": 120.0, "max_retries": 4, "model_concurrency": 16, "request_backoff": 1.0}


def add_llm_arguments(ap: argparse.ArgumentParser) -> None:
    g = ap.add_argument_group("LLM roles (litellm)")
    g.add_argument("--api-base", default=None, help="OpenAI-compatible server for every LLM role (vLLM, llama.cpp, Ollama)")
    for role in ("agent", "user", "judge"):
        g.add_argument(f"--{role}-api-base", default=None, help=f"server for the {role} only (overrides --api-base)")
        g.add_argument(f"--{role}-temperature", type=float, default=None, help=f"{role} temperature (default: provider's; judge 0)")
        g.add_argument(f"--{role}-max-tokens", type=int, default=None, help=f"{role} max tokens per reply (local: 256)")
    g.add_argument(
        "--tool-mode",
        choices=("native", "json"),
        default=None,
        help="native tool calls, or one JSON action per reply via response_format (default: json for local:, else native)",
    )
    g.add_argument("--cache", default=None, metavar="DIR", help="on-disk response cache: a rerun replays answers with no request")
    g.add_argument("--request-timeout", type=float, default=None, metavar="S", help=f"seconds per request (default {DEFAULTS['request_timeout']:g})")
    g.add_argument("--request-backoff", type=float, default=None, metavar="S", help="first retry delay, doubled each time, with jitter (default 1)")
    g.add_argument("--max-retries", type=int, default=None, metavar="N", help=f"retries on 429 / timeout / connection / 5xx (default {DEFAULTS['max_retries']})")
    g.add_argument("--model-concurrency", type=int, default=None, metavar="N", help=f"requests in flight per model and server (default {DEFAULTS['model_concurrency']})")


def make_llm_context(cfg: dict, roles: dict[str, Any]) -> LLMContext:
    llm = {**DEFAULTS, **{k: v for k, v in (cfg.get("llm") or {}).items() if v is not None}}
    from envs.specs import SpecError

    if llm["max_retries"] < 0 or llm["model_concurrency"] < 1 or llm["request_timeout"] <= 0:
        raise SpecError("--max-retries >= 0, --model-concurrency >= 1 and --request-timeout > 0, please")
    client = LLMClient(
        cache_dir=llm.get("cache"),
        request_timeout=llm["request_timeout"],
        max_retries=llm["max_retries"],
        model_concurrency=llm["model_concurrency"],
        backoff=llm["request_backoff"],
    )
    return LLMContext(roles, client)
