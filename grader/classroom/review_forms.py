"""What the review server reads besides the marks: the forms it is posted (a field, several, the
page to go back to, the points field), the rubric, and the assignment's question texts and
reference answers (through its registry)."""

from __future__ import annotations

import csv
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from grader import assignment
from grader.common import paths
from grader.common.csvfile import read_dicts
from grader.run.rubric import Part, Rubric, RubricError, load_rubric


class ReviewError(ValueError):
    """What a posted mark got wrong, said on the page."""


def review_queue(path: Path) -> list[dict[str, str]]:
    try:  # the one CSV reader: undoes the quote the writer puts before a formula-like cell
        return read_dicts(path.read_text(encoding="utf-8-sig"))[1]
    except (OSError, UnicodeDecodeError, csv.Error):
        return []


def stat(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except OSError:
        return None


def one(form: Mapping[str, str | list[str]], name: str) -> str:
    """A form's field (the last, when it was sent several times)."""
    value = form.get(name, "")
    if isinstance(value, list):
        value = value[-1] if value else ""
    return value.strip()


def many(form: Mapping[str, str | list[str]], name: str) -> list[str]:
    value = form.get(name, [])
    return [v for v in ([value] if isinstance(value, str) else value) if v.strip()]


def back_to(form: Mapping[str, str | list[str]]) -> str:
    back = one(form, "back")
    return back if back.startswith("/q/") else "/"


def points_field(text: str, g: Mapping[str, Any], *, allow_negative: bool) -> float | None:
    """The points field: the group's points, or an adjustment added to rubric items (then it may be negative)."""
    if not text:
        return None
    try:
        points = float(text.replace(",", "."))
    except ValueError:
        raise ReviewError(f"points must be a number; got {text!r}") from None
    most = float(g["max_points"])
    if not (-most if allow_negative else 0) <= points <= most:
        raise ReviewError(f"{g['slot']} is worth 0 to {most:g} points; got {points:g}")
    return points


def course_rubric() -> Rubric | None:
    try:
        return load_rubric()
    except (RubricError, OSError):
        return None


def part_of(rubric: Rubric | None, question: str) -> Part | None:
    return next((p for p in rubric.parts if p.id == question), None) if rubric else None


def question_text(question: str) -> str:
    try:
        return assignment.registry().question_text(question)
    except assignment.AssignmentError:
        return ""


def reference_answer(question: str) -> str:
    try:
        return assignment.registry().reference_answer(question, paths.REFERENCE_DIR)
    except assignment.AssignmentError:
        return ""
