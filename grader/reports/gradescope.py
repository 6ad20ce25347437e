"""Gradescope's results.json (the autograder specification's format)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from grader.results import PASSED, GradeReport

# Gradescope's per-test status has two values; partial and errored checks are "failed".
_STATUS = {PASSED: "passed"}


def test_output(check_feedback: tuple[str, ...], status: str) -> str:
    head = {"timeout": "Timed out. ", "crashed": "Crashed. ", "error": "Error. "}.get(status, "")
    return head + "\n".join(check_feedback)


def to_results_json(report: GradeReport) -> dict[str, Any]:
    """The results.json document for ``report``."""
    tests = [{
        "name": c.name,
        "number": c.number,
        "score": c.score,
        "max_score": c.max_score,
        "status": _STATUS.get(c.status, "failed"),
        "output": test_output(c.outcome.feedback, c.status),
        "output_format": "text",
        "visibility": c.visibility,
        "tags": [c.part],
        "extra_data": {"check_id": c.id, "grader_status": c.status,
                       "trials_passed": c.outcome.trials_passed,
                       "trials_total": c.outcome.trials_total},
    } for c in report.checks]
    lines = [f"Autograder score: {report.score:g} / {report.max_score:g} (code checks).",
             f"Seed: {report.seed} (a rerun with --seed {report.seed} reproduces these checks exactly)."]
    lines += list(report.notes)
    doc: dict[str, Any] = {
        "score": report.score,
        "execution_time": round(report.seconds, 2),
        "output": "\n".join(lines),
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {"seed": report.seed},
        "tests": tests,
    }
    if report.leaderboard:
        doc["leaderboard"] = [{"name": name, "value": value} for name, value in report.leaderboard]
    return doc


def write_results(report: GradeReport, path: Path) -> None:
    """Write results.json atomically (a crash mid-write never leaves half a file)."""
    write_json_atomic(to_results_json(report), path)


def write_json_atomic(doc: dict[str, Any], path: Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".results-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2, allow_nan=False)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def fallback_results(message: str, seconds: float = 0.0) -> dict[str, Any]:
    """A valid results.json when grading itself failed before any check could run."""
    return {"score": 0.0, "execution_time": round(seconds, 2), "output": message,
            "output_format": "text", "visibility": "visible", "stdout_visibility": "hidden",
            "tests": []}
