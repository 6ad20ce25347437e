"""The written answers of a finished batch, read from its report.json files (nothing is regraded).

Each written question gives one :class:`Answer` per submission and item: the auto-graded share
(``item`` ""), the TA share of a question that also has an auto share (``item`` "ta"; for
TA-only questions the TA share is item ""), and 3(f)'s four sentences (items "i" to "iv", read
from the reading the grader recorded). A submission whose grading failed has no answers.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass
from pathlib import Path

from grader.run.rubric import Part, Rubric

SUBMISSIONS_DIR = "submissions"
REPORT_FILE = "report.json"
GRADES_FILE = "grades.csv"
PARSER_ERRORS = "parser_errors"
ROMANS = ("i", "ii", "iii", "iv")
TA_ITEM = "ta"


@dataclass(frozen=True)
class Answer:
    """One submission's answer to one item of a written question, as the batch recorded it."""

    question: str          # the rubric's id: "1b_i"
    item: str              # "" (the question), "ta" (its TA share), "i".."iv" (3(f) sentences)
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
        with open(out / GRADES_FILE, newline="", encoding="utf-8") as f:
            return {row["submission"]: row.get("names", "") for row in csv.DictReader(f)}
    except (OSError, KeyError, csv.Error):
        return {}


def submissions(out: Path) -> list[str]:
    """The submission keys of the batch in ``out``: grades.csv's order, else the folders'."""
    names = _names(out)
    if names:
        return list(names)
    folder = out / SUBMISSIONS_DIR
    return sorted(p.name for p in folder.iterdir() if (p / REPORT_FILE).is_file()) if folder.is_dir() else []


def _item_verdict(feedback: list[str], roman: str) -> tuple[float | None, float | None]:
    """3(f): the ✓ count of one sentence's line ("ii: type '...' ✓, incorrect ... ✗, correct ... ✓")."""
    for line in feedback:
        if line.startswith(f"{roman}: type "):
            return float(line.count("✓")), 3.0
    return 0.0, 3.0


def _parser_items(part: Part, key: str, names: str, check: dict) -> list[Answer]:
    written = check.get("written") or {}
    readings = {}
    for piece in str(written.get("read", "")).split(" | "):
        roman, _, rest = piece.partition(": ")
        if roman in ROMANS:
            readings[roman] = rest.strip()
    out = []
    for roman in ROMANS:
        text = readings.get(roman, "")
        score, most = _item_verdict(list(check.get("feedback", [])), roman) if text else (0.0, 3.0)
        out.append(Answer(part.id, roman, key, names, text, text, str(written.get("where", "")), score, most,
                          str(written.get("review", "")), checker=PARSER_ERRORS))
    return out


def answers_of(doc: dict, key: str, names: str, parts: list[Part]) -> list[Answer]:
    """Every written answer of one report.json."""
    checks = {c.get("id"): c for c in doc.get("checks", []) if isinstance(c, dict)}
    manual = {m.get("id"): m for m in doc.get("manual", []) if isinstance(m, dict)}
    out: list[Answer] = []
    for part in parts:
        check = checks.get(part.id)
        if part.auto > 0 and check is not None and check.get("kind") == "written":
            if part.checker == PARSER_ERRORS:
                out += _parser_items(part, key, names, check)
            else:
                w = check.get("written") or {}
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
