"""What a call cost: USD from litellm's bundled price map, or None for a model it has no price for.

Prices are read through ``backends.litellm_backend`` only. A model found to have
no price is remembered in this process (litellm's search for a price it lacks
costs about a millisecond per call), and a run's worker processes are told the
parent's findings through ``SITGYM_UNPRICED`` (comma-separated), so that, on
OpenAI-compatible servers, they never import litellm at all: that import alone
takes 5 s or more of each worker's start. A model whose name is not in the price map litellm
ships (read as a file, ``litellm_backend.may_have_price``) is unpriced without importing litellm;
a name that is in it (a self-hosted proxy of a hosted model) is priced by litellm as before.
"""

from __future__ import annotations

import os
import sys

from envs.llm.backends import litellm_backend

_UNPRICED: set[str] = set(filter(None, os.environ.get("SITGYM_UNPRICED", "").split(",")))


def unpriced_models() -> list[str]:
    """The models this process knows to have no price (for ``SITGYM_UNPRICED``)."""
    return sorted(_UNPRICED)


def price(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD for this call, or None when litellm has no price for the model."""
    if model in _UNPRICED:
        return None
    if "litellm" not in sys.modules and not litellm_backend.may_have_price(model):
        # A name litellm's bundled map does not hold (a model on a self-hosted server, say) has no
        # price there: known without importing litellm, which takes seconds to start.
        _UNPRICED.add(model)
        return None
    try:
        return litellm_backend.cost(model, prompt_tokens, completion_tokens)
    except Exception:
        _UNPRICED.add(model)
        return None
