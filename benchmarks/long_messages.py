"""How long the scripted users take to answer one long agent message (figures, no assertions).

    python benchmarks/long_messages.py [--chars 200000]

For each shipped domain and each shape of text (words with no sentence end, sentences, one long
token, digits, spaces, dots), the seconds one user turn takes after the agent sends it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def main() -> None:
    import envs  # noqa: F401
    from envs.actors.scripted_user import ScriptedUser
    from envs.domain import get_domain
    from envs.episode import Episode
    from envs.records import AgentAction
    from test_long_messages import wall

    ap = argparse.ArgumentParser()
    ap.add_argument("--chars", type=int, default=200_000)
    n = ap.parse_args().chars
    shapes = {"words": wall(n, False), "sentences": wall(n, True), "one token": "a" * n, "digits": "7" * n,
              "spaces": "x " * (n // 2), "dots": ". " * (n // 2)}
    for name in ("support", "tutoring"):
        d = get_domain(name)
        task = d.tasks[sorted(d.tasks)[0]]
        for shape, text in shapes.items():
            ep = Episode(d, task, d.scripted_users.get("default", ScriptedUser)(), seed=1)
            asyncio.run(ep.start())
            t0 = time.perf_counter()
            asyncio.run(ep.step(AgentAction.say(text)))
            print(f"{name:9} {shape:10} {len(text):>8,} chars  {time.perf_counter() - t0:6.3f} s")
            ep.close()


if __name__ == "__main__":
    main()
