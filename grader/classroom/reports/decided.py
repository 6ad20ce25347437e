"""The TA's decisions in each submission's results.json: what Gradescope shows agrees with the grade book.

A decision is an override with a reason: of a code check on the review list (not run, over the
budget, a charge to confirm; :mod:`grader.classroom.check_overrides`) or of an auto-graded written
verdict (:func:`grader.classroom.final_grades.overrides`). The grade book applies them to its
``autograder`` column; here they are applied to ``OUT/submissions/<key>/results.json``, rebuilt each
time from the autograder's own record (``report.json``, never changed), so a decision taken back
returns the check to the autograder's score. The test of each decided item gets the TA's points,
a status from them, an output that starts with the change and its reason (what the student reads),
and ``extra_data.ta_decision`` with who decided and when (extra_data is shown to staff only); the
top-level score is the tests' sum again, its output lists the decisions, and
``extra_data.autograder_score`` stays the autograder's own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from grader.classroom.final_grades import GradeBook, Override
from grader.classroom.gradebook import report_from_json
from grader.reports import gradescope

SUBMISSIONS_DIR, REPORT_FILE, RESULTS_FILE = "submissions", "report.json", "results.json"
DECIDED = "ta_decisions"
"""The top-level extra_data key listing the decisions applied (also how a rebuilt file is known)."""


def item_of(slot: str) -> str:
    """The results.json item a decision is about: a code check's id, a written question's id (a
    3(f)-like sentence ``3f.ii`` belongs to its question's test)."""
    return slot.split(".", 1)[0]


def decision_line(o: Override) -> str:
    """What the student reads (who decided and when are for staff: extra_data and final_grades.csv)."""
    return f"Changed by course staff from {o.auto:g} to {o.points:g} points: {o.reason or 'no reason given'}"


def apply(doc: dict[str, Any], decisions: Sequence[Override]) -> dict[str, Any]:
    """``doc`` (results.json of the autograder's report) with ``decisions`` applied."""
    tests = {}
    for t in doc.get("tests", []):
        extra = t.get("extra_data") or {}
        if "score" in t and "manual_points" not in extra:   # scored items only (a reading entry has no score)
            tests[str(extra.get("check_id") or extra.get("question") or "")] = t
    applied, lines = [], []
    for o in decisions:
        test = tests.get(item_of(o.slot))
        if test is None:
            continue
        most = float(test.get("max_score", 0.0))
        before = float(test.get("score", 0.0))
        after = round(min(most, max(0.0, before + o.points - o.auto)), 6)
        test["score"] = after
        test["status"] = "passed" if most > 0 and after >= most else "failed"
        test["output"] = decision_line(o) + "\n\n" + str(test.get("output", ""))
        record = {"item": o.slot, "autograder": o.auto, "points": o.points, "reason": o.reason, "who": o.who,
                  "when": o.when}
        test.setdefault("extra_data", {})["ta_decision"] = record
        applied.append(record)
        lines.append(f"{test.get('number', '')} {test.get('name', o.slot)}: {decision_line(o)}.")
    if applied:
        doc["score"] = round(sum(float(t.get("score", 0.0)) for t in doc.get("tests", [])), 4)
        doc["output"] = "\n".join([*lines, str(doc.get("output", ""))])
        doc.setdefault("extra_data", {})[DECIDED] = applied
    return doc


def _had_decisions(path: Path) -> bool:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(doc, dict) and DECIDED in (doc.get("extra_data") or {})


def write(book: GradeBook, out: Path) -> list[Path]:
    """Rebuild results.json of every submission with a decision (or one it no longer has)."""
    decided: Mapping[str, Sequence[Override]] = {r.submission: r.overrides for r in book.rows}
    written = []
    for key, decisions in decided.items():
        folder = out / SUBMISSIONS_DIR / key
        if not decisions and not _had_decisions(folder / RESULTS_FILE):
            continue
        try:
            report = report_from_json(json.loads((folder / REPORT_FILE).read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError):
            continue           # no autograder record to rebuild from: results.json stays as the batch wrote it
        doc = apply(gradescope.fit(gradescope.to_results_json(report)), decisions)
        gradescope.write_json(doc, folder / RESULTS_FILE)
        written.append(folder / RESULTS_FILE)
    return written
