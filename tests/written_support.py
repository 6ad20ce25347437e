"""Grading one writeup as a whole upload would be (the written grader, in process), for the tests
of written shapes."""

from __future__ import annotations

from a2.written.grade import grade_written
from a2.written.process import InProcess
from grader.run.rubric import load_rubric

PARTS = load_rubric().written
RUNNER = InProcess()


def scored(tmp_path, files: dict[str, str]):
    """Every item of an upload of ``files`` (name -> text, names may hold folders), by id."""
    paths = []
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    results, _, _ = grade_written(paths, PARTS, 5, runner=RUNNER)
    return {r.id: r for r in results}


def graded(tmp_path, text: str, name: str = "answers.md"):
    return scored(tmp_path, {name: text})


def full(r) -> bool:
    return r.score >= r.max_score - 1e-9
