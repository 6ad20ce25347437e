"""grades.csv: one row per submission, one column per check, the total; for spreadsheets."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from grader.classroom.gradebook import Column, GradedSubmission
from grader.common.csvfile import csv_text

FIXED_COLUMNS = ("submission", "names", "sids", "emails", "status", "total", "max_total")
TRAILING_COLUMNS = ("seconds", "seed", "message")
#: Several submitters (a group submission) are joined with this in one cell.
JOIN = "; "


def rows(results: Sequence[GradedSubmission], columns: Sequence[Column]) -> tuple[list[str], list[list[str]]]:
    """(header, rows): the check columns in the rubric's order, then any leaderboard values."""
    boards = sorted({name for r in results for name in r.leaderboard})
    header = [*FIXED_COLUMNS, *(c.id for c in columns), *boards, *TRAILING_COLUMNS]
    table = []
    for r in results:
        scores = {c.id: c.score for c in r.report.checks}
        sub = r.submission
        table.append([
            sub.key, JOIN.join(sub.names), JOIN.join(sub.sids), JOIN.join(sub.emails), r.status,
            f"{r.report.score:g}", f"{sum(c.points for c in columns):g}",
            *(f"{scores[s.id]:g}" if s.id in scores else "" for s in columns),
            *(f"{r.leaderboard[b]:g}" if b in r.leaderboard else "" for b in boards),
            f"{r.report.seconds:.1f}", str(r.report.seed), " ".join(r.message.split())[:500],
        ])
    return header, table


def write_csv(results: Sequence[GradedSubmission], columns: Sequence[Column], path: Path) -> Path:
    header, table = rows(results, columns)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        f.write(csv_text(header, table))  # the one writer: no cell of student text starts a formula
    return path
