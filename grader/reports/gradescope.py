"""Gradescope's results.json (the autograder specification's format)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from grader.common.atomic import write_text
from grader.common.shown import cut
from grader.run.results import NOT_RUN, PASSED, CheckResult, GradeReport, ManualItem, WrittenRead

# Gradescope's per-test status has two values; partial and errored checks are "failed".
_STATUS = {PASSED: "passed"}
MAX_RESULTS_BYTES = 1_000_000
"""Largest results.json written (Gradescope rejects very large results, and a page of feedback
nobody reads helps nobody): beyond it the longest texts are cut, saying how much."""
MIN_KEPT_CHARS = 200
"""Fewest characters a text is cut to while results.json is made to fit."""


def test_output(check_feedback: tuple[str, ...], status: str) -> str:
    head = {"timeout": "Timed out. ", "crashed": "Crashed. ", "error": "Error. "}.get(status, "")
    return head + "\n".join(check_feedback)


REVIEW_HEAD = "NEEDS REVIEW by a TA"
"""The first words of the output of a written item on the review list."""


def review_lines(read: WrittenRead) -> list[str]:
    """The lines that open a reviewed item's output: the reason, where, and the text read."""
    where = f" ({read.where})" if read.where else ""
    text = " ".join(read.raw.split()) or "(nothing)"
    return [f"{REVIEW_HEAD}: {read.review}. The score below is what the autograder could prove; "
            "a TA will look at this answer.", f"Text read{where}: {text}"]


_WHEN = {"after_due_date": "after the due date", "after_published": "when grades are published"}


def check_output(c: CheckResult) -> str:
    """A scored item's output; an item on the review list starts with the review lines. A written
    item's verdict comes with what is wrong and the expected form (its explanation): the entry is
    shown when rubric.yaml's ``explanation`` says; until then :func:`reading_test` says what was read."""
    out = test_output(c.outcome.feedback, c.status)
    if c.written is not None and c.written.review:
        out = "\n".join(review_lines(c.written)) + "\n" + out
    if c.written is not None and c.written.why:
        out += f"\n\n{EXPLAINED}:\n" + "\n".join(c.written.why)
    return out


EXPLAINED = "What is wrong and the expected form"


def reading_number(c: CheckResult) -> str:
    """Gradescope's number of a written item's reading entry: right after its scored entry, before
    its TA share (``.1``)."""
    return f"{c.number}.0"


def reading_test(c: CheckResult) -> dict[str, Any] | None:
    """What students see of a written auto item while its verdict is held back (rubric.yaml's
    ``explanation``): what was read, from where, whether whole, the files read: an entry of its own
    with the part's ``visibility``, worth nothing and with no status (Gradescope infers none without
    a score), so nothing in it tells a right answer from a wrong one. None when the verdict itself
    is shown as early as the answer."""
    if c.written is None or not c.held_back or c.written.read_visibility == c.visibility:
        return None
    when = _WHEN.get(c.visibility, "to course staff only")
    return {
        "name": f"{c.name}: what was read",
        "number": reading_number(c),
        "output": "\n".join([*c.written.reading, f"The score and what is wrong are shown {when}."]),
        "output_format": "text",
        "visibility": c.written.read_visibility,
        "tags": [c.part, "written", "read"],
        "extra_data": {"question": c.id, "reading_of": c.number},
    }


def _written_extra(c: CheckResult) -> dict[str, Any]:
    if c.written is None:
        return {}
    w = c.written
    return {"needs_review": c.needs_review, "review": c.review, "read": w.read, "raw": w.raw, "where": w.where}


def manual_test(item: ManualItem) -> dict[str, Any]:
    """A written answer left to TAs: pending, so neither passed nor failed, and worth nothing here.

    Gradescope adds up tests' scores, so a TA-graded answer carries no points here: its points
    are in the name and in extra_data. A found answer has no ``status``, ``score`` or
    ``max_score`` (Gradescope's specification makes all three optional when the top-level score
    is given, and infers a status only from them), so the page shows it as neither passed nor
    failed, never a green tick for points nobody has given yet; its output says it is pending and
    quotes the extracted answer, so the student sees that it was found and a TA sees what was
    read. An answer that was not found is "failed" (0 of 0), so the student can fix the heading.
    """
    head = (f"Pending: graded by a TA after the deadline ({item.points:g} point{'s' if item.points != 1 else ''}); "
            "not part of the autograder's score.")
    where = f"Read from {item.where}." if item.where else ""
    lines = [line for line in (head, where, *item.notes) if line]
    output = "\n".join(lines) + "\n\n" + item.text
    test: dict[str, Any] = {"name": item.name, "number": item.number}
    if not item.found:
        test.update(score=0.0, max_score=0.0, status="failed")
    test.update({
        "output": output.strip(),
        "output_format": "text",
        "visibility": item.visibility,
        "tags": [item.id, "written", "manual", "pending" if item.found else "missing"],
        "extra_data": {"question": item.id, "manual_points": item.points, "found": item.found,
                       "where": item.where, "pending": True},
    })
    return test


def score_lines(report: GradeReport, shown: list[CheckResult]) -> list[str]:
    """The score line of the top-level output, which students always see.

    Gradescope hides a student's total while tests are held back (``after_due_date``,
    ``after_published``), but this output stays visible: it states the score of the visible
    checks only, and how many points are held back and until when, never their verdict.
    ``hidden`` checks carry no points (the rubric refuses them), so they change no total.
    """
    what = "(code checks and auto-graded written answers)"
    held = [c for c in report.checks if c.visibility in _WHEN and c.max_score > 0]
    if not held:
        return [f"Autograder score: {report.score:g} / {report.max_score:g} {what}."]
    got = round(sum(c.score for c in shown), 4)
    out_of = round(sum(c.max_score for c in shown), 4)
    points = round(sum(c.max_score for c in held), 4)
    when = " or ".join(dict.fromkeys(_WHEN[c.visibility] for c in held))
    return [f"Score on the checks shown now: {got:g} / {out_of:g} {what}.",
            f"{len(held)} more check(s) worth {points:g} point(s) are shown {when}; "
            "your total is shown with them."]


def to_results_json(report: GradeReport) -> dict[str, Any]:
    """The results.json document for ``report``."""
    tests = [{
        "name": c.name,
        "number": c.number,
        "score": c.score,
        "max_score": c.max_score,
        "status": _STATUS.get(c.status, "failed"),
        "output": check_output(c),
        "output_format": "text",
        "visibility": c.visibility,
        "tags": [c.part, *c.tags] if c.kind == "code" else [c.part, "written", "auto"],
        # Code checks are keyed by check_id (a rubric check); written answers by question (a rubric part).
        "extra_data": {("check_id" if c.kind == "code" else "question"): c.id, "grader_status": c.status,
                       **({"needs_review": True, "review": c.review} if c.needs_review and c.written is None else {}),
                       "trials_passed": c.outcome.trials_passed,
                       "trials_total": c.outcome.trials_total, **_written_extra(c)},
    } for c in report.checks]
    tests += [t for c in report.checks if (t := reading_test(c)) is not None]
    tests += [manual_test(m) for m in report.manual]
    tests.sort(key=lambda t: tuple(int(x) for x in str(t["number"]).split(".")) if t["number"] else ())
    shown = [c for c in report.checks if c.visibility == "visible"]
    lines = score_lines(report, shown)
    lines.append(f"Seed: {report.seed} (a rerun with --seed {report.seed} reproduces these checks exactly).")
    if report.manual:
        lines.append(f"Written answers left to TAs: {len(report.manual)} ({report.manual_points:g} points, "
                     "not included above).")
    flagged = [c for c in shown if c.needs_review and c.status != NOT_RUN]
    for items, said in (
            ([c for c in shown if c.status == NOT_RUN],     # a held-back check's name stays held back
             "check(s) were not run because the grading's time budget ran out; they say nothing about your "
             "code and course staff will review them"),
            ([c for c in flagged if c.written is not None],
             "written answer(s) could not be judged with confidence and will be looked at by a TA"),
            ([c for c in flagged if c.written is None],
             "check(s) keep their own loss for now: whether the bug of a check they depend on explains their "
             "failure could not be found out (the grading's time budget ran out, or that run ended without a "
             "verdict: each check's feedback says which); course staff will review them")):
        if items:
            lines.append(f"{REVIEW_HEAD}: {len(items)} {said}: " + ", ".join(f"{c.number} {c.name}" for c in items) + ".")
    lines += list(report.notes)
    doc: dict[str, Any] = {
        "score": report.score,
        "execution_time": round(report.seconds, 2),
        "output": "\n".join(lines),
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        # Stored for instructors (Gradescope does not show extra_data to students).
        "extra_data": {"seed": report.seed, "autograder_score": report.score,
                       "autograder_max_score": report.max_score},
        "tests": tests,
    }
    if report.leaderboard:
        doc["leaderboard"] = [{"name": name, "value": value} for name, value in report.leaderboard]
    return doc


def _encoded_size(doc: Any) -> int:
    return len(json.dumps(doc, indent=2, allow_nan=False))


def _texts(node: Any, found: list[tuple[int, Any, Any]]) -> None:
    """Every string of ``node`` as (length, container, key)."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        if isinstance(value, str):
            found.append((len(value), node, key))
        else:
            _texts(value, found)


def fit(doc: dict[str, Any], limit: int = MAX_RESULTS_BYTES) -> dict[str, Any]:
    """``doc`` cut to at most ``limit`` bytes of JSON: the longest texts first, each saying what
    was cut; every field and score is kept."""
    for _ in range(100):
        excess = _encoded_size(doc) - limit
        if excess <= 0:
            return doc
        texts: list[tuple[int, Any, Any]] = []
        _texts(doc, texts)
        length, node, key = max(texts, key=lambda item: item[0])
        if length <= MIN_KEPT_CHARS:
            break
        keep = max(MIN_KEPT_CHARS, min(length - excess - 64, length // 2))
        node[key] = cut(node[key], keep)
    return doc


def write_results(report: GradeReport, path: Path) -> None:
    """Write results.json atomically (a crash mid-write never leaves half a file), at most
    MAX_RESULTS_BYTES."""
    write_json(fit(to_results_json(report)), path)


def write_json(doc: dict[str, Any], path: Path) -> None:
    """``doc`` as results.json's text (indented, no NaN: Gradescope's parser refuses it), through the
    one atomic writer (a crash mid-write never leaves half a file)."""
    write_text(path, json.dumps(doc, indent=2, allow_nan=False) + "\n")


def fallback_results(message: str, seconds: float = 0.0) -> dict[str, Any]:
    """A valid results.json when grading itself failed before any check could run."""
    return {"score": 0.0, "execution_time": round(seconds, 2), "output": message,
            "output_format": "text", "visibility": "visible", "stdout_visibility": "hidden",
            "tests": []}
