"""RL rollouts: rollouts per second in groups, memory per concurrent rollout, the cost of dense rewards.

    python benchmarks/rollouts.py [--domain support] [--tasks 4] [--groups 8,64] [--latency 0.3]
        [--think-ms 20] [--reps 3] [--no-llm]

All through ``envs.rl.rollout.rollout_groups`` (a group's rollouts run concurrently on one asyncio
loop, each in its own in-memory database):

* scripted actors (the domain's default scripted agent, the scripted user), ``--tasks`` tasks
  times each group size, concurrency = group size;
* LLM actors against the fake OpenAI-compatible server (``tests/fake_llm_server.py``) in its own
  process, every call taking ``--latency`` seconds, on the toy domain it plays (4 calls a rollout);
* memory: RSS growth (peak during the group minus before it, sampled every 2 ms from
  ``/proc/self/statm``) while 64 rollouts are alive at once, divided by 64. Scripted actors never
  wait, so a group of them would run one rollout at a time; for this measure the scripted agent
  waits ``--think-ms`` before each step (as a model would), which keeps all 64 alive together;
* dense rewards: ``envs.rl.rewards.reward_parts`` and the whole ``trajectory`` (messages + rewards)
  per finished episode record, medians.

A benchmark, not a test: it asserts nothing of the figures. Linux (``/proc``) for the RSS figures.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("SITGYM_DOMAINS", "toy_domain")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

_PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE / 1e6


class PeakRss:
    """The highest RSS seen while the block runs (a sampling thread)."""

    def __enter__(self) -> "PeakRss":
        gc.collect()
        self.before = rss_mb()
        self.peak = self.before
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._sample, daemon=True)
        self._t.start()
        return self

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, rss_mb())
            time.sleep(0.002)

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._t.join()
        self.peak = max(self.peak, rss_mb())


class ThinkingAgent:
    """A scripted agent that waits before each step, as a model would (keeps rollouts alive together)."""

    def __init__(self, inner, think_s: float) -> None:
        self.inner, self.think_s = inner, think_s
        self.name = getattr(inner, "name", "scripted")

    async def act(self, view):
        await asyncio.sleep(self.think_s)
        return await self.inner.act(view)

    def __getattr__(self, name):  # anything else the loop asks of an agent
        return getattr(self.inner, name)


def play_groups(domain, task_ids, agent_f, user_f, group: int) -> tuple[float, list]:
    from envs.rl.rollout import rollout_groups

    t0 = time.perf_counter()
    groups = asyncio.run(rollout_groups(domain, task_ids, agent_f, user_f, group_size=group, concurrency=group))
    return time.perf_counter() - t0, groups


def rate_rows(label: str, domain, task_ids, agent_f, user_f, sizes: list[int], reps: int) -> None:
    for g in sizes:
        runs = []
        for _ in range(reps):
            wall, groups = play_groups(domain, task_ids, agent_f, user_f, g)
            trajs = [t for gr in groups for t in gr.trajectories]
            runs.append((wall, len(trajs), sum(t.status != "ok" for t in trajs)))
        runs.sort()
        wall, n, errors = runs[len(runs) // 2]
        print(f"{label:<34}{g:>6}{n:>10}{wall:>9.2f} s{n / wall:>12.1f}{errors:>8}")


def start_server(latency: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fake_llm_server.py"), str(latency)],
                            stdout=subprocess.PIPE, text=True)
    url = (proc.stdout.readline() if proc.stdout else "").strip()
    if not url.startswith("http"):
        proc.kill()
        raise SystemExit("the fake LLM server did not start")
    return proc, url


def llm_setup(url: str):
    """The toy domain and LLM agent / user factories against the fake server at ``url``."""
    from envs.actors.roles import RoleConfig, agent_factory, user_factory
    from envs.domain import get_domain
    from envs.run.llm_flags import make_llm_context

    toy = get_domain("toy")
    roles = {"agent": RoleConfig(spec="openai/fake-agent", api_base=url),
             "user": RoleConfig(spec="openai/fake-user", api_base=url)}
    ctx = make_llm_context({"llm": {"model_concurrency": 1024, "request_timeout": 30, "max_retries": 0}}, roles)
    ctx.preflight()
    return toy, [next(iter(toy.tasks))], agent_factory(toy, roles["agent"], ctx), user_factory(toy, roles["user"], ctx)


def llm_memory_child(url: str) -> None:
    """In a fresh process (no earlier group's freed memory to reuse): RSS growth of 64 LLM rollouts."""
    toy, task, la, lu = llm_setup(url)
    play_groups(toy, task, la, lu, 2)  # warm-up
    with PeakRss() as mem:
        play_groups(toy, task, la, lu, 64)
    print(f"{(mem.peak - mem.before) / 64:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--domain", default="support", help="domain for the scripted rows and the memory row")
    ap.add_argument("--tasks", type=int, default=4, help="tasks per scripted run (groups per run)")
    ap.add_argument("--groups", default="8,64", help="group sizes")
    ap.add_argument("--latency", type=float, default=0.3, help="seconds per fake LLM call")
    ap.add_argument("--think-ms", type=float, default=20.0, help="scripted agent's wait per step, memory row")
    ap.add_argument("--reps", type=int, default=3, help="runs per row; the median is printed")
    ap.add_argument("--no-llm", action="store_true", help="skip the fake-LLM rows")
    ap.add_argument("--llm-memory", metavar="URL", help=argparse.SUPPRESS)  # the child that measures memory
    args = ap.parse_args()
    if args.llm_memory:
        llm_memory_child(args.llm_memory)
        return
    sizes = [int(x) for x in args.groups.split(",") if x.strip()]
    if not sizes or min(sizes) < 1 or args.tasks < 1:
        raise SystemExit("--groups needs positive sizes, --tasks at least 1")

    from envs.actors.scripted_user import ScriptedUser
    from envs.domain import get_domain
    from envs.episode import episode_seed, run_episode
    from envs.errors import SpecError
    from envs.rl.rewards import RewardWeights, reward_parts
    from envs.rl.rollout import trajectory

    try:
        d = get_domain(args.domain)
        d.template()
    except (SpecError, KeyError) as e:
        raise SystemExit(f"--domain {args.domain}: {e}") from None
    task_ids = list(d.tasks)[: args.tasks]
    agent_f = d.scripted_agents[d.default_agent]
    play_groups(d, task_ids, agent_f, ScriptedUser, 2)  # warm-up: templates, goal states, imports

    # Memory: 64 rollouts alive at once on the domain's own state.
    think = args.think_ms / 1000
    slow_f = lambda: ThinkingAgent(agent_f(), think)  # noqa: E731
    with PeakRss() as mem:  # first, so that no earlier group's freed memory hides the growth
        wall, _ = play_groups(d, task_ids[:1], slow_f, ScriptedUser, 64)
    state_mb = len(d.initial_bytes(d.tasks[task_ids[0]])) / 1e6
    mem_line = (f"memory, 64 concurrent rollouts of {task_ids[0]} ({d.name}, state {state_mb:.2f} MB, agent waits "
                f"{args.think_ms:.0f} ms a step; {wall:.2f} s): RSS {mem.before:.0f} -> peak {mem.peak:.0f} MB, "
                f"{(mem.peak - mem.before) / 64:.2f} MB per rollout")
    print(f"{'rollouts':<34}{'group':>6}{'rollouts':>10}{'wall':>11}{'rollouts/s':>12}{'errors':>8}")
    rate_rows(f"scripted, {d.name}, {len(task_ids)} tasks", d, task_ids, agent_f, ScriptedUser, sizes, args.reps)

    proc = None
    if not args.no_llm:
        proc, url = start_server(args.latency)
        try:
            child = subprocess.run([sys.executable, __file__, "--llm-memory", url], capture_output=True, text=True,
                                   timeout=600)
            llm_mem = child.stdout.strip().splitlines()[-1] if child.returncode == 0 else f"failed: {child.stderr[-200:]}"
            toy, toy_task, la, lu = llm_setup(url)
            play_groups(toy, toy_task, la, lu, 2)
            rate_rows(f"fake LLM {args.latency * 1000:.0f} ms/call, toy, 1 task", toy, toy_task, la, lu, sizes,
                      args.reps)
        finally:
            proc.kill()
            proc.wait()

    print(f"\n{mem_line}")
    if not args.no_llm:
        print(f"memory, 64 concurrent rollouts, fake LLM (toy, a fresh process): {llm_mem} MB per rollout")

    # Dense rewards: per finished episode record.
    recs = []

    async def collect() -> None:
        for t in list(d.tasks.values()):
            recs.append(await run_episode(d, t, agent_f(), ScriptedUser(), seed=episode_seed(0, t.id, 0), repeat=0))

    asyncio.run(collect())
    w = RewardWeights()

    def per_rec(fn) -> float:
        times = []
        for _ in range(20):
            for r in recs:
                t0 = time.perf_counter()
                fn(r)
                times.append((time.perf_counter() - t0) * 1000)
        return statistics.median(times)

    parts_ms = per_rec(lambda r: reward_parts(r, w))
    traj_ms = per_rec(lambda r: trajectory(r, d, w, group="g", rollout=0, agent_seed=None))
    turns = statistics.median(sum(e.kind == "agent" for e in r.transcript) for r in recs)
    print(f"dense rewards ({len(recs)} {d.name} episodes, median {turns:.0f} agent turns): reward_parts "
          f"{parts_ms:.3f} ms, whole trajectory (messages + rewards) {traj_ms:.3f} ms per episode")


if __name__ == "__main__":
    main()
