"""Which course repository the `grader` command acts on (grader/common/paths.py, grader/__main__.py):
--root, else $A2GRADER_ROOT, else the first folder at or above the current one that holds
rubric.yaml and reference/, else the grader's own checkout; the first line of validate, package,
kit and batch names it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO

from grader.common import paths


def _course_copy(tmp: Path) -> Path:
    copy = tmp / "course"
    copy.mkdir()
    shutil.copy(REPO / "rubric.yaml", copy / "rubric.yaml")
    shutil.copytree(REPO / "reference", copy / "reference", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "student_template", copy / "student_template", ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _grader(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("A2GRADER_ROOT")}
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env={**clean, **(env or {})})


def test_the_root_is_chosen_from_the_option_the_variable_or_the_folder(tmp_path: Path):
    copy = _course_copy(tmp_path)
    deep = copy / "reference" / "utils"
    assert paths.find_root(deep) == copy and paths.find_root(tmp_path) is None
    assert paths.choose_root(["validate"], deep, {}) == (copy, "found at or above the current folder", "")
    assert paths.choose_root(["--root", str(copy), "validate"], tmp_path, {})[:2] == (copy, "--root")
    assert paths.choose_root([f"--root={copy}", "batch", "x"], tmp_path, {})[:2] == (copy, "--root")
    assert paths.choose_root(["validate"], deep, {"A2GRADER_ROOT": str(REPO)})[:2] == (REPO, "A2GRADER_ROOT")
    assert paths.choose_root(["validate"], tmp_path, {}) == (None, "", "")
    # A command's own --root-like argument is not the grader's.
    assert paths.root_option(["grade", "--root", "x"]) == (None, ["grade", "--root", "x"])
    _, _, problem = paths.choose_root(["--root", str(tmp_path)], tmp_path, {})
    assert problem.startswith(f"--root {tmp_path}: ") and "rubric.yaml and reference/" in problem


def test_validate_and_package_act_on_the_repository_they_are_run_in(tmp_path: Path):
    copy = _course_copy(tmp_path)
    text = (copy / "rubric.yaml").read_text(encoding="utf-8")
    (copy / "rubric.yaml").write_text(text.replace("defaults:\n  timeout: 30", "defaults:\n  timeot: 30"), encoding="utf-8")
    run = _grader("validate", cwd=copy / "reference")
    first = run.stdout.splitlines()[0]
    assert first == f"course repository: {copy} (found at or above the current folder)", run.stdout
    assert run.returncode != 0 and "timeot" in run.stdout + run.stderr and "75/75" not in run.stdout
    # --root from anywhere; the grader's own checkout when nothing names another.
    run = _grader("--root", str(copy), "package", "--check", cwd=tmp_path)
    assert run.stdout.splitlines()[0] == f"course repository: {copy} (--root)", run.stdout
    run = _grader("package", "--check", cwd=tmp_path)
    assert run.stdout.splitlines()[0] == f"course repository: {REPO} (the checkout the grader runs from)"
    run = _grader("--root", str(tmp_path), "validate", cwd=tmp_path)
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1 and "not a course repository" in run.stderr


def test_an_invalid_rubric_gives_one_line_and_still_a_results_json(tmp_path: Path):
    """A typo'd check id: `grader grade` writes a valid results.json telling staff (not a
    traceback), `grader batch` stops in one line before grading."""
    import json

    from conftest import RESULTS_SCHEMA
    from jsonschema import validate

    copy = _course_copy(tmp_path)
    text = (copy / "rubric.yaml").read_text(encoding="utf-8")
    (copy / "rubric.yaml").write_text(text.replace("{id: w2v_sigmoid,", "{id: w2v_sigmoidd,", 1), encoding="utf-8")
    lines = (copy / "rubric.yaml").read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if "w2v_sigmoidd" in text)
    results = tmp_path / "results.json"
    run = _grader("grade", str(REPO / "examples" / "buggy_submission"), "--results", str(results), cwd=copy)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    errors = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and errors[0].startswith(f"Error: {copy / 'rubric.yaml'}, line {line}: check 'w2v_sigmoidd' "
                                                     "is not registered by the assignment; did you mean 'w2v_sigmoid'"), run.stderr
    doc = json.loads(results.read_text(encoding="utf-8"))
    validate(doc, RESULTS_SCHEMA)
    assert doc["score"] == 0 and "rubric.yaml is invalid" in doc["output"] and "w2v_sigmoidd" in doc["output"]
    assert oct(results.stat().st_mode & 0o777) == "0o644"
    classdir = tmp_path / "class"
    (classdir / "one").mkdir(parents=True)
    run = _grader("batch", str(classdir), "--out", str(tmp_path / "out"), cwd=copy)
    assert run.returncode == 1 and "Traceback" not in run.stderr and "w2v_sigmoidd" in run.stderr
    assert run.stdout.splitlines()[0].startswith(f"course repository: {copy}")


def test_a_rubric_naming_no_assignment_gives_one_line_and_still_a_results_json(tmp_path: Path):
    """rubric.yaml without `assignment:` (or naming a package that is not installed): `grader grade`
    says so in one line with the fix and writes a valid results.json; `grader check` and `grader validate`
    say it too."""
    import json

    from conftest import RESULTS_SCHEMA
    from jsonschema import validate

    copy = _course_copy(tmp_path)
    text = (copy / "rubric.yaml").read_text(encoding="utf-8")
    for rubric, said in ((text.replace("\nassignment: a2\n", "\n", 1), "add a top-level line `assignment: <package>`"),
                         (text.replace("\nassignment: a2\n", "\nassignment: a3\n", 1), "a3.registry cannot be imported")):
        (copy / "rubric.yaml").write_text(rubric, encoding="utf-8")
        results = tmp_path / "results.json"
        run = _grader("grade", str(REPO / "examples" / "buggy_submission"), "--results", str(results), cwd=copy)
        errors = [line for line in run.stderr.splitlines() if line.strip()]
        assert run.returncode == 1 and len(errors) == 1 and said in errors[0], run.stderr
        doc = json.loads(results.read_text(encoding="utf-8"))
        validate(doc, RESULTS_SCHEMA)
        assert doc["score"] == 0 and said in doc["output"]
        for command in (["check", str(REPO / "examples" / "buggy_submission")], ["validate"]):
            run = _grader(*command, cwd=copy)
            assert run.returncode == 1 and "Traceback" not in run.stderr and said in run.stderr, (command, run.stderr)
