"""The written answers of a finished batch, read from its report.json files (nothing is regraded).

Each written question gives one :class:`Answer` per submission and item: the auto-graded share
(``item`` ""), the TA share of a question that also has an auto share (``item`` "ta"; for
TA-only questions the TA share is item ""), and the items of an answer the assignment grades as
several (its registry's ``answer_items``: 3(f)'s four sentences, "i" to "iv", read from the reading
the grader recorded). A submission whose grading failed has no answers.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass
from pathlib import Path

from grader import assignment
from grader.common.csvfile import read_dicts
from grader.run.rubric import Part, Rubric

SUBMISSIONS_DIR = "submissions"
REPORT_FILE = "report.json"
GRADES_FILE = "grades.csv"
TA_ITEM = "ta"


@dataclass(frozen=True)
class Answer:
    """One submission's answer to one item of a written question, as the batch recorded it."""

    question: str          # the rubric's id: "1b_i"
    item: str              # "" (the question), "ta" (its TA share), or one of its items ("i".."iv")
    submission: str        # the key of grades.csv
    names: str
    text: str              # the raw text read ("" when there is no answer)
    read: str = ""         # how the grader read it
    where: str = ""
    score: float | None = None
    max_score: float | None = None
    review: str = ""       # why a TA should look ("" when the grader was confident)
    feedback: tuple[str, ...] = ()
    checker: str = ""

    @property
    def slot(self) -> str:
        """The question and item as one name: "1d", "1d.ta", "3f.ii"."""
        return f"{self.question}.{self.item}" if self.item else self.question

    @property
    def verdict(self) -> str:
        return "" if self.score is None else f"{round(self.score, 2):g}/{self.max_score:g}"


def _names(out: Path) -> dict[str, str]:
    """Submission key -> the names of grades.csv (empty when there is no grades.csv)."""
    try:
        rows = read_dicts((out / GRADES_FILE).read_text(encoding="utf-8"))[1]
        return {row["submission"]: row.get("names", "") for row in rows}
    except (OSError, KeyError, UnicodeDecodeError, csv.Error):
        return {}


def submissions(out: Path) -> list[str]:
    """The submission keys of the batch in ``out``: grades.csv's order, else the folders'."""
    names = _names(out)
    if names:
        return list(names)
    folder = out / SUBMISSIONS_DIR
    return sorted(p.name for p in folder.iterdir() if (p / REPORT_FILE).is_file()) if folder.is_dir() else []


def answers_of(doc: dict, key: str, names: str, parts: list[Part]) -> list[Answer]:
    """Every written answer of one report.json."""
    checks = {c.get("id"): c for c in doc.get("checks", []) if isinstance(c, dict)}
    manual = {m.get("id"): m for m in doc.get("manual", []) if isinstance(m, dict)}
    out: list[Answer] = []
    for part in parts:
        check = checks.get(part.id)
        if part.auto > 0 and check is not None and check.get("kind") == "written":
            w = check.get("written") or {}
            items = assignment.registry().answer_items(part.checker or "", w, list(check.get("feedback", [])))
            if items is not None:   # an answer graded as several items (say, one per sentence)
                out += [Answer(part.id, item, key, names, text, text, str(w.get("where", "")), score, most,
                               str(w.get("review", "")), checker=part.checker or "") for item, text, score, most in items]
            else:
                out.append(Answer(part.id, "", key, names, str(w.get("raw", "")), str(w.get("read", "")),
                                  str(w.get("where", "")), float(check.get("score", 0)),
                                  float(check.get("max_score", 0)), str(w.get("review", "")),
                                  (*check.get("feedback", []), *w.get("why", [])), part.checker or ""))
        item = manual.get(part.id)
        if part.manual_points > 0 and item is not None:
            text = str(item.get("text", "")) if item.get("found") else ""
            text = re.sub(r"\n\[\.\.\. \d+ more characters in the writeup\]$", "", text)
            out.append(Answer(part.id, TA_ITEM if part.auto > 0 else "", key, names, text, "",
                              str(item.get("where", ""))))
    return out


def collect(out: Path, rubric: Rubric) -> tuple[list[Answer], list[dict], list[str]]:
    """(answers, review items, submission keys) of the finished batch in ``out``.

    A review item is a report's ``review`` entry with the submission's key and names added.
    """
    parts = [p for p in rubric.parts if p.kind == "written"]
    names = _names(out)
    keys = submissions(out)
    answers: list[Answer] = []
    reviews: list[dict] = []
    for key in keys:
        try:
            doc = json.loads((out / SUBMISSIONS_DIR / key / REPORT_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(doc, dict):
            continue
        answers += answers_of(doc, key, names.get(key, ""), parts)
        for item in doc.get("review", []) or []:
            if isinstance(item, dict):
                reviews.append({**item, "submission": key, "names": names.get(key, "")})
    return answers, reviews, keys
