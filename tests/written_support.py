"""Grading one writeup as a whole upload would be (the written grader, in process), for the tests
of written shapes."""

from __future__ import annotations

from a2.written.grade import grade_written
from a2.written.process import InProcess
from grader.run.rubric import load_rubric

PARTS = load_rubric().written
RUNNER = InProcess()


def graded(tmp_path, text: str, name: str = "answers.md"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    results, _, _ = grade_written([path], PARTS, 5, runner=RUNNER)
    return {r.id: r for r in results}


def full(r) -> bool:
    return r.score >= r.max_score - 1e-9
