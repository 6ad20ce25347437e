"""Each realistic bug loses points on its own checks and nowhere else."""

from __future__ import annotations

import shutil
import zlib
from pathlib import Path

import pytest
import yaml

from conftest import REFERENCE
from grader.checks import all_checks
from grader.engine import grade
from grader.paths import STUDENT_FILES

BUGGY_DIR = Path(__file__).parent / "submissions" / "buggy"
BUGS = sorted(p for p in BUGGY_DIR.iterdir() if p.is_dir())


def assemble(overrides: Path, dest: Path) -> Path:
    """A full submission: the reference's student files, with the bug's files laid over them."""
    dest.mkdir()
    for name in STUDENT_FILES:
        shutil.copyfile(REFERENCE / name, dest / name)
    for path in overrides.glob("*.py"):
        shutil.copyfile(path, dest / path.name)
    return dest


def test_corpus_is_large_enough():
    assert len(BUGS) >= 15


@pytest.mark.parametrize("bug", BUGS, ids=[b.name for b in BUGS])
def test_bug_fails_exactly_its_checks(bug: Path, tmp_path: Path):
    expect = yaml.safe_load((bug / "expect.yaml").read_text())
    modified = {p.name for p in bug.glob("*.py")}
    # Checks that never import a modified file see the reference and are covered elsewhere.
    affected = [cid for cid, reg in all_checks().items() if set(reg.files) & modified]
    seed = zlib.crc32(bug.name.encode())
    report = grade(assemble(bug, tmp_path / "submission"), seed=seed, only=affected)
    failing = {c.id for c in report.checks if c.score < c.max_score}
    details = {c.id: c.outcome.feedback for c in report.checks if c.id in failing ^ set(expect["fails"])}
    assert failing == set(expect["fails"]), f"{expect['description']} (seed {seed}): {details}"
    for c in report.checks:
        if c.id in failing:
            assert c.outcome.feedback, c.id
