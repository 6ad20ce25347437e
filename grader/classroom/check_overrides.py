"""A TA's decision on a code check the batch put on the review list (not run, over its budget, a
charge to confirm): an override of that submission's score for that check, with a reason.

Recorded like the overrides of written verdicts, in the marks store (kind ``override``), under a
fingerprint naming the check and the submission; :func:`overrides` gives them to the grade book
(:mod:`grader.classroom.final_grades`), which applies them as it applies written ones.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from grader.classroom.groups.store import OVERRIDE, GroupPrint, Mark, MarkStore, now
from grader.common.csvfile import read_dicts

REVIEW_QUEUE = "review_queue.csv"
SOURCE = "grader review: code check"


@dataclass(frozen=True)
class CheckOverride:
    check: str
    submission: str
    auto: float           # what the autograder gave
    points: float         # what the TA gives instead
    reason: str
    who: str
    when: str = ""


def check_print(check: str, submission: str) -> GroupPrint:
    """The fingerprint of one submission's code check: its id with the submission as key and text."""
    return GroupPrint.make(check, f"submission {submission}", [submission])


def code_rows(rows: Iterable[Mapping[str, str]], code_checks: Iterable[str]) -> list[dict[str, str]]:
    """The review list's rows about code checks (one per submission and check)."""
    ids = set(code_checks)
    seen: dict[tuple[str, str], dict[str, str]] = {}
    for r in rows:
        if str(r.get("id", "")) in ids:
            seen.setdefault((str(r["submission"]), str(r["id"])), dict(r))
    return list(seen.values())


def current(store: MarkStore, check: str, submission: str) -> Mark | None:
    p = check_print(check, submission)
    return store.resolve(p.slot, p.key, p.texts, OVERRIDE).mark


def record(store: MarkStore, row: Mapping[str, str], points: float | None, reason: str, who: str) -> Mark:
    """Record the TA's score for the check of ``row`` (None with a reason: back to the autograder's)."""
    p = check_print(str(row["id"]), str(row["submission"]))
    store.remember([p])
    return store.record([Mark(p.slot, p.fingerprint, points, reason, who, now(), SOURCE, OVERRIDE)])[0]


def _float(text: object) -> float:
    try:
        return float(str(text))
    except ValueError:
        return 0.0


def read_queue(out: Path) -> list[dict[str, str]]:
    try:  # the one CSV reader: undoes the quote the writer puts before a formula-like cell
        return read_dicts((Path(out) / REVIEW_QUEUE).read_text(encoding="utf-8-sig"))[1]
    except (OSError, UnicodeDecodeError, csv.Error):
        return []


def overrides(out: Path, store: MarkStore, code_checks: Iterable[str]) -> dict[str, list[CheckOverride]]:
    """Submission -> the TA's overrides of its code checks on the review list."""
    result: dict[str, list[CheckOverride]] = {}
    for r in code_rows(read_queue(out), code_checks):
        m = current(store, r["id"], r["submission"])
        if m is None or m.points is None:
            continue
        result.setdefault(r["submission"], []).append(
            CheckOverride(r["id"], r["submission"], _float(r.get("score")), m.points, m.comment, m.who, m.when))
    return result
