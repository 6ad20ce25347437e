"""The student kit end to end: built here, unzipped outside the repository, installed with
`pip install .` into a fresh virtual environment (torch from the local wheel, as pip finds it),
and run as a student runs it. Slow: a kit build (a few minutes) and a torch install."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from kit_support import solution_hits

from a2 import registry
from grader import assignment
from grader.common import paths
from grader.kit import assemble as kit
from grader.reports.student import checked_line, course_points
from grader.run.check_api import all_checks
from grader.run.engine import grade
from grader.run.rubric import load_rubric
from grader.run.settings import GradingSettings

pytestmark = pytest.mark.slow

BUGGY = Path(__file__).parent / "submissions" / "buggy"
#: One bug per file, each judged without the grader's own parser in both: the same verdicts.
MIXED_BUGS = {"word2vec.py": "w2v_grad_sign", "sgd.py": "sgd_uphill", "parser_model.py": "model_no_relu"}


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "A2GRADER", "VIRTUAL_ENV"))}
    env["PATH"] = os.defpath
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    root = tmp_path_factory.mktemp("kit")
    t0 = time.monotonic()
    zip_path = kit.build_kit(root / "a2_student.zip")
    built = time.monotonic() - t0
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(root / "unzipped")
    folder = root / "unzipped" / assignment.registry().KIT_FOLDER
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=_env())
    python = venv / "bin" / "python"
    # The course environment's torch first (the kit declares none): here the local CPU wheel, pinned,
    # never an unpinned torch from the registry (a multi-GB CUDA build).
    subprocess.run([str(python), "-m", "pip", "install", "-q", "torch==2.13.0"], check=True, env=_env(),
                   stdin=subprocess.DEVNULL)
    t0 = time.monotonic()
    subprocess.run([str(python), "-m", "pip", "install", "-q", "."], cwd=folder, check=True, env=_env(),
                   stdin=subprocess.DEVNULL)
    print(f"kit: {zip_path.stat().st_size} bytes, built in {built:.0f} s, installed in {time.monotonic() - t0:.0f} s")
    return {"zip": zip_path, "folder": folder, "grader": venv / "bin" / "grader", "root": root}


def _check(installed, folder: Path, *extra: str) -> tuple[int, dict, float]:
    t0 = time.monotonic()
    done = subprocess.run([str(installed["grader"]), "check", str(folder), "--json", *extra], capture_output=True,
                          text=True, cwd=installed["root"], env=_env(), stdin=subprocess.DEVNULL, timeout=1800)
    seconds = time.monotonic() - t0
    assert done.stdout.strip(), done.stderr
    return done.returncode, json.loads(done.stdout), seconds


def _submission(tmp: Path, files: dict[str, Path]) -> Path:
    tmp.mkdir()
    for name in registry.STUDENT_FILES:
        shutil.copy2(files.get(name, paths.REFERENCE_DIR / name), tmp / name)
    return tmp


def test_installed_kit_outside_the_repository(installed):
    """The installed package is the kit's copy, not this repository's."""
    done = subprocess.run([str(installed["grader"]), "--version"], capture_output=True, text=True, env=_env(),
                          cwd=installed["root"])
    assert done.returncode == 0 and done.stdout.strip().startswith("grader ")
    site = subprocess.run([str(installed["grader"].parent / "python"), "-c",
                           "import grader, sys; print(grader.__file__); print(sys.path)"],
                          capture_output=True, text=True, env=_env(), cwd=installed["root"]).stdout
    assert str(paths.REPO_ROOT) not in site


def test_kit_holds_no_solution(installed):
    assert solution_hits(installed["zip"]) == []


def test_reference_files_score_full_marks(installed, tmp_path):
    code, report, seconds = _check(installed, _submission(tmp_path / "ref", {}))
    print(f"grader check on the reference's files from the kit: {seconds:.1f} s")
    bad = [(c["id"], c["status"], c["feedback"][:2]) for c in report["checks"] if c["score"] < c["max_score"]]
    assert bad == [] and code == 0
    # 5.9 in the kit scores the bundled dev set, which a submission can read (tests/submissions/hostile/dev_table):
    # it says that it is advisory and that the score on hidden sentences counts (issue 20).
    uas = next(c for c in report["checks"] if c["id"] == "train_uas")
    assert any("advisory only" in line and "never sees" in line for line in uas["feedback"]), uas["feedback"]


def test_template_scores_zero_with_every_stub_not_implemented(installed):
    code, report, seconds = _check(installed, installed["folder"])
    print(f"grader check on the untouched template from the kit: {seconds:.1f} s")
    assert code == 1
    assert all(c["score"] == 0 for c in report["checks"])
    assert [c["id"] for c in report["checks"] if c["status"] != "not_implemented"] == []


@pytest.mark.parametrize("seed", [202])
def test_buggy_submission_same_verdicts_as_the_repository(installed, tmp_path, seed):
    files = {name: BUGGY / case / name for name, case in MIXED_BUGS.items()}
    folder = _submission(tmp_path / "buggy", files)
    _code, report, _seconds = _check(installed, folder, "--seed", str(seed))
    ids = [c["id"] for c in report["checks"]]
    here = grade(folder, GradingSettings(seed=seed, visible_only=True, only=ids, include_written=False))
    assert [(c["id"], c["score"], c["status"]) for c in report["checks"]] == \
        [(c.id, c.score, c.status) for c in here.checks]
    assert any(c["score"] < c["max_score"] for c in report["checks"])


def test_template_summary_as_a_student_reads_it(installed):
    done = subprocess.run([str(installed["grader"]), "check", "--quiet"], capture_output=True, text=True,
                          cwd=installed["folder"], env={**_env(), "COLUMNS": "100"}, stdin=subprocess.DEVNULL,
                          timeout=600)
    lines = done.stdout.splitlines()
    assert done.returncode == 1
    assert len(lines) <= 50, done.stdout
    rubric = load_rubric(registered=set(all_checks()))
    visible = sum(s.points for s in rubric.checks if s.student_visible)
    assert lines[-1] == checked_line(visible, course_points(rubric))
    assert "word2vec.py: sigmoid, naiveSoftmaxLossAndGradient" in done.stdout
    assert "Written answers are not checked here" in done.stdout
