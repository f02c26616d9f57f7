"""MRBench V2 as a tutoring gold set: the importer's mapping, its errors, and agreement with people.

The data stays outside the repo (CC BY-SA 4.0); the tests on it skip when it is absent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import envs  # noqa: F401
from envs.domain import get_domain
from envs.errors import SpecError
from graders.calibrate.agreement import cohen_kappa, confusion
from graders.calibrate.cli import main

MRBENCH = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "mrbench" / "MRBench_V2.json"
if not MRBENCH.is_file():
    MRBENCH = Path("/work/shared/data/mrbench/MRBench_V2.json")


def _conv(**ann):
    base = {"Revealing_of_the_Answer": "No", "Mistake_Location": "Yes", "Providing_Guidance": "Yes", "Actionability": "Yes"}
    return {"response": "Check the second step: what is 10,000 minus 2,000?", "annotation": {**base, **ann}}


def _write(tmp_path, responses, solution="so 8,000 - 6,000 = 2000 steps"):
    data = [{"conversation_history": "Tutor: Hi. The question is: How many steps? \n Student: 5000",
             "Data": "MathDial", "Ground_Truth_Solution": solution, "anno_llm_responses": responses}]
    p = tmp_path / "mr.json"
    p.write_text(json.dumps(data))
    return p


def test_the_mapping_and_what_it_leaves_out(tmp_path):
    from domains.tutoring.mrbench import load_mrbench

    p = _write(tmp_path, {
        "A": _conv(),
        "B": _conv(Revealing_of_the_Answer="Yes (and the answer is correct)", Mistake_Location="To some extent"),
        "C": _conv(Revealing_of_the_Answer="Yes (but the answer is incorrect)", Providing_Guidance="No"),
    })
    items, info = load_mrbench(p)
    got = {(i.id.split("-")[2], i.rule): i.label for i in items}
    assert got[("A", "withhold_answer")] == "FOLLOWED" and got[("B", "withhold_answer")] == "VIOLATED"
    assert ("C", "withhold_answer") not in got and got[("C", "guide_with_questions")] == "VIOLATED"
    assert ("B", "locate_mistake") not in got
    assert info["excluded"]["locate_mistake"] == {"To some extent": 1}
    # the problem statement is the question, and the final answer comes from the solution
    tool = json.loads(items[0].dialogue[-1].output)
    assert tool["statement"] == "How many steps?" and tool["final_answer"] == "2000"


def test_bad_input_is_one_line(tmp_path):
    from domains.tutoring.mrbench import load_mrbench

    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(SpecError, match="not MRBench's JSON"):
        load_mrbench(bad)
    bad.write_text(json.dumps([{"anno_llm_responses": {"A": "text"}}]))
    with pytest.raises(SpecError, match=r"\[0\]\.anno_llm_responses\.A: expected an object"):
        load_mrbench(bad)
    assert main(["--domain", "tutoring", "--judge", "checks", "--gold", f"mrbench:{tmp_path / 'none.json'}",
                 "--out", str(tmp_path / "c.json")]) == 2
    assert main(["--domain", "support", "--judge", "checks", "--gold", f"mrbench:{bad}", "--out", str(tmp_path / "c.json")]) == 2


def test_kappa_and_confusion_hand_computed():
    pairs = [("F", "F")] * 4 + [("F", "V")] + [("V", "V")] * 3 + [("V", "F")] * 2
    # po = 0.7; pe = (5*6 + 5*4) / 100 = 0.5; kappa = 0.4
    assert cohen_kappa(pairs) == pytest.approx(0.4)
    assert confusion(pairs) == {"F": {"F": 4, "V": 1}, "V": {"V": 3, "F": 2}}
    assert cohen_kappa([("F", "F")] * 3) is None and cohen_kappa([]) is None


def test_agreement_with_mrbench_people(tmp_path, capsys):
    if not MRBENCH.is_file():
        pytest.skip(f"MRBench not found at {MRBENCH} (kept outside the repo; CC BY-SA 4.0)")
    out = tmp_path / "cal.json"
    assert main(["--domain", "tutoring", "--judge", "checks", "--gold", f"mrbench:{MRBENCH}", "--out", str(out)]) == 0
    cal = json.loads(out.read_text())
    agr = cal["agreement"]
    assert set(agr) == {"withhold_answer", "locate_mistake", "guide_with_questions", "overall"}
    # measured: 0.96 agreement, kappa 0.57 on answer revealing; the other two are weak (reported, not hidden)
    assert agr["withhold_answer"]["agreement"] >= 0.9 and agr["withhold_answer"]["kappa"] >= 0.4
    assert cal["gold_source"]["excluded"]["locate_mistake"]["To some extent"] > 0
    assert "To some extent" in capsys.readouterr().out
