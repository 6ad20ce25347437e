"""Issue 20: check names and the feedback a check can write never state a written answer, and
what student code raises reaches feedback capped."""

from __future__ import annotations

from pathlib import Path

import pytest
from answer_scan import ANSWER_PATTERNS, answer_hits, string_constants

from grader.checks import all_checks
from grader.checks.api import MAX_FEEDBACK_MESSAGE_CHARS, MAX_FEEDBACK_TRACEBACK_CHARS, describe_failure
from grader.results import ERROR
from grader.rubric import load_rubric
from grader.sandbox.runner import ProbeError, ProbeResult

GRADER = Path(__file__).resolve().parents[1] / "grader"
#: Where every visible name and message template comes from: the checks, what runs next to student
#: code (its errors reach feedback), the kit's command line and the student's summary, the engine.
MESSAGE_SOURCES = sorted([*GRADER.glob("checks/*.py"), *GRADER.glob("untrusted/*.py"), GRADER / "catalogue.py",
                          GRADER / "engine.py", GRADER / "kit_cli.py", GRADER / "reports" / "student.py",
                          GRADER / "reports" / "terminal.py", GRADER / "reports" / "gradescope.py"])


def test_every_check_name_is_free_of_written_answers():
    rubric = load_rubric(registered=set(all_checks()))
    names = [spec.name for spec in rubric.checks]
    assert len(names) > 20
    assert [(n, answer_hits(n)) for n in names if answer_hits(n)] == []


@pytest.mark.parametrize("path", MESSAGE_SOURCES, ids=lambda p: p.name)
def test_every_message_template_is_free_of_written_answers(path):
    hits = [(s[:80], answer_hits(s)) for s in string_constants(path.read_text(encoding="utf-8")) if answer_hits(s)]
    assert hits == []


@pytest.mark.parametrize("text, answer", [
    ("dropout in train mode, gamma = 1/(1-p)", "2(b)(i) gamma"),
    ("γ = 1/(1 − p) of 2(b)(i)", "2(b)(i) gamma"),
    ("2n-step sequences end in the terminal state", "3(b) 2n"),
    ("all 16 = 2n steps", "3(b) 2n"),
    ("all 16 steps reproduce the gold configurations", "3(a) 16 steps"),
    ("it uses ŷ where ŷ − y belongs", "1(b)(i)/3(e)(ii) yhat - y"),
    ("(ŷ_o − 1)v_c", "1(d) (yhat_o - 1) v_c"),
    ("1{(xW + b1)_i > 0}·W_ji", "3(e)(i) W_ji"),
    ("S S LA S S LA RA S S S S LA LA LA RA RA", "3(a) sequence"),
    ("wrong: acquisition → citing", "3(f) acquisition->citing"),
    ("('reasons', 'decision')", "3(f) reasons->decision"),
])
def test_the_answer_scan_catches_planted_answers(text, answer):
    assert answer in ANSWER_PATTERNS
    assert answer in answer_hits(text)


def test_the_answer_scan_passes_plain_feedback():
    assert answer_hits("sigmoid(x) with x of shape (3, 4): got 0.2; expected 0.5 for 2 names") == []


def test_error_messages_in_feedback_are_capped():
    """Whatever a worker sends (student code shares its process), a raised message and its
    traceback reach feedback capped: a submission cannot carry a module's source out through it."""
    source = "def something():\n    return 1\n" * 5000
    result = ProbeResult(status="error", error=ProbeError(type="RuntimeError", message=source,
                                                           traceback=tuple(source.splitlines())))
    status, lines = describe_failure(result, "sigmoid(x)", 10.0)
    assert status == ERROR
    text = "\n".join(lines)
    assert len(text) < MAX_FEEDBACK_MESSAGE_CHARS + MAX_FEEDBACK_TRACEBACK_CHARS + 1000
    assert "more characters not shown" in lines[0] and "rest of the traceback is not shown" in text
