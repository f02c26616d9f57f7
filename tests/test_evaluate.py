"""One grading path: an episode graded through ``run_episode`` and through the gymnasium env gets
the same grade and the same verdicts, and the judge is reached through the Judge protocol."""

from __future__ import annotations

import asyncio
import dataclasses

import gymnasium
import pytest
from pydantic import TypeAdapter

import envs  # noqa: F401
import toy_domain
from envs.actors.protocols import AgentView, Judge
from envs.actors.scripted_user import ScriptedUser
from envs.domain import get_domain, register_domain
from envs.episode import episode_seed, run_episode
from envs.gym.env import SitgymEnv
from envs.records import EpisodeId, Event, UserEvent, Verdict
from envs.spec.schema import AssertionSpec
from graders import Evaluation, evaluate

EVENT = TypeAdapter(Event)
SEED = 11


def _verdict_rows(verdicts) -> list[tuple]:
    rows = []
    for v in verdicts:
        v = v if isinstance(v, Verdict) else Verdict.model_validate(v)
        rows.append((v.rule, v.turn, v.situation, v.verdict, v.rationale))
    return rows


def _play_in_gym(env, task_id: str, agent) -> dict:
    """Step ``agent``'s actions through the env, showing it what ``run_episode`` shows it."""
    obs, info = env.reset(seed=SEED, options={"task_id": task_id})
    policy, tools, seed = info["policy"], info["tools"], info["episode_seed"]
    events = [EVENT.validate_python(e) for e in info["events"]]
    done = False
    while not done:
        view = AgentView(policy=policy, tools=tools, events=list(events), task_id=task_id, seed=seed, repeat=0)
        action = asyncio.run(agent.act(view))
        obs, reward, terminated, truncated, info = env.step(action)
        events.extend(EVENT.validate_python(e) for e in info["events"])
        done = terminated or truncated
    assert reward == info["grade"]["reward"]
    return info


def _play_in_runner(domain, task_id: str, agent, judge=None):
    user = domain.scripted_users.get("default", ScriptedUser)()
    rec = asyncio.run(run_episode(domain, domain.tasks[task_id], agent, user, seed=episode_seed(SEED, task_id, 0), judge=judge))
    assert rec.status == "ok", rec.error
    return rec


@pytest.mark.parametrize("domain_name,gym_id", [("support", "sitgym/Support-v0"), ("tutoring", "sitgym/Tutoring-v0")])
def test_the_runner_and_the_gym_env_grade_an_episode_alike(domain_name, gym_id):
    d = get_domain(domain_name)
    env = gymnasium.make(gym_id)
    seen = {"verdicts": 0, "violated": 0, "rewarded": 0}
    try:
        for agent_name, make_agent in sorted(d.scripted_agents.items()):
            for task_id in sorted(d.tasks):
                rec = _play_in_runner(d, task_id, make_agent())
                info = _play_in_gym(env, task_id, make_agent())
                where = f"{agent_name} on {task_id}"
                assert info["transcript"] == [e.model_dump() for e in rec.transcript], where
                assert _verdict_rows(info["verdicts"]) == _verdict_rows(rec.verdicts), where
                assert info["grade"] == rec.grade.model_dump(), where
                seen["verdicts"] += len(rec.verdicts)
                seen["violated"] += sum(v.verdict == "VIOLATED" for v in rec.verdicts)
                seen["rewarded"] += rec.reward == 1.0
    finally:
        env.close()
    # Not vacuous: the episodes had verdicts of both kinds, and some earned the reward.
    assert seen["verdicts"] > 50 and seen["violated"] > 0 and seen["rewarded"] > 0, seen


class RecordingJudge:
    """A tiny judge: FOLLOWED on every rule, "pass" on every question; it notes each call."""

    name = "recording"

    def __init__(self):
        self.calls: list[tuple[str, EpisodeId]] = []

    async def judge_turn(self, situation, rules, events, reply_index, episode: EpisodeId) -> list[Verdict]:
        self.calls.append(("turn", episode))
        turn = events[reply_index].turn
        return [Verdict(turn=turn, situation=situation.id, rule=r.id, verdict="FOLLOWED",
                        rationale=f"judged in {episode}", source="judge") for r in rules]

    async def judge_question(self, question, events, episode: EpisodeId) -> tuple[str, str]:
        self.calls.append(("question", episode))
        return "pass", f"{question} yes ({len(events)} events, {episode})"


@pytest.fixture(scope="module")
def judged_toy():
    """The toy domain with its one rule left to the judge and a task with an llm_judge assertion."""
    toy = get_domain("toy")
    d = dataclasses.replace(toy, name="toyjudged", options={})
    rule = next(iter(toy.rules.values()))
    d.__dict__["rules"] = {rule.id: rule.model_copy(update={"check": None})}
    task = toy.tasks["toy-deposit"].model_copy(update={"assertions": [
        AssertionSpec(type="llm_judge", question="Did the agent confirm the deposit?"),
        AssertionSpec(type="tool_called", tool="deposit"),
    ]})
    d.__dict__["tasks"] = {task.id: task}
    register_domain("toyjudged", lambda: d, gym_id="ToyJudged-v0")
    return d


def test_llm_judge_assertions_and_rules_are_answered_through_the_judge_protocol(judged_toy):
    judge = RecordingJudge()
    assert isinstance(judge, Judge)
    rec = _play_in_runner(judged_toy, "toy-deposit", toy_domain.DepositAgent(), judge=judge)
    episode = EpisodeId(task_id="toy-deposit", repeat=0, seed=episode_seed(SEED, "toy-deposit", 0))
    a_llm, a_tool = rec.grade.assertions
    assert a_llm.result == "pass" and a_llm.evidence.startswith("Did the agent confirm the deposit? yes")
    assert str(episode) in a_llm.evidence and a_llm.turn is None
    assert a_tool.result == "pass"
    assert rec.verdicts and all(v.source == "judge" and v.rationale == f"judged in {episode}" for v in rec.verdicts)
    kinds = [k for k, _ in judge.calls]
    assert kinds[-1] == "question" and "turn" in kinds  # rules first, then the questions
    assert all(ep == episode for _, ep in judge.calls)


def test_without_a_judge_llm_judge_assertions_need_review(judged_toy):
    rec = _play_in_runner(judged_toy, "toy-deposit", toy_domain.DepositAgent())
    assert [a.result for a in rec.grade.assertions] == ["needs_review", "pass"]
    assert rec.verdicts and all(v.verdict == "UNJUDGED" for v in rec.verdicts)


def test_the_gym_env_passes_its_judge_and_episode_id(judged_toy):
    judge = RecordingJudge()
    env = SitgymEnv("toyjudged", judge=judge)
    try:
        info = _play_in_gym(env, "toy-deposit", toy_domain.DepositAgent())
    finally:
        env.close()
    rec = _play_in_runner(judged_toy, "toy-deposit", toy_domain.DepositAgent(), judge=RecordingJudge())
    assert _verdict_rows(info["verdicts"]) == _verdict_rows(rec.verdicts)
    assert info["grade"] == rec.grade.model_dump() and info["grade"]["assertions"][0]["result"] == "pass"
    assert {ep for _, ep in judge.calls} == {EpisodeId(task_id="toy-deposit", repeat=0, seed=episode_seed(SEED, "toy-deposit", 0))}


def test_evaluate_returns_grade_verdicts_and_assertions_in_one_go(judged_toy):
    from envs.episode import Episode

    ep = Episode(judged_toy, judged_toy.tasks["toy-deposit"], ScriptedUser(), seed=5)
    agent = toy_domain.DepositAgent()

    async def play() -> Evaluation:
        await ep.start()
        while not ep.done:
            await ep.step(await agent.act(ep.agent_view()))
        return await evaluate(judged_toy, ep.task, ep.state, ep.events, RecordingJudge(), EpisodeId(task_id="toy-deposit", seed=5))

    try:
        ev = asyncio.run(play())
    finally:
        ep.close()
    assert ev.grade.reward == 1.0 and ev.assertions is ev.grade.assertions
    assert [a.result for a in ev.assertions] == ["pass", "pass"]
    assert ev.verdicts and {v.turn for v in ev.verdicts} <= {e.turn for e in ep.events if not isinstance(e, UserEvent)}
    assert set(ev.timings) == {"grade_s", "verdicts_s"}


def test_the_gym_env_refuses_a_rule_with_an_unknown_check_type():
    from envs.errors import SpecError

    toy = get_domain("toy")
    d = dataclasses.replace(toy, name="toybadcheck", options={})
    rule = next(iter(toy.rules.values()))
    d.__dict__["rules"] = {rule.id: rule.model_copy(update={"check": rule.check.model_copy(update={"type": "nope"})})}
    register_domain("toybadcheck", lambda: d, gym_id="ToyBadCheck-v0")
    with pytest.raises(SpecError, match=f"rule {rule.id}: unknown rule check type 'nope'"):
        SitgymEnv("toybadcheck")
