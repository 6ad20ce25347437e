"""Reporters: results.json follows Gradescope's schema; the table and JSON carry the seed."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from rich.console import Console

from grader.reports import gradescope, jsonout, terminal
from grader.results import ERROR, TIMEOUT, CheckResult, GradeReport, Outcome, score_outcome

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "gradescope_results.schema.json").read_text())


def sample_report() -> GradeReport:
    passed = Outcome(6, 6, ("6/6 randomized trials passed.",))
    partial = Outcome(4, 6, ("4/6 randomized trials passed.", "First failures:", "- gradCenterVec: sign"))
    timed_out = Outcome(0, 1, ("stopped after 30 s",), status=TIMEOUT)
    board = Outcome(1, 1, ("ok",), leaderboard=(("dev UAS", 87.5),))
    checks = (
        CheckResult("a", "word2vec", "A", "1.1", 4.0, score_outcome(passed, 4, True), "visible", passed, 0.1),
        CheckResult("b", "word2vec", "B", "1.2", 3.0, score_outcome(partial, 3, True), "hidden", partial, 0.2),
        CheckResult("c", "3d", "C", "4.1", 2.0, score_outcome(timed_out, 2, True), "after_due_date", timed_out, 30.0),
        CheckResult("d", "3e_iii", "D", "5.9", 2.0, score_outcome(board, 2, False), "visible", board, 5.0),
    )
    return GradeReport("sub", 1234, checks, 40.0, ("a note",))


def test_scores_follow_partial_credit_rule():
    assert score_outcome(Outcome(4, 6), 3, True) == 2.0
    assert score_outcome(Outcome(4, 6), 3, False) == 0.0
    assert score_outcome(Outcome(6, 6), 3, False) == 3.0
    assert score_outcome(Outcome(0, 1, status=ERROR), 3, True) == 0.0


def test_results_json_matches_gradescope_schema():
    doc = gradescope.to_results_json(sample_report())
    jsonschema.validate(doc, SCHEMA)
    assert doc["score"] == 4 + 2 + 0 + 2
    assert [t["status"] for t in doc["tests"]] == ["passed", "failed", "failed", "passed"]
    assert doc["tests"][2]["output"].startswith("Timed out.")
    assert doc["leaderboard"] == [{"name": "dev UAS", "value": 87.5}]
    assert "--seed 1234" in doc["output"]


def test_fallback_results_match_schema(tmp_path):
    path = tmp_path / "out" / "results.json"
    gradescope.write_json_atomic(gradescope.fallback_results("could not read"), path)
    jsonschema.validate(json.loads(path.read_text()), SCHEMA)
    assert list(path.parent.iterdir()) == [path]


def test_json_report_and_table_carry_seed_and_reasons():
    report = sample_report()
    doc = jsonout.to_json(report)
    assert doc["seed"] == 1234 and doc["score"] == 8.0 and doc["max_score"] == 11.0
    assert doc["checks"][1]["trials_passed"] == 4
    console = Console(record=True, width=160)
    terminal.render(report, console)
    text = console.export_text()
    assert "seed 1234" in text and "Total: 8 / 11" in text
    assert "gradCenterVec: sign" in text and "TIMEOUT" in text
