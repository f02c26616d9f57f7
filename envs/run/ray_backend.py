"""``--backend ray``: episodes played on Ray workers; the driver stays the only writer of the run folder.

Each worker is a long-lived Ray actor that builds the domain (its template database, task patches
and goal states) and the run's actors once, keeps one episode database per concurrent slot and reuses
it, as the local runner does, and plays episodes on its own asyncio loop (``max_concurrency`` of them
at a time). The driver hands out ``(task, repeat, seed)`` items, keeps at most ``per_worker`` in flight
on each worker, and appends every finished record to the store the moment it arrives, so
``--resume``, ``envs.compare``, the report and ``summary.json`` behave exactly as for a local run.

Faults: when a worker dies (a node lost, a process killed), the items it had in flight were never
recorded; they go back to the queue and are played by another worker (a new one is started in its
place), so no episode is lost and none is recorded twice. A killed driver leaves a run folder that
``--resume`` finishes.

Model concurrency holds across the cluster: every worker's LLM client takes its slots from one
``Limiter`` actor (a semaphore per model and server), so ``--model-concurrency 40`` means 40 requests
in flight in total, not per worker. When the cap cannot bind (no more episodes in flight than it
allows, each with at most one call out at a time) the limiter is left out: it costs two actor calls
per request.

Every node needs sitgym installed (``pip install sitgym`` or the checkout, the same version as the
driver); the driver passes its run config, which names the domain, its options and the roles.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import deque
from contextlib import asynccontextmanager
from typing import Any, Callable

from envs.errors import SpecError

# Environment passed to the workers: domain discovery, data paths, and what the preflight learnt.
PASSED_ENV = ("SITGYM_DOMAINS", "PYTHONPATH", "SITGYM_TAUBENCH_DATA", "SITGYM_API_KEY", "SITGYM_UNPRICED",
              "LITELLM_LOCAL_MODEL_COST_MAP", "SITGYM_LOCAL_THREADS", "OPENAI_API_KEY", "HOSTED_VLLM_API_KEY")


def ray_module():
    try:
        import ray
    except ImportError:
        raise SpecError("--backend ray: Ray is not installed (install the ray extra of sitgym)") from None
    return ray


# Ray takes a node's address on Linux to be its network address (even when given 127.0.0.1), and its
# servers then listen on every interface; with this off it uses loopback, as it does on a laptop.
_RAY_LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def init_ray(address: str | None, env: dict[str, str]) -> None:
    """Join the cluster at ``address`` or, with none (or ``local``), start a local Ray instance on
    loopback only (127.0.0.1, no dashboard): a local run opens no socket other machines can reach."""
    import sys

    kw: dict[str, Any] = {"runtime_env": {"env_vars": env}, "include_dashboard": False, "log_to_driver": False}
    if address and address != "local":
        ray_module().init(address=address, **kw)
        return
    os.environ[_RAY_LOOPBACK_ENV] = "0"  # read by Ray when imported, and by the processes it starts
    already = "ray" in sys.modules
    ray = ray_module()
    if already:  # imported before this run chose loopback: the same switch, set where Ray reads it
        from ray._private import ray_constants

        ray_constants.ENABLE_RAY_CLUSTER = False
    ray.init(_node_ip_address="127.0.0.1", **kw)


def build_actors(cfg: Any) -> tuple[Any, tuple[Callable, Callable, Callable | None], Any]:
    """The domain, the actor factories and the LLM context of a run config (no preflight, no local start)."""
    import envs  # noqa: F401  (registers the domains)
    from envs.actors.roles import agent_factory, judge_factory, user_factory
    from envs.run.args import needs_llm, role_configs
    from envs.run.config import configure_domain

    domain = configure_domain(cfg, {}, True)
    roles = role_configs(cfg)
    ctx = None
    if needs_llm(roles):
        from envs.run.llm_flags import make_llm_context

        ctx = make_llm_context(cfg.model_dump(), roles)
    factories = (agent_factory(domain, roles["agent"], ctx), user_factory(domain, roles["user"], ctx),
                 judge_factory(domain, roles["judge"], ctx))
    return domain, factories, ctx


class _LimiterImpl:
    """A semaphore per key, shared by every worker of the run (an async Ray actor)."""

    def __init__(self, limit: int):
        self.limit = max(1, int(limit))
        self.sems: dict[str, asyncio.Semaphore] = {}
        self.in_flight: dict[str, int] = {}
        self.peak: dict[str, int] = {}

    async def acquire(self, key: str) -> None:
        sem = self.sems.setdefault(key, asyncio.Semaphore(self.limit))
        await sem.acquire()
        self.in_flight[key] = self.in_flight.get(key, 0) + 1
        self.peak[key] = max(self.peak.get(key, 0), self.in_flight[key])

    async def release(self, key: str) -> None:
        self.in_flight[key] -= 1
        self.sems[key].release()

    async def stats(self) -> dict[str, int]:
        """The most requests ever in flight at once, per model and server."""
        return dict(self.peak)


class RemoteLimiter:
    """What a worker's LLM client holds: slots taken from the run's ``Limiter`` actor."""

    def __init__(self, handle: Any):
        self.handle = handle

    @asynccontextmanager
    async def slot(self, key: str):
        await self.handle.acquire.remote(key)
        try:
            yield
        finally:
            await self.handle.release.remote(key)


class _WorkerImpl:
    """One long-lived worker: the domain and the actors built once, episode databases reused."""

    def __init__(self, cfg_json: str, limiter: Any = None, budgets: dict | None = None):
        from envs.episode.budgets import Budgets
        from envs.run.config import RunConfig

        self.cfg = RunConfig.model_validate_json(cfg_json)
        self.budgets = Budgets(**(budgets or {}))  # the run's per-episode budgets, as the local runner plays them
        self.domain, self.factories, self.ctx = build_actors(self.cfg)
        if self.ctx is not None:
            if limiter is not None:
                self.ctx.client.limiter = RemoteLimiter(limiter)
            self.ctx.start_local()
        self.free: list[Any] = []

    async def play(self, task_id: str, repeat: int, seed: int, attempt: int = 1) -> str:
        from envs.episode import episode_seed, run_episode
        from envs.state.database import EpisodeState

        agent_f, user_f, judge_f = self.factories
        task = self.domain.tasks[task_id]
        state = self.free.pop() if self.free else EpisodeState(self.domain.base, self.domain.initial_bytes(task))
        try:
            rec = await run_episode(self.domain, task, agent_f(), user_f(), seed=episode_seed(seed, task_id, repeat),
                                    repeat=repeat, judge=judge_f() if judge_f else None, state=state, attempt=attempt,
                                    budgets=self.budgets)
        finally:
            self.free.append(state)
        return rec.model_dump_json()

    def pid(self) -> int:
        return os.getpid()


def play_on_ray(
    cfg: Any,
    plan: list[tuple],
    store: Any,
    tick: Callable[[Any], None],
    *,
    address: str | None = None,
    workers: int = 2,
    per_worker: int = 1,
    model_concurrency: int | None = None,
    on_started: Callable[[list[Any]], None] | None = None,
    max_replacements: int = 8,
    limits: Any = None,
    gate: Any = None,
) -> dict[str, Any]:
    """Play ``plan`` (``(task, repeat, seed[, attempt])`` items) on Ray; append each record to ``store``
    as it arrives. Returns run facts
    (start-up seconds, workers lost and replaced, the limiter's peak in flight).

    ``limits`` (``envs.run.limits.RunLimits``) are played as the local runner plays them: each
    episode gets the per-episode budgets, an errored one is replayed after its backoff
    (``RunLimits.replay_delay``; every attempt is stored, ``tick`` sees the last), and with ``gate``
    (a ``CostGate``) no episode is handed out once the run's cost cap is spent."""
    ray = ray_module()
    from envs.records import EpisodeRecord

    t0 = time.perf_counter()
    env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
    if not ray.is_initialized():
        init_ray(address, env)
    Worker = ray.remote(max_restarts=0)(_WorkerImpl)
    Limiter = ray.remote(_LimiterImpl)
    # The shared limiter costs two actor calls per request; it is needed only when the cap can bind,
    # i.e. when more episodes can be in flight (each has at most one call out at a time) than it allows.
    cap = model_concurrency or 16
    needs_limit = cfg_uses_llm(cfg) and cap < max(1, workers) * max(1, per_worker)
    limiter = Limiter.options(max_concurrency=10_000).remote(cap) if needs_limit else None
    cfg_json = cfg.model_dump_json()

    budgets = {} if limits is None else {k: getattr(limits.budgets, k) for k in ("tokens", "cost", "seconds")
                                         if getattr(limits.budgets, k) is not None}

    def start() -> Any:
        return Worker.options(max_concurrency=max(1, per_worker)).remote(cfg_json, limiter, budgets)

    pool = [start() for _ in range(max(1, workers))]
    ray.get([w.pid.remote() for w in pool])  # built and ready: the start-up cost is paid here
    started = time.perf_counter() - t0
    if on_started:
        on_started(pool)
    todo = deque(plan)
    in_flight: dict[Any, tuple[Any, tuple[str, int, int]]] = {}  # ref -> (worker, item)
    load = {id(w): 0 for w in pool}
    lost = 0
    waiting: list[tuple[float, tuple]] = []  # (when, item): errored episodes waiting out their backoff
    replays: dict[tuple[str, int], int] = {}

    def fill() -> None:
        now = time.monotonic()
        for when, item in [x for x in waiting if x[0] <= now]:
            waiting.remove((when, item))
            todo.append(item)
        for w in list(pool):
            while todo and load[id(w)] < per_worker:
                if gate is not None and not gate.may_start():
                    todo.clear()  # the cost cap is spent: what is left stays unplayed (--resume plays it)
                    break
                item = todo.popleft()
                in_flight[w.play.remote(*item)] = (w, item)
                load[id(w)] += 1

    fill()
    while in_flight or waiting:
        if not in_flight:  # only replays waiting out their backoff
            time.sleep(max(0.0, min(w for w, _ in waiting) - time.monotonic()))
            fill()
            continue
        ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=1.0)
        for ref in ready:
            w, item = in_flight.pop(ref)
            load[id(w)] = max(0, load.get(id(w), 1) - 1)
            try:
                text = ray.get(ref)
            except (ray.exceptions.RayActorError, ray.exceptions.ActorDiedError, ray.exceptions.WorkerCrashedError):
                # The worker died with this episode unfinished: nothing was recorded, play it elsewhere.
                todo.appendleft(item)
                if w in pool:
                    pool.remove(w)
                    lost += 1
                    if lost > max_replacements:
                        raise SpecError(f"--backend ray: {lost} workers lost; finished episodes are saved, continue with --resume")
                    nw = start()
                    pool.append(nw)
                    load[id(nw)] = 0
                continue
            rec = EpisodeRecord.model_validate_json(text)
            store.append(rec)
            if gate is not None:
                gate.add(rec)
            key = (rec.task_id, rec.repeat)
            delay = limits.replay_delay(rec, replays.get(key, 0)) if limits is not None else None
            if delay is None:
                tick(rec)
            else:  # an infrastructure error: the same episode (same seed) again, after the backoff
                replays[key] = replays.get(key, 0) + 1
                waiting.append((time.monotonic() + delay, (item[0], item[1], item[2], rec.attempt + 1)))
        fill()
    peak = ray.get(limiter.stats.remote()) if limiter is not None else {}
    return {"startup_s": started, "workers_lost": lost, "peak_in_flight": peak}


def cfg_uses_llm(cfg: Any) -> bool:
    from envs.run.args import needs_llm, role_configs

    return needs_llm(role_configs(cfg))
