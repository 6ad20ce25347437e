"""End to end: the engine and the CLI on the reference, the template and misbehaving submissions."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from conftest import REFERENCE, RESULTS_SCHEMA, TEMPLATE, assemble

from grader.cli import main
from grader.run.check_api import all_checks
from grader.run.engine import grade
from grader.run.settings import GradingSettings

ALTERNATIVE = Path(__file__).parent / "submissions" / "alternative"
# The quick checks: everything but training (which has its own slow tests).
QUICK = [cid for cid in all_checks() if not cid.startswith("train")]


def submission_with(tmp_path: Path, **files: str) -> Path:
    """The reference's student files, some replaced by the given sources."""
    dest = assemble(None, tmp_path / "submission")
    for key, source in files.items():
        (dest / f"{key}.py").write_text(source)
    return dest


def by_id(report):
    return {c.id: c for c in report.checks}


def test_reference_full_marks_on_quick_checks():
    report = grade(REFERENCE, GradingSettings(seed=7, only=QUICK))
    assert [c.id for c in report.checks if c.score < c.max_score] == []


def test_template_scores_zero_with_not_implemented_messages():
    report = grade(TEMPLATE, GradingSettings(seed=7, only=QUICK))
    assert report.score == 0
    assert all("not implemented yet" in "\n".join(c.outcome.feedback) for c in report.checks), \
        [(c.id, c.outcome.feedback[:2]) for c in report.checks]


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(20))
def test_alternative_correct_solution_full_marks(seed, tmp_path):
    sub = submission_with(tmp_path)
    for path in ALTERNATIVE.glob("*.py"):
        shutil.copyfile(path, sub / path.name)
    report = grade(sub, GradingSettings(seed=seed, only=QUICK))
    bad = {c.id: c.outcome.feedback for c in report.checks if c.score < c.max_score}
    assert bad == {}


def test_same_seed_same_report():
    ids = ["w2v_naive_softmax", "pp_parse_step", "mb_random_model"]
    a, b = grade(REFERENCE, GradingSettings(seed=11, only=ids)), grade(REFERENCE, GradingSettings(seed=11, only=ids))
    assert [(c.id, c.outcome) for c in a.checks] == [(c.id, c.outcome) for c in b.checks]


def test_missing_file_costs_only_its_part(tmp_path):
    sub = submission_with(tmp_path)
    (sub / "sgd.py").unlink()
    report = by_id(grade(sub, GradingSettings(seed=3, only=["sgd_update", "w2v_sigmoid"])))
    assert report["sgd_update"].score == 0
    assert "sgd.py was not found in your submission" in report["sgd_update"].outcome.feedback[0]
    assert report["w2v_sigmoid"].passed


def test_syntax_error_reported_with_student_traceback(tmp_path):
    sub = submission_with(tmp_path, sgd="def sgd(:\n    pass\n")
    report = by_id(grade(sub, GradingSettings(seed=3, only=["sgd_update", "pp_init"])))
    text = "\n".join(report["sgd_update"].outcome.feedback)
    assert "importing sgd.py raised SyntaxError" in text and "sgd.py" in text
    assert report["pp_init"].passed


def test_hang_at_import_is_a_timeout_on_its_part_only(tmp_path):
    sub = submission_with(tmp_path, sgd="while True:\n    pass\n")
    report = by_id(grade(sub, GradingSettings(seed=3, only=["sgd_update", "sgd_anneal", "w2v_sigmoid"], import_timeout=3)))
    assert report["sgd_update"].score == 0 and "stopped after 3 s" in report["sgd_update"].outcome.feedback[0]
    assert report["sgd_anneal"].score == 0
    assert report["w2v_sigmoid"].passed


def test_exit_and_crash_cost_only_the_checks_they_touch(tmp_path):
    transitions = (REFERENCE / "parser_transitions.py").read_text().replace(
        '        if transition == "S":\n', '        import os\n        os._exit(0)\n        if transition == "S":\n', 1)
    sub = submission_with(tmp_path, sgd="import sys\nsys.exit(0)\n", parser_transitions=transitions)
    report = by_id(grade(sub, GradingSettings(seed=3, only=["sgd_update", "pp_init", "pp_parse_step", "w2v_sigmoid"])))
    assert report["sgd_update"].score == 0
    assert report["pp_parse_step"].status == "crashed"
    assert "process running your code died" in report["pp_parse_step"].outcome.feedback[0]
    assert report["pp_init"].passed and report["w2v_sigmoid"].passed


def test_infinite_loop_in_minibatch_parse_is_a_timeout_of_that_check(tmp_path, monkeypatch):
    source = (REFERENCE / "parser_transitions.py").read_text().replace(
        "    while unfinished:\n", "    while True:\n        pass\n    while unfinished:\n", 1)
    sub = submission_with(tmp_path, parser_transitions=source)
    import grader.run.rubric as rubric_mod
    rubric = rubric_mod.load_rubric()
    specs = tuple(s if s.part != "3d" else rubric_mod.CheckSpec(**{**s.__dict__, "timeout": 2.0})
                  for s in rubric.checks)
    rubric = rubric_mod.Rubric(rubric.parts, specs, rubric.path)
    report = by_id(grade(sub, GradingSettings(seed=3, rubric=rubric, only=["mb_results", "pp_parse"])))
    assert report["mb_results"].status == "timeout"
    assert report["pp_parse"].passed


def test_cli_grade_writes_valid_results_and_replays_seed(tmp_path):
    runner = CliRunner()
    out = tmp_path / "results.json"
    args = ["grade", str(REFERENCE), "--results", str(out), "--seed", "5", "--json"]
    first = runner.invoke(main, args)
    assert first.exit_code == 0, first.output
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, RESULTS_SCHEMA)
    assert doc["extra_data"]["seed"] == 5
    scripted = json.loads(first.output)
    assert scripted["seed"] == 5 and scripted["score"] == doc["score"]
    second = runner.invoke(main, args)
    assert json.loads(out.read_text())["tests"] == doc["tests"]
    assert second.exit_code == 0


def test_cli_grade_unreadable_upload_still_writes_results(tmp_path):
    bad = tmp_path / "upload.zip"
    bad.write_bytes(b"garbage")
    out = tmp_path / "results.json"
    result = CliRunner().invoke(main, ["grade", str(bad), "--results", str(out)])
    assert result.exit_code == 1 and "not a readable zip" in result.output
    jsonschema.validate(json.loads(out.read_text()), RESULTS_SCHEMA)


def test_cli_check_exit_status(tmp_path):
    runner = CliRunner()
    failing = runner.invoke(main, ["check", str(TEMPLATE), "--quiet"])
    assert failing.exit_code == 1
    assert "Total: 0 /" in failing.output and "not implemented yet" in failing.output
