"""cross_task_repetition: sentence splitting and folding, the figure on planted transcripts, and
the summary's simulator block recounted from a real run's records."""

from __future__ import annotations

import json

from envs.records import AgentEvent, EpisodeRecord, UserEvent
from graders.repetition import cross_task_repetition, describe_repetition, sentence_key, sentences


def ep(task: str, repeat: int, *lines: str) -> EpisodeRecord:
    events = []
    for i, line in enumerate(lines):
        events += [UserEvent(turn=i, content=line), AgentEvent(turn=i, content="I see. Could you tell me more about it please?")]
    return EpisodeRecord(episode_id=f"{task}#{repeat}", task_id=task, domain="support", repeat=repeat, seed=1, transcript=events)


def test_sentences_split_at_ends_and_keep_emails_and_ids():
    assert sentences("Hi there. My email is jane.doe@example.com! Is order #W2001 late?\nThanks ###STOP###") == [
        "Hi there.", "My email is jane.doe@example.com!", "Is order #W2001 late?", "Thanks",
    ]


def test_key_folds_case_space_digits_and_edge_punctuation():
    assert sentence_key("My  order #W2001 never arrived!") == sentence_key("my order #W417 never arrived.")
    assert sentence_key("My order never arrived") != sentence_key("My parcel never arrived")


def test_figure_counts_occurrences_in_three_or_more_tasks():
    shared = "Thanks for picking this up today."  # 6 words, said in tasks a, b, c
    recs = [
        ep("a", 0, shared + " My order #W1 is late.", "Yes."),
        ep("b", 0, shared, "My order #W2 is late."),
        ep("c", 0, shared + " Something else entirely is wrong here."),
        ep("c", 1, "A completely different opening line here."),  # same task again: not a new task
        ep("d", 0, "My order #W3 is late.", "Short one."),  # 'my order #0 is late' only 5 words: counted, in a, b, d
    ]
    rep = cross_task_repetition(recs)
    # long-enough sentences: a: 2, b: 2, c: 2 + 1, d: 1 -> 8; 'yes.', 'short one.' are too short
    assert rep.sentences == 8
    # shared (3 tasks, 3 times) and 'my order #0 is late' (a, b, d: 3 times) are in 3+ tasks
    assert rep.repeated == 6 and rep.repeated_distinct == 2
    assert abs(rep.share - 6 / 8) < 1e-12
    assert rep.tasks == 4 and rep.max_tasks == 3 and rep.max_task_share == 0.75
    assert rep.within_episode == 0
    assert "cross_task_repetition 0.750" in describe_repetition(rep)


def test_within_episode_repeat_is_counted():
    rep = cross_task_repetition([ep("a", 0, "I really need this sorted out today.", "Fine. I really need this sorted out today!")])
    assert rep.within_episode == 1 and rep.within_episode_examples[0].startswith("a#0: ")
    assert rep.share == 0.0  # one task only


def test_no_user_sentences_gives_none():
    rep = cross_task_repetition([ep("a", 0, "Ok.")])
    assert rep.share is None and rep.max_task_share is None and describe_repetition(rep) == ""


def test_run_summary_block_matches_the_records(tmp_path, played_runs):
    out = played_runs.copy(played_runs.CAREFUL2, tmp_path / "run")
    s = json.loads((out / "summary.json").read_text())
    recs = [EpisodeRecord.model_validate_json(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    got = s["simulator"]["cross_task_repetition"]
    assert got == json.loads(cross_task_repetition(recs).model_dump_json())
    assert got["tasks"] == len({r.task_id for r in recs}) and 0 <= got["share"] <= 1
    schema = json.loads((out / "summary.schema.json").read_text())
    assert "cross_task_repetition" in json.dumps(schema)
    assert "Templated lines: cross_task_repetition" in (out / "report.html").read_text()


def test_the_main_runs_customers_sound_like_different_people(played_runs):
    """The README's main run (168 tasks x 8 repeats): its scripted customers, drawing their words per
    episode from pools built of independent slots, share few sentences across tasks (0.199 when each
    task spoke one fixed set of lines, 0.400 once those were drawn per episode from the same pools)."""
    rep = cross_task_repetition(played_runs.records(played_runs.MAIN))
    assert rep.share <= 0.15, rep.top
    assert rep.max_task_share <= 0.2, rep.max_sentence
    assert rep.within_episode == 0, rep.within_episode_examples
