"""A local OpenAI-compatible HTTP server for the LLM layer's tests (no network, no mocks).

It runs an aiohttp app on 127.0.0.1 (random port) in a background thread with
its own event loop, so the client (lean or litellm) reaches it over real HTTP like any ``openai/``
server (``api_base=server.url``, model ``openai/fake-agent``, key ``sk-fake``).

Every request is recorded (``server.requests``). Replies come from a queue per
model (``server.queue("fake-agent", Reply.status(429, retry_after="1"), ...)``)
and, once the queue is empty, from a small default behaviour per role that
plays the toy domain: the agent deposits what the user asks for then says
"Done: deposit made."; the user asks for the deposit and stops when told it is
done; the judge answers FOLLOWED for every ``[RULE id]`` in its prompt. With
``response_format`` in the request, the agent and the user answer in the
JSON action mode instead of native tool calls.

Faults: HTTP status with retry-after, a hang past the client's timeout, a
dropped connection, malformed tool-call arguments, an empty reply, JSON in
code fences, a missing usage block; ``latency`` adds a delay to every reply.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any, Callable

from aiohttp import web

STOP = "###STOP###"


@dataclass
class Reply:
    """One scripted answer (or fault) of the fake server."""

    content: str | None = None
    tool_calls: list[dict] | None = None  # [{"name", "arguments" (str or dict), "id"?}]
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None  # raw JSON body for error statuses
    hang: float = 0.0  # seconds to wait before answering (past the timeout = a hang)
    drop: bool = False  # close the connection without an answer
    usage: bool = True  # include a usage block
    args_as_dict: bool = False  # tool-call arguments as a JSON object instead of a string
    omit_ids: bool = False
    raw: str | None = None  # a body sent as is (text/html), e.g. a proxy's error page with status 200

    @classmethod
    def text(cls, content: str | None, **kw: Any) -> "Reply":
        return cls(content=content, **kw)

    @classmethod
    def call(cls, name: str, arguments: Any, **kw: Any) -> "Reply":
        return cls(tool_calls=[{"name": name, "arguments": arguments}], **kw)

    @classmethod
    def error(cls, status: int, retry_after: str | None = None, message: str = "fault") -> "Reply":
        headers = {"retry-after": retry_after} if retry_after is not None else {}
        return cls(status=status, headers=headers, body={"error": {"message": message, "type": "fault", "code": status}})


def _text_of(msg: dict) -> str:
    c = msg.get("content")
    if isinstance(c, list):
        return " ".join(p.get("text", "") for p in c if isinstance(p, dict))
    return c or ""


def default_agent(body: dict) -> Reply:
    """Deposit what the last user message asks for; after a successful deposit, say done."""
    msgs = body.get("messages", [])
    json_mode = "response_format" in body
    last = msgs[-1] if msgs else {}
    last_text = _text_of(last)
    if last.get("role") == "tool" or last_text.startswith("[tool result"):
        if "Error" in last_text:
            return _say("Sorry, that did not work.", json_mode)
        return _say("Done: deposit made.", json_mode)
    users = [_text_of(m) for m in msgs if m.get("role") == "user" and not _text_of(m).startswith("[tool result")]
    text = users[-1] if users else ""
    acc = re.search(r"\bA\d{3}\b", text)
    amount = re.search(r"\b(\d+)\b", re.sub(r"\bA\d{3}\b", "", text))
    if not acc or not amount:
        return _say("Which account, and how much?", json_mode)
    args = {"account_id": acc.group(0), "amount": int(amount.group(1))}
    if json_mode:
        return Reply.text(json.dumps({"tool": "deposit", "arguments": args}))
    return Reply.call("deposit", json.dumps(args))


def default_user(body: dict) -> Reply:
    """Ask for the deposit; stop once the agent says it is done."""
    msgs = body.get("messages", [])
    json_mode = "response_format" in body
    agent_said = [_text_of(m) for m in msgs if m.get("role") == "user"]
    last = agent_said[-1] if agent_said else ""
    if "done" in last.lower():
        return _say(f"Thanks, that's all. {STOP}", json_mode)
    return _say("Please deposit 500 into A001.", json_mode)


def default_judge(body: dict) -> Reply:
    prompt = "\n".join(_text_of(m) for m in body.get("messages", []))
    rules = list(dict.fromkeys(re.findall(r"\[RULE ([^\]]+)\]", prompt)))
    verdicts = [{"rule": r, "rationale": "The reply follows the rule.", "verdict": "FOLLOWED"} for r in rules]
    return Reply.text(json.dumps({"verdicts": verdicts}))


def _say(text: str, json_mode: bool) -> Reply:
    return Reply.text(json.dumps({"message": text}) if json_mode else text)


DEFAULTS: dict[str, Callable[[dict], Reply]] = {"agent": default_agent, "user": default_user, "judge": default_judge}


class FakeLLMServer:
    def __init__(self, latency: float = 0.0, models: tuple[str, ...] = ()):
        self.latency = latency
        self.models = set(models)  # extra model names /v1/models lists (fake-* always listed)
        self.requests: list[dict] = []
        self.times: list[float] = []  # arrival time of each chat request (time.monotonic)
        self.auth: list[str | None] = []  # the Authorization header of each chat request
        self.model_requests: int = 0
        self.in_flight = 0  # chat requests being answered now, and the most at once
        self.peak_in_flight = 0
        self._queues: dict[str, deque[Reply]] = defaultdict(deque)
        self.behaviours: dict[str, Callable[[dict], Reply]] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self.port = 0

    # -- scripting ------------------------------------------------------------

    def queue(self, model: str, *replies: Reply) -> None:
        with self._lock:
            self._queues[model].extend(replies)

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.times.clear()
            self.auth.clear()
            self._queues.clear()
            self.behaviours.clear()
            self.model_requests = 0
            self.peak_in_flight = 0
            self.latency = 0.0

    def completions(self, model: str | None = None) -> list[dict]:
        with self._lock:
            return [r for r in self.requests if model is None or r.get("model") == model]

    def times_of(self, model: str) -> list[float]:
        with self._lock:
            return [t for r, t in zip(self.requests, self.times) if r.get("model") == model]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _next_reply(self, body: dict) -> Reply:
        model = body.get("model", "")
        with self._lock:
            q = self._queues.get(model)
            if q:
                return q.popleft()
        if model in self.behaviours:
            return self.behaviours[model](body)
        for role, fn in DEFAULTS.items():
            if role in model:
                return fn(body)
        return Reply.text("ok")

    # -- HTTP ----------------------------------------------------------------------

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        with self._lock:
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            return await self._answer(request)
        finally:
            with self._lock:
                self.in_flight -= 1

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        with self._lock:
            self.requests.append(body)
            self.times.append(time.monotonic())
            self.auth.append(request.headers.get("Authorization"))
        reply = self._next_reply(body)
        if self.latency:
            await asyncio.sleep(self.latency)
        if reply.hang:
            await asyncio.sleep(reply.hang)
        if reply.drop:
            request.transport.close()
            raise asyncio.CancelledError  # aiohttp then never answers on this connection
        if reply.raw is not None:
            return web.Response(text=reply.raw, status=reply.status, content_type="text/html")
        if reply.status != 200:
            return web.json_response(reply.body or {"error": {"message": "fault"}}, status=reply.status, headers=reply.headers)
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        finish = "stop"
        if reply.tool_calls:
            calls = []
            for i, c in enumerate(reply.tool_calls):
                args = c["arguments"]
                if not reply.args_as_dict and not isinstance(args, str):
                    args = json.dumps(args)
                call = {"type": "function", "function": {"name": c["name"], "arguments": args}}
                if not reply.omit_ids:
                    call["id"] = c.get("id") or f"call_fake_{len(self.requests)}_{i}"
                calls.append(call)
            message["tool_calls"] = calls
            finish = "tool_calls"
        out: dict[str, Any] = {
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        }
        if reply.usage:
            prompt_chars = sum(len(json.dumps(m)) for m in body.get("messages", []))
            completion_chars = len(reply.content or "") + len(json.dumps(reply.tool_calls or []))
            p, c = max(1, prompt_chars // 4), max(1, completion_chars // 4)
            out["usage"] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
        return web.json_response(out)

    async def _models(self, request: web.Request) -> web.Response:
        with self._lock:
            self.model_requests += 1
        names = sorted({"fake-agent", "fake-user", "fake-judge", *self.models})
        return web.json_response({"object": "list", "data": [{"id": n, "object": "model", "owned_by": "fake"} for n in names]})

    # -- lifecycle -------------------------------------------------------------------

    def start(self) -> "FakeLLMServer":
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            app = web.Application()
            app.router.add_post("/v1/chat/completions", self._chat)
            app.router.add_post("/chat/completions", self._chat)
            app.router.add_get("/v1/models", self._models)
            app.router.add_get("/models", self._models)
            self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
            loop.run_until_complete(self._runner.setup())
            site = web.TCPSite(self._runner, "127.0.0.1", 0)
            loop.run_until_complete(site.start())
            self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self._runner.cleanup())
            loop.close()

        self._thread = threading.Thread(target=run, name="fake-llm-server", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("fake LLM server did not start")
        return self

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)


def main() -> None:
    """Run the fake server in the foreground (``python tests/fake_llm_server.py [latency]``)."""
    import sys

    srv = FakeLLMServer(latency=float(sys.argv[1]) if len(sys.argv) > 1 else 0.0).start()
    print(srv.url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.stop()


if __name__ == "__main__":
    main()
