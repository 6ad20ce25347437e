"""A test-file assignment (grader/testfiles/): examples/numpy_warmup, a course whose checks are its own
gradescope-utils unittest file and pytest file, graded end to end behind the sandbox; each decorator's
effect; hostile submissions costing only the tests they break; the kit shipping visible tests only."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import REPO
from test_static import framework_mentions

from grader.run import course_tests as test_list
from grader.run.course_tests import rubric_entries
from grader.testfiles import kit as test_kit
from grader.testfiles.kit import strip_tests
from grader.testfiles.outcome import SHARES, outcome_of

COURSE = REPO / "examples" / "numpy_warmup"
HOSTILE = REPO / "tests" / "testfile_submissions"
HIDDEN = "test_arrays.py::TestArrays::test_secret_input_unchanged"
HIDDEN_NAME = "the argument is left unchanged"


def grader(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", "--root", str(COURSE), *args], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout)


_GRADED: dict[str, dict] = {}


def graded(submission: Path, tmp: Path) -> dict:
    """results.json of grading ``submission`` (once a session)."""
    if str(submission) not in _GRADED:
        out = tmp / f"{submission.name}.json"
        result = grader("grade", str(submission), "--results", str(out), "--seed", "7")
        assert out.is_file(), result.stdout + result.stderr
        _GRADED[str(submission)] = json.loads(out.read_text())
    return _GRADED[str(submission)]


def by_id(doc: dict) -> dict[str, dict]:
    return {t["extra_data"]["check_id"]: t for t in doc["tests"]}


# -- without the sandbox: the rules themselves -------------------------------------------------------

def test_the_framework_names_nothing_of_the_second_assignment():
    """No string or name of grader/ is one of the example's student files, functions, test files or test ids."""
    words = {p.name for p in (COURSE / "student_template").glob("*.py")}
    for path in [*(COURSE / "reference").glob("*.py"), *(COURSE / "tests").glob("*.py")]:
        tree = ast.parse(path.read_text())
        words |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        if path.parent.name == "tests":
            words.add(path.name)
    assert {"arrays.py", "one_hot", "TestArrays", "test_stats.py", "test_secret_input_unchanged"} <= words
    assert framework_mentions(words) == set()


def _test(**fields) -> test_list.TestInfo:
    return test_list.TestInfo(**{"id": "t.py::T::test_a", "file": "t.py", "name": "test_a", "cls": "T", **fields})


def test_a_test_passes_fails_or_errs_on_what_the_worker_said_only():
    test = _test(weight=2)
    assert outcome_of(test, {"outcome": "passed"}).trials_passed == 1
    failed = outcome_of(test, {"outcome": "failed", "message": "AssertionError: 3 != 4"})
    assert (failed.trials_passed, failed.status) == (0, "failed") and "3 != 4" in " ".join(failed.feedback)
    assert outcome_of(test, {"outcome": "error", "message": "x"}).status == "error"
    assert outcome_of(test, "a forged reply").status == "error"
    assert outcome_of(test, {"outcome": "passed", "score": 1e9}).trials_passed == 1     # no @partial_credit: no score
    hidden = outcome_of(_test(hide_errors="wrong"), {"outcome": "failed", "message": "the secret input"})
    assert "secret" not in " ".join(hidden.feedback) and "wrong" in hidden.feedback


def test_partial_credit_is_the_share_set_score_gave_bounded_to_the_weight():
    test = _test(weight=4, partial=True)
    assert outcome_of(test, {"outcome": "failed", "score": 1.0}).trials_passed == SHARES // 4
    assert outcome_of(test, {"outcome": "passed", "score": 1e9}).trials_passed == SHARES     # never above the weight
    assert outcome_of(test, {"outcome": "passed", "score": -5}).trials_passed == 0
    assert outcome_of(test, {"outcome": "passed", "score": float("nan")}).trials_passed == 1   # not a number: ignored


def test_a_leaderboard_entry_is_a_number_under_the_decorators_column():
    test = _test(leaderboard="speed")
    assert outcome_of(test, {"outcome": "passed", "leaderboard": 3.5}).leaderboard == (("speed", 3.5),)
    assert outcome_of(test, {"outcome": "passed", "leaderboard": "fast"}).leaderboard == ()
    assert outcome_of(_test(), {"outcome": "passed", "leaderboard": 3.5}).leaderboard == ()


def test_rubric_lines_come_from_the_decorators_and_a_rubric_line_wins():
    tests = (_test(weight=2, number="1.1", tags=("rows",), visibility="after_due_date", doc="first"),
             _test(id="t.py::T::test_b", name="test_b"),
             _test(id="u.py::test_c", file="u.py", name="test_c", cls=None, weight=1, partial=True))
    data = {"tests": {"folder": "tests", "points": 5},
            "checks": [{"id": "t.py::T::test_a", "points": 3, "tags": ["mine"]}, {"id": "u.py::test_c", "number": "1.2"}]}
    parts, checks = rubric_entries(data, tests)
    a, b, c = checks
    assert (a["points"], a["number"], a["tags"], a["visibility"], a["name"]) == (3, "1.1", ["mine"], "after_due_date", "first")
    assert (b["points"], b["name"]) == (5, "t.py::T::test_b")
    assert b["number"] not in ("1.1", "1.2") and c["number"] == "1.2" and c["partial"] is True
    assert [(p["id"], p["points"]) for p in parts] == [("t", 8), ("u", 1)]


def test_beside_an_assignment_package_its_lines_stay_and_the_tests_number_after_them(monkeypatch):
    monkeypatch.setattr(test_list, "collected", lambda: (_test(weight=1),))
    data = {"assignment": "pkg", "tests": "tests", "parts": [{"id": "p", "kind": "code", "points": 2, "number": "7"}],
            "checks": [{"id": "own", "part": "p", "name": "own", "number": "3.2", "points": 2}]}
    problems: list[str] = []
    out, part_lines, check_lines = test_list.with_tests(data, [4], [9], problems)
    assert problems == [] and [c["id"] for c in out["checks"]] == ["own", "t.py::T::test_a"] and check_lines == [9, 0]
    assert out["checks"][1]["number"] == "8.1" and [p["id"] for p in out["parts"]] == ["p", "t"] and part_lines == [4, 0]
    del data["assignment"]         # a test-file assignment alone: a line naming no test is a mistake, said with its line
    test_list.with_tests(data, [4], [9], problems)
    assert len(problems) == 1 and problems[0].startswith("line 9: check 'own' is no test") and "t.py::T::test_a" in problems[0]


def test_a_held_back_check_the_budget_left_unrun_is_not_named_in_the_visible_output():
    from grader.reports.gradescope import to_results_json
    from grader.run.results import CheckResult, GradeReport, not_run_outcome

    checks = tuple(CheckResult(cid, "p", name, number, 0, 0, visibility, not_run_outcome(), 0.0)
                   for cid, name, number, visibility in (("a", "shown test", "1.1", "visible"),
                                                         ("b", HIDDEN_NAME, "1.2", "hidden")))
    output = to_results_json(GradeReport("s", 1, checks, 1.0))["output"]
    assert "shown test" in output and HIDDEN_NAME not in output


def test_the_kit_copy_of_a_test_file_loses_its_held_back_tests():
    source = (COURSE / "tests" / "test_arrays.py").read_text()
    out = strip_tests(source, {("TestArrays", "test_secret_input_unchanged"), ("TestArrays", "test_one_hot_many_classes")})
    assert "test_secret_input_unchanged" not in out and "test_one_hot_many_classes" not in out
    assert "def test_one_hot(" in out and "@hide_errors" not in out.split("class TestArrays")[1]
    compile(out, "kit", "exec")
    with pytest.raises(test_kit.TestKitError):
        strip_tests("class T:\n    def test_a(self):\n        pass\n", {("T", "test_a")})


# -- behind the sandbox: the example graded end to end ---------------------------------------------------

@pytest.mark.slow
def test_each_decorator_has_its_effect_on_the_reference(tmp_path_factory):
    doc = graded(COURSE / "reference", tmp_path_factory.mktemp("graded"))
    tests = by_id(doc)
    rows = tests["test_arrays.py::TestArrays::test_normalize_rows"]
    assert (rows["max_score"], rows["number"], rows["tags"]) == (2, "1.1", ["test_arrays", "rows", "norms"])  # weight, number, tags
    assert tests["test_arrays.py::TestArrays::test_one_hot"]["number"] == "1.2"                  # @number under @weight
    assert tests["test_arrays.py::TestArrays::test_one_hot_many_classes"]["visibility"] == "after_due_date"
    assert tests["test_stats.py::test_zscore_constant"]["visibility"] == "after_published"
    assert tests["test_stats.py::test_zscore_constant"]["number"] == "2.9"                      # the rubric's line wins
    assert tests["test_stats.py::test_moving_average"]["max_score"] == 2                        # no @weight: the rubric's
    assert tests["test_stats.py::test_moving_average_length[1]"]["max_score"] == 1               # tests: points
    assert (tests[HIDDEN]["visibility"], tests[HIDDEN]["max_score"]) == ("hidden", 0)
    assert doc["score"] == 22 and all(t["score"] == t["max_score"] for t in doc["tests"])
    # @leaderboard over @partial_credit and @partial_credit over @leaderboard: both values reach the board
    assert {e["name"]: e["value"] for e in doc["leaderboard"]} == {"distance error": 0.0, "rows normalized": 10.0}


@pytest.mark.slow
def test_a_hidden_test_is_named_nowhere_students_see(tmp_path_factory):
    doc = graded(COURSE / "reference", tmp_path_factory.mktemp("graded"))
    seen = [doc["output"], *(t["output"] + t["name"] for t in doc["tests"] if t["visibility"] == "visible")]
    assert not any(HIDDEN_NAME in text or "secret" in text for text in seen)


@pytest.mark.slow
def test_partial_credit_and_leaderboard_under_stacked_decorators(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("graded")
    half = by_id(graded(HOSTILE / "half_wrong", tmp))
    assert half["test_arrays.py::TestArrays::test_pairwise_distances"]["score"] == 2.0       # half the entries right
    near = graded(HOSTILE / "near_zero", tmp)
    assert by_id(near)["test_arrays.py::TestArrays::test_distances_to_self"]["score"] == 1.0  # set_score under @leaderboard
    assert dict((e["name"], e["value"]) for e in near["leaderboard"])["distance error"] == pytest.approx(1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("submission, lost", [
    ("exit_at_import", {"test_stats.py"}),                        # sys.exit(0) when stats.py is imported
    ("exit_in_test", {"test_stats.py::test_moving_average"}),     # os._exit(0) inside moving_average
    ("loop_in_one_test", {"test_arrays.py::TestArrays::test_one_hot"}),   # one_hot never returns
    ("fake_results", {"test_stats.py::test_zscore"}),             # writes a forged results.json, patches exits
])
def test_a_hostile_submission_costs_only_the_tests_it_breaks(submission, lost, tmp_path_factory):
    doc = graded(HOSTILE / submission, tmp_path_factory.mktemp("graded"))
    for cid, test in by_id(doc).items():
        broken = any(cid.startswith(prefix) for prefix in lost)
        assert (test["score"] < test["max_score"] or test["max_score"] == 0) if broken else test["score"] == test["max_score"], cid
    assert doc["score"] == round(sum(t["score"] for t in doc["tests"]), 4) < 22
    assert "everything" not in json.dumps(doc)


@pytest.mark.slow
def test_validate_package_batch_and_the_grade_book(tmp_path):
    result = grader("validate")
    assert result.returncode == 0 and "reference: 22/22" in result.stdout and "template: 0/22" in result.stdout, result.stdout
    out = tmp_path / "autograder.zip"
    assert grader("package", "--out", str(out)).returncode == 0
    names = set(zipfile.ZipFile(out).namelist())
    assert {"tests/test_arrays.py", "tests/test_stats.py", "reference/arrays.py", "grader/testfiles/checks.py",
            "grader/untrusted/probes_testfiles.py", "rubric.yaml", "setup.sh"} <= names
    batch = grader("batch", str(HOSTILE), "--out", str(tmp_path / "batch"), "--workers", "1", "--seed", "3")
    assert batch.returncode == 0, batch.stdout + batch.stderr
    grades = (tmp_path / "batch" / "grades.csv").read_text()
    assert "exit_at_import" in grades and "fake_results" in grades
    book = grader("grades", str(tmp_path / "batch"))          # the grade book: no written part, no TA items
    assert book.returncode == 0, book.stdout + book.stderr
    rows = (tmp_path / "batch" / "final_grades.csv").read_text().splitlines()
    assert len(rows) == 1 + len(list(HOSTILE.iterdir()))


@pytest.mark.slow
def test_the_kit_ships_visible_tests_only_and_checks_with_them(tmp_path):
    out = tmp_path / "kit.zip"
    result = grader("kit", "--out", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    with zipfile.ZipFile(out) as zf:
        texts = {n: zf.read(n).decode("utf-8", "replace") for n in zf.namelist()}
        zf.extractall(tmp_path / "kit")
    assert not [n for n, text in texts.items() if "test_secret_input_unchanged" in text or HIDDEN_NAME in text]
    assert not [n for n, text in texts.items() if "test_one_hot_many_classes" in text or "test_zscore_constant" in text]
    assert any(n.endswith("kit_data/tests/test_arrays.py") for n in texts)
    assert not [n for n in texts if n.endswith("reference/arrays.py")]
    # the kit's `grader check` runs the visible tests, here on a copy of the reference's files
    [kit] = [p for p in (tmp_path / "kit").iterdir() if p.is_dir()]
    for name in ("arrays.py", "stats.py"):
        text = (COURSE / "reference" / name).read_text()
        (kit / name).write_text("".join(line for line in text.splitlines(keepends=True) if "SOLUTION" not in line))
    env = {k: v for k, v in os.environ.items() if not k.startswith("A2GRADER_ROOT")}
    check = subprocess.run([sys.executable, "-c", "import sys; from grader.kit.kit_command import main; "
                            "sys.argv = ['grader', 'check', '.']; main()"], cwd=kit, capture_output=True, text=True,
                           env={**env, "PYTHONPATH": str(kit)}, timeout=600)
    assert "Total: 19 / 19" in check.stdout and "(9/9 checks passed" in check.stdout, check.stdout + check.stderr
    assert HIDDEN_NAME not in check.stdout


@pytest.mark.slow
def test_grader_check_in_the_repository_runs_the_visible_tests_only():
    result = grader("check", str(COURSE / "reference"))
    assert "Total: 19 / 19" in result.stdout and HIDDEN_NAME not in result.stdout, result.stdout + result.stderr
