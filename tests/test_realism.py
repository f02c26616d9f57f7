"""benchmarks/realism.py: a blind packet (no labels, a key apart) and per-source scores."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import realism  # noqa: E402


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    from envs.run.cli import main

    out = tmp_path_factory.mktemp("r") / "run"
    assert main(["--domain", "support", "--repeats", "1", "--tasks", "sup_cancel*", "sup_change_address", "--out", str(out), "--quiet"]) == 0
    return out


def test_packet_is_blind_and_the_key_says_what_each_item_is(run_dir, tmp_path):
    ref = tmp_path / "people.jsonl"
    ref.write_text(json.dumps({"task_id": "sup_change_address", "turns": [
        {"role": "user", "text": "hey, i moved, can you change where my order goes?"},
        {"role": "agent", "text": "Sure, which order is it?"}]}) + "\n")
    out = tmp_path / "packet"
    assert realism.main(["packet", "--run", f"scripted={run_dir}", "--run", f"other={run_dir}", "--reference", str(ref),
                         "--per-source", "2", "--out", str(out)]) == 0
    key = json.loads((out / "key.json").read_text())
    assert key["sources"] == {"scripted": 2, "other": 2, "reference": 1}
    text = (out / "packet.txt").read_text()
    for word in ("scripted", "other", "reference", "sup_", "###STOP###", "#0", "situation"):
        assert word not in text
    assert "Customer: " in text and "hey, i moved" in text
    items = [json.loads(x) for x in (out / "packet.jsonl").read_text().splitlines()]
    assert sorted(i["item"] for i in items) == sorted(key["items"])
    assert all(t["role"] in ("user", "agent") for i in items for t in i["turns"])


def test_scores_per_source_with_intervals_and_bad_rows_fail(run_dir, tmp_path, capsys):
    out = tmp_path / "p"
    assert realism.main(["packet", "--run", f"a={run_dir}", "--run", f"b={run_dir}", "--per-source", "3", "--out", str(out)]) == 0
    key = json.loads((out / "key.json").read_text())["items"]
    a = [i for i, v in key.items() if v["source"] == "a"]
    b = [i for i, v in key.items() if v["source"] == "b"]
    rows = ["rater,item,score"] + [f"r1,{i},5" for i in a] + [f"r1,{i},1" for i in b] + [f"r2,{i},4" for i in a]
    (tmp_path / "ratings.csv").write_text("\n".join(rows) + "\n")
    assert realism.main(["score", "--key", str(out / "key.json"), str(tmp_path / "ratings.csv"), "--json", str(tmp_path / "s.json")]) == 0
    s = json.loads((tmp_path / "s.json").read_text())
    assert s["sources"]["a"]["mean"] == 4.5 and s["sources"]["a"]["ratings"] == 6 and s["sources"]["b"]["mean"] == 1.0
    lo, hi = s["sources"]["a"]["ci95"]
    assert lo <= 4.5 <= hi and s["raters"]["r1"] == {"a": 5.0, "b": 1.0}
    (tmp_path / "bad.csv").write_text("rater,item,score\nr1,999,3\n")
    assert realism.main(["score", "--key", str(out / "key.json"), str(tmp_path / "bad.csv")]) == 2
    assert "bad.csv: row 2: item '999' is not in the key" in capsys.readouterr().err
    (tmp_path / "bad2.csv").write_text(f"rater,item,score\nr1,{a[0]},7\n")
    assert realism.main(["score", "--key", str(out / "key.json"), str(tmp_path / "bad2.csv")]) == 2


def test_reference_tasks_keep_every_source_on_the_reference_tasks(run_dir, tmp_path, capsys):
    ref = tmp_path / "people.jsonl"
    ref.write_text(json.dumps({"task_id": "sup_change_address", "turns": [{"role": "user", "text": "hi, I moved"}]}) + "\n")
    out = tmp_path / "same"
    assert realism.main(["packet", "--run", f"scripted={run_dir}", "--reference", str(ref), "--reference-tasks",
                         "--per-source", "5", "--out", str(out)]) == 0
    key = json.loads((out / "key.json").read_text())["items"]
    assert {v["task_id"] for v in key.values()} == {"sup_change_address"}
    assert realism.main(["packet", "--run", f"scripted={run_dir}", "--reference-tasks", "--out", str(tmp_path / "x")]) == 2
    assert "--reference-tasks: needs --reference FILE" in capsys.readouterr().err
