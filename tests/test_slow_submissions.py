"""Slow but correct: real students look embeddings up through Python lists or loop over the rows
of a minibatch. Such a submission must not lose points for the grader's time budget; it is graded
here as Gradescope grades it (the sandboxed worker, the rubric's timeouts), on the training checks.

How long each takes on one core, and what that means at Gradescope's half a core, is measured by
bench/gradescope.py (nothing here is timed); README's Gradescope section gives the figures.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import assemble

from grader.run.engine import grade
from grader.run.settings import GradingSettings

SLOW_DIR = Path(__file__).parent / "submissions" / "slow"
SLOW = sorted(p for p in SLOW_DIR.iterdir() if p.is_dir())
TRAINING_CHECKS = ("train_loop", "train_setup", "train_uas")


def test_the_slow_corpus_has_list_and_row_loop_variants():
    assert {"lookup_lists", "rows_lookup_forward", "rows_everywhere", "real_mixed"} <= {p.name for p in SLOW}


@pytest.mark.slow
@pytest.mark.parametrize("variant", SLOW, ids=[p.name for p in SLOW])
def test_slow_but_correct_training_scores_full_marks(variant: Path, tmp_path: Path):
    report = grade(assemble(variant, tmp_path / "submission"), GradingSettings(seed=3, only=TRAINING_CHECKS))
    assert {c.id for c in report.checks} == set(TRAINING_CHECKS)
    lost = {c.id: c.outcome.feedback for c in report.checks if c.score < c.max_score}
    assert not lost, lost
