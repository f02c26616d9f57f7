"""``python -m envs.prompts``: print exactly what a model would be sent, before spending money on it.

    python -m envs.prompts --domain D --task T --role user|agent|judge [--turn N] [--seed S] [--repeat R]
                           [--tool-mode native|json] [--domain-option KEY=VALUE]

The messages are built by the LLM actors' own code (``LLMUser.messages``,
``LLMAgent.messages``, ``LLMJudge.messages`` / ``question_messages``) from the
episode the runner would play with ``--seed S`` (the run seed; the episode's
seed derives from it as in ``envs.run``) and repeat R. The conversation up to
turn N is played offline by the domain's default scripted agent and scripted
user, so the situation drawn for each turn is the run's own draw:

* ``user``: what the user model is sent to write its message of turn N (0 is
  the opening);
* ``agent``: the agent model's first request after the user's message of turn
  N, with the tool schemas sent natively (or, in json mode, in the prompt);
* ``judge``: one request per judge call on the agent's reply to the user's
  turn N (rules decided by a deterministic check are never sent), then the
  task's ``llm_judge`` assertions over the conversation so far.

Bad input (domain, task, role, a turn the conversation never reaches) is one
line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any, TextIO

from envs.errors import SpecError

ROLES = ("user", "agent", "judge")


class _Reached(Exception):
    """Stops the offline episode once the requested turn's request has been built."""


def _endpoint(role: str, tool_mode: str):
    from envs.llm.endpoints import Endpoint

    return Endpoint(role=role, spec="(printed only)", model="(printed only)", tool_mode=tool_mode)


def build(domain_name: str, task_id: str, role: str, turn: int = 0, seed: int = 0, repeat: int = 0,
          tool_mode: str = "native", options: dict[str, Any] | None = None, with_judge: bool = False) -> list[dict]:
    """The requests ``role``'s model would be sent at ``turn``: ``[{"messages": [...], "tools": [...]?, "what": str}]``.
    ``with_judge``: as a run given ``--judge MODEL`` sends them (``judge: prefer`` rules go to the judge).

    Raises SpecError (one line) for an unknown domain, task or role, or a turn the episode never reaches."""
    from envs.actors.llm_agent import LLMAgent
    from envs.actors.llm_judge import LLMJudge
    from envs.actors.llm_user import LLMUser
    from envs.actors.prompts import Prompts
    from envs.domain import get_domain
    from envs.episode.step import Episode, episode_seed
    from graders.rules.verdicts import reply_situations, with_closing_action
    from envs.records import UserEvent

    if role not in ROLES:
        raise SpecError(f"--role: unknown role {role!r} (known: {', '.join(ROLES)})")
    if turn < 0:
        raise SpecError(f"--turn: must be 0 or more, not {turn}")
    if tool_mode not in ("native", "json"):
        raise SpecError(f"--tool-mode: unknown mode {tool_mode!r} (known: native, json)")
    domain = get_domain(domain_name, options or None)
    if task_id not in domain.tasks:
        known = ", ".join(sorted(domain.tasks)[:5])
        raise SpecError(f"--task: domain {domain.name} has no task {task_id!r} (e.g. {known}, ...)")
    task = domain.tasks[task_id]
    prompts = Prompts.for_domain(domain)
    mutating = {n for n, t in domain.agent_tools.tools.items() if getattr(t, "mutates", False)}
    llm_user = LLMUser(None, _endpoint("user", tool_mode), mutating, prompts)
    llm_agent = LLMAgent(None, _endpoint("agent", tool_mode), prompts)
    out: list[dict] = []

    scripted_user = domain.scripted_users.get("default")
    if scripted_user is None:
        from envs.actors.scripted_user import ScriptedUser as scripted_user

    class Recording:
        """The scripted user, recording the LLM user's request when the asked-for turn comes."""

        name = "prompts:recording"

        def __init__(self) -> None:
            self.inner = scripted_user()

        async def reply(self, t):
            if role == "user" and t.turn == turn:
                out.append({"what": f"user, turn {turn} (situation {t.situation_id})", "messages": llm_user.messages(t)})
                raise _Reached
            return await self.inner.reply(t)

    agent = domain.scripted_agents[domain.default_agent]()
    ep = Episode(domain, task, Recording(), episode_seed(seed, task.id, repeat), repeat)

    async def play() -> None:
        await ep.start()
        while not ep.done:
            view = ep.agent_view()
            # the agent's first request after the user's message of this turn (before any tool call of its own)
            if role == "agent" and isinstance(view.events[-1], UserEvent) and view.events[-1].turn == turn:
                req = {"what": f"agent, answering the user's turn {turn}", "messages": llm_agent.messages(view)}
                if tool_mode == "native":
                    req["tools"] = view.tools
                out.append(req)
                raise _Reached
            await ep.step(await agent.act(view))

    try:
        asyncio.run(play())
    except _Reached:
        pass
    finally:
        ep.close()
    if role == "judge":
        judge = LLMJudge(None, _endpoint("judge", tool_mode), prompts)
        events = with_closing_action(domain, ep.events)
        for idx, sid in reply_situations(events):
            prev_user = max((i for i in range(idx) if isinstance(events[i], UserEvent)), default=-1)
            if prev_user < 0 or events[prev_user].turn != turn:
                continue
            sit = domain.situations.get(sid) if sid else None
            rules = [domain.rules[r] for r in sit.rules if r in domain.rules] if sit else []
            if idx >= len(ep.events):
                rules = [r for r in rules if r.on_handoff]
            # as graders.rules.verdicts decides: with a judge model, a checked rule marked
            # ``judge: prefer`` goes to the judge; ``fallback`` only where its check cannot decide
            sent = lambda r: r.check is None or (with_judge and r.judge == "prefer")  # noqa: E731
            for_judge = [r for r in rules if sent(r)]
            checked = [r for r in rules if not sent(r)]
            what = f"judge, the reply to the user's turn {turn} (situation {sid})"
            if checked:
                what += f"; decided by checks, not sent: {', '.join(r.id for r in checked)}"
                fallback = [r.id for r in checked if with_judge and r.judge == "fallback"]
                if fallback:
                    what += f" (sent only where the check cannot decide: {', '.join(fallback)})"
                prefer = [r.id for r in checked if r.judge == "prefer"]
                if prefer:
                    what += f"; with --judge, sent to the judge: {', '.join(prefer)}"
            out.append({"what": what, "messages": judge.messages(sit, for_judge, events, idx) if for_judge else []})
        for a in task.assertions:
            if a.type == "llm_judge":
                out.append({"what": f"judge, assertion: {a.question}", "messages": judge.question_messages(a.question, ep.events)})
    if not out:
        raise SpecError(f"--turn: the episode of {task.id} (seed {seed}, repeat {repeat}) ends before the {role}'s turn {turn}")
    return out


def show(requests: list[dict], stream: TextIO) -> None:
    for req in requests:
        print(f"=== {req['what']} ===", file=stream)
        if not req["messages"]:
            print("(nothing is sent to the model for this turn)", file=stream)
        for m in req["messages"]:
            print(f"--- {m['role']} ---", file=stream)
            print(m.get("content") if m.get("content") is not None else json.dumps(m, ensure_ascii=False), file=stream)
            if m.get("tool_calls"):
                print(json.dumps(m["tool_calls"], ensure_ascii=False), file=stream)
        if req.get("tools"):
            print("--- tools ---", file=stream)
            print(json.dumps(req["tools"], indent=2, ensure_ascii=False), file=stream)


def main(argv: list[str] | None = None) -> int:
    from envs.run.config import parse_domain_options

    ap = argparse.ArgumentParser(prog="python -m envs.prompts", description="Print what each model would be sent.")
    ap.add_argument("--domain", required=True, help="the domain whose task is played")
    ap.add_argument("--task", required=True, help="the task id")
    ap.add_argument("--role", required=True, help="user | agent | judge")
    ap.add_argument("--turn", type=int, default=0, help="the user's turn (0: the opening)")
    ap.add_argument("--seed", type=int, default=0, help="the run seed, as for envs.run (default 0)")
    ap.add_argument("--repeat", type=int, default=0, help="the repeat, as for envs.run (default 0)")
    ap.add_argument("--tool-mode", default="native", help="native | json")
    ap.add_argument("--domain-option", action="append", default=None, metavar="KEY=VALUE", help="a domain option, as for envs.run")
    ap.add_argument("--judge", action="store_true",
                    help="role judge: as a run given --judge MODEL sends it (rules marked 'judge: prefer' go to the judge too)")
    args = ap.parse_args(argv)
    try:
        reqs = build(args.domain, args.task, args.role, args.turn, args.seed, args.repeat, args.tool_mode,
                     parse_domain_options(args.domain_option or []), with_judge=args.judge)
    except SpecError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    show(reqs, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
