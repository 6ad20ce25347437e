"""Reporters: results.json follows Gradescope's schema; the table and JSON carry the seed."""

from __future__ import annotations

import dataclasses
import json

import jsonschema
from conftest import RESULTS_SCHEMA
from rich.console import Console

from grader.classroom.gradebook import report_from_json
from grader.reports import gradescope, jsonout, terminal
from grader.run.results import (
    ERROR,
    TIMEOUT,
    CheckResult,
    GradeReport,
    ManualItem,
    Outcome,
    WrittenRead,
    score_outcome,
)


def sample_report() -> GradeReport:
    passed = Outcome(6, 6, ("6/6 randomized trials passed.",))
    partial = Outcome(4, 6, ("4/6 randomized trials passed.", "First failures:", "- gradCenterVec: sign"))
    timed_out = Outcome(0, 1, ("stopped after 30 s",), status=TIMEOUT)
    board = Outcome(1, 1, ("ok",), leaderboard=(("dev UAS", 87.5),))
    checks = (
        CheckResult("a", "word2vec", "A", "1.1", 4.0, score_outcome(passed, 4, True), "visible", passed, 0.1),
        CheckResult("b", "word2vec", "B", "1.2", 3.0, score_outcome(partial, 3, True), "after_published", partial, 0.2),
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
    jsonschema.validate(doc, RESULTS_SCHEMA)
    assert doc["score"] == 4 + 2 + 0 + 2
    assert [t["status"] for t in doc["tests"]] == ["passed", "failed", "failed", "passed"]
    assert doc["tests"][2]["output"].startswith("Timed out.")
    assert doc["leaderboard"] == [{"name": "dev UAS", "value": 87.5}]
    assert "--seed 1234" in doc["output"]


def _held_back(report: GradeReport, outcome: Outcome) -> GradeReport:
    """``report`` with every check that is not visible given ``outcome`` instead."""
    checks = tuple(c if c.visibility == "visible" else
                   CheckResult(c.id, c.part, c.name, c.number, c.max_score, score_outcome(outcome, c.max_score, True),
                               c.visibility, outcome, c.seconds) for c in report.checks)
    return GradeReport(report.submission, report.seed, checks, report.seconds, report.notes)


def test_visible_output_states_no_total_that_includes_held_back_checks():
    """Students always see the top-level output; Gradescope hides their total while tests are held
    back (after_due_date, after_published), so the output must not state it either."""
    report = sample_report()
    doc = gradescope.to_results_json(report)
    assert doc["visibility"] == "visible" and doc["score"] == report.score == 8
    assert f"{report.score:g} / {report.max_score:g}" not in doc["output"]
    assert "Score on the checks shown now: 6 / 6" in doc["output"]
    assert ("2 more check(s) worth 5 point(s) are shown when grades are published or after the due date"
            in doc["output"])
    # Nothing in it depends on the held-back verdicts: all passed or all failed, the same text.
    outputs = {gradescope.to_results_json(_held_back(report, o))["output"]
               for o in (Outcome(1, 1), Outcome(0, 1), Outcome(0, 1, status=TIMEOUT))}
    assert len(outputs) == 1
    # Instructors keep the total (extra_data is not shown to students).
    assert doc["extra_data"]["autograder_score"] == 8 and doc["extra_data"]["autograder_max_score"] == 11


def test_visible_output_states_the_total_when_every_check_is_visible():
    base = sample_report()
    checks = tuple(CheckResult(c.id, c.part, c.name, c.number, c.max_score, c.score, "visible", c.outcome, c.seconds)
                   for c in base.checks)
    doc = gradescope.to_results_json(GradeReport(base.submission, base.seed, checks, base.seconds))
    assert "Autograder score: 8 / 11" in doc["output"] and "shown now" not in doc["output"]


def test_fallback_results_match_schema(tmp_path):
    path = tmp_path / "out" / "results.json"
    gradescope.write_json(gradescope.fallback_results("could not read"), path)
    jsonschema.validate(json.loads(path.read_text()), RESULTS_SCHEMA)
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


def report_with_written() -> GradeReport:
    base = sample_report()
    auto = Outcome(1, 2, ("read (w = o): ∂J/∂u_w = (ŷ_o − 1)v_c: right", "read (w ≠ o): ∂J/∂u_w = ŷ_o v_c: wrong"))
    written = CheckResult("1d", "1d", "1(d) dJ/du_w (auto-graded)", "6.6", 4.0, score_outcome(auto, 4, True),
                          "visible", auto, 0.3, kind="written")
    manual = (
        ManualItem("1a", "1(a) naive softmax (for TA grading: 2 points, not in the autograder's score)", "6.1",
                   2.0, "visible", "Because y is one-hot ...", True, "answers.md, line 9"),
        ManualItem("1d", "1(d) dJ/du_w (for TA grading: 1 point, not in the autograder's score)", "6.6.1",
                   1.0, "visible", "No answer found for 1(d).", False),
    )
    return GradeReport(base.submission, base.seed, base.checks + (written,), base.seconds, base.notes, manual)


def test_manual_items_are_pending_tests_without_points_or_a_status_in_results_json():
    doc = gradescope.to_results_json(report_with_written())
    jsonschema.validate(doc, RESULTS_SCHEMA)
    assert doc["score"] == 8 + 2
    numbers = [t["number"] for t in doc["tests"]]
    assert numbers == sorted(numbers, key=lambda n: tuple(map(int, n.split("."))))
    tests = {t["number"]: t for t in doc["tests"]}
    assert (tests["6.6"]["score"], tests["6.6"]["max_score"]) == (2.0, 4.0)
    # Written answers are keyed by question, so consumers of check_id see code checks only.
    assert tests["6.6"]["extra_data"]["question"] == "1d" and "check_id" not in tests["6.6"]["extra_data"]
    assert tests["1.1"]["extra_data"]["check_id"] == "a"
    ta = tests["6.1"]
    # Pending: neither passed (a green tick for points nobody gave) nor failed, and no points.
    assert not {"score", "max_score", "status"} & set(ta) and ta["extra_data"]["pending"] is True
    assert ta["output"].startswith("Pending: graded by a TA after the deadline (2 points)")
    assert "pending" in ta["tags"]
    assert ta["extra_data"]["manual_points"] == 2.0 and "Because y is one-hot" in ta["output"]
    assert "answers.md, line 9" in ta["output"]
    assert tests["6.6.1"]["status"] == "failed" and "No answer found" in tests["6.6.1"]["output"]
    assert (tests["6.6.1"]["score"], tests["6.6.1"]["max_score"]) == (0.0, 0.0)
    assert sum(t.get("score", 0.0) for t in doc["tests"]) == doc["score"]
    assert "Written answers left to TAs: 2 (3 points, not included above)" in doc["output"]


def test_json_and_table_list_manual_items():
    report = report_with_written()
    doc = jsonout.to_json(report)
    assert doc["manual_points"] == 3.0 and [m["id"] for m in doc["manual"]] == ["1a", "1d"]
    assert doc["score"] == 10.0 and doc["max_score"] == 15.0
    console = Console(record=True, width=200)
    terminal.render(report, console)
    out = console.export_text()
    assert "Written answers for TA grading (3 points, not in the total)" in out
    assert "answers.md, line 9" in out and "No answer found for 1(d)." in out
    assert "read (w ≠ o): ∂J/∂u_w = ŷ_o v_c: wrong" in out


WHY = ("case w ≠ o:", "  At a random instance (d = 3, |V| = 5, o = 2) your expression is 0.1 but the true ∂J/∂u_w is 0.2.")


READING = ("Read from answers.md, line 40: w = o: ...; w ≠ o: ...", "The answer was read whole, in the expected place and form.",
           "Files read: answers.md.")


def report_with_explanation(visibility: str = "after_due_date") -> GradeReport:
    """The written item 1(d) with its verdict shown as rubric.yaml's ``explanation`` says."""
    base = report_with_written()
    written = base.checks[-1]
    read = WrittenRead("(ŷ_o − 1)v_c; ŷ_o v_c", "w = o: ...; w ≠ o: ...", "answers.md, line 40", "", WHY, visibility,
                       READING, "visible")
    return GradeReport(base.submission, base.seed,
                       base.checks[:-1] + (dataclasses.replace(written, written=read, visibility=visibility),),
                       base.seconds, base.notes, base.manual)


def test_a_written_verdict_is_held_back_with_its_score_and_what_was_read_is_shown_at_once():
    """Issue 33: a written item's score is its verdict, so its scored entry (the score, what was read,
    what is wrong and the expected form) has the visibility rubric.yaml's explanation gives it; until
    then an entry worth nothing, with no status, says what was read. The score is the same."""
    doc = gradescope.to_results_json(report_with_explanation())
    jsonschema.validate(doc, RESULTS_SCHEMA)
    assert doc["score"] == gradescope.to_results_json(report_with_written())["score"]
    tests = {t["number"]: t for t in doc["tests"]}
    item, reading = tests["6.6"], tests["6.6.0"]
    assert item["visibility"] == "after_due_date" and (item["score"], item["max_score"]) == (2.0, 4.0)
    assert "What is wrong and the expected form:" in item["output"] and "the true ∂J/∂u_w is 0.2" in item["output"]
    assert reading["visibility"] == "visible" and not {"score", "max_score", "status"} & set(reading)
    assert reading["output"] == "\n".join([*READING, "The score and what is wrong are shown after the due date."])
    assert "Score on the checks shown now: 6 / 6" in doc["output"] and "3 more check(s) worth 9 point(s)" in doc["output"]
    shown_now = gradescope.to_results_json(report_with_explanation("visible"))
    tests = {t["number"]: t for t in shown_now["tests"]}
    assert tests["6.6"]["visibility"] == "visible" and "6.6.0" not in tests
    assert "the true ∂J/∂u_w is 0.2" in tests["6.6"]["output"]


def test_instructor_reports_keep_the_explanation():
    report = report_with_explanation()
    doc = jsonout.to_json(report)
    written = next(c for c in doc["checks"] if c["id"] == "1d")["written"]
    assert written["why"] == list(WHY) and written["why_visibility"] == "after_due_date"
    rebuilt = report_from_json(json.loads(json.dumps(doc)))
    assert rebuilt.checks[-1].written == report.checks[-1].written
    console = Console(record=True, width=200)
    terminal.render(report, console)
    out = console.export_text()
    assert "Why (students see it with the score: after due date):" in out and "the true ∂J/∂u_w is 0.2" in out
    assert "Before then students see only what was read:" in out and READING[1] in out
