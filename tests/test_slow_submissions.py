"""Slow but correct: real students look embeddings up through Python lists or loop over the rows
of a minibatch. Such a submission must not lose points for the grader's time budget; it is graded
here as Gradescope grades it (the sandboxed worker, the rubric's timeouts), on the training checks.

How long each takes on one core, and what that means at Gradescope's half a core, is measured by
bench/gradescope.py (nothing here is timed); README's Gradescope section gives the figures.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REFERENCE, assemble

from grader.run.engine import grade
from grader.run.rubric import load_rubric
from grader.run.settings import GradingSettings
from grader.sandbox import InProcessRunner

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


#: Seconds a correct forward that loops over a minibatch's rows in Python takes per row (its
#: embedding_lookup stacking row by row as well) on a loaded 2-core machine: rows_lookup_forward
#: took 28-29.5 s for check 5.5's 105,000 rows.
LOOP_ROW_SECONDS = 29.5 / 105_000
#: The share of a check's time limit such a forward may need: the rest is margin (a busier machine,
#: Gradescope's half core).
LIMIT_SHARE = 0.4
MODEL_CHECKS = ("model_embedding_lookup", "model_forward", "model_dropout", "model_gradients")


class _CountingRows(InProcessRunner):
    """Counts the rows of every batch a check hands the student's forward or embedding_lookup."""

    rows = 0

    def call(self, probe, args=None, *, timeout=10.0):
        for call in (args or {}).get("calls", ()) or ():
            if isinstance(call, dict) and "w" in call:
                type(self).rows += len(call["w"])
        return super().call(probe, args, timeout=timeout)


@pytest.mark.parametrize("check_id", MODEL_CHECKS)
def test_a_model_check_leaves_a_row_by_row_forward_most_of_its_time_limit(check_id: str):
    """The budget principle: a time limit lets a correct loop-based solution pass. Check 5.5 sent
    105,000 rows through forward (7 batches of 5000 in each of 3 trials): rows_lookup_forward took
    28-29.5 s of its 30 s limit. Counted, not timed: the rows a check asks for at the measured cost
    of a row-by-row forward must fit in LIMIT_SHARE of the check's limit."""
    spec = next(s for s in load_rubric().checks if s.id == check_id)
    _CountingRows.rows = 0
    report = grade(REFERENCE, GradingSettings(seed=3, only=[check_id], runner_factory=_CountingRows,
                                              include_written=False))
    assert report.checks[0].passed, report.checks[0].outcome.feedback
    needs = _CountingRows.rows * LOOP_ROW_SECONDS
    assert needs <= LIMIT_SHARE * spec.timeout, (
        f"{check_id} sends {_CountingRows.rows} rows through forward: about {needs:.1f} s for a row-by-row "
        f"forward, over {LIMIT_SHARE:.0%} of its {spec.timeout:g} s limit")
