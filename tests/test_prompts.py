"""Prompts are templates filled from each domain's words: no domain's words leak into another's,
a domain may override a template, and the judge's cache key depends only on the episode judged."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
from pathlib import Path

import pytest

from envs.actors.llm_agent import LLMAgent
from envs.actors.llm_judge import LLMJudge
from envs.actors.llm_user import LLMUser
from envs.actors.prompts import TEMPLATES, Prompts, render
from envs.actors.protocols import AgentView, UserTurn
from envs.domain import get_domain
from envs.errors import SpecError
from envs.llm.endpoints import Endpoint
from envs.records import AgentEvent, EpisodeId, UserEvent
from envs.spec.schema import Rule, Situation
from envs.spec.words import DomainWords

TAU_DATA = Path(os.environ.get("SITGYM_TAUBENCH_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data" / "tau-bench-retail")
DOMAINS = ["support", "tutoring", "toy"] + (["taubench-retail"] if (TAU_DATA / "gold_test.json").is_file() else [])
# Each domain's own words: none may appear in the user or judge prompt of a domain that does not share it
# (the two shops share "customer").
OWN_WORDS = {
    "support": ["customer", "support agent", "marketplace", "refund"],
    "tutoring": ["student", "tutor", "maths"],
    "toy": ["account holder", "bank clerk"],
    "taubench-retail": ["customer", "retail store"],
}
ENGINE_WORDS = ["customer", "support", "refund", "bank", "student", "tutor", "order"]


def _ep(tool_mode: str = "native") -> Endpoint:
    return Endpoint(role="x", spec="fake", model="fake", tool_mode=tool_mode)


def _domain(name: str):
    return get_domain(name, {"data": str(TAU_DATA)} if name == "taubench-retail" else None)


def _prompts(name: str):
    """(domain, the LLM user's system prompt, the judge's two messages) for the domain's first task."""
    d = _domain(name)
    task = next(iter(d.tasks.values()))
    sid = task.scenario.situations[0] if task.scenario.situations else None
    situation = d.situations.get(sid) if sid else None
    situation = situation or Situation(id="cooperative", description="The user cooperates.", how_to_play="Answer plainly.")
    rules = [d.rules[r] for r in situation.rules if r in d.rules] or [
        Rule(id="G1", category="tone", text="Be polite.", violation="Rudeness.", good_example="Sure.", bad_example="No.")
    ]
    prompts = Prompts.for_domain(d)
    turn = UserTurn(
        task=task, persona=d.persona(task), situation=situation, situation_id=situation.id, agent_message=None,
        events=[], turn=0, rng=random.Random(0), call_tool=lambda n, a: "", user_tool_schemas=d.user_tools.schemas(),
        episode=EpisodeId(task_id=task.id), words=d.words,
    )
    user = LLMUser(None, _ep("json"), prompts=prompts)
    user_text = "\n".join(m["content"] for m in user.messages(turn))
    events = [UserEvent(turn=0, content=task.scenario.request, situation=situation.id), AgentEvent(turn=1, content="Let me look.")]
    judge_text = "\n".join(m["content"] for m in LLMJudge(None, _ep(), prompts).messages(situation, rules, events, 1))
    return d, user_text, judge_text


@pytest.mark.parametrize("name", DOMAINS)
def test_user_and_judge_prompts_speak_the_domains_words_only(name):
    d, user_text, judge_text = _prompts(name)
    w = d.words
    assert user_text.startswith(f"You are playing {w.user_role} in a dialogue with {w.agent_role}. Context: {w.context}")
    assert f"You are {w.user_name}, not {w.agent_name}" in user_text
    assert f"{w.agent_role} in a dialogue with {w.user_role}" in judge_text
    for other, words in OWN_WORDS.items():
        for word in set(words) - set(OWN_WORDS[name]):
            assert word not in user_text.lower(), f"{name}'s user prompt says {word!r} ({other}'s word)"
            assert word not in judge_text.lower(), f"{name}'s judge prompt says {word!r} ({other}'s word)"


def test_tutoring_student_gets_a_students_persona():
    d, user_text, _ = _prompts("tutoring")
    persona = d.persona(next(iter(d.tasks.values())))
    assert persona.style in user_text and "grade" in persona.dimensions
    assert "bank statement" not in user_text and "order number" not in user_text


def test_engine_templates_hold_no_domain_words():
    for path in sorted(TEMPLATES.glob("*.txt")):
        text = path.read_text().lower()
        assert not [w for w in ENGINE_WORDS if w in text], path.name


def test_agent_prompt_and_neutral_defaults():
    view = AgentView(policy="Be kind.", tools=[], events=[], episode=EpisodeId(task_id="t"))
    neutral = LLMAgent(None, _ep(), Prompts()).messages(view)[0]["content"]
    assert neutral.startswith("You are an AI agent in a dialogue with a user. Follow the policy below.")
    assert "Context:" not in neutral and neutral.endswith("# Policy\nBe kind.")
    tutor = LLMAgent(None, _ep("json"), Prompts.for_domain(get_domain("tutoring"))).messages(view)[0]["content"]
    assert tutor.startswith("You are a maths tutor in a dialogue with a grade-school student. Context: ")
    assert '{"action": {"message": "<what you say>"}}' in tutor


def test_a_domain_overrides_a_template(tmp_path):
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "judge.txt").write_text("Judge {agent_name} kindly. {?context}({context}){/context}\n")
    toy = get_domain("toy")
    prompts = Prompts.for_domain(dataclasses.replace(toy, package_dir=tmp_path))
    assert prompts.render("judge") == f"Judge the clerk kindly. ({toy.words.context})"
    assert prompts.render("user_opening") == Prompts(toy.words).render("user_opening")  # the rest stay the engine's


def test_render_blocks_variables_and_errors():
    t = "A {x}.\n{?y}\nY: {y}\n{/y}\n\nB {\"json\": 1}"
    assert render(t, {"x": 1, "y": ""}) == 'A 1.\n\nB {"json": 1}'
    assert render(t, {"x": 1, "y": "yes"}) == 'A 1.\nY: yes\n\nB {"json": 1}'
    with pytest.raises(SpecError, match="unknown variable"):
        render("{nope}", {})
    with pytest.raises(SpecError, match="unbalanced"):
        render("{?x} open", {"x": "1"})
    inline = "One.{?c} Two: {c}.{/c}\nThree."
    assert render(inline, {"c": ""}) == "One.\nThree." and render(inline, {"c": "x"}) == "One. Two: x.\nThree."
    # Values are not templates: braces in a transcript stay as they are.
    assert render("{a}", {"a": "{b} {?c}"}) == "{b} {?c}"


def test_views_and_turns_carry_the_episode_id():
    ep = EpisodeId(task_id="t1", repeat=2, seed=99)
    view = AgentView(policy="", tools=[], events=[], episode=ep)
    assert (view.task_id, view.seed, view.repeat) == ("t1", 99, 2)
    old_style = AgentView(policy="", tools=[], events=[], task_id="t1", seed=99, repeat=2)
    assert old_style.episode == ep
    d = get_domain("toy")
    task = next(iter(d.tasks.values()))
    turn = UserTurn(task=task, persona=None, situation=None, situation_id=None, agent_message=None, events=[],
                    turn=0, rng=random.Random(0), call_tool=lambda n, a: "", seed=5, repeat=1)
    assert turn.episode == EpisodeId(task_id=task.id, repeat=1, seed=5)


class RecordingClient:
    """Stands in for LLMClient: records what each call was keyed by and answers a fixed reply."""

    def __init__(self, content: str):
        self.content = content
        self.calls: list[dict] = []

    async def complete(self, ep, messages, **kw):
        self.calls.append({"seed": kw.get("seed"), "repeat": kw.get("repeat"), "attempt": kw.get("attempt", 0)})

        @dataclasses.dataclass
        class Comp:
            content: str
            tool_calls: list

        return Comp(self.content, [])


def _judge_keys(agent_first: bool, episode: EpisodeId) -> list[dict]:
    """The seed/repeat the judge's calls carry, with or without an LLM agent having acted first."""
    toy = get_domain("toy")
    sit = next(iter(toy.situations.values()))
    rules = [toy.rules[r] for r in sit.rules if r in toy.rules]
    events = [UserEvent(turn=0, content="Deposit 5 into A001.", situation=sit.id), AgentEvent(turn=1, content="Done.")]
    judge_client = RecordingClient('{"verdicts": [' + ", ".join(f'{{"rule": "{r.id}", "verdict": "FOLLOWED"}}' for r in rules) + "]}")
    judge = LLMJudge(judge_client, _ep(), Prompts.for_domain(toy))

    async def go():
        if agent_first:  # an agent of another episode acting in the same context first
            agent = LLMAgent(RecordingClient("hello"), _ep(), Prompts.for_domain(toy))
            await agent.act(AgentView(policy="", tools=[], events=[], episode=EpisodeId(task_id="other", repeat=7, seed=1234)))
        verdicts = await judge.judge_turn(sit, rules, events, 1, episode)
        assert all(v.verdict == "FOLLOWED" for v in verdicts)
        await judge.judge_question("Was it done?", events, episode)

    asyncio.run(go())
    return judge_client.calls


def test_judge_cache_key_does_not_depend_on_an_agent_having_run():
    ep = EpisodeId(task_id="toy-deposit", repeat=1, seed=4242)
    alone, after_agent = _judge_keys(False, ep), _judge_keys(True, ep)
    assert alone == after_agent
    assert {(c["seed"], c["repeat"]) for c in alone} == {(4242, 1)}
    other = _judge_keys(False, EpisodeId(task_id="toy-deposit", repeat=2, seed=99))
    assert {(c["seed"], c["repeat"]) for c in other} == {(99, 2)}


def test_words_file_errors_name_the_field(tmp_path):
    from envs.spec.words import load_words

    (tmp_path / "words.yaml").write_text("user_role: a reader\nnot_a_field: 1\n")
    with pytest.raises(SpecError, match="not_a_field"):
        load_words(tmp_path)
    assert load_words(tmp_path / "missing") == DomainWords()


def _user_prompt(d, task) -> str:
    sid = task.scenario.situations[0] if task.scenario.situations else None
    turn = UserTurn(
        task=task, persona=d.persona(task), situation=d.situations.get(sid) if sid else None, situation_id=sid,
        agent_message=None, events=[], turn=0, rng=random.Random(0), call_tool=lambda n, a: "",
        user_tool_schemas=d.user_tools.schemas(), episode=EpisodeId(task_id=task.id), words=d.words, topics=d.topics,
    )
    return LLMUser(None, _ep(), prompts=Prompts.for_domain(d)).system_prompt(turn)


@pytest.mark.parametrize("name", DOMAINS)
def test_the_llm_user_prompt_holds_the_whole_scenario_of_every_task(name):
    d = _domain(name)
    n_mind = 0
    for task in d.tasks.values():
        sc = task.scenario
        text = _user_prompt(d, task)
        where = f"{name}/{task.id}"
        for part in [sc.goal, sc.request, *sc.known_facts, *sc.done_when]:
            assert part in text, f"{where}: {part!r} missing"
        for h in sc.hidden_facts:
            line = next((ln for ln in text.splitlines() if h.fact in ln), None)
            assert line is not None, f"{where}: hidden fact {h.id} missing"
            assert "reveal only when" in line and all(w in line for w in h.asked_by), f"{where}: {h.id} not marked only-when-asked"
            assert not h.topic or h.topic.replace("_", " ") in line, f"{where}: {h.id}: its topic is not named"
        if sc.mind_change:
            n_mind += 1
            assert sc.mind_change.say in text and all(w in text for w in sc.mind_change.when_asked), f"{where}: change of mind missing"
            assert not sc.mind_change.topic or sc.mind_change.topic.replace("_", " ") in text, f"{where}: what triggers the change of mind"
        for u in sc.user_tools:
            assert u.tool in text and all(w in text for w in u.when_asked), f"{where}: when to use {u.tool} missing"
        assert ("say no" in text) == (not sc.accepts) and ("say yes" in text) == sc.accepts, f"{where}: decision"
    if name == "support":
        assert n_mind >= 3  # the tasks whose new value (an address, a replacement) lives only in mind_change.say


def test_the_change_of_mind_reaches_the_llm_user_with_its_new_value():
    d = _domain("support")
    text = _user_prompt(d, d.tasks["sup_changes_mind_cancel_to_address"])
    assert "18 Birch Lane, Madison, WI 53711" in text
    # the trigger is the task's: a confirmation request about cancelling, in any wording
    assert "asks you to confirm something about cancel" in text


@pytest.mark.parametrize("domain", ["support", "tutoring"])
def test_persona_texts_never_ask_the_user_to_invent_facts(domain):
    from envs.spec.personas import load_dimensions

    for dim, values in load_dimensions(domain).items():
        for value, text in values.items():
            assert "nobody asked for" not in text and "misremember" not in text.lower(), f"{domain}: {dim}.{value}: {text}"


def _prompts_cli(*args):
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.run([sys.executable, "-m", "envs.prompts", *args], capture_output=True, text=True, env=env, timeout=120)


def test_envs_prompts_prints_what_each_role_is_sent_by_the_actors_own_code():
    from envs.prompts import build

    t = "sup_changes_mind_cancel_to_address"
    user = build("support", t, "user", turn=1)
    assert user[0]["messages"][0]["content"].startswith("You are playing a customer")
    assert "18 Birch Lane" in user[0]["messages"][0]["content"] and user[0]["messages"][-1]["role"] == "user"
    agent = build("support", t, "agent", turn=0)
    assert agent[0]["messages"][0]["role"] == "system" and "# Policy" in agent[0]["messages"][0]["content"]
    assert {x["function"]["name"] for x in agent[0]["tools"]} == set(get_domain("support").agent_tools.tools)
    assert [m["role"] for m in agent[0]["messages"]] == ["system", "user"] and "O-92101" in agent[0]["messages"][1]["content"]
    as_json = build("support", t, "agent", turn=0, tool_mode="json")
    assert "tools" not in as_json[0] and "cancel_order" in as_json[0]["messages"][0]["content"]
    # the judge: one request per turn; rules with a check are named, never sent
    judged = build("tutoring", "tutoring-02-tp02-add-denominators", "judge", turn=0)
    assert judged and "decided by checks, not sent" in judged[0]["what"]
    # the same seed draws the same situations as the runner: the opening's situation is the run's
    from envs.episode.step import episode_seed

    task = get_domain("tutoring").tasks["tutoring-02-tp02-add-denominators"]
    drawn = random.Random(episode_seed(3, task.id, 0)).choice(task.scenario.situations)
    assert f"(situation {drawn})" in build("tutoring", task.id, "user", turn=0, seed=3)[0]["what"]

    out = _prompts_cli("--domain", "tutoring", "--task", "tutoring-02-tp02-add-denominators", "--role", "agent", "--turn", "1")
    assert out.returncode == 0 and "--- system ---" in out.stdout and "--- tools ---" in out.stdout and "give_hint" in out.stdout


@pytest.mark.parametrize(
    "args,reason",
    [
        (["--domain", "nope", "--task", "x", "--role", "user"], "unknown domain"),
        (["--domain", "support", "--task", "nope", "--role", "user"], "no task 'nope'"),
        (["--domain", "support", "--task", "sup_change_address", "--role", "boss"], "unknown role"),
        (["--domain", "support", "--task", "sup_change_address", "--role", "user", "--turn", "99"], "ends before"),
    ],
)
def test_envs_prompts_fails_in_one_line(args, reason):
    out = _prompts_cli(*args)
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and reason in lines[0] and "Traceback" not in out.stderr


@pytest.mark.parametrize("domain", ["support", "tutoring"])
def test_user_prompt_of_every_shipped_task_names_no_internal_id_in_a_user_tool(domain):
    """A user tool takes what the person knows (an order number the domain's topics name as an
    entity, their own email), never a record id only the agent's tools show (a customer id)."""
    import re as _re

    from envs.prompts import build

    d = get_domain(domain)
    entities = set(d.topics.spec.entities)
    for tid in sorted(d.tasks):
        for req in build(domain, tid, "user", turn=0):
            tools = req.get("tools") or []
            text = " ".join(str(m.get("content") or "") for m in req["messages"])
            for t in tools:
                fn = t.get("function", t)
                for name in fn.get("parameters", {}).get("properties", {}):
                    assert not (name.endswith("_id") and name not in entities), (tid, fn["name"], name)
            for m in _re.finditer(r"\b(\w+_id)\b", text):
                assert m.group(1) in entities, (tid, m.group(1))
            assert not _re.search(r"\bC-\d{5}\b", text), tid


def test_judge_prompt_of_prefer_rules_with_judge():
    from envs.domain import get_domain

    import json

    from envs.prompts import build as build_requests

    domain = get_domain("support")
    prefer = {r.id for r in domain.rules.values() if r.check is not None and r.judge == "prefer"}
    plain = build_requests("support", "sup_ambig_one_item", "judge", turn=0)[0]
    judged = build_requests("support", "sup_ambig_one_item", "judge", turn=0, with_judge=True)[0]
    sent = {rid for rid in prefer if f"[RULE {rid}]" in json.dumps(judged["messages"])}
    assert sent and not any(f"[RULE {rid}]" in json.dumps(plain["messages"]) for rid in prefer)
    assert "with --judge, sent to the judge: " in plain["what"] and all(r in plain["what"] for r in sent)
