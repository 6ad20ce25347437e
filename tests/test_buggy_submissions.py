"""Each realistic bug loses points on its own checks and nowhere else, and its feedback names it.

``expect.yaml``: ``fails`` lists the checks the bug must fail (no others may lose points);
``says`` lists phrases that must appear in the feedback of those checks (or, for a bug that is
tolerated or charged elsewhere, in the feedback of the checks it touched): the bug's name in
words a student can act on; ``never_says`` phrases that must not (a hint of another bug). A failing
check that depends on another failing one of the same function (``@check(..., depends_on=...)``)
names it first and keeps its own loss (issue 32).
"""

from __future__ import annotations

import re
import zlib
from pathlib import Path

import pytest
import yaml
from conftest import assemble

from a2.registry import WRITTEN_FILES
from grader.run.check_api import all_checks
from grader.run.engine import grade
from grader.run.rubric import load_rubric
from grader.run.settings import GradingSettings

BUGGY_DIR = Path(__file__).parent / "submissions" / "buggy"
BUGS = sorted(p for p in BUGGY_DIR.iterdir() if p.is_dir())
RUBRIC = load_rubric()


def test_corpus_is_large_enough():
    assert len(BUGS) >= 15


@pytest.mark.parametrize("bug", BUGS, ids=[b.name for b in BUGS])
def test_bug_fails_exactly_its_checks(bug: Path, tmp_path: Path):
    expect = yaml.safe_load((bug / "expect.yaml").read_text())
    modified = {p.name for p in bug.glob("*.py")}
    # Checks that never import a modified file see the reference and are covered elsewhere; the
    # end-to-end training check of each model/run.py bug is test_checks_model.py's (slow) job.
    affected = [cid for cid, reg in all_checks().items()
                if set(reg.files) & modified and cid != "train_uas"]
    # A written answers file (the reference's answers with one mistake) is judged on every
    # auto-graded written question.
    if any((bug / name).is_file() for name in WRITTEN_FILES):
        affected += [part.id for part in RUBRIC.written if part.auto > 0]
    seed = zlib.crc32(bug.name.encode())
    report = grade(assemble(bug, tmp_path / "submission"), GradingSettings(seed=seed, only=affected))
    failing = {c.id for c in report.checks if c.score < c.max_score}
    expected = set(expect["fails"]) & set(affected)
    details = {c.id: c.outcome.feedback for c in report.checks if c.id in failing ^ expected}
    assert failing == expected, f"{expect['description']} (seed {seed}): {details}"
    for c in report.checks:
        if c.id in failing:
            assert c.outcome.feedback, c.id
    # Issue 32: a check that depends on a failing check of the same function names it first as a hint
    # and keeps its own loss, never raised to the other's, and nothing goes to review.
    by_number = {c.number: c for c in report.checks}
    registry = all_checks()
    for c in report.checks:
        if c.id in failing and c.id in registry and c.outcome.ran and any(p in failing for p in registry[c.id].depends_on):
            first = c.outcome.feedback[0]
            named = [by_number[n] for n in re.findall(r"[Cc]heck (\d+\.\d+) \(", first.split(" also fail")[0])]
            assert " on the same function" in first and named, (c.id, first)
            assert all(n.id in failing and registry[n.id].names == registry[c.id].names for n in named), (c.id, first)
            assert not c.needs_review, (c.id, c.review)
    # a written item's explanation (what is wrong) is shown after the due date: it counts here too
    shown = " ".join(" ".join([*c.outcome.feedback, *(c.written.why if c.written else ())]) for c in report.checks
                     if c.id in failing or not failing)
    shown = " ".join(shown.split())
    for phrase in expect.get("says", []):
        assert phrase in shown, f"{expect['description']} (seed {seed}): {phrase!r} not in {shown}"
    for phrase in expect.get("never_says", []):
        assert phrase not in shown, f"{expect['description']} (seed {seed}): {phrase!r} misleads in {shown}"
