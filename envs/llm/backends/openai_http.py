"""A lean client for OpenAI-compatible servers: one POST to ``{api_base}/chat/completions``.

Why it exists: litellm spends 9-15 ms of CPU on every call (cost lookup,
logging payloads, redaction, the OpenAI SDK's models), which caps one process
near 100 calls per second and left a run at concurrency 64 with 300 ms
replies at a third of its ideal throughput. This client spends about 0.5 ms.
``envs.llm.client`` uses it for the endpoints marked ``direct``
(``envs.llm.endpoints``): servers that speak the OpenAI protocol and that the
user points at (``openai/NAME`` or ``hosted_vllm/NAME`` with an api base, and
``local:`` models); hosted providers keep going through litellm, and
``--client litellm`` sends everything there.

It does one thing: send the request body as given and return the JSON reply.
Retries, limits and accounting stay in ``envs.llm.client``; the model name and
key it is given come from ``envs.llm.endpoints``. A failure is raised as
``HTTPStatusError`` (any status >= 400, or a reply that is not JSON),
``asyncio.TimeoutError`` or an ``aiohttp.ClientError``; ``envs.llm.errors``
classifies them like litellm's exceptions.

One ``aiohttp.ClientSession`` per event loop, kept alive across calls (a
connection pool), closed when the loop shuts down its async generators, which
``asyncio.run`` always does.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import yarl


class HTTPStatusError(Exception):
    """A server answered with an error status, or with a body that is not JSON."""

    def __init__(self, status_code: int, message: str, headers: Any = None):
        super().__init__(f"HTTP {status_code}: {message}")
        self.status_code = status_code
        self.message = message
        self.headers = headers  # retry-after is read from here


def _error_message(raw: bytes) -> str:
    try:
        body = json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace").strip()[:300] or "no body"
    err = body.get("error") if isinstance(body, dict) else None
    if isinstance(err, dict) and err.get("message"):
        return str(err["message"])
    if isinstance(err, str):
        return err
    return json.dumps(body)[:300]


class _LoopSessions:
    """The session of one event loop, and the generator that closes it at loop shutdown."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        # No connection cap here: envs.llm.client's per-model semaphores bound what is in flight.
        self.session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        self.closer = self._close_at_shutdown()

    async def _close_at_shutdown(self):
        try:
            yield
        finally:
            await self.session.close()


class OpenAIHTTP:
    """POST chat completions to OpenAI-compatible servers, one pooled session per event loop."""

    def __init__(self) -> None:
        self._loops: dict[int, _LoopSessions] = {}
        self._urls: dict[str, yarl.URL] = {}  # parsed once per server, not per call
        self._timeouts: dict[float, aiohttp.ClientTimeout] = {}

    async def _session(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        ls = self._loops.get(id(loop))
        if ls is None or ls.loop is not loop:
            # Forget the sessions of loops that are gone (a loop closed without shutting down
            # its generators, as a bare loop.close() does, leaves its entry behind).
            for k in [k for k, v in self._loops.items() if v.loop.is_closed()]:
                del self._loops[k]
            ls = self._loops[id(loop)] = _LoopSessions(loop)
            # Started once, it is an async generator the loop tracks: asyncio.run's
            # shutdown_asyncgens() closes it, which closes the session on that loop.
            await ls.closer.__anext__()
        return ls.session

    async def chat(self, api_base: str, api_key: str, body: dict, timeout: float) -> dict:
        """The JSON reply of ``POST {api_base}/chat/completions`` with ``body``."""
        session = await self._session()
        url = self._urls.get(api_base)
        if url is None:
            url = self._urls[api_base] = yarl.URL(api_base.rstrip("/") + "/chat/completions")
        t = self._timeouts.get(timeout)
        if t is None:
            t = self._timeouts[timeout] = aiohttp.ClientTimeout(total=timeout)
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {api_key}"}
        async with session.post(url, data=json.dumps(body), headers=headers, timeout=t) as r:
            raw = await r.read()
            if r.status >= 400:
                raise HTTPStatusError(r.status, _error_message(raw), r.headers)
            status, resp_headers = r.status, r.headers
        try:
            reply = json.loads(raw)
        except ValueError:
            raise HTTPStatusError(status, f"the reply is not JSON: {raw[:120]!r}", resp_headers) from None
        if not isinstance(reply, dict):
            raise HTTPStatusError(status, "the reply is not a JSON object", resp_headers)
        return reply
