"""tools/compare_gradings.py: two records of the corpus compare equal, or every change is reported."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from conftest import REPO, load_script

cmp = load_script("compare_gradings", REPO / "tools" / "compare_gradings.py")


def _record() -> dict:
    report = {"submission": "upload", "seed": 3, "score": 5.0, "max_score": 6.0, "notes": [],
              "checks": [{"id": "w2v_sigmoid", "score": 1.0, "max_score": 1.0, "status": "passed",
                          "feedback": ["4/4 randomized trials passed."]},
                         {"id": "sgd_update", "score": 4.0, "max_score": 5.0, "status": "failed",
                          "feedback": ["1/5 randomized trials failed.", "the step goes uphill"]}]}
    results = {"score": 5.0, "output": "Seed: 3",
               "tests": [{"score": 1.0, "max_score": 1.0, "output": "4/4 randomized trials passed.",
                          "extra_data": {"check_id": "w2v_sigmoid"}},
                         {"score": 4.0, "max_score": 5.0, "output": "the step goes uphill",
                          "extra_data": {"check_id": "sgd_update"}}]}
    entry = {"id": "buggy/sgd_uphill", "seed": 3, "status": "ok", "report": report, "results": results}
    return {"gradings": {"buggy/sgd_uphill@3": entry}}


def test_identical_records_have_no_difference():
    gradings, checks, diffs = cmp.compare(_record(), _record())
    assert (gradings, checks, diffs) == (1, 2, [])


def test_a_changed_score_and_a_changed_message_are_both_reported(tmp_path: Path, capsys):
    after = copy.deepcopy(_record())
    entry = after["gradings"]["buggy/sgd_uphill@3"]
    entry["report"]["checks"][1]["score"] = 3.0
    entry["report"]["checks"][0]["feedback"] = ["3/4 randomized trials passed."]
    gradings, checks, diffs = cmp.compare(_record(), after)
    assert (gradings, checks) == (1, 2)
    assert ("buggy/sgd_uphill", 3, "sgd_update", "report.checks.score", 4.0, 3.0) in diffs
    assert ("buggy/sgd_uphill", 3, "w2v_sigmoid", "report.checks.feedback",
            ["4/4 randomized trials passed."], ["3/4 randomized trials passed."]) in diffs
    assert len(diffs) == 2
    (tmp_path / "a.json").write_text(json.dumps(_record()))
    (tmp_path / "b.json").write_text(json.dumps(after))
    assert cmp.main(["compare", str(tmp_path / "a.json"), str(tmp_path / "a.json")]) == 0
    assert cmp.main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 1
    shown = capsys.readouterr().out
    assert "compared 1 gradings, 2 check results: 2 difference(s)" in shown and "sgd_update" in shown


def test_a_missing_grading_is_a_difference():
    after = {"gradings": {}}
    assert cmp.compare(_record(), after)[2] == [("buggy/sgd_uphill", 3, "-", "grading", "present", "absent")]


def test_durations_temporary_paths_and_pids_are_normalized():
    norm = cmp.normalizer("/work/checkout")
    got = norm({"seconds": 1.5, "checks": [{"execution_time": 2.0, "score": 0.5, "feedback": [
        "/tmp/a2grader-cmp-k3j_x9ab/upload.zip: pid 4242", "/work/checkout/grader", "/tmp/a2grader-evil.py",
        "/tmp/a2grader-sandbox-0a1b2c3d/run on 2026-11-26 at 06:15:46"]}]})
    assert got == {"checks": [{"score": 0.5, "feedback": [
        "/tmp/a2grader-cmp-XXXXXXXX/upload.zip: pid <PID>", "<REPO>/grader", "/tmp/a2grader-evil.py",
        "/tmp/a2grader-sandbox-XXXXXXXX/run on <DATE> at <TIME>"]}]}


def test_records_are_normalized_when_compared():
    before, after = _record(), copy.deepcopy(_record())
    before["repo"], after["repo"] = "/work/a", "/work/b"
    before["gradings"]["buggy/sgd_uphill@3"]["report"]["seconds"] = 1.0
    before["gradings"]["buggy/sgd_uphill@3"]["report"]["notes"] = ["/work/a/reference was read"]
    after["gradings"]["buggy/sgd_uphill@3"]["report"]["notes"] = ["/work/b/reference was read"]
    assert cmp.compare(before, after)[2] == []


def test_the_measured_training_cost_is_normalized_and_the_size_it_leads_to_is_not():
    norm = cmp.normalizer("/work/checkout")
    note = "Note: your training costs {} ms per example here, so 5.9 trained on {} training examples"
    assert norm(note.format("3.7", "12,000")) == norm(note.format("4.1", "12,000"))
    assert norm(note.format("3.7", "12,000")) != norm(note.format("3.7", "8,000"))


def _racy(status: str, score: float, output: str) -> dict:
    record = _record()
    entry = record["gradings"].pop("buggy/sgd_uphill@3")
    entry["id"] = "hostile/thread_forges_replies"
    entry["report"]["checks"][0].update(status=status, score=score, ran=status != "error")
    entry["results"]["tests"][0].update(number="1.1", score=score, output=output,
                                        extra_data={"check_id": "w2v_sigmoid", "grader_status": status})
    record["gradings"]["hostile/thread_forges_replies@3"] = entry
    return record


def test_the_racy_grading_is_compared_by_score_alone():
    """Two runs of one commit: the forged reply hit the import ("error") or a call ("crashed")."""
    assert cmp.compare(_racy("error", 0.0, "Error. importing"), _racy("crashed", 0.0, "Crashed. sigmoid(x)"))[2] == []
    diffs = cmp.compare(_racy("error", 0.0, "Error."), _racy("passed", 1.0, "4/4 passed"))[2]
    assert {d[3] for d in diffs} >= {"report.checks.score"}
