"""The bundled example of the README's first command grades as examples/README.md says."""

from __future__ import annotations

import json

import jsonschema
import pytest
from click.testing import CliRunner
from conftest import REPO, RESULTS_SCHEMA

from grader.cli import main

EXAMPLE = REPO / "examples" / "buggy_submission"
# The table of examples/README.md: each bug's check, and only those.
EXPECTED_FAILURES = {"w2v_skipgram", "w2v_neg_sampling_dups", "pp_parse_step", "mb_batch_size",
                     "train_loop", "train_uas",
                     "1b_i", "2b_i"}  # written: U^T(y_hat - y), and gamma = 1 - p


@pytest.mark.slow
def test_readme_first_command_grades_the_bundled_example(tmp_path):
    out = tmp_path / "results.json"
    result = CliRunner().invoke(main, ["grade", str(EXAMPLE), "--results", str(out), "--seed", "3"])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, RESULTS_SCHEMA)
    failing = {t["extra_data"].get("check_id") or t["extra_data"]["question"] for t in doc["tests"]
               if t.get("score", 0) < t.get("max_score", 0)}
    assert failing == EXPECTED_FAILURES
    # The student-readable part: the causes are named in the printed feedback.
    for phrase in ("sits in the wrong row", "remove items by position", "at most batch_size",
                   "call optimizer.zero_grad()", "read: γ = 1 − p_drop", "they cannot be multiplied"):
        assert phrase in " ".join(result.output.split()), phrase
