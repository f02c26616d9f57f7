"""The LLM layer: one client (limits, retries, cache, accounting) over backends.

A map, one job per module (none imports litellm at import time):

* ``endpoints``: a role's model resolved into an ``Endpoint`` (``make_endpoint``, ``CLIENTS``)
* ``client``: ``LLMClient.complete`` -> ``Completion``; limits, retries, usage accounting
* ``errors``: ``classify`` a failure into a kind (retryable or not), ``retry_after``
* ``cache``: the on-disk response cache
* ``pricing``: ``price`` and ``unpriced_models``
* ``parsing``: ``strip_fences``, ``normalise_arguments``, ``extract_json``
* ``context``: ``LLMContext``, a run's client and endpoints; ``preflight``: its fail-fast checks
* ``backends``: ``litellm_backend`` (the only module that imports litellm), ``openai_http``
  (the lean OpenAI-compatible client), ``llamacpp`` (``local:`` models in-process)
"""
