"""JSON for scripts: every field of the report, stable keys, one document;
grader.classroom.gradebook.report_from_json reads it back into an equal report."""

from __future__ import annotations

from typing import Any

from grader.run.results import GradeReport


def to_json(report: GradeReport, *, now: bool = False) -> dict[str, Any]:
    """Every field of ``report``; ``now``: what a student may see before the due date (`grader check
    --json`): an item whose verdict is held back (a written answer's, by rubric.yaml's ``explanation``)
    keeps only what was read, and the totals count the other items."""
    if now:
        return _now(report)
    return {
        "submission": report.submission,
        "seed": report.seed,
        "score": report.score,
        "max_score": report.max_score,
        "all_passed": report.all_passed,
        "seconds": report.seconds,
        "notes": list(report.notes),
        "stubs": list(report.stubs),
        "leaderboard": {name: value for name, value in report.leaderboard},
        "checks": [{
            "id": c.id, "kind": c.kind, "part": c.part, "number": c.number, "name": c.name,
            "score": c.score, "max_score": c.max_score, "status": c.status,
            "visibility": c.visibility,
            "trials_passed": c.outcome.trials_passed, "trials_total": c.outcome.trials_total,
            "feedback": list(c.outcome.feedback), "seconds": c.seconds, "ran": c.outcome.ran,
            "review": c.outcome.review, "tags": list(c.tags),
            "leaderboard": [[name, value] for name, value in c.outcome.leaderboard],
            "charged": [{"check_id": charge.check_id, "trials": charge.trials,
                         "proofs": [{"what": p.what, "got": list(p.got), "expected": list(p.expected)}
                                    for p in charge.proofs]} for charge in c.outcome.charged],
            **({"written": {"raw": c.written.raw, "read": c.written.read, "where": c.written.where,
                            "review": c.written.review, "needs_review": bool(c.written.review),
                            "why": list(c.written.why), "why_visibility": c.written.why_visibility,
                            "reading": list(c.written.reading), "read_visibility": c.written.read_visibility}}
               if c.written is not None else {}),
        } for c in report.checks],
        "review": [{"id": c.id, "number": c.number, "name": c.name, "score": c.score,
                    "max_score": c.max_score, "reason": c.review, "raw": c.written.raw if c.written else "",
                    "where": c.written.where if c.written else ""} for c in report.reviews],
        "manual_points": report.manual_points,
        "manual": [{
            "id": m.id, "number": m.number, "name": m.name, "points": m.points,
            "visibility": m.visibility, "found": m.found, "where": m.where,
            "notes": list(m.notes), "text": m.text,
        } for m in report.manual],
    }


def _now(report: GradeReport) -> dict[str, Any]:
    shown = tuple(c for c in report.checks if not c.held_back)
    doc = to_json(GradeReport(report.submission, report.seed, shown, report.seconds, report.notes,
                              report.manual, report.stubs))
    doc["held_back"] = [{"id": c.id, "kind": c.kind, "part": c.part, "number": c.number, "name": c.name,
                         "max_score": c.max_score, "shown": c.visibility,
                         "reading": list(c.written.reading) if c.written is not None else []}
                        for c in report.checks if c.held_back]
    return doc
