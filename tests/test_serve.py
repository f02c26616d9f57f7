"""``python -m envs.serve``: the in-process local model served on loopback for other tools."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _serve(*args: str, **kw):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "envs.serve", *args], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


@pytest.mark.parametrize("model, needle", [("smollm2", "give local:smollm2 or local:PATH.gguf"),
                                           ("local:nothing.gguf", "no such file")])
def test_bad_model_is_one_line(model, needle):
    p = _serve(model)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 2 and needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.local_llm
def test_serves_the_local_model_on_loopback():
    from envs.llm.backends.llamacpp import available

    why = available()
    if why:
        pytest.skip(f"local:smollm2 unavailable: {why}")
    p = _serve("local:smollm2", "--seconds", "600")
    try:
        line = p.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/v1", line).group(0)  # loopback only
        with urllib.request.urlopen(url + "/models", timeout=120) as r:
            models = [m["id"] for m in json.load(r)["data"]]
        assert re.search(r"as model '([^']+)'", line).group(1) in models
    finally:
        p.terminate()
        p.wait(60)
