"""The CLI flags of the LLM layer; the run's ``LLMContext`` is built from them by
``envs.llm.context.make_llm_context`` (re-exported here for the CLI's callers). The judge
``python -m graders.calibrate`` measures is ``graders.calibrate.judge``.

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

from envs.llm.context import DEFAULTS, make_llm_context, model_concurrency_for  # noqa: F401  (the CLI's names)
from envs.llm.endpoints import CLIENTS


def add_llm_arguments(ap: argparse.ArgumentParser, roles: tuple[str, ...] = ("agent", "user", "judge")) -> None:
    """The LLM flags, per role for ``roles`` only (a command that calls no agent or user model,
    such as ``envs.regrade``, offers none of their flags)."""
    g = ap.add_argument_group("LLM roles (litellm)")
    g.add_argument("--api-base", default=None, help="OpenAI-compatible server for every LLM role (vLLM, llama.cpp, Ollama)")
    for role in roles:
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
